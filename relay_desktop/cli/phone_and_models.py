"""How a run from the command line chooses its phone and its models, shared by `run`, `bench`, `mcp` and
`routines run`: ``--device``, ``--sim`` or the only phone attached; ``--provider``, ``--model ROLE=PROVIDER/MODEL``,
or the providers that have a key (none → the rule-based fallback planner); and the live mirror of the phone.
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from relay_desktop.cli.options import whole
from relay_desktop.llm.config import DEFAULT_MODELS, ROLES, LLMSettings, ModelRef, builtin_provider
from relay_desktop.llm.keys import KeyStore

__all__ = ["add_chaos_option", "add_model_options", "add_phone_options", "add_split_screen_option",
           "models_from_args", "open_phone", "start_mirror"]

BUILTIN = ("anthropic", "openai", "gemini")


def add_chaos_option(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    parser.add_argument("--chaos", type=whole(0), metavar="SEED",
                        help=f"{prefix}the virtual phone interrupts as a real one does (permission requests, "
                             "heads-up notifications, 'isn't responding', rating prompts, cookie banners, the "
                             "keyboard's suggestions, low battery), the same way each time for a SEED")


def add_split_screen_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-split-screen", action="store_true",
                        help="never put two apps side by side in split screen, even when the planning model "
                             "recommends it")


def add_phone_options(parser: argparse.ArgumentParser) -> None:
    """``--device SERIAL`` or ``--sim`` (else the only phone attached), as :func:`open_phone` takes them."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--device", metavar="SERIAL", help="the phone to use (default: the only one attached)")
    where.add_argument("--sim", action="store_true", help="use a built-in virtual phone")


def add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", action="append", default=[], metavar="NAME",
                        help="use this provider's default models (anthropic, openai, gemini; or a name for an "
                             "OpenAI-compatible server with --base-url); repeat for fallbacks")
    parser.add_argument("--base-url", help="URL of an OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter)")
    parser.add_argument("--model", action="append", default=[], metavar="[ROLE=]PROVIDER/MODEL",
                        help="the model for a role (fast, planning, verifier) or for all roles; repeatable")
    parser.add_argument("--fallback", action="store_true", help="use the rule-based planner, no model")
    parser.add_argument("--allow-fallback", action="store_true",
                        help="if the model cannot be used (no key, server down), let the rule-based planner carry "
                             "on instead of ending with an error")


def models_from_args(args: argparse.Namespace, keys: KeyStore | None = None) -> tuple[LLMSettings | None, str]:
    """The model settings the options ask for, or None for the fallback planner; plus a line saying which."""
    if args.fallback:
        return None, "rule-based fallback planner (--fallback)"
    keys = keys or KeyStore()
    names = [n.strip().lower() for n in args.provider]
    refs: dict[str, list[ModelRef]] = {}
    for item in args.model:
        role, _, spec = item.rpartition("=")
        if role and role not in ROLES:
            raise ValueError(f"--model {item}: the role must be one of {', '.join(ROLES)}")
        ref = ModelRef.parse(spec)
        for r in ([role] if role else ROLES):
            refs.setdefault(r, []).append(ref)
        if ref.provider not in names:
            names.append(ref.provider)
    if not names:
        names = [n for n in BUILTIN if keys.keys(n)]
        if not names:
            status = keys.status()  # a locked or missing keyring hides the keys saved in it: say so
            why = "see `relay-desktop check-provider`" if status.available else \
                f"{status.message} For this command: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY"
            return None, f"rule-based fallback planner (no API key found: {why})"
    # A name that is not a built-in provider is an OpenAI-compatible server at --base-url.
    providers = {n: builtin_provider(n, args.base_url if n not in BUILTIN or len(names) == 1 else None)
                 for n in names}
    roles = {r: tuple(refs.get(r) or [ModelRef(n, DEFAULT_MODELS[providers[n].kind][r])
                                     for n in names if n in BUILTIN]) for r in ROLES}
    settings = LLMSettings(providers, {r: chain for r, chain in roles.items() if chain})
    missing = [r for r in ROLES if not settings.chain(r)]
    if missing:
        raise ValueError(f"no model for the {', '.join(missing)} role: give --model ROLE=PROVIDER/MODEL")
    chains = ", ".join(f"{r} {settings.chain(r)[0]}" for r in ROLES)
    return settings, chains


@asynccontextmanager
async def open_phone(serial: str | None, use_sim: bool, chaos: int | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """(device, virtual phone service or None): a started virtual phone (in chaos mode with the seed ``chaos``),
    or the chosen real one."""
    from relay_desktop.device.adb_server import AdbServer

    adb = AdbServer()
    if use_sim:
        from relay_desktop.sim.chaos import enable
        from relay_desktop.sim.service import VirtualPhoneService

        service = VirtualPhoneService(port=0, adb=adb)
        if chaos is not None:
            enable(service.phone, chaos)
        await service.start()
        try:
            yield await adb.device(service.serial), service
        finally:
            await service.stop()
        return
    await adb.ensure_running()
    yield await adb.device(serial), None


async def start_mirror(device: Any, say: Callable[[str], None], built_in: bool = False) -> Any:
    """A running scrcpy mirror of the device (its first frame in), or None with the reason said."""
    from relay_desktop.mirror.client import MirrorClient, MirrorError
    from relay_desktop.mirror.provisioning import ProvisioningError, provide_server, virtual_phone_server

    shown: set[int] = set()

    def progress(done: int, total: int | None) -> None:
        quarter = done * 4 // total if total else 0
        if total and quarter not in shown:
            shown.add(quarter)
            say(f"Downloading the scrcpy server: {done * 100 // total}%")

    try:
        server = virtual_phone_server() if built_in else await provide_server(progress=progress)
        mirror = MirrorClient(device, server)
        await mirror.start()
    except (ProvisioningError, MirrorError) as exc:
        say(f"No live mirror: {exc}")
        return None
    await mirror.first_frame()
    return mirror
