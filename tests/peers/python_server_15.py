"""A server built on the official Python SDK (mcp 2.x), for chapter 15's
host (tests/peers/host-15.sh). Its tools ask back the way each era asks:
in 2025-11-25 a request on the connection (ctx.elicit, create_message);
in 2026-07-28 an input-required result, answered by the host's retry. A
third tool reports progress, adds a tool and says the list changed.

Run on stdio: python python_server_15.py
"""

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import SamplingMessage, TextContent
from mcp_types import InputRequiredResult

mcp = MCPServer("python-sdk-asking")
MODERN = "2026-07-28"
FORM = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean"}},
    "required": ["confirm"],
}


class Confirm(BaseModel):
    confirm: bool


def answered(ctx: Context, key: str) -> dict | None:
    """The host's answer to input request `key`, on a retry (2026-07-28)."""
    answer = (ctx.input_responses or {}).get(key)
    if answer is None:
        return None
    return answer.model_dump(by_alias=True) if hasattr(answer, "model_dump") else answer


def ask(key: str, method: str, params: dict) -> InputRequiredResult:
    return InputRequiredResult.model_validate(
        {"inputRequests": {key: {"method": method, "params": params}}, "requestState": "round-1"}
    )


@mcp.tool()
async def publish(draft: str, ctx: Context):
    """Publishes a draft once the user confirms it."""
    if ctx.protocol_version == MODERN:
        answer = answered(ctx, "confirm")
        if answer is None:
            return ask("confirm", "elicitation/create", {"message": f"Publish {draft}?", "requestedSchema": FORM})
        action, content = answer.get("action"), answer.get("content") or {}
    else:
        result = await ctx.elicit(f"Publish {draft}?", Confirm)
        action, content = result.action, ({"confirm": result.data.confirm} if result.data else {})
    if action == "accept" and content.get("confirm"):
        return f"Published {draft}."
    return f"Not published: {action}."


@mcp.tool()
async def summarize(text: str, ctx: Context):
    """Summarizes a text with the client's model."""
    prompt = f"Summarize: {text}"
    if ctx.protocol_version == MODERN:
        answer = answered(ctx, "summary")
        if answer is None:
            message = {"role": "user", "content": {"type": "text", "text": prompt}}
            return ask("summary", "sampling/createMessage", {"messages": [message], "maxTokens": 100})
        return f"Summary: {answer['content']['text']}"
    reply = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=100,
    )
    return f"Summary: {reply.content.text}"


async def shrink(text: str) -> str:
    """Shortens a text to its first word (added while the session runs)."""
    words = text.split()
    return words[0] if words else ""


@mcp.tool()
async def grow(ctx: Context) -> str:
    """Adds a tool, reporting progress on the way, and says the list changed."""
    await ctx.report_progress(1, 2, "adding shrink")
    mcp.add_tool(shrink)
    if ctx.protocol_version == MODERN:
        # 2026-07-28: told only on subscriptions/listen streams.
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()
    await ctx.report_progress(2, 2, "added")
    return "Added the tool shrink."


if __name__ == "__main__":
    mcp.run()
