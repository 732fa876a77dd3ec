"""``relay-desktop secrets set NAME | list | delete NAME``: the secrets the agent may type without seeing them.

A value is never an argument (it would stay in the shell's history): ``set`` asks for it without echo on a
terminal, or reads one line from standard input (``printf %s "$PIN" | relay-desktop secrets set bank_pin``).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from typing import Any

__all__ = ["register"]


def register(commands: Any) -> None:
    secrets = commands.add_parser(
        "secrets", help="secrets the agent may type without seeing them (a PIN, a password)",
        description="Secrets are saved in the OS keyring under a name; the model is told the names only and types "
                    "one with type(secret=NAME), whose value goes to the phone alone. RELAY_SECRET_<NAME> in the "
                    "environment gives one for a single process.")
    sub = secrets.add_subparsers(title="what", metavar="ACTION", dest="secrets_action")
    put = sub.add_parser("set", help="save a secret (asked for without echo, or read from standard input)")
    put.add_argument("name", help="its name: lower-case letters, digits and _ (bank_pin)")
    listing = sub.add_parser("list", help="the secrets' names and where each comes from (never a value)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    delete = sub.add_parser("delete", help="forget a secret saved in the keyring")
    delete.add_argument("name")
    secrets.set_defaults(command="secrets", handler=_run)


def _read_value(name: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(f"Value of the secret {name} (not shown): ")
    return sys.stdin.readline().rstrip("\r\n")


async def _run(args: argparse.Namespace) -> int:
    from relay_desktop.user_secrets import SecretError, SecretStore, check_name

    action = getattr(args, "secrets_action", None) or "list"
    store = SecretStore()
    try:
        if action == "list":
            names = await store.anames()
            if getattr(args, "json", False):
                print(json.dumps([n.to_json() for n in names]))
            elif not names:
                print("No secrets yet. Save one with: relay-desktop secrets set NAME")
                print(f"  ({await asyncio.to_thread(store.status)})")
            else:
                for n in names:
                    print(f"{n.name:24} {n.source}")
            return 0
        name = check_name(args.name)
        if action == "set":
            value = await asyncio.to_thread(_read_value, name)
            await asyncio.to_thread(store.set, name, value)
            print(f"Saved the secret {name}. The agent types it with type(secret={name}); models never see it.")
            return 0
        await asyncio.to_thread(store.delete, name)
        print(f"Deleted the secret {name}.")
        return 0
    except SecretError as exc:
        print(f"relay-desktop secrets {action}: {exc}", file=sys.stderr)
        return 1
    except (EOFError, KeyboardInterrupt):
        print(f"relay-desktop secrets {action}: no value given; nothing saved", file=sys.stderr)
        return 1
