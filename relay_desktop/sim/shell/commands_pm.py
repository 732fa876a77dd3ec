"""Activity and package managers: ``am``, ``pm``, ``monkey`` and ``cmd SERVICE``.

Texts follow Android 14's ActivityManagerShellCommand / PackageManagerShellCommand: ``Starting: Intent
{ cmp=com.android.settings/.Settings }``, ``Error type 3`` + ``Error: Activity class {...} does not
exist.`` (stderr, exit 1), ``package:NAME`` lines, ``Success``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from relay_desktop.sim.shell.base import (
    CommandContext,
    apk_path,
    command,
    full_class,
    java_exception,
    short_component,
)
from relay_desktop.sim.shell.commands_pm_install import pm_install

FLAG_ACTIVITY_NEW_TASK = 0x10000000
FLAG_RECEIVER_FROM_SHELL = 0x400000

# Intent options taking one value, or a key and a value; the rest are flags without values.
_ONE_VALUE = {"-a", "-d", "-t", "-i", "-c", "-n", "-p", "-f", "--esn", "--user", "-P", "--start-profiler",
              "--sampling", "--attach-agent", "--attach-agent-bind", "-R", "--receiver-permission", "--display",
              "--windowingMode", "--activityType", "--task", "--selector"}
_TWO_VALUES = {"-e", "--es", "--ez", "--ei", "--el", "--ef", "--ed", "--eu", "--ecn", "--eia", "--eial",
               "--ela", "--elal", "--efa", "--efal", "--esa", "--esal"}
_NO_VALUE_PREFIXES = ("--grant-", "--activity-", "--receiver-", "--include-", "--exclude-", "--debug-log",
                      "--task-overlay", "--lock-task", "--allow-background", "--splashscreen", "--dismiss-",
                      "--streaming", "--track-allocation", "--async")
_SENSITIVE_SCHEMES = ("tel", "sip", "sms", "smsto", "mailto", "nfc")


@dataclass
class Intent:
    action: str | None = None
    data: str | None = None
    mime: str | None = None
    categories: list[str] = field(default_factory=list)
    package: str | None = None
    component: tuple[str, str] | None = None  # (package, full class name)
    flags: int = 0
    extras: dict[str, str] = field(default_factory=dict)
    wait: bool = False
    stop_first: bool = False

    def __str__(self) -> str:
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append(f"cat=[{','.join(self.categories)}]")
        if self.data:
            parts.append(f"dat={safe_uri(self.data)}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        if self.flags:
            parts.append(f"flg=0x{self.flags:x}")
        if self.package:
            parts.append(f"pkg={self.package}")
        if self.component:
            parts.append(f"cmp={short_component(*self.component)}")
        if self.extras:
            parts.append("(has extras)")
        return "Intent { " + " ".join(parts) + (" }" if parts else "}")


def safe_uri(uri: str) -> str:
    """``Uri.toSafeString``: what am prints for an intent's data."""
    scheme, colon, rest = uri.partition(":")
    if not colon:
        return uri
    if scheme.lower() in _SENSITIVE_SCHEMES:
        return scheme + ":" + "".join(ch if ch in "-@." else "x" for ch in rest)
    if rest.startswith("//"):
        host = rest[2:].split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
        host = host.rsplit("@", 1)[-1]
        return f"{scheme}://{host}/..."
    return f"{scheme}:{rest.split('#', 1)[0]}"


class _BadOption(Exception):
    pass


def parse_intent(args: list[str]) -> Intent:
    intent = Intent()
    items = iter(args)
    for arg in items:
        if arg in _ONE_VALUE:
            value = next(items, "")
            if arg == "-a":
                intent.action = value
            elif arg == "-d":
                intent.data = value
            elif arg == "-t":
                intent.mime = value
            elif arg == "-c":
                intent.categories.append(value)
            elif arg == "-n":
                package, _, cls = value.partition("/")
                intent.component = (package, full_class(package, cls))
            elif arg == "-p":
                intent.package = value
            elif arg == "-f":
                intent.flags |= int(value, 0)
        elif arg in _TWO_VALUES:
            key, value = next(items, ""), next(items, "")
            intent.extras[key] = value
        elif arg == "-W":
            intent.wait = True
        elif arg == "-S":
            intent.stop_first = True
        elif arg in ("-D", "-N") or arg.startswith(_NO_VALUE_PREFIXES):
            continue
        elif arg.startswith("-"):
            raise _BadOption(arg)
        elif "/" in arg and ":" not in arg:
            package, _, cls = arg.partition("/")
            intent.component = (package, full_class(package, cls))
        elif ":" in arg:
            intent.data = arg
        else:
            intent.package = arg
    return intent


# --------------------------------------------------------------------------- am

@command("am")
async def am(ctx: CommandContext) -> int:
    return await run_am(ctx, ctx.argv[1:])


async def run_am(ctx: CommandContext, args: list[str]) -> int:
    if not args:
        await ctx.print("Activity manager (activity) commands:\n  help\n      Print this help text.\n"
                        "  start [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>] [-S] ... <INTENT>\n"
                        "      Start an Activity.\n  force-stop [--user <USER_ID> | all | current] <PACKAGE>\n"
                        "      Completely stop the given application package.\n"
                        "  broadcast [--user <USER_ID> | all | current] <INTENT>\n      Send a broadcast Intent.")
        return 0
    sub, rest = args[0], args[1:]
    phone = ctx.phone
    if sub in ("force-stop", "stop-app", "kill"):
        packages = [a for a in rest if not a.startswith("-") and a not in ("all", "current", "0")]
        for package in packages:
            if package in phone.apps:
                phone.force_stop(package)
        return 0
    if sub == "kill-all":
        return 0
    if sub not in ("start", "start-activity", "broadcast"):
        await ctx.print(f"Unknown command: {sub}")
        return 255
    try:
        intent = parse_intent(rest)
    except _BadOption as exc:
        await ctx.err(java_exception("activity", sub, "java.lang.IllegalArgumentException", f"Unknown option: {exc}",
                                     ("parseCommandArgs", "makeIntent", "runStartActivity", "onCommand")).encode())
        return 255
    if sub == "broadcast":
        intent.flags |= FLAG_RECEIVER_FROM_SHELL
        await ctx.print(f"Broadcasting: {intent}")
        await ctx.print("Broadcast completed: result=0")
        return 0
    return await _start_activity(ctx, intent)


async def _start_activity(ctx: CommandContext, intent: Intent) -> int:
    phone = ctx.phone
    target = intent.component[0] if intent.component else intent.package
    if intent.stop_first and target:
        await ctx.print(f"Stopping: {target}")
        if target in phone.apps:
            phone.force_stop(target)
    await ctx.print(f"Starting: {intent}")
    was_running = target in getattr(phone, "tasks", {})
    started_at = time.monotonic()
    report = ctx.out if intent.wait else ctx.err
    try:
        if intent.component is None and intent.package and not (intent.action or intent.data):
            started = phone.launch(intent.package)
        else:
            component = short_component(*intent.component) if intent.component else None
            started = phone.start_intent(intent.action, intent.data, component, list(intent.categories),
                                         dict(intent.extras))
    except LookupError:
        if intent.component is not None:
            package, cls = intent.component
            await report(f"Error type 3\nError: Activity class {{{package}/{cls}}} does not exist.\n".encode())
        else:
            intent.flags |= FLAG_ACTIVITY_NEW_TASK
            await report(f"Error: Activity not started, unable to resolve {intent}\n".encode())
        return 1
    if intent.wait:
        elapsed = int((time.monotonic() - started_at) * 1000)
        await ctx.print(f"Status: ok\nLaunchState: {'HOT' if was_running else 'COLD'}\nActivity: {started}\n"
                        f"TotalTime: {elapsed}\nWaitTime: {elapsed + 3}\nComplete")
    return 0


# --------------------------------------------------------------------------- monkey

@command("monkey")
async def monkey(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    for arg in args:
        await ctx.print(f"  bash arg: {arg}")
    if not args:
        return await ctx.fail("usage: monkey [-p ALLOWED_PACKAGE [-p ALLOWED_PACKAGE] ...]\n"
                              "              [-c MAIN_CATEGORY [-c MAIN_CATEGORY] ...]\n"
                              "              [--throttle MILLISEC] [-s SEED] [-v [-v] ...]\n"
                              "              COUNT", 255)
    await ctx.eprint("args: [" + ", ".join(args) + "]")
    for arg in args:
        await ctx.eprint(f' arg: "{arg}"')
    packages: list[str] = []
    count = 0
    items = iter(args)
    for arg in items:
        if arg in ("-p", "-c", "-s", "--throttle") or arg.startswith("--pct-"):
            value = next(items, "")
            await ctx.eprint(f'data="{value}"')
            if arg == "-p":
                packages.append(value)
        elif arg.isdigit():
            count = int(arg)
    phone = ctx.phone
    launchable = [p for p in packages if p in phone.apps and getattr(phone.apps[p], "in_launcher", True)]
    if not launchable:
        return await ctx.fail("** No activities found to run, monkey aborted.", 252)
    started = time.monotonic()
    if count:
        phone.launch(launchable[0])
    elapsed = int((time.monotonic() - started) * 1000) + 15
    await ctx.print(f"Events injected: {count}")
    await ctx.print(f"## Network stats: elapsed time={elapsed}ms (0ms mobile, 0ms wifi, {elapsed}ms not connected)")
    return 0


# --------------------------------------------------------------------------- pm

@command("pm")
async def pm(ctx: CommandContext) -> int:
    return await run_pm(ctx, ctx.argv[1:])


async def run_pm(ctx: CommandContext, args: list[str]) -> int:
    apps: dict[str, Any] = ctx.phone.apps
    if not args:
        await ctx.print("Package manager (package) commands:\n  help\n      Print this help text.\n"
                        "  path [--user USER_ID] PACKAGE\n  dump PACKAGE\n  list packages [-f] [-d] [-e] [-s] [-3]"
                        " [-i] [-l] [-u] [-U] [--show-versioncode] [--uid UID] [--user USER_ID] [FILTER]\n"
                        "  clear [--user USER_ID] PACKAGE\n  resolve-activity [--brief] INTENT")
        return 0
    sub, rest = args[0], [a for a in args[1:]]
    operands = _operands(rest)
    if sub == "list" and rest and rest[0] == "packages":
        return await _list_packages(ctx, rest[1:])
    if sub == "path":
        app = apps.get(operands[0]) if operands else None
        if app is None:
            return 1
        await ctx.print(f"package:{apk_path(app)}")
        return 0
    if sub == "clear":
        if not operands or operands[0] not in apps:
            return await ctx.fail("Failed", 1)
        ctx.phone.clear_data(operands[0])
        await ctx.print("Success")
        return 0
    if sub == "dump":
        from relay_desktop.sim.shell.commands_dumpsys import package_dump

        await ctx.out(package_dump(ctx.phone, operands[0] if operands else "").encode())
        return 0
    if sub == "query-activities":
        return await _query_activities(ctx, rest)
    if sub == "resolve-activity":
        intent = parse_intent([a for a in rest if a not in ("--brief", "--components")])
        package = intent.component[0] if intent.component else intent.package
        app = apps.get(package or "")
        if app is None:
            await ctx.print("No activity found")
            return 0
        if "--brief" in rest or "--components" in rest:
            if "--components" not in rest:
                await ctx.print("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true")
            await ctx.print(short_component(app.package, app.main_activity))
        else:
            await ctx.print(f"Activity #0:\n  priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 "
                            f"isDefault=true\n  ActivityInfo:\n    name={full_class(app.package, app.main_activity)}\n"
                            f"    packageName={app.package}\n    enabled=true exported=true directBootAware=false")
        return 0
    if sub == "uninstall":
        package = operands[0] if operands else ""
        uninstall = getattr(ctx.phone, "uninstall", None)
        if package in apps and uninstall is not None:
            uninstall(package)
            await ctx.print("Success")
            return 0
        await ctx.print("Failure [DELETE_FAILED_INTERNAL_ERROR]")
        return 1
    if sub == "install":
        return await pm_install(ctx, rest)
    if sub == "install-create":
        await ctx.print("Failure [INSTALL_FAILED_INVALID_APK: the virtual phone installs single APKs only]")
        return 1
    if sub in ("grant", "revoke", "enable", "disable", "disable-user", "set-home-activity", "trim-caches"):
        return 0
    await ctx.print(f"Unknown command: {sub}")
    return 255


def _operands(args: list[str]) -> list[str]:
    out: list[str] = []
    items = iter(args)
    for arg in items:
        if arg in ("--user", "--uid", "-i", "--install-reason"):
            next(items, None)
        elif not arg.startswith("-"):
            out.append(arg)
    return out


async def _list_packages(ctx: CommandContext, args: list[str]) -> int:
    flags: set[str] = set()
    items = iter(args)
    filters: list[str] = []
    for arg in items:
        if arg in ("--user", "--uid"):
            next(items, None)
        elif arg == "--show-versioncode":
            flags.add("V")
        elif arg.startswith("-") and len(arg) > 1 and not arg.startswith("--"):
            for letter in arg[1:]:
                if letter not in "fdesa3iluU":
                    await ctx.print(f"Error: Unknown option: -{letter}")
                    return 255
                flags.add(letter)
        elif arg.startswith("--"):
            await ctx.print(f"Error: Unknown option: {arg}")
            return 255
        else:
            filters.append(arg)
    for app in ctx.phone.apps.values():
        system = bool(getattr(app, "system", False))
        if ("s" in flags and not system) or ("3" in flags and system) or "d" in flags:
            continue
        if filters and filters[0] not in app.package:
            continue
        line = f"package:{apk_path(app)}={app.package}" if "f" in flags else f"package:{app.package}"
        if "V" in flags:
            line += f" versionCode:{app.version_code}"
        if "i" in flags:
            line += f"  installer={'null' if system else 'com.android.vending'}"
        if "U" in flags:
            line += f" uid:{1000 if system else 10000 + sum(app.package.encode()) % 900}"
        await ctx.print(line)
    return 0


async def _query_activities(ctx: CommandContext, args: list[str]) -> int:
    intent = parse_intent([a for a in args if a not in ("--brief", "--components")])
    wanted = intent.component[0] if intent.component else intent.package
    launcher = "android.intent.category.LAUNCHER" in intent.categories or not intent.categories
    apps = [app for app in ctx.phone.apps.values()
            if (wanted is None or app.package == wanted) and (not launcher or getattr(app, "in_launcher", True))]
    if not apps:
        await ctx.print("No activities found")
        return 0
    components = "--components" in args
    if not components:
        await ctx.print(f"{len(apps)} activities found:")
    for index, app in enumerate(apps):
        component = short_component(app.package, app.main_activity)
        if components:
            await ctx.print(component)
        elif "--brief" in args:
            await ctx.print(f"  Activity #{index}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 "
                            f"isDefault=false\n    {component}")
        else:
            name = full_class(app.package, app.main_activity)
            await ctx.print(f"  Activity #{index}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 "
                            f"isDefault=false\n    ActivityInfo:\n      name={name}\n      packageName={app.package}"
                            "\n      enabled=true exported=true")
    return 0
