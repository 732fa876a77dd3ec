"""toybox file utilities over the phone's MemoryFS: ls, cat, rm, mkdir, touch, md5sum, cp, mv.

Messages follow toybox (``ls: /x: No such file or directory``, ``mkdir: '/x': File exists``); the shell
user may write only under /sdcard and /data/local/tmp, as on a real phone.
"""

from __future__ import annotations

import hashlib
import posixpath
import stat as statmod
from typing import Any

from relay_desktop.sim.shell.base import (
    CommandContext,
    command,
    os_error_text,
    read_error,
    to_datetime,
    write_error,
)


def _split_flags(ctx: CommandContext, allowed: str) -> tuple[set[str], list[str]] | str:
    """toybox-style option parsing: returns (flags, operands) or the bad option letter."""
    flags: set[str] = set()
    operands: list[str] = []
    args = iter(ctx.argv[1:])
    for arg in args:
        if arg == "--":
            operands += list(args)
            break
        if arg.startswith("-") and len(arg) > 1:
            for letter in arg[1:]:
                if letter not in allowed:
                    return letter
                flags.add(letter)
        else:
            operands.append(arg)
    return flags, operands


async def _bad_option(ctx: CommandContext, letter: str) -> int:
    return await ctx.fail(f"{ctx.name}: Unknown option '{letter}' (see \"{ctx.name} --help\")")


def _owner(path: str) -> tuple[str, str]:
    if path.startswith(("/sdcard", "/storage/emulated", "/storage/self")):
        return "u0_a193", "media_rw"
    if path.startswith("/data/local/tmp"):
        return "shell", "shell"
    return "root", "root"


def _mode_string(mode: int, is_dir: bool) -> str:
    perms = mode & 0o777 or (0o771 if is_dir else 0o660)
    kind = "d" if is_dir else "l" if statmod.S_ISLNK(mode) else "-"
    return kind + "".join(ch if perms & (1 << (8 - i)) else "-" for i, ch in enumerate("rwxrwxrwx"))


def _human(size: int) -> str:
    value = float(size)
    for unit in ("", "K", "M", "G", "T"):
        if value < 1024 or unit == "T":
            if not unit:
                return str(size)
            return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"
        value /= 1024
    return str(size)


@command("ls")
async def ls(ctx: CommandContext) -> int:
    parsed = _split_flags(ctx, "laA1dhtrSRFn")
    if isinstance(parsed, str):
        return await _bad_option(ctx, parsed)
    flags, operands = parsed
    fs, status = ctx.fs, 0
    files: list[str] = []
    dirs: list[str] = []
    for name in operands or ["."]:
        path = ctx.path(name)
        problem = None if fs.exists(path) else "No such file or directory"
        problem = problem or (read_error(path) if fs.is_dir(path) and "d" not in flags else None)
        if problem:
            await ctx.eprint(f"ls: {name}: {problem}")
            status = 1
        elif fs.is_dir(path) and "d" not in flags:
            dirs.append(name)
        else:
            files.append(name)
    tz = ctx.phone.now().tzinfo
    blocks: list[str] = []
    if files:
        blocks.append(_format(ctx, [(n, ctx.path(n)) for n in sorted(files)], flags, tz, total=False))
    for name in sorted(dirs):
        path = ctx.path(name)
        names = [n for n in fs.listdir(path) if "a" in flags or "A" in flags or not n.startswith(".")]
        entries = [(n, posixpath.join(path, n)) for n in sorted(names)]
        if "a" in flags:
            entries = [(".", path), ("..", posixpath.dirname(path) or "/"), *entries]
        body = _format(ctx, entries, flags, tz, total=True)
        blocks.append(f"{name}:\n{body}" if len(dirs) + len(files) > 1 else body)
    text = "\n".join(b for b in blocks)
    if text:
        await ctx.out(text.encode())
    return status


def _format(ctx: CommandContext, entries: list[tuple[str, str]], flags: set[str], tz: Any, total: bool) -> str:
    fs = ctx.fs
    stats = [(name, path, fs.stat(path), fs.is_dir(path)) for name, path in entries]
    if "t" in flags:
        stats.sort(key=lambda e: -to_datetime(e[2].mtime, tz).timestamp())
    elif "S" in flags:
        stats.sort(key=lambda e: -e[2].size)
    if "r" in flags:
        stats.reverse()
    if not flags & {"l", "n"}:
        return "".join(f"{name}{'/' if 'F' in flags and is_dir else ''}\n" for name, _, _, is_dir in stats)
    rows = []
    kib = 0
    for name, path, st, is_dir in stats:
        size = 3452 if is_dir else st.size
        kib += 4 if is_dir else -(-st.size // 4096) * 4
        user, group = ("2000", "2000") if "n" in flags and _owner(path)[0] == "shell" else _owner(path)
        rows.append((_mode_string(st.mode, is_dir), "2" if is_dir else "1", user, group,
                     _human(size) if "h" in flags else str(size),
                     to_datetime(st.mtime, tz).strftime("%Y-%m-%d %H:%M"), name))
    widths = [max(len(row[i]) for row in rows) for i in range(5)] if rows else [0] * 5
    lines = [f"total {kib}"] if total else []
    for mode, links, user, group, size, when, name in rows:
        lines.append(f"{mode} {links:>{widths[1]}} {user:<{widths[2]}} {group:<{widths[3]}} "
                     f"{size:>{widths[4]}} {when} {name}")
    return "".join(line + "\n" for line in lines)


@command("cat")
async def cat(ctx: CommandContext) -> int:
    status = 0
    for name in ctx.argv[1:] or ["-"]:
        if name == "-":
            while chunk := await ctx.stdin.read():
                await ctx.out(chunk)
            continue
        path = ctx.path(name)
        try:
            problem = read_error(path)
            if problem:
                raise PermissionError(problem)
            data = ctx.fs.read(path)
        except OSError as exc:
            await ctx.eprint(f"cat: {name}: {os_error_text(exc)}")
            status = 1
            continue
        await ctx.out(data)
    return status


@command("rm")
async def rm(ctx: CommandContext) -> int:
    parsed = _split_flags(ctx, "rRfiv")
    if isinstance(parsed, str):
        return await _bad_option(ctx, parsed)
    flags, operands = parsed
    if not operands:
        return 0 if "f" in flags else await ctx.fail("rm: Needs 1 argument (see \"rm --help\")")
    status = 0
    for name in operands:
        path = ctx.path(name)
        if not ctx.fs.exists(path):
            if "f" not in flags:
                await ctx.eprint(f"rm: {name}: No such file or directory")
                status = 1
            continue
        problem = write_error(path)
        if problem is None and ctx.fs.is_dir(path) and not flags & {"r", "R"}:
            problem = "Is a directory"
        if problem is None:
            try:
                ctx.fs.remove(path, recursive=bool(flags & {"r", "R"}))
            except OSError as exc:
                problem = os_error_text(exc)
        if problem:
            await ctx.eprint(f"rm: {name}: {problem}")
            status = 1
    return status


@command("mkdir")
async def mkdir(ctx: CommandContext) -> int:
    parsed = _split_flags(ctx, "pvm")
    if isinstance(parsed, str):
        return await _bad_option(ctx, parsed)
    flags, operands = parsed
    if not operands:
        return await ctx.fail("mkdir: Needs 1 argument (see \"mkdir --help\")")
    status = 0
    for name in operands:
        path = ctx.path(name)
        if ctx.fs.exists(path):
            if "p" in flags and ctx.fs.is_dir(path):
                continue
            problem: str | None = "File exists"
        else:
            problem = write_error(path)
        if problem is None:
            try:
                ctx.fs.mkdir(path, parents="p" in flags)
            except OSError as exc:
                problem = os_error_text(exc)
        if problem:
            await ctx.eprint(f"mkdir: '{name}': {problem}")
            status = 1
    return status


@command("touch")
async def touch(ctx: CommandContext) -> int:
    status = 0
    now = ctx.phone.now().timestamp()
    for name in [a for a in ctx.argv[1:] if not a.startswith("-")]:
        path = ctx.path(name)
        problem = write_error(path)
        if problem is None:
            try:
                data = ctx.fs.read(path) if ctx.fs.exists(path) and not ctx.fs.is_dir(path) else b""
                if not ctx.fs.is_dir(path):
                    ctx.fs.write(path, data, mtime=now)
            except OSError as exc:
                problem = os_error_text(exc)
        if problem:
            await ctx.eprint(f"touch: '{name}': {problem}")
            status = 1
    return status


@command("md5sum")
async def md5sum(ctx: CommandContext) -> int:
    brief = "-b" in ctx.argv[1:]
    names = [a for a in ctx.argv[1:] if a != "-b"] or ["-"]
    status = 0
    for name in names:
        try:
            data = await ctx.read_stdin() if name == "-" else ctx.fs.read(ctx.path(name))
        except OSError as exc:
            await ctx.eprint(f"md5sum: {name}: {os_error_text(exc)}")
            status = 1
            continue
        digest = hashlib.md5(data).hexdigest()
        await ctx.print(digest if brief else f"{digest}  {name}")
    return status


@command("cp", "mv")
async def cp(ctx: CommandContext) -> int:
    move = ctx.name == "mv"
    parsed = _split_flags(ctx, "rRfpaivn" if not move else "fivn")
    if isinstance(parsed, str):
        return await _bad_option(ctx, parsed)
    flags, operands = parsed
    if len(operands) < 2:
        return await ctx.fail(f"{ctx.name}: Needs 2 arguments (see \"{ctx.name} --help\")")
    *sources, target = operands
    fs = ctx.fs
    target_path = ctx.path(target)
    into_dir = fs.exists(target_path) and fs.is_dir(target_path)
    if len(sources) > 1 and not into_dir:
        return await ctx.fail(f"{ctx.name}: '{target}' not directory")
    status = 0
    for name in sources:
        src = ctx.path(name)
        dst = posixpath.join(target_path, posixpath.basename(src)) if into_dir else target_path
        problem = None if fs.exists(src) else "No such file or directory"
        problem = problem or write_error(dst) or (write_error(src) if move else None)
        if problem is None:
            try:
                _copy(fs, src, dst, recursive=move or bool(flags & {"r", "R", "a"}))
                if move:
                    fs.remove(src, recursive=True)
            except OSError as exc:
                problem = os_error_text(exc)
        if problem:
            await ctx.eprint(f"{ctx.name}: bad '{name}': {problem}")
            status = 1
    return status


def _copy(fs: Any, src: str, dst: str, recursive: bool) -> None:
    if not fs.is_dir(src):
        fs.write(dst, fs.read(src))
        return
    if not recursive:
        raise IsADirectoryError(src)
    if not fs.exists(dst):
        fs.mkdir(dst)
    for name in fs.listdir(src):
        _copy(fs, posixpath.join(src, name), posixpath.join(dst, name), recursive)
