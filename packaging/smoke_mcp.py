"""Part of packaging/smoke.sh: the bundle serves MCP over stdio, to the official SDK's client.

The MCP SDK is imported only when `relay-desktop mcp` runs, so `--version` cannot show that a part of it was
left out of the bundle; this starts the bundle's server on the virtual phone, lists its tools and reads the
screen (the element list and a picture), as Claude Desktop would.

    python packaging/smoke_mcp.py dist/relay-desktop/relay-desktop
"""

from __future__ import annotations

import asyncio
import os
import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TIMEOUT = 60.0   # seconds, for each request


async def check(app: str) -> None:
    params = StdioServerParameters(command=app, args=["mcp", "--sim", "--no-mirror"], env=dict(os.environ))
    async with stdio_client(params) as (read, write), \
            ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        missing = {"list_devices", "screen", "run_task", "stop_task", "tap", "type_text", "launch_app"} - tools
        if missing:
            raise SystemExit(f"the bundle's MCP server lacks the tools {sorted(missing)}")
        result = await session.call_tool("screen", {})
        if result.is_error:
            raise SystemExit(f"screen failed: {result.content}")
        kinds = {content.type for content in result.content}
        text = " ".join(getattr(content, "text", "") for content in result.content)
        if kinds != {"text", "image"} or "Settings" not in text:
            raise SystemExit(f"screen gave {sorted(kinds)}: {text[:200]}")
        print(f"ok   mcp: {len(tools)} tools; screen gave the element list and a picture")


if __name__ == "__main__":
    asyncio.run(asyncio.wait_for(check(sys.argv[1]), 120))
