"""``relay-desktop runs list | show ID | export ID``: the run history from the command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from relay_desktop.runs.export import export_html
from relay_desktop.runs.store import RunNotFound, RunStore

__all__ = ["register"]


def register(commands: Any) -> None:
    runs = commands.add_parser("runs", help="list, show and export past runs",
                               description="The run history: every run's steps, screenshots, prompts and results.")
    sub = runs.add_subparsers(title="what", metavar="ACTION", dest="runs_action")
    listing = sub.add_parser("list", help="the latest runs, newest first")
    listing.add_argument("--limit", type=int, default=30, help="how many (default 30)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    show = sub.add_parser("show", help="one run, step by step")
    show.add_argument("id", help="the run id, or any unique start of it")
    show.add_argument("--json", action="store_true", help="print JSON")
    export = sub.add_parser("export", help="write one self-contained HTML report")
    export.add_argument("id", help="the run id, or any unique start of it")
    export.add_argument("-o", "--output", metavar="OUT.html", help="where to write it (default: run-ID.html here)")
    runs.set_defaults(command="runs", handler=_run)


async def _run(args: argparse.Namespace) -> int:
    action = getattr(args, "runs_action", None) or "list"
    store = RunStore()
    try:
        if action == "list":
            return await asyncio.to_thread(_list, store, getattr(args, "limit", 30), getattr(args, "json", False))
        if action == "show":
            return await asyncio.to_thread(_show, store, args.id, args.json)
        return await asyncio.to_thread(_export, store, args.id, args.output)
    except BrokenPipeError:  # `relay-desktop runs list | head`: the reader had enough
        return 0
    except RunNotFound as exc:
        print(f"relay-desktop runs: {exc}", file=sys.stderr)
        return 1
    except (OSError, sqlite3.Error) as exc:
        print(f"relay-desktop runs: cannot read the history in {store.root}: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()


_DRIVER_SHORT = {"model": "model", "rule-based planner": "rules", "routine": "routine", "": "–",
                 "routine, then the model": "routine→model", "routine, then the rule-based planner": "routine→rules"}


def _short_driver(driver: str) -> str:
    return _DRIVER_SHORT.get(driver) or _DRIVER_SHORT.get(driver.split(" from step")[0], "model→rules")


def _list(store: RunStore, limit: int, as_json: bool) -> int:
    runs = store.list_runs(limit)
    if as_json:
        print(json.dumps([r.to_json() for r in runs], ensure_ascii=False, indent=1))
        return 0
    if not runs:
        print('No runs yet. Try: relay-desktop run "Turn on Wi-Fi" --sim')
        return 0
    print(f"{'id':24} {'started':16} {'outcome':11} {'by':13} {'steps':>5} {'time':>7} {'cost':>8}  task")
    for r in runs:
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started_at))
        task = r.task if len(r.task) <= 50 else r.task[:49] + "…"
        print(f"{r.id:24} {started:16} {r.outcome:11} {_short_driver(r.driver):13} "
              f"{r.steps:5d} {r.elapsed_s:6.1f}s ${r.cost_usd:7.4f}  {task}")
    return 0


def _show(store: RunStore, run_id: str, as_json: bool) -> int:
    record = store.get_run(run_id)
    s = record.summary
    if as_json:
        print(json.dumps({"run": s.to_json(), "settings": record.settings,
                          "steps": [{"step": st.step, "app": st.app, "actions": st.actions,
                                     "verifications": st.verifications, "thinking": st.thinking,
                                     "model": st.model} for st in record.steps], "log": record.log},
                         ensure_ascii=False, indent=1))
        return 0
    print(f"{s.id}: {s.task}")
    print(f"  {s.outcome} — {s.reason}")
    if s.answer:
        print(f"  Answer: {s.answer}")
    if s.driver:
        print(f"  driven by the {s.driver}")
    if record.settings.get("recording"):
        print(f"  recording: {record.settings['recording']}")
    print(f"  {s.steps} steps, {s.elapsed_s:.1f} s, {s.input_tokens + s.output_tokens:,} tokens, ${s.cost_usd:.4f}, "
          f"device {s.serial}")
    for step in record.steps:
        actions = "; ".join(f"{a.get('description', '')} {'✓' if a.get('ok') else '✗'}" for a in step.actions)
        failed = [a.get("message", "") for a in step.actions if a.get("ok") is False]
        line = f"  {step.step:3d}. {step.app:28} {actions or '(no action)'}" + (" (replayed)" if step.source ==
                                                                              "routine" else "")
        print(line + (f" — {failed[0]}" if failed else ""))
    return 0


def _export(store: RunStore, run_id: str, output: str | None) -> int:
    full = store.resolve(run_id)
    out = Path(output) if output else Path(f"run-{full}.html")
    if not out.parent.is_dir():
        print(f"relay-desktop runs export: cannot write {out}: the folder {out.parent} does not exist",
              file=sys.stderr)
        return 1
    try:
        export_html(store, full, out)
    except OSError as exc:           # the history was read; writing the report is what failed
        print(f"relay-desktop runs export: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(out)
    return 0
