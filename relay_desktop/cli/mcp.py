"""``relay-desktop mcp``: its options, kept apart from the server (relay_desktop/mcp/server.py) so that every other
command starts without importing the MCP SDK (most of a second)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from relay_desktop.agent.settings import AgentSettings
from relay_desktop.cli.options import whole
from relay_desktop.cli.phone_and_models import add_model_options, add_phone_options, models_from_args

__all__ = ["register"]


def register(commands: Any) -> None:
    mcp = commands.add_parser(
        "mcp", help="serve the phone and the agent to other agents (Model Context Protocol over stdio)",
        description="Speak the Model Context Protocol on stdin/stdout, for Claude Desktop, IDEs and agent "
                    "frameworks: tools to look at the phone, act on it, and run the agent on a task. Sensitive "
                    "actions are confirmed through the client (MCP elicitation).")
    add_phone_options(mcp)
    add_model_options(mcp)
    mcp.add_argument("--max-steps", type=whole(1, 500), default=30,
                     help="the agent's step limit for run_task (default 30)")
    mcp.add_argument("--no-mirror", action="store_true",
                     help="do not start the live mirror (scrcpy); screenshots then come over adb")
    mcp.add_argument("--no-routines", action="store_true",
                     help="run_task never replays a saved routine, even when the task matches one")
    mcp.set_defaults(command="mcp", handler=_serve)


async def _serve(args: argparse.Namespace) -> int:
    try:
        AgentSettings(max_steps=args.max_steps)
        models_from_args(args)            # a bad --model is said now, not on the first run_task
    except ValueError as exc:
        print(f"relay-desktop mcp: {exc}", file=sys.stderr)
        return 2
    from relay_desktop.mcp.server import build_server

    await build_server(args).run_stdio_async()
    return 0
