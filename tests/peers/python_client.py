"""Checks a chapter's reference server with the official MCP Python SDK (mcp 2.x).

Usage: python_client.py SERVER_BINARY CHAPTER     e.g. python_client.py target/debug/ch03-add-tool-solution 03

It uses the SDK's high-level `Client` in its default mode, as an application
would: the client starts the server as a subprocess, probes `server/discover`,
gets "method not found" from our handshake-era server, and falls back to
`initialize` on the same process. Then it runs the chapter's checks.

Prints one line per check; on the first failure prints why and exits 1.
Run it with the interpreter from .peers/venv (tests/peers/install.sh makes it).
"""

import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

# How long to wait for any one answer, and for the whole run, in seconds.
READ_TIMEOUT = 10
TOTAL_TIMEOUT = 60


class CheckFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def ok(name, detail):
    print(f"ok  {name}: {detail}", flush=True)


def text_of(result):
    """The text of a tool result's content blocks, joined."""
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


# ---- Checks shared by every chapter -----------------------------------------


async def check_handshake(client):
    session = client.session
    # The default mode falls back to `initialize` when `server/discover` is unknown.
    expect(session.initialize_result is not None, "the client did not fall back to initialize")
    expect(
        client.protocol_version in ("2025-11-25", "2025-06-18"),
        f"unexpected protocol version {client.protocol_version!r}",
    )
    info = client.server_info
    ok("handshake", f"{info.name} {info.version}, protocol {client.protocol_version} (via initialize)")


# ---- Chapter 03: the add tool -----------------------------------------------


async def check_list_tools(client):
    result = await client.list_tools()
    names = [tool.name for tool in result.tools]
    expect(names == ["add"], f"expected exactly one tool named 'add', got {names}")
    schema = result.tools[0].input_schema
    expect(isinstance(schema, dict) and schema.get("type") == "object", f"add has no object inputSchema: {schema!r}")
    ok("list_tools", "add")


async def check_call_add(client):
    result = await client.call_tool("add", {"a": 2, "b": 3})
    expect(not result.is_error, f"add(2, 3) reported an error: {text_of(result)!r}")
    expect(result.structured_content == {"sum": 5}, f"structured content is {result.structured_content!r}")
    expect(text_of(result) == '{"sum":5}', f"text content is {text_of(result)!r}")
    ok("call_tool add(2, 3)", 'sum 5, text {"sum":5}')


async def check_call_add_bad_argument(client):
    # A bad argument is the tool's error, reported in the result (isError),
    # not a JSON-RPC error.
    result = await client.call_tool("add", {"a": "x", "b": 3})
    expect(result.is_error, f"add('x', 3) did not report isError; content {text_of(result)!r}")
    ok("call_tool add('x', 3)", f"isError: {text_of(result)}")


# The checks each chapter runs, in order, after the handshake. A later chapter
# adds its own list here (it may start from the previous chapter's).
CHECKS = {
    "03": [check_list_tools, check_call_add, check_call_add_bad_argument],
}


async def run(binary, checks):
    with anyio.fail_after(TOTAL_TIMEOUT):
        server = StdioServerParameters(command=binary)
        async with Client(server, read_timeout_seconds=READ_TIMEOUT) as client:
            await check_handshake(client)
            for check in checks:
                await check(client)


def describe(error):
    """One line for an exception, looking inside anyio's exception groups."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: python_client.py SERVER_BINARY CHAPTER")
    binary, chapter = sys.argv[1], sys.argv[2]
    if chapter not in CHECKS:
        sys.exit(f"python_client.py: no checks for chapter {chapter!r} (have: {', '.join(CHECKS)})")
    try:
        anyio.run(run, binary, CHECKS[chapter])
    except Exception as error:  # a failed check, a timeout, a crash in the SDK: all fail the run
        print(f"FAIL python client, chapter {chapter}: {describe(error)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
