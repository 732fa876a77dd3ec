"""``relay-desktop routines list | show | save | run | delete | rename | versions | export | import``.

Every verb that prints takes ``--json``. ``run`` replays a routine on one phone or several at once (``--device``
repeated, ``--all-devices``), needs no model while the replay goes as recorded, and exits non-zero with one
clear line when the phone differs and no model is set up to take over.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from relay_desktop.routines.model import Parameter, Routine, RoutineError
from relay_desktop.routines.store import RoutineStore
from relay_desktop.runs.store import RunNotFound

__all__ = ["register"]

_VERBS = "list, show, save, run, delete, rename, versions, export, import"


def register(commands: Any) -> None:
    from relay_desktop.cli.phone_and_models import add_model_options

    routines = commands.add_parser(
        "routines", help="saved routines: solved tasks that run again without a model",
        description="A routine is a successful run kept so that it runs again without a model: each step's target "
                    "found by what it is, each effect checked, the task's values as parameters. Where the phone "
                    "differs, the agent takes over and its fix becomes the routine's next version.")
    sub = routines.add_subparsers(title="what", metavar="ACTION", dest="routines_action")
    listing = sub.add_parser("list", help="every saved routine")
    listing.add_argument("--json", action="store_true", help="print JSON")
    show = sub.add_parser("show", help="one routine: its parameters and steps")
    show.add_argument("name")
    show.add_argument("--version", type=int, help="an older version (see `versions`)")
    show.add_argument("--json", action="store_true", help="print JSON (parameters with their names and defaults)")
    save = sub.add_parser("save", help="save a successful run as a routine (or as a new version of one)")
    save.add_argument("run_id", metavar="RUN_ID", help="the run's id, or any unique start of it (see `runs list`)")
    save.add_argument("--name", required=True, help="the routine's name")
    save.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                      help="make this value of the task a parameter (besides the ones found); repeatable")
    save.add_argument("--no-params", action="store_true", help="keep every value as it was: no parameters")
    save.add_argument("--no-confirm", action="store_true",
                      help="do not ask before send, pay, delete or install when this routine runs")
    save.add_argument("--json", action="store_true", help="print JSON")
    run = sub.add_parser("run", help="replay a routine on a phone (or several at once)")
    run.add_argument("name")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="a parameter's value for this run (the others take their defaults); repeatable")
    where = run.add_mutually_exclusive_group()
    where.add_argument("--device", action="append", default=[], metavar="SERIAL",
                       help="the phone to run it on; repeat for several at once (default: the only one attached)")
    where.add_argument("--sim", action="store_true", help="on a built-in virtual phone")
    where.add_argument("--all-devices", action="store_true", help="on every phone adb sees, all at once")
    add_model_options(run)
    run.add_argument("--max-steps", type=int, default=50, help="give up after this many steps (default 50)")
    run.add_argument("--yes", action="store_true",
                     help="allow sensitive actions (send, pay, delete, install) without asking")
    run.add_argument("--no-mirror", action="store_true", help="do not start the live mirror (scrcpy)")
    run.add_argument("--json", action="store_true", help="print events as JSON lines instead of a readable log")
    delete = sub.add_parser("delete", help="delete a routine and all its versions")
    delete.add_argument("name")
    delete.add_argument("--json", action="store_true", help="print JSON")
    rename = sub.add_parser("rename", help="give a routine another name")
    rename.add_argument("name")
    rename.add_argument("new_name", metavar="NEW_NAME")
    rename.add_argument("--json", action="store_true", help="print JSON")
    versions = sub.add_parser("versions", help="every version a routine had (repairs keep the old ones)")
    versions.add_argument("name")
    versions.add_argument("--json", action="store_true", help="print JSON")
    export = sub.add_parser("export", help="write a routine as YAML a person can edit (to standard output)")
    export.add_argument("name")
    export.add_argument("--version", type=int, help="an older version")
    export.add_argument("-o", "--output", metavar="FILE.yaml", help="write to this file instead")
    load = sub.add_parser("import", help="read a routine from YAML (a new routine, or the next version of one)")
    load.add_argument("file", metavar="FILE", help="the YAML file ('-' reads standard input)")
    load.add_argument("--name", help="save it under this name instead of the one in the file")
    load.add_argument("--json", action="store_true", help="print JSON")
    routines.set_defaults(command="routines", handler=_run)


async def _run(args: argparse.Namespace) -> int:
    action = getattr(args, "routines_action", None) or "list"
    if action == "run":
        from relay_desktop.routines.run_command import run_routine

        return await run_routine(args)
    store = RoutineStore()
    try:
        handler = {"list": _list, "show": _show, "save": _save, "delete": _delete, "rename": _rename,
                   "versions": _versions, "export": _export, "import": _import}[action]
        return await asyncio.to_thread(handler, store, args)
    except BrokenPipeError:  # `relay-desktop routines list | head`
        return 0
    except (RoutineError, RunNotFound) as exc:
        print(f"relay-desktop routines {action}: {exc}", file=sys.stderr)
        return 1
    except (OSError, sqlite3.Error) as exc:
        print(f"relay-desktop routines {action}: cannot read the routines in {store.runs.root}: {exc}",
              file=sys.stderr)
        return 1
    finally:
        store.close()


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=1))


def _brief(routine: Routine) -> dict[str, Any]:
    return {"name": routine.name, "version": routine.version, "task": routine.task,
            "parameters": [{"name": p.name, "default": p.default} for p in routine.parameters],
            "steps": len(routine.steps), "confirm": routine.confirm}


def _list(store: RoutineStore, args: argparse.Namespace) -> int:
    routines = store.list()
    if args.json:
        _print_json([r.to_json() for r in routines])
        return 0
    if not routines:
        print("No routines yet. Save a successful run as one: relay-desktop routines save RUN_ID --name NAME "
              "(run ids: relay-desktop runs list)")
        return 0
    print(f"{'name':24} {'ver':>3} {'steps':>5} {'runs':>4}  {'parameters':34} task")
    for r in routines:
        params = ", ".join(f"{p.name}={p.default}" for p in r.parameters) or "–"
        params = params if len(params) <= 34 else params[:33] + "…"
        print(f"{r.name[:24]:24} {r.version:3d} {r.steps:5d} {r.runs:4d}  {params:34} {r.task}")
    return 0


def _show(store: RoutineStore, args: argparse.Namespace) -> int:
    from relay_desktop.routines.codec import routine_to_dict
    from relay_desktop.routines.replay import describe_step

    routine = store.get(args.name, args.version)
    if args.json:
        _print_json(routine_to_dict(routine))
        return 0
    print(f"{routine.name} (version {routine.version}): {routine.task}")
    if routine.parameters:
        print("  parameters: " + ", ".join(f"{p.name} (default {p.default!r})" for p in routine.parameters))
    print(f"  {'asks' if routine.confirm else 'does not ask'} before send, pay, delete and install")
    if routine.source_run:
        print(f"  learnt from run {routine.source_run}" + (f"; {routine.note}" if routine.note else ""))
    bound = routine.bind()
    for number, step in enumerate(bound.steps, 1):
        print(f"  {number:3d}. {describe_step(step)}")
    if bound.end:
        print(f"  ends on: {bound.end.get('title') or bound.end.get('app')}")
    return 0


def _save(store: RoutineStore, args: argparse.Namespace) -> int:
    from relay_desktop.routines.learn import detect_parameters, learn_routine, records_from_steps
    from relay_desktop.routines.run_command import parse_values

    record = store.runs.get_run(args.run_id)
    summary = record.summary
    if summary.outcome != "success":
        raise RoutineError(f"run {summary.id} did not succeed ({summary.outcome}: {summary.reason}); only a "
                           "successful run can become a routine")
    records = records_from_steps(record.steps)
    given = [Parameter(name, value) for name, value in parse_values(args.param).items()]
    if args.no_params:
        parameters: list[Parameter] = given
    else:
        detected = detect_parameters(summary.task, [r for r in records if r.ok])
        named = {p.name for p in given}
        values = {p.default.casefold() for p in given}
        parameters = given + [p for p in detected if p.name not in named and p.default.casefold() not in values]
    routine = learn_routine(args.name, summary.task, records, source_run=summary.id, parameters=parameters,
                            confirm=not args.no_confirm)
    saved = store.save(routine)
    if args.json:
        _print_json(_brief(saved))
        return 0
    kept = f" (version {saved.version - 1} is kept)" if saved.version > 1 else ""
    print(f"Saved the routine {saved.name!r}, version {saved.version}{kept}: {len(saved.steps)} steps.")
    print(f"  task: {saved.task}")
    if saved.parameters:
        print("  parameters: " + ", ".join(f"{p.name}={p.default!r}" for p in saved.parameters))
        example = " ".join(f'--param {p.name}="…"' for p in saved.parameters)
        print(f"  run it with other values: relay-desktop routines run {_quoted(saved.name)} {example}")
    else:
        print(f"  run it: relay-desktop routines run {_quoted(saved.name)}")
    return 0


def _quoted(name: str) -> str:
    return name if name.replace("-", "").replace("_", "").isalnum() else repr(name)


def _delete(store: RoutineStore, args: argparse.Namespace) -> int:
    name = store.delete(args.name)
    if args.json:
        _print_json({"deleted": name})
    else:
        print(f"Deleted the routine {name!r} and its versions.")
    return 0


def _rename(store: RoutineStore, args: argparse.Namespace) -> int:
    new = store.rename(args.name, args.new_name)
    if args.json:
        _print_json({"renamed": args.name, "name": new})
    else:
        print(f"Renamed {args.name!r} to {new!r}.")
    return 0


def _versions(store: RoutineStore, args: argparse.Namespace) -> int:
    versions = store.versions(args.name)
    if args.json:
        _print_json([v.to_json() for v in versions])
        return 0
    for v in versions:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(v.created_at)) if v.created_at else "?"
        mark = "*" if v.current else " "
        print(f"{mark} {v.version:3d}  {when}  {v.steps:3d} steps  {v.note or ('run ' + v.source_run)}")
    return 0


def _export(store: RoutineStore, args: argparse.Namespace) -> int:
    from relay_desktop.routines.yaml_format import to_yaml

    text = to_yaml(store.get(args.name, args.version))
    if args.output:
        out = Path(args.output)
        if not out.parent.is_dir():
            raise RoutineError(f"cannot write {out}: the folder {out.parent} does not exist")
        out.write_text(text, encoding="utf-8")
        print(out)
    else:
        sys.stdout.write(text)
    return 0


def _import(store: RoutineStore, args: argparse.Namespace) -> int:
    from relay_desktop.routines.yaml_format import from_yaml

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RoutineError(f"cannot read {args.file}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        routine = from_yaml(text, name=args.name)
    except RoutineError as exc:
        raise RoutineError(f"{args.file}: {exc}") from None
    saved = store.save(routine)
    if args.json:
        _print_json(_brief(saved))
    else:
        kept = f" (version {saved.version - 1} is kept)" if saved.version > 1 else ""
        print(f"Imported the routine {saved.name!r} as version {saved.version}{kept}: {len(saved.steps)} steps.")
    return 0
