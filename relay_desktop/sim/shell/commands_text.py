"""toybox text filters: grep, head, tail, wc. They stream stdin, so ``logcat | grep`` and ``head`` behave."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import AsyncIterator

from relay_desktop.sim.shell.base import CommandContext, command, os_error_text

_POSIX_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
    "word": r"\w",
}


def _translate(pattern: str, extended: bool) -> str:
    """A POSIX basic or extended regular expression as a Python one."""
    pattern = re.sub(r"\[:(\w+):\]", lambda m: _POSIX_CLASSES.get(m.group(1), m.group(0)), pattern)
    if extended:
        return pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append({"(": "(", ")": ")", "{": "{", "}": "}", "|": "|", "+": "+", "?": "?", "<": r"\b",
                        ">": r"\b"}.get(nxt, "\\" + nxt))
            i += 2
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("]", "^") else i + 1)
            end = len(pattern) - 1 if end < 0 else end
            out.append(pattern[i:end + 1])
            i = end + 1
        else:
            out.append("\\" + ch if ch in "(){}|+?" else ch)
            i += 1
    return "".join(out)


async def _lines_of(ctx: CommandContext, name: str) -> AsyncIterator[bytes]:
    if name == "-":
        async for line in ctx.stdin_lines():
            yield line
        return
    for line in ctx.fs.read(ctx.path(name)).splitlines(keepends=True):
        yield line


@command("grep", "egrep", "fgrep")
async def grep(ctx: CommandContext) -> int:
    flags: set[str] = {"E"} if ctx.name == "egrep" else {"F"} if ctx.name == "fgrep" else set()
    patterns: list[str] = []
    operands: list[str] = []
    args = iter(ctx.argv[1:])
    for arg in args:
        if arg.startswith("--"):
            continue  # --color=auto, --line-buffered
        if arg.startswith("-") and len(arg) > 1 and not operands:
            for pos, letter in enumerate(arg[1:]):
                if letter == "e":
                    patterns.append(arg[pos + 2:] or next(args, ""))
                    break
                if letter not in "ivEFcqnowxlsHhr":
                    return await ctx.fail(f"grep: Unknown option '{letter}' (see \"grep --help\")", 2)
                flags.add(letter)
        else:
            operands.append(arg)
    if not patterns:
        if not operands:
            return await ctx.fail("grep: Needs 1 argument (see \"grep --help\")", 2)
        patterns.append(operands.pop(0))
    sources = [p for pattern in patterns for p in pattern.split("\n")]
    sources = [re.escape(p) if "F" in flags else _translate(p, "E" in flags) for p in sources]
    if "w" in flags:
        sources = [rf"(?<!\w)(?:{p})(?!\w)" for p in sources]
    if "x" in flags:
        sources = [rf"(?:{p})\Z" for p in sources]
    try:
        regex = re.compile("|".join(f"(?:{p})" for p in sources), re.IGNORECASE if "i" in flags else 0)
    except re.error:
        return await ctx.fail(f"grep: bad regex '{patterns[0]}'", 2)
    names = operands or ["-"]
    prefix_names = (len(names) > 1 or "H" in flags) and "h" not in flags
    matched_any, status = False, 0
    for name in names:
        count = 0
        try:
            async for raw in _lines_of(ctx, name):
                line = raw.decode(errors="replace").rstrip("\n")
                match = (regex.match if "x" in flags else regex.search)(line)
                if bool(match) == ("v" in flags):
                    continue
                count += 1
                matched_any = True
                if "q" in flags:
                    return 0
                if flags & {"c", "l"}:
                    continue
                shown = "(standard input)" if name == "-" else name
                lead = (f"{shown}:" if prefix_names else "") + (f"{count}:" if "n" in flags else "")
                if "o" in flags and "v" not in flags:
                    for found in regex.finditer(line):
                        await ctx.print(lead + found.group())
                else:
                    await ctx.print(lead + line)
        except OSError as exc:
            if "s" not in flags:
                await ctx.eprint(f"grep: {name}: {os_error_text(exc)}")
            status = 2
            continue
        shown = "(standard input)" if name == "-" else name
        if "c" in flags:
            await ctx.print((f"{shown}:" if prefix_names else "") + str(count))
        elif "l" in flags and count:
            await ctx.print(shown)
    return status or (0 if matched_any else 1)


def _count_option(ctx: CommandContext) -> tuple[str, int, bool, list[str]] | str:
    """Parse ``-n N``, ``-N``, ``-c N``, ``-n +N``: (unit, count, from_start, files) or an error."""
    unit, count, from_start = "n", 10, False
    files: list[str] = []
    args = iter(ctx.argv[1:])
    for arg in args:
        if arg in ("-n", "-c"):
            unit, value = arg[1], next(args, "")
        elif re.fullmatch(r"-[nc]\+?\d+", arg):
            unit, value = arg[1], arg[2:]
        elif re.fullmatch(r"-\d+", arg):
            value = arg[1:]
        elif arg in ("-f", "-q", "-F"):
            continue
        elif arg.startswith("-") and arg != "-":
            return f"{ctx.name}: Unknown option '{arg[1:2]}' (see \"{ctx.name} --help\")"
        else:
            files.append(arg)
            continue
        from_start = value.startswith("+")
        if not value.lstrip("+").isdigit():
            return f"{ctx.name}: Invalid number '{value}'"
        count = int(value.lstrip("+"))
    return unit, count, from_start, files or ["-"]


@command("head")
async def head(ctx: CommandContext) -> int:
    parsed = _count_option(ctx)
    if isinstance(parsed, str):
        return await ctx.fail(parsed)
    unit, count, _, files = parsed
    status = 0
    for index, name in enumerate(files):
        if len(files) > 1:
            await ctx.print(f"{'' if index == 0 else chr(10)}==> {name} <==")
        try:
            if unit == "c":
                data = await ctx.read_stdin() if name == "-" else ctx.fs.read(ctx.path(name))
                await ctx.out(data[:count])
                continue
            left = count
            async for line in _lines_of(ctx, name):
                if left <= 0:
                    break
                await ctx.out(line)
                left -= 1
        except OSError as exc:
            await ctx.eprint(f"head: {name}: {os_error_text(exc)}")
            status = 1
    return status


@command("tail")
async def tail(ctx: CommandContext) -> int:
    parsed = _count_option(ctx)
    if isinstance(parsed, str):
        return await ctx.fail(parsed)
    unit, count, from_start, files = parsed
    status = 0
    for index, name in enumerate(files):
        if len(files) > 1:
            await ctx.print(f"{'' if index == 0 else chr(10)}==> {name} <==")
        try:
            data = await ctx.read_stdin() if name == "-" else ctx.fs.read(ctx.path(name))
        except OSError as exc:
            await ctx.eprint(f"tail: {name}: {os_error_text(exc)}")
            status = 1
            continue
        if unit == "c":
            await ctx.out(data[max(count - 1, 0):] if from_start else data[len(data) - count:] if count else b"")
            continue
        lines = data.splitlines(keepends=True)
        kept = lines[max(count - 1, 0):] if from_start else deque(lines, maxlen=count) if count else []
        await ctx.out(b"".join(kept))
    return status


@command("wc")
async def wc(ctx: CommandContext) -> int:
    flags = {letter for arg in ctx.argv[1:] if arg.startswith("-") and arg != "-" for letter in arg[1:]}
    names = [a for a in ctx.argv[1:] if not a.startswith("-") or a == "-"]
    chosen = [f for f in "lwcm" if f in flags] or ["l", "w", "c"]
    totals = dict.fromkeys("lwcm", 0)
    status = 0
    for name in names or ["-"]:
        try:
            data = await ctx.read_stdin() if name == "-" else ctx.fs.read(ctx.path(name))
        except OSError as exc:
            await ctx.eprint(f"wc: {name}: {os_error_text(exc)}")
            status = 1
            continue
        counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data),
                  "m": len(data.decode(errors="replace"))}
        for key in totals:
            totals[key] += counts[key]
        await ctx.print(_wc_line(counts, chosen, "" if name == "-" and not names else name))
    if len(names) > 1:
        await ctx.print(_wc_line(totals, chosen, "total"))
    return status


def _wc_line(counts: dict[str, int], chosen: list[str], name: str) -> str:
    # toybox: the first number unpadded, later ones right-aligned in 7 columns.
    text = " ".join(f"{counts[key]:{'' if i == 0 else '7'}}" for i, key in enumerate(chosen))
    return f"{text} {name}" if name else text
