"""`relay-desktop check-provider`: whether a provider's API keys and model answer."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from relay_desktop.cli.options import number

__all__ = ["register"]


def register(commands: Any) -> None:
    check = commands.add_parser(
        "check-provider", help="test an LLM provider's API key and model",
        description="Send a one-word request with each API key of a provider and say plainly whether it "
                    "answered: invalid key, no network, unknown model or rate limited. Keys come from the OS "
                    "keyring (service relay-desktop) or ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY / "
                    "GOOGLE_API_KEY. Exits with 0 only when the provider answered.")
    check.add_argument("provider", help="anthropic, openai or gemini; or any name for an OpenAI-compatible "
                                        "server given with --base-url (Ollama, vLLM, LM Studio, OpenRouter)")
    check.add_argument("--model", help="the model id to try (default: the provider's default fast model)")
    check.add_argument("--base-url", help="the server's URL, e.g. http://localhost:11434/v1 for Ollama")
    check.add_argument("--timeout", type=number(0.1, 600), default=20.0,
                       help="seconds to wait for an answer (default 20)")
    check.set_defaults(command="check-provider", handler=run)


async def run(args: argparse.Namespace) -> int:
    from relay_desktop.llm.check import check_provider
    from relay_desktop.llm.config import builtin_provider

    try:
        settings = builtin_provider(args.provider.strip().lower(), args.base_url)
    except ValueError as exc:
        print(f"relay-desktop check-provider: {exc}", file=sys.stderr)
        return 2
    if args.timeout <= 0:
        print("relay-desktop check-provider: --timeout must be positive", file=sys.stderr)
        return 2
    results = await check_provider(settings, args.model, timeout=args.timeout)
    for result in results:
        mark = "✓" if result.ok else "✗"
        key = f" ({result.key})" if result.key else ""
        verdict = "" if result.ok else f"{result.status}: "
        print(f"{mark} {result.provider}/{result.model}{key}: {verdict}{result.message}", flush=True)
    return 0 if results and all(r.ok for r in results) else 1
