"""``input`` (Android 14's InputShellCommand), ``uiautomator dump`` and ``screencap``.

``input`` is ``cmd input``: its errors are Java exceptions that BasicShellCommandHandler prints to
stderr with exit status 255, and a bare ``input`` or an unknown subcommand prints help and exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import struct
import time

from relay_desktop.keycodes import keycode
from relay_desktop.sim.shell.base import CommandContext, command, java_exception, write_error

SOURCES = ("dpad", "keyboard", "mouse", "touchpad", "gamepad", "touchnavigation", "joystick", "touchscreen",
           "stylus", "trackball")

# "The sources are: " really ends in a space.
INPUT_USAGE = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\nThe sources are: \n" + "".join(f"      {s}\n" for s in SOURCES) + """
-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap|--async|--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)
"""  # noqa: E501  (Android prints these lines unwrapped)

_JAVA_FLOAT = re.compile(r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)")
_TYPABLE = {chr(c) for c in range(0x20, 0x7F)} | {"\n", "\t"}
# How far a finger may travel and still be a tap, and when a still press becomes a long press.
TOUCH_SLOP_PX = 16
LONG_PRESS_MS = 500


class _JavaError(Exception):
    def __init__(self, exception: str, message: str, methods: tuple[str, ...] = ("onCommand",)) -> None:
        super().__init__(message)
        self.exception, self.message, self.methods = exception, message, methods


_GET_NEXT_ARG_REQUIRED = ("com.android.modules.utils.BasicShellCommandHandler.getNextArgRequired("
                          "BasicShellCommandHandler.java:295)")


class _Args:
    """ShellCommand's argument cursor: ``getNextArg`` / ``getNextArgRequired``."""

    def __init__(self, args: list[str]) -> None:
        self.args, self.pos = args, 0

    def next(self) -> str | None:
        if self.pos >= len(self.args):
            return None
        self.pos += 1
        return self.args[self.pos - 1]

    def required(self, method: str = "onCommand") -> str:
        arg = self.next()
        if arg is None:
            prev = self.args[self.pos - 1] if self.pos else ""
            raise _JavaError("java.lang.IllegalArgumentException", f'Argument expected after "{prev}"',
                             (_GET_NEXT_ARG_REQUIRED, method, "onCommand"))
        return arg


class _NumberFormat(Exception):
    pass


def _float(text: str) -> float:
    """Java's Float.parseFloat."""
    stripped = text.strip()
    if not _JAVA_FLOAT.fullmatch(stripped):
        raise _NumberFormat(text)
    return float(stripped.rstrip("fFdD").replace("Infinity", "inf"))


def _int(text: str) -> int:
    """Java's Integer.parseInt."""
    if not re.fullmatch(r"[+-]?\d+", text) or not -(2**31) <= int(text) < 2**31:
        raise _NumberFormat(text)
    return int(text)


@command("input")
async def input_(ctx: CommandContext) -> int:
    return await run_input(ctx, ctx.argv[1:])


async def run_input(ctx: CommandContext, args: list[str]) -> int:
    """The body of ``cmd input ARGS`` (shared with ``cmd input``)."""
    if not args or args[0] in ("help", "-h"):
        await ctx.out(INPUT_USAGE.encode())
        return 0
    cursor = _Args(args)
    try:
        arg = cursor.required()
        if arg in SOURCES:
            arg = cursor.required()
        if arg == "-d":
            display = cursor.required()
            if not re.fullmatch(r"-?\d+|INVALID_DISPLAY|DEFAULT_DISPLAY", display, re.IGNORECASE):
                raise _JavaError("java.lang.IllegalArgumentException", "Error: Invalid arguments for display ID.")
            arg = cursor.required()
        try:
            handler = _HANDLERS.get(arg)
            if handler is None:
                await ctx.print(f"Unknown command: {arg}")
                return 0
            await handler(ctx, cursor)
        except _NumberFormat as exc:
            raise _JavaError("java.lang.IllegalArgumentException",
                             f"Error: Invalid arguments for command: {arg}") from exc
    except _JavaError as exc:
        await ctx.err(java_exception("input", args[0], exc.exception, exc.message, exc.methods).encode())
        return 255
    return 0


async def _text(ctx: CommandContext, cursor: _Args) -> None:
    raw = cursor.required("runText")
    # InputShellCommand.sendText: "%s" becomes a space; nothing else is unescaped.
    chars = list(raw)
    escape, i = False, 0
    while i < len(chars):
        if escape:
            escape = False
            if chars[i] == "s":
                chars[i] = " "
                del chars[i - 1]
                i -= 1
        if chars[i] == "%":
            escape = True
        i += 1
    text = "".join(chars)
    if any(ch not in _TYPABLE for ch in text):
        # KeyCharacterMap.getEvents() returns null for characters the virtual keyboard cannot type.
        raise _JavaError("java.lang.NullPointerException", "Attempt to get length of null array",
                         ("sendText", "runText", "onCommand"))
    if text:
        await ctx.phone.input_text(text)


async def _keyevent(ctx: CommandContext, cursor: _Args) -> None:
    long_press = double_tap = False
    delay_ms = 0
    arg: str | None = cursor.required("runKeyEvent")
    while arg is not None and arg.startswith("--"):
        long_press = long_press or arg == "--longpress"
        double_tap = double_tap or arg == "--doubletap"
        if arg in ("--delay", "--duration"):
            value = _int(cursor.required("runKeyEvent"))
            delay_ms = value if arg == "--delay" else delay_ms
            long_press = long_press or (arg == "--duration" and value >= LONG_PRESS_MS)
        arg = cursor.next()
    if arg is None:
        raise _JavaError("java.lang.NullPointerException", "symbolicName must not be null",
                         ("runKeyEvent", "onCommand"))
    first = True
    while arg is not None:
        if not first and delay_ms > 0:
            await asyncio.sleep(delay_ms / 1000)
        first = False
        code = keycode(arg)
        if code:  # KEYCODE_UNKNOWN is injected on a real phone but nothing handles it
            for _ in range(2 if double_tap else 1):
                await ctx.phone.press_key(code, long_press=long_press)
        arg = cursor.next()


async def _tap(ctx: CommandContext, cursor: _Args) -> None:
    x, y = _float(cursor.required("runTap")), _float(cursor.required("runTap"))
    if math.isfinite(x) and math.isfinite(y):
        await ctx.phone.tap(x, y)


def _swipe_args(cursor: _Args, method: str) -> tuple[float, float, float, float, int]:
    x1, y1, x2, y2 = (_float(cursor.required(method)) for _ in range(4))
    duration_arg = cursor.next()
    duration = _int(duration_arg) if duration_arg is not None else -1
    return x1, y1, x2, y2, duration if duration >= 0 else 300


async def _swipe(ctx: CommandContext, cursor: _Args) -> None:
    x1, y1, x2, y2, duration = _swipe_args(cursor, "sendSwipe")
    if all(map(math.isfinite, (x1, y1, x2, y2))):
        await ctx.phone.swipe(x1, y1, x2, y2, duration)


async def _drag(ctx: CommandContext, cursor: _Args) -> None:
    x1, y1, x2, y2, duration = _swipe_args(cursor, "sendSwipe")
    if all(map(math.isfinite, (x1, y1, x2, y2))):
        await ctx.phone.drag_and_drop(x1, y1, x2, y2, duration)


async def _press(ctx: CommandContext, cursor: _Args) -> None:
    """Trackball events: accepted and, as on a phone without a trackball, without visible effect."""


async def _roll(ctx: CommandContext, cursor: _Args) -> None:
    _float(cursor.required("runRoll"))
    _float(cursor.required("runRoll"))


async def _motionevent(ctx: CommandContext, cursor: _Args) -> None:
    """DOWN/MOVE/UP/CANCEL, turned into the tap, long press or swipe the gesture amounts to."""
    action = cursor.required("getAction").upper()
    if action not in ("DOWN", "UP", "MOVE", "CANCEL"):
        raise _JavaError("java.lang.IllegalArgumentException", f"Unknown action: {action}",
                         ("getAction", "runMotionEvent", "onCommand"))
    touch = ctx.shell.touch_down
    if action == "CANCEL":
        touch.clear()
        return
    x, y = _float(cursor.required("runMotionEvent")), _float(cursor.required("runMotionEvent"))
    if action == "DOWN":
        touch.update(x=x, y=y, t=time.monotonic())
    elif action == "UP" and touch:
        x0, y0 = touch["x"], touch["y"]
        held_ms = int((time.monotonic() - touch["t"]) * 1000)
        touch.clear()
        if math.hypot(x - x0, y - y0) < TOUCH_SLOP_PX and held_ms < LONG_PRESS_MS:
            await ctx.phone.tap(x0, y0)
        else:
            await ctx.phone.swipe(x0, y0, x, y, max(held_ms, 1))


async def _keycombination(ctx: CommandContext, cursor: _Args) -> None:
    arg: str | None = cursor.required("runKeyCombination")
    if arg == "-t":
        _int(cursor.required("runKeyCombination"))
        arg = cursor.required("runKeyCombination")
    codes: list[int] = []
    while arg is not None:
        code = keycode(arg)
        if code == 0:
            raise _JavaError("java.lang.IllegalArgumentException", f"Unknown keycode: {arg}",
                             ("runKeyCombination", "onCommand"))
        codes.append(code)
        arg = cursor.next()
    if len(codes) < 2:
        raise _JavaError("java.lang.IllegalArgumentException", "keycombination requires at least 2 keycodes",
                         ("runKeyCombination", "onCommand"))
    combination = getattr(ctx.phone, "key_combination", None)
    if combination is not None:
        await combination(codes)
    else:
        for code in codes:
            await ctx.phone.press_key(code)


_HANDLERS = {"text": _text, "keyevent": _keyevent, "tap": _tap, "swipe": _swipe, "draganddrop": _drag,
             "press": _press, "roll": _roll, "motionevent": _motionevent, "keycombination": _keycombination}


# --------------------------------------------------------------------------- uiautomator

UIAUTOMATOR_USAGE = """Usage: uiautomator <subcommand> [options]

Available subcommands:

help: displays help message

runtest: executes UI automation tests
    runtest <class spec> [options]
    <class spec>: <JARS> < -c <CLASSES> | -e <NAME> <VALUE> >
      <JARS>: a list of jar files containing test classes and dependencies. If
        the path is relative, it's assumed to be under /data/local/tmp. Use
        absolute path if the file is elsewhere. Multiple files can be
        specified, separated by space.
    [options]:
      --nohup: run the test in the background.

dump: creates an XML dump of current UI hierarchy
    dump [--verbose][file]
      [--compressed]: dumps compressed layout information.
      [file]: the location where the dumped XML should be stored, default is
      /sdcard/window_dump.xml

events: prints out accessibility events until terminated
"""

_TTY_PATHS = ("/dev/tty", "/dev/stdout", "/proc/self/fd/1")


@command("uiautomator")
async def uiautomator(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    if not args or args[0] != "dump":
        await ctx.out(UIAUTOMATOR_USAGE.encode())
        return 0 if args and args[0] == "help" else 1
    files = [a for a in args[1:] if not a.startswith("--")]
    path = ctx.path(files[0]) if files else "/sdcard/window_dump.xml"
    try:
        xml = await ctx.phone.dump_hierarchy()
    except Exception as exc:
        if type(exc).__name__ != "IdleStateError":
            raise
        await ctx.eprint("ERROR: could not get idle state.")
        return 0
    if path in _TTY_PATHS:
        await ctx.out(xml.encode())
    elif write_error(path) is None:
        # uiautomator logs a failed write's IOException to logcat and still reports success.
        with contextlib.suppress(OSError):
            ctx.fs.write(path, xml.encode())
    await ctx.print(f"UI hierchary dumped to: {path}")
    return 0


# --------------------------------------------------------------------------- screencap

SCREENCAP_USAGE = """usage: screencap [-hp] [-d display-id] [FILENAME]
   -h: this message
   -p: save the file as a png.
   -d: specify the physical display ID to capture (default: 4619827259835644672)
       see "dumpsys SurfaceFlinger --display-id" for valid display IDs.
If FILENAME ends with .png it will be saved as a png.
If FILENAME is not given, the results will be printed to stdout.
"""

PIXEL_FORMAT_RGBA_8888 = 1


@command("screencap")
async def screencap(ctx: CommandContext) -> int:
    args = iter(ctx.argv[1:])
    png, target = False, None
    for arg in args:
        if arg == "-p":
            png = True
        elif arg == "-d":
            next(args, None)
        elif arg.startswith("-"):
            await ctx.err(SCREENCAP_USAGE.encode())
            return 1 if arg != "-h" else 0
        else:
            target = arg
    png = png or (target is not None and target.endswith(".png"))
    if png:
        data = await ctx.phone.screencap_png()
    else:
        width, height, pixels = await ctx.phone.screencap_raw()
        data = struct.pack("<4I", width, height, PIXEL_FORMAT_RGBA_8888, 0) + pixels
    if target is None:
        await ctx.out(data)
        return 0
    path = ctx.path(target)
    problem = write_error(path)
    if problem is None:
        try:
            ctx.fs.write(path, data)
        except OSError as exc:
            problem = exc.strerror or type(exc).__name__
    if problem:
        return await ctx.fail(f"Error opening file: {target} ({problem})")
    return 0
