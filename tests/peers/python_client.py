"""Checks a chapter's reference server with the official MCP Python SDK (mcp 2.x).

Usage: python_client.py SERVER_BINARY CHAPTER     e.g. python_client.py target/debug/ch03-add-tool-solution 03

It uses the SDK's high-level `Client` in its default mode, as an application
would: the client starts the server as a subprocess and probes
`server/discover`. A handshake-era server (chapters 3 and 5) answers "method
not found", and the client falls back to `initialize` on the same process;
chapter 12 answers the probe, and the client stays on 2026-07-28, with no
handshake at all. Chapter 12 is then checked once more with `mode="legacy"`,
the handshake, since it serves both eras. Then it runs the chapter's checks.
Chapter 14, whose tools ask the client's side, is checked in both eras over
stdio and over Streamable HTTP (the server started with --listen), with the
SDK's elicitation, sampling and roots callbacks answering from a script.

Prints one line per check; on the first failure prints why and exits 1.
Run it with the interpreter from .peers/venv (tests/peers/install.sh makes it).
"""

import base64
import os
import subprocess
import sys
import tempfile
import time

import anyio
from mcp import Client, MCPError, StdioServerParameters
from mcp.types import BlobResourceContents, EmbeddedResource, ResourceLink, TextContent, TextResourceContents
from mcp.types import CreateMessageResult, ElicitResult, ListRootsResult, Root

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


async def check_modern(client):
    session = client.session
    # The default mode keeps a server that answers `server/discover` modern:
    # no initialize, and every request carries the version in `_meta`.
    expect(session.discover_result is not None, "the client did not adopt the server/discover result")
    expect(session.initialize_result is None, "the client sent initialize to a modern server")
    expect(client.protocol_version == "2026-07-28", f"unexpected protocol version {client.protocol_version!r}")
    info = client.server_info
    expect(info is not None, "no serverInfo in the result _meta")
    ok("discover", f"{info.name} {info.version}, protocol {client.protocol_version} (no handshake)")


def is_modern(client):
    return client.protocol_version == "2026-07-28"


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


# ---- Chapter 05: the notes (resources, from chapter 04) and prompts ---------
#
# The server runs without --notes-dir, so it offers its nine built-in notes:
# eight text notes and one PNG, three to a page.

BACKOFF = "Retry a failed call after 100 ms, then 200 ms, then 400 ms, with random jitter; give up after five tries."


async def check_list_tools_05(client):
    result = await client.list_tools()
    names = [tool.name for tool in result.tools]
    expect(names == ["add", "search_notes"], f"expected the tools add and search_notes, got {names}")
    ok("list_tools", ", ".join(names))


async def check_list_resources_all_pages(client):
    # Walk the pages by hand, sending each nextCursor back as cursor.
    uris, cursor, pages = [], None, 0
    while True:
        result = await client.list_resources(cursor=cursor)
        pages += 1
        uris += [str(resource.uri) for resource in result.resources]
        cursor = result.next_cursor
        if cursor is None:
            break
        expect(pages < 10, f"resources/list still has a nextCursor after {pages} pages")
    expect(pages == 3, f"expected 3 pages of resources, got {pages}")
    expect(len(uris) == 9 and uris == sorted(uris), f"expected 9 resources sorted by URI, got {uris}")
    expect("note://backoff" in uris and "note://status.png" in uris, f"built-in notes missing from {uris}")
    ok("list_resources, every page", f"{len(uris)} resources in {pages} pages")


async def check_list_resource_templates(client):
    result = await client.list_resource_templates()
    templates = [template.uri_template for template in result.resource_templates]
    expect(templates == ["note://{key}"], f"expected the one template note://{{key}}, got {templates}")
    ok("list_resource_templates", templates[0])


async def check_read_text_resource(client):
    result = await client.read_resource("note://backoff")
    expect(len(result.contents) == 1, f"expected one item in contents, got {len(result.contents)}")
    item = result.contents[0]
    expect(isinstance(item, TextResourceContents), f"note://backoff is not text: {item!r}")
    expect(item.text == BACKOFF and item.mime_type == "text/plain", f"unexpected note://backoff: {item!r}")
    ok("read_resource note://backoff", f"text/plain, {len(item.text)} characters")


async def check_read_blob_resource(client):
    result = await client.read_resource("note://status.png")
    item = result.contents[0]
    expect(isinstance(item, BlobResourceContents), f"note://status.png is not a blob: {item!r}")
    png = base64.b64decode(item.blob, validate=True)
    expect(item.mime_type == "image/png" and png.startswith(b"\x89PNG\r\n\x1a\n"), "the blob is not a PNG")
    expect(len(png) == 69, f"expected 69 bytes of PNG, got {len(png)}")
    ok("read_resource note://status.png", f"image/png blob, {len(png)} bytes after base64 decoding")


async def check_read_missing_resource(client):
    try:
        await client.read_resource("note://kubernetes")
    except MCPError as error:
        # Resource not found: -32602 since 2026-07-28, -32002 before.
        want = -32602 if is_modern(client) else -32002
        expect(error.error.code == want, f"expected error {want}, got {error.error.code}")
        ok("read_resource note://kubernetes", f"error {error.error.code}: {error.error.message}")
        return
    raise CheckFailed("reading note://kubernetes did not fail")


async def check_search_notes(client):
    result = await client.call_tool("search_notes", {"query": "retry"})
    expect(not result.is_error, f"search_notes reported an error: {text_of(result)!r}")
    links = [str(block.uri) for block in result.content if isinstance(block, ResourceLink)]
    expect(links == ["note://backoff", "note://idempotency"], f"unexpected resource links {links}")
    ok("call_tool search_notes('retry')", f"links {', '.join(links)}")


async def check_list_prompts(client):
    result = await client.list_prompts()
    prompts = {prompt.name: prompt for prompt in result.prompts}
    expect(list(prompts) == ["explain_note", "incident_review"], f"unexpected prompts {list(prompts)}")
    required = {argument.name: argument.required for argument in prompts["explain_note"].arguments}
    expect(required == {"key": True, "audience": False}, f"unexpected explain_note arguments {required}")
    ok("list_prompts", ", ".join(prompts))


async def check_get_prompt(client):
    result = await client.get_prompt("explain_note", {"key": "backoff", "audience": "the support team"})
    expect(len(result.messages) == 2, f"expected 2 messages, got {len(result.messages)}")
    embedded, request = result.messages[0].content, result.messages[1].content
    expect(isinstance(embedded, EmbeddedResource), f"the first message is not an embedded resource: {embedded!r}")
    expect(str(embedded.resource.uri) == "note://backoff" and embedded.resource.text == BACKOFF, "wrong embedded note")
    expect(isinstance(request, TextContent) and "the support team" in request.text, f"audience not filled in: {request!r}")
    ok("get_prompt explain_note(key=backoff)", "an embedded note://backoff, then the request")


async def check_get_prompt_missing_argument(client):
    try:
        await client.get_prompt("explain_note", {})
    except MCPError as error:
        expect(error.error.code == -32602, f"expected error -32602, got {error.error.code}")
        ok("get_prompt explain_note()", f"error {error.error.code}: {error.error.message}")
        return
    raise CheckFailed("get_prompt without the required key did not fail")


# ---- Chapter 12: both eras, and drafts whose state travels as a handle -----


async def check_list_tools_12(client):
    result = await client.list_tools()
    names = [tool.name for tool in result.tools]
    want = ["add", "search_notes", "start_draft", "append_to_draft", "read_draft"]
    expect(names == want, f"expected the tools {want}, got {names}")
    ok("list_tools", ", ".join(names))


async def check_drafts(client):
    started = await client.call_tool("start_draft", {"title": "Retries"})
    expect(not started.is_error, f"start_draft failed: {text_of(started)!r}")
    handle = started.structured_content["draft"]
    change = {"draft": handle, "text": "Back off before each retry.", "operation_key": "python-1"}
    first = await client.call_tool("append_to_draft", change)
    retry = await client.call_tool("append_to_draft", change)
    expect(first.structured_content == {"draft": handle, "lines": 1}, f"first append: {first.structured_content!r}")
    expect(retry.structured_content == first.structured_content, f"the retry changed the draft: {retry.structured_content!r}")
    read = await client.call_tool("read_draft", {"draft": handle})
    lines = read.structured_content["lines"]
    expect(lines == ["Back off before each retry."], f"the draft holds {lines!r}")
    ok("call_tool start_draft, append_to_draft twice with one key", f"{handle} has 1 line")


# ---- Chapter 14: tools that ask (elicitation, sampling, roots) ------------
#
# The same checks run in both eras: in 2026-07-28 the SDK meets an
# input-required result and retries the call with the answers (its
# input-required driver); in 2025-11-25 the server sends its own request and
# the SDK answers it on the connection. Either way the callbacks below answer,
# and the checks look at what the server then did.

SUMMARY = "Retry with growing, jittered waits. Stop after five tries."
MODEL = "canned-model"


class ClientSide:
    """The client's side of the asking: what the user and the model answer
    next (a script the checks set), and what the server asked for."""

    def __init__(self, root):
        self.root = root  # the one folder the roots callback offers
        self.forms = []  # (action, content) for the next elicitations
        self.asked = []  # (method, params), in the order they came

    async def elicitation(self, context, params):
        self.asked.append(("elicitation/create", params))
        expect(self.forms, f"an elicitation nobody expected: {params.message!r}")
        action, content = self.forms.pop(0)
        return ElicitResult(action=action, content=content)

    async def sampling(self, context, params):
        self.asked.append(("sampling/createMessage", params))
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=SUMMARY), model=MODEL, stop_reason="endTurn"
        )

    async def roots(self, context):
        self.asked.append(("roots/list", None))
        return ListRootsResult(roots=[Root(uri=f"file://{self.root}", name="exports")])

    def callbacks(self):
        return {
            "elicitation_callback": self.elicitation,
            "sampling_callback": self.sampling,
            "list_roots_callback": self.roots,
        }

    def take_asked(self):
        asked, self.asked = self.asked, []
        return asked


async def check_list_tools_14(client, side):
    result = await client.list_tools()
    names = [tool.name for tool in result.tools]
    want = ["add", "search_notes", "start_draft", "append_to_draft", "read_draft"]
    want += ["publish_draft", "summarize_note", "export_draft"]
    expect(names == want, f"expected the tools {want}, got {names}")
    ok("list_tools", ", ".join(names))


async def new_draft(client, title, lines=()):
    started = await client.call_tool("start_draft", {"title": title})
    expect(not started.is_error, f"start_draft failed: {text_of(started)!r}")
    handle = started.structured_content["draft"]
    for number, line in enumerate(lines):
        change = {"draft": handle, "text": line, "operation_key": f"line-{number}"}
        appended = await client.call_tool("append_to_draft", change)
        expect(not appended.is_error, f"append_to_draft failed: {text_of(appended)!r}")
    return handle


async def publish(client, side, action, content=None):
    """publish_draft on a new draft, the form answered with `action`."""
    handle = await new_draft(client, "Retries")
    side.forms = [(action, content)]
    result = await client.call_tool("publish_draft", {"draft": handle})
    asked = side.take_asked()
    expect(not result.is_error, f"publish_draft ({action}) reported an error: {text_of(result)!r}")
    expect([method for method, _ in asked] == ["elicitation/create"], f"publish_draft asked {asked!r}")
    return handle, result, asked[0][1]


async def check_publish_accept(client, side):
    handle, result, form = await publish(client, side, "accept", {"visibility": "everyone", "notify": False})
    visibility = form.requested_schema["properties"]["visibility"]
    expect(visibility.get("default") == "team", f"the form's default audience is {visibility.get('default')!r}")
    choices = [choice["const"] for choice in visibility.get("oneOf", [])]
    expect(choices == ["team", "everyone"], f"the form offers {choices!r}")
    want = {"draft": handle, "published": True, "visibility": "everyone"}
    expect(result.structured_content == want, f"accepted: {result.structured_content!r}")
    ok("call_tool publish_draft, the form accepted", f"{handle} published for everyone")


async def check_publish_decline(client, side):
    handle, result, _ = await publish(client, side, "decline")
    want = {"draft": handle, "published": False}
    expect(result.structured_content == want, f"declined: {result.structured_content!r}")
    expect("declined" in text_of(result), f"declined: the text says {text_of(result)!r}")
    ok("call_tool publish_draft, the form declined", f"{handle} not published: {text_of(result)}")


async def check_publish_cancel(client, side):
    handle, result, _ = await publish(client, side, "cancel")
    want = {"draft": handle, "published": False}
    expect(result.structured_content == want, f"cancelled: {result.structured_content!r}")
    ok("call_tool publish_draft, the form dismissed", f"{handle} not published: {text_of(result)}")


async def check_summarize(client, side):
    result = await client.call_tool("summarize_note", {"uri": "note://backoff"})
    asked = side.take_asked()
    expect(not result.is_error, f"summarize_note reported an error: {text_of(result)!r}")
    expect([method for method, _ in asked] == ["sampling/createMessage"], f"summarize_note asked {asked!r}")
    params = asked[0][1]
    prompt = params.messages[0].content
    expect(isinstance(prompt, TextContent) and BACKOFF in prompt.text, f"the note is not in the prompt: {prompt!r}")
    hints = [hint.name for hint in (params.model_preferences.hints or [])] if params.model_preferences else []
    expect(hints == ["haiku"], f"modelPreferences hints {hints!r}")
    expect(params.tools is None, f"tools offered to the model: {params.tools!r}")
    want = {"uri": "note://backoff", "summary": SUMMARY, "model": MODEL}
    expect(result.structured_content == want, f"summary: {result.structured_content!r}")
    ok("call_tool summarize_note(note://backoff)", f"the client's model ({MODEL}) wrote the summary")


async def export(client, side, path):
    handle = await new_draft(client, "Retries", ["Back off before each retry."])
    result = await client.call_tool("export_draft", {"draft": handle, "path": path})
    asked = side.take_asked()
    expect([method for method, _ in asked] == ["roots/list"], f"export_draft asked {asked!r}")
    return handle, result


async def check_export_inside(client, side):
    path = os.path.join(side.root, "retries.md")
    handle, result = await export(client, side, path)
    expect(not result.is_error, f"export_draft inside the root failed: {text_of(result)!r}")
    with open(path, encoding="utf-8") as file:
        written = file.read()
    expect(written == "# Retries\nBack off before each retry.\n", f"{path} holds {written!r}")
    ok("call_tool export_draft inside the root", f"{handle} written to {os.path.basename(path)}")


async def check_export_outside(client, side):
    outside = os.path.join(os.path.dirname(side.root), "outside")
    escapes = {
        "by ..": os.path.join(side.root, "..", "outside", "escaped.md"),
        "by a symlink": os.path.join(side.root, "link", "escaped.md"),
    }
    for how, path in escapes.items():
        _, result = await export(client, side, path)
        expect(result.is_error, f"export_draft to {path} ({how}) was not refused: {text_of(result)!r}")
        expect(not os.listdir(outside), f"something was written outside the root: {os.listdir(outside)}")
        ok(f"call_tool export_draft out of the root {how}", f"refused: {text_of(result)}")


CHECKS_14 = [
    check_list_tools_14,
    check_publish_accept,
    check_publish_decline,
    check_publish_cancel,
    check_summarize,
    check_export_inside,
    check_export_outside,
]


# The checks each chapter runs, in order, after the handshake. A later chapter
# adds its own list here (it may start from the previous chapter's).
CHECKS = {
    "03": [check_list_tools, check_call_add, check_call_add_bad_argument],
    "05": [
        check_list_tools_05,
        check_call_add,
        check_search_notes,
        check_list_resources_all_pages,
        check_list_resource_templates,
        check_read_text_resource,
        check_read_blob_resource,
        check_read_missing_resource,
        check_list_prompts,
        check_get_prompt,
        check_get_prompt_missing_argument,
    ],
    "12": [
        check_list_tools_12,
        check_call_add,
        check_search_notes,
        check_list_resources_all_pages,
        check_list_resource_templates,
        check_read_text_resource,
        check_read_blob_resource,
        check_read_missing_resource,
        check_list_prompts,
        check_get_prompt,
        check_get_prompt_missing_argument,
        check_drafts,
    ],
}

# How the client connects, per chapter: the default mode ("auto"), and for a
# dual-era server also the handshake ("legacy"); with what the first check is.
MODES = {
    "03": [("auto", check_handshake)],
    "05": [("auto", check_handshake)],
    "12": [("auto", check_modern), ("legacy", check_handshake)],
}


async def run(binary, modes, checks):
    for mode, opening in modes:
        print(f"-- mode={mode!r}", flush=True)
        with anyio.fail_after(TOTAL_TIMEOUT):
            server = StdioServerParameters(command=binary)
            async with Client(server, mode=mode, read_timeout_seconds=READ_TIMEOUT) as client:
                await opening(client)
                for check in checks:
                    await check(client)


def folders(base):
    """A root to offer, and beside it a folder nothing may be written to,
    which a symlink inside the root points at."""
    root, outside = os.path.join(base, "root"), os.path.join(base, "outside")
    os.mkdir(root)
    os.mkdir(outside)
    os.symlink(outside, os.path.join(root, "link"))
    return root


class HttpServer:
    """The server started with --listen 127.0.0.1:0, its URL read from the
    first line it writes on stderr: listening on http://ADDR/mcp."""

    def __init__(self, binary, args=()):
        self.binary, self.args = binary, list(args)

    def __enter__(self):
        self.log = tempfile.TemporaryFile(mode="w+")
        command = [self.binary, "--listen", "127.0.0.1:0", *self.args]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        for _ in range(100):
            self.log.seek(0)
            first = self.log.readline()
            if first.startswith("listening on ") and first.endswith("\n"):
                return first.removeprefix("listening on ").strip()
            expect(self.process.poll() is None, f"the server exited: {first!r}")
            time.sleep(0.05)
        raise CheckFailed("the server did not say where it listens")

    def __exit__(self, *_):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


async def run_14(binary):
    """Chapter 14: each era over each transport, each with a new server."""
    for transport in ("stdio", "http"):
        for mode, opening in MODES["12"]:
            print(f"-- {transport}, mode={mode!r}", flush=True)
            with tempfile.TemporaryDirectory() as base, anyio.fail_after(TOTAL_TIMEOUT):
                side = ClientSide(folders(base))
                if transport == "stdio":
                    await checks_14(StdioServerParameters(command=binary), mode, opening, side)
                else:
                    with HttpServer(binary) as url:
                        await checks_14(url, mode, opening, side)


async def checks_14(server, mode, opening, side):
    options = {"mode": mode, "read_timeout_seconds": READ_TIMEOUT, **side.callbacks()}
    async with Client(server, **options) as client:
        await opening(client)
        for check in CHECKS_14:
            await check(client, side)


async def run_16(binary):
    """Chapter 16: progress, and a cancel that stops the work, in each era
    over each transport (the SDK cancels by sending notifications/cancelled
    on stdio, and on HTTP as its transport does it)."""
    for transport in ("stdio", "http"):
        for mode, opening in MODES["12"]:
            print(f"-- {transport}, mode={mode!r}", flush=True)
            with tempfile.TemporaryDirectory() as state, anyio.fail_after(TOTAL_TIMEOUT):
                args = ["--step", "0.3", "--state", state]
                if transport == "stdio":
                    await checks_16(StdioServerParameters(command=binary, args=args), mode, opening, state)
                else:
                    with HttpServer(binary, args) as url:
                        await checks_16(url, mode, opening, state)


async def checks_16(server, mode, opening, state):
    index = os.path.join(state, "notes-index.json")
    async with Client(server, mode=mode, read_timeout_seconds=READ_TIMEOUT) as client:
        await opening(client)
        seen = []

        async def progress(done, total, message):
            seen.append((done, total))

        with anyio.move_on_after(0.45):
            await client.call_tool("reindex_notes", {}, progress_callback=progress)
        expect(seen[:1] == [(1, 8)], f"progress before the cancel: {seen!r}")
        await anyio.sleep(8 * 0.3 + 0.5)
        expect(not os.path.exists(index), "the cancelled call wrote the index")
        ok("call_tool reindex_notes, cancelled after the first progress", "no index written")
        seen.clear()
        result = await client.call_tool("reindex_notes", {}, progress_callback=progress)
        expect(not result.is_error, f"reindex_notes failed: {text_of(result)!r}")
        expect([done for done, _ in seen] == list(range(1, 9)), f"progress: {seen!r}")
        expect(os.path.exists(index), "no index after the call")
        ok("call_tool reindex_notes with progress", f"{len(seen)} notifications, then the result")


def describe(error):
    """One line for an exception, looking inside anyio's exception groups."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: python_client.py SERVER_BINARY CHAPTER")
    binary, chapter = sys.argv[1], sys.argv[2]
    if chapter not in CHECKS and chapter not in ("14", "16", "17"):
        sys.exit(f"python_client.py: no checks for chapter {chapter!r} (have: {', '.join(CHECKS)}, 14, 16, 17)")
    try:
        if chapter == "14":
            anyio.run(run_14, binary)
        elif chapter in ("16", "17"):
            # Chapter 17 without the tasks extension (the SDK declares none)
            # is chapter 16: the same progress and cancel.
            anyio.run(run_16, binary)
        else:
            anyio.run(run, binary, MODES[chapter], CHECKS[chapter])
    except Exception as error:  # a failed check, a timeout, a crash in the SDK: all fail the run
        print(f"FAIL python client, chapter {chapter}: {describe(error)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
