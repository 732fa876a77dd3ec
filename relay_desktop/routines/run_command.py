"""``relay-desktop routines run NAME``: a routine replayed on one phone, or on several at once (group control).

Each phone gets its own run (its own mirror, history entry, log and replay), all going at once; with several, the
log lines say which phone they are about and a table at the end says which succeeded. No API key is needed
while the replay goes as recorded; where the phone differs and no model is set up, that phone's run ends with
an error saying so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from contextlib import AsyncExitStack
from typing import Any

from relay_desktop.routines.model import RoutineError
from relay_desktop.routines.store import RoutineStore

__all__ = ["parse_values", "run_routine"]


def parse_values(items: list[str]) -> dict[str, str]:
    """``--param NAME=VALUE`` options as a mapping."""
    values: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise RoutineError(f"--param {item!r}: write it as NAME=VALUE")
        values[name.strip()] = value
    return values


async def run_routine(args: argparse.Namespace) -> int:
    from relay_desktop.agent.settings import AgentSettings
    from relay_desktop.cli.drive import DriveOptions, drive
    from relay_desktop.cli.output import EventPrinter
    from relay_desktop.cli.phone_and_models import models_from_args
    from relay_desktop.llm.router import ModelRouter

    store = RoutineStore()
    try:
        routine = await asyncio.to_thread(store.get, args.name)
        bound = routine.bind(parse_values(args.param))
        llm, which = models_from_args(args)
        settings = AgentSettings(max_steps=args.max_steps, allow_fallback=args.allow_fallback)
    except (RoutineError, ValueError) as exc:
        print(f"relay-desktop routines run: {exc}", file=sys.stderr)
        store.close()
        return 2
    router = ModelRouter(llm) if llm is not None else None
    options = DriveOptions(settings, router, llm.to_dict() if llm is not None else {"planner": "none"},
                           approve_all=args.yes, mirror=not args.no_mirror)
    try:
        async with AsyncExitStack() as stack:
            phones = await _open_phones(args, stack)
            if not phones:
                return 1
            several = len(phones) > 1
            out_of = {name: EventPrinter(json_lines=args.json, phone=name if several else "")
                      for name, _, _ in phones}
            first = next(iter(out_of.values()))
            first.line(f'Routine "{bound.name}" (version {routine.version}): {bound.task}'
                       + (f" on {len(phones)} phones at once" if several else ""))
            first.line(f"Models (only if the phone differs from the recording): "
                       f"{which if llm is not None else 'none set up'}")
            results = await asyncio.gather(*(drive(device, service, bound.task, options, out_of[name],
                                                   routine=bound, routines=store)
                                             for name, device, service in phones), return_exceptions=True)
    finally:
        if router is not None:
            await router.aclose()
        store.close()
    return _report(phones, results, args.json)


async def _open_phones(args: argparse.Namespace, stack: AsyncExitStack) -> list[tuple[str, Any, Any]]:
    """(name, device, virtual phone service or None) of every phone to run on; [] after saying why not."""
    from relay_desktop.cli.phone_and_models import open_phone
    from relay_desktop.device.adb_server import AdbServer
    from relay_desktop.device.errors import DeviceError

    try:
        if args.sim:
            device, service = await stack.enter_async_context(open_phone(None, True))
            return [(device.serial, device, service)]
        serials: list[str | None] = list(args.device) or [None]
        if args.all_devices:
            adb = AdbServer()
            await adb.ensure_running()
            serials = [d.serial for d in await adb.devices() if d.state == "device"]
            if not serials:
                print("relay-desktop routines run: adb sees no phone that is ready (see `relay-desktop devices`)",
                      file=sys.stderr)
                return []
        phones = []
        for serial in dict.fromkeys(serials):
            device, service = await stack.enter_async_context(open_phone(serial, False))
            phones.append((device.serial, device, service))
        return phones
    except DeviceError as exc:
        print(f"relay-desktop routines run: {exc}" + ("" if args.device or args.all_devices
                                                        else " (or try --sim for the virtual phone)"),
              file=sys.stderr)
        return []


def _report(phones: list[tuple[str, Any, Any]], results: list[Any], as_json: bool) -> int:
    from relay_desktop.routines.service import replay_summary

    rows = []
    for (name, _, _), driven in zip(phones, results, strict=True):
        if isinstance(driven, BaseException) or driven is None:
            why = f"{type(driven).__name__}: {driven}" if isinstance(driven, BaseException) else "not run"
            rows.append({"phone": name, "outcome": "error", "reason": why, "run_id": "", "seconds": 0.0,
                         "replayed_steps": 0, "agent_steps": 0})
            continue
        result, summary = driven.result, replay_summary(driven.agent) or {}
        rows.append({"phone": name, "outcome": result.outcome, "reason": result.reason, "run_id": result.run_id,
                     "seconds": round(result.elapsed_s, 2), "replayed_steps": summary.get("replayed_steps", 0),
                     "agent_steps": summary.get("agent_steps", 0)})
    if len(rows) > 1:
        if as_json:
            print(json.dumps({"event": "group_finished", "results": rows}, ensure_ascii=False), flush=True)
        else:
            print(f"\n{'phone':24} {'result':9} {'replayed':>8} {'agent':>5} {'time':>7}  run", flush=True)
            for row in rows:
                print(f"{row['phone'][:24]:24} {row['outcome'][:9]:9} {row['replayed_steps']:8d} "
                      f"{row['agent_steps']:5d} {row['seconds']:6.1f}s  {row['run_id']}", flush=True)
            solved = sum(row["outcome"] == "success" for row in rows)
            print(f"{solved} of {len(rows)} phones succeeded.", flush=True)
    ok = all(row["outcome"] == "success" for row in rows)
    stopped = any(row["outcome"] == "stopped" for row in rows)
    return 0 if ok else 130 if stopped else 1
