"""Shell builtins and small toybox utilities: echo, test, cd, sleep, date, id, which, sh, toybox..."""

from __future__ import annotations

import asyncio
import inspect
import re
from datetime import UTC, datetime

from relay_desktop.sim.shell.base import (
    COMMANDS,
    SH,
    CommandContext,
    ShellExit,
    command,
    read_error,
)

# mksh builtins with no binary in /system/bin, so `which` does not find them.
SHELL_ONLY = {"cd", "export", "unset", "exit", "set", "command", "type", "alias", "eval", "exec", "."}

_ECHO_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                 "\\": "\\"}


def _echo_unescape(text: str) -> tuple[str, bool]:
    """mksh's echo/print escapes; the flag is False after ``\\c`` (stop, no newline)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 == len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "c":
            return "".join(out), False
        if nxt in _ECHO_ESCAPES:
            out.append(_ECHO_ESCAPES[nxt])
            i += 2
        elif nxt == "0":
            digits = re.match(r"[0-7]{0,3}", text[i + 2:i + 5])
            value = digits.group() if digits else ""
            out.append(chr(int(value or "0", 8)))
            i += 2 + len(value)
        else:
            out.append("\\")
            i += 1
    return "".join(out), True


@command("echo")
async def echo(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    newline, escapes = True, True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        flags = args.pop(0)
        newline = newline and "n" not in flags
        escapes = "E" not in flags if ("E" in flags or "e" in flags) else escapes
    text = " ".join(args)
    if escapes:
        text, keep_going = _echo_unescape(text)
        newline = newline and keep_going
    await ctx.out((text + ("\n" if newline else "")).encode())
    return 0


@command("true", ":")
async def true(ctx: CommandContext) -> int:
    return 0


@command("false")
async def false(ctx: CommandContext) -> int:
    return 1


@command("exit")
async def exit_(ctx: CommandContext) -> int:
    if len(ctx.argv) < 2:
        raise ShellExit(ctx.session.status)
    try:
        status = int(ctx.argv[1]) & 0xFF
    except ValueError:
        return await ctx.fail(f"{SH}: exit: {ctx.argv[1]}: bad number")
    raise ShellExit(status)


@command("sleep")
async def sleep(ctx: CommandContext) -> int:
    if len(ctx.argv) < 2:
        return await ctx.fail("sleep: Needs 1 argument (see \"sleep --help\")")
    total = 0.0
    for arg in ctx.argv[1:]:
        match = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)", arg)
        if match is None:
            return await ctx.fail(f"sleep: Not a number '{arg}'")
        total += float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]
    await asyncio.sleep(total)
    return 0


@command("pwd")
async def pwd(ctx: CommandContext) -> int:
    await ctx.print(ctx.session.cwd)
    return 0


@command("cd")
async def cd(ctx: CommandContext) -> int:
    target = ctx.argv[1] if len(ctx.argv) > 1 else ctx.session.vars.get("HOME", "/")
    path = ctx.path(target)
    problem = read_error(path)
    if problem is None and not ctx.fs.exists(path):
        problem = "No such file or directory"
    elif problem is None and not ctx.fs.is_dir(path):
        problem = "Not a directory"
    if problem:
        return await ctx.fail(f"{SH}: cd: {target}: {problem}", 2)
    ctx.session.cwd = path
    ctx.session.vars["PWD"] = path
    return 0


@command("export")
async def export(ctx: CommandContext) -> int:
    for arg in ctx.argv[1:]:
        name, eq, value = arg.partition("=")
        if eq:
            ctx.session.vars[name] = value
        ctx.session.exported.add(name)
    return 0


@command("unset")
async def unset(ctx: CommandContext) -> int:
    for name in ctx.argv[1:]:
        ctx.session.vars.pop(name, None)
        ctx.session.exported.discard(name)
    return 0


@command("env")
async def env(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    extra: dict[str, str] = {}
    while args and "=" in args[0] and not args[0].startswith("="):
        name, _, value = args.pop(0).partition("=")
        extra[name] = value
    if not args:
        for name, value in sorted((ctx.env | extra).items()):
            await ctx.print(f"{name}={value}")
        return 0
    return await run_argv(ctx, args, env=ctx.env | extra)


@command("nohup")
async def nohup(ctx: CommandContext) -> int:
    if len(ctx.argv) < 2:
        return await ctx.fail("nohup: Needs 1 argument (see \"nohup --help\")")
    return await run_argv(ctx, ctx.argv[1:])


async def run_argv(ctx: CommandContext, argv: list[str], env: dict[str, str] | None = None) -> int:
    """Run another command with this command's streams (for env, nohup, toybox, cmd...)."""
    func = COMMANDS.get(argv[0].rsplit("/", 1)[-1])
    if func is None:
        return await ctx.fail(f"{ctx.name}: {argv[0]}: No such file or directory", 127)
    child = CommandContext(argv=argv, env=ctx.env if env is None else env, phone=ctx.phone, stdin=ctx.stdin,
                           out=ctx.out, err=ctx.err, shell=ctx.shell, session=ctx.session)
    return await func(child)


@command("which")
async def which(ctx: CommandContext) -> int:
    status = 0
    for name in ctx.argv[1:]:
        if name in COMMANDS and name not in SHELL_ONLY:
            await ctx.print(f"/system/bin/{name}")
        else:
            status = 1
    return status


@command("id")
async def id_(ctx: CommandContext) -> int:
    await ctx.print("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),"
                    "1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),"
                    "3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) "
                    "context=u:r:shell:s0")
    return 0


@command("whoami")
async def whoami(ctx: CommandContext) -> int:
    await ctx.print("shell")
    return 0


@command("uname")
async def uname(ctx: CommandContext) -> int:
    host = ctx.phone.props.get("ro.product.device", "localhost")
    fields = {"s": "Linux", "n": host, "r": "5.15.137-android14-11-gd4b2c1a3e5f6", "m": "aarch64",
              "v": "#1 SMP PREEMPT Mon Jan 8 18:17:54 UTC 2024", "o": "Toybox"}
    flags = "".join(a[1:] for a in ctx.argv[1:] if a.startswith("-")) or "s"
    if "a" in flags:
        flags = "snrvmo"
    await ctx.print(" ".join(fields[f] for f in "snrvmo" if f in flags))
    return 0


@command("sh", "mksh")
async def sh(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    session = ctx.session.subshell()
    if args and args[0] == "-c":
        if len(args) < 2:
            return await ctx.fail(f"{SH}: -c: option requires an argument", 1)
        source, session.positional = args[1], args[3:]
    elif args:
        try:
            source = ctx.fs.read(ctx.path(args[0])).decode(errors="replace")
        except OSError:
            return await ctx.fail(f"{SH}: {args[0]}: No such file or directory", 127)
        session.positional = args[1:]
    else:
        source = (await ctx.read_stdin()).decode(errors="replace")
    try:
        return await ctx.shell.run_in(session, source, ctx.stdin, ctx.out, ctx.err)
    except ShellExit as exc:
        return exc.status


# --------------------------------------------------------------------------- test / [

def _test(ctx: CommandContext, args: list[str]) -> bool | None:
    """POSIX test with the common operators; None means a usage error."""
    if args and args[0] == "!":
        result = _test(ctx, args[1:])
        return None if result is None else not result
    if not args:
        return False
    if len(args) == 1:
        return args[0] != ""
    if len(args) == 2:
        op, operand = args
        if op in ("-z", "-n"):
            return (operand == "") == (op == "-z")
        path = ctx.path(operand)
        stat = ctx.fs.stat(path) if ctx.fs.exists(path) else None
        checks = {
            "-e": stat is not None, "-f": stat is not None and not ctx.fs.is_dir(path),
            "-d": stat is not None and ctx.fs.is_dir(path), "-s": stat is not None and stat.size > 0,
            "-r": stat is not None, "-w": stat is not None, "-x": stat is not None and ctx.fs.is_dir(path),
            "-L": False, "-h": False,
        }
        return checks.get(op)
    if len(args) == 3:
        left, op, right = args
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        numeric = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__,
                   "-gt": int.__gt__, "-ge": int.__ge__}
        if op in numeric:
            try:
                return bool(numeric[op](int(left), int(right)))
            except ValueError:
                return None
    return None


@command("test", "[")
async def test(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    if ctx.argv[0] == "[":
        if not args or args[-1] != "]":
            return await ctx.fail(f"{SH}: [: missing ]", 2)
        args = args[:-1]
    result = _test(ctx, args)
    if result is None:
        return await ctx.fail(f"{SH}: {ctx.argv[0]}: {' '.join(args)}: unexpected operator/operand", 2)
    return 0 if result else 1


# --------------------------------------------------------------------------- date

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def strftime(moment: datetime, fmt: str) -> str:
    """toybox date's format directives in the phone's C locale, whatever the desktop's locale is."""
    hour12 = moment.hour % 12 or 12
    day, month = _DAYS[moment.weekday()], _MONTHS[moment.month - 1]
    direct = {
        "a": day[:3], "A": day, "b": month[:3], "h": month[:3], "B": month, "d": f"{moment.day:02d}",
        "e": f"{moment.day:2d}", "H": f"{moment.hour:02d}", "I": f"{hour12:02d}", "k": f"{moment.hour:2d}",
        "l": f"{hour12:2d}", "j": f"{moment.timetuple().tm_yday:03d}", "m": f"{moment.month:02d}",
        "M": f"{moment.minute:02d}", "S": f"{moment.second:02d}", "s": str(int(moment.timestamp())),
        "N": f"{moment.microsecond * 1000:09d}", "p": "AM" if moment.hour < 12 else "PM",
        "y": f"{moment.year % 100:02d}", "Y": str(moment.year), "Z": moment.tzname() or "UTC",
        "z": moment.strftime("%z") or "+0000", "u": str(moment.isoweekday()), "w": str(moment.isoweekday() % 7),
        "n": "\n", "t": "\t", "%": "%",
    }
    composite = {"T": "%H:%M:%S", "D": "%m/%d/%y", "F": "%Y-%m-%d", "R": "%H:%M", "r": "%I:%M:%S %p",
                 "c": "%a %b %e %H:%M:%S %Y"}
    out: list[str] = []
    i = 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 1 < len(fmt):
            code = fmt[i + 1]
            out.append(strftime(moment, composite[code]) if code in composite else direct.get(code, "%" + code))
            i += 2
        else:
            out.append(fmt[i])
            i += 1
    return "".join(out)


@command("date")
async def date(ctx: CommandContext) -> int:
    moment = ctx.phone.now()
    fmt = "%a %b %e %H:%M:%S %Z %Y"
    for arg in ctx.argv[1:]:
        if arg == "-u":
            moment = moment.astimezone(UTC)
        elif arg.startswith("+"):
            fmt = arg[1:]
        elif not arg.startswith("-"):
            return await ctx.fail("date: cannot set date: Operation not permitted")
    await ctx.print(strftime(moment, fmt))
    return 0


# --------------------------------------------------------------------------- toybox, app_process

TOYBOX_APPLETS = frozenset({
    "[", "cat", "cp", "date", "echo", "env", "false", "getprop", "grep", "head", "id", "ifconfig", "ls",
    "md5sum", "mkdir", "mv", "nohup", "pwd", "rm", "setprop", "sh", "sleep", "tail", "test", "touch", "true",
    "uname", "wc", "which", "whoami",
})


@command("toybox")
async def toybox(ctx: CommandContext) -> int:
    if len(ctx.argv) < 2:
        await ctx.print(" ".join(sorted(a for a in TOYBOX_APPLETS if a in COMMANDS)))
        return 0
    if ctx.argv[1] not in TOYBOX_APPLETS or ctx.argv[1] not in COMMANDS:
        return await ctx.fail(f"toybox: Unknown command {ctx.argv[1]}")
    return await run_argv(ctx, ctx.argv[1:])


@command("app_process", "app_process64")
async def app_process(ctx: CommandContext) -> int:
    """``app_process [vm-options] PARENT-DIR [--nice-name=...] CLASS [args]``: runs a registered Java main.

    A main is ``async def main(ctx: CommandContext, args: list[str]) -> int`` in ``phone.java_mains``
    under its class name; ``ctx.env["CLASSPATH"]`` says which jar it was started from.
    """
    args = ctx.argv[1:]
    while args and args[0].startswith("-"):
        args.pop(0)  # VM options (-Xmx..., -Djava.class.path=...)
    if args:
        args.pop(0)  # parent directory, unused by modern runtimes
    while args and args[0].startswith("--"):
        args.pop(0)  # --nice-name=, --application, --zygote
    if not args:
        return await ctx.fail("Error: no class name or --zygote supplied.\n"
                              "Usage: app_process [java-options] cmd-dir start-class-name [options]", 10)
    class_name, main_args = args[0], args[1:]
    mains = getattr(ctx.phone, "java_mains", {}) or {}
    main = mains.get(class_name)
    if main is None:
        classpath = ctx.env.get("CLASSPATH", "")
        return await ctx.fail(
            f"Error: Could not find class '{class_name}'\n"
            f"java.lang.ClassNotFoundException: Didn't find class \"{class_name}\" on path: DexPathList[[zip file "
            f"\"{classpath}\"],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]", 1)
    result = main(ctx, main_args)
    if inspect.isawaitable(result):
        result = await result
    return int(result or 0)
