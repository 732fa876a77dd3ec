"""Android system commands: getprop, setprop, settings, svc, wm, ip, ifconfig, logcat, and ``cmd SERVICE``."""

from __future__ import annotations

import asyncio
import re

from relay_desktop.sim.shell.base import CommandContext, command, invalidate, put_setting

NAMESPACES = ("system", "secure", "global")
WLAN_IP = "192.168.1.57"
WLAN_MAC = "02:15:b2:00:00:00"


@command("getprop")
async def getprop(ctx: CommandContext) -> int:
    props: dict[str, str] = ctx.phone.props
    args = [a for a in ctx.argv[1:] if not a.startswith("-")]
    if not args:
        for key in sorted(props):
            await ctx.print(f"[{key}]: [{props[key]}]")
        return 0
    default = args[1] if len(args) > 1 else ""
    await ctx.print(props.get(args[0], default))
    return 0


@command("setprop")
async def setprop(ctx: CommandContext) -> int:
    if len(ctx.argv) != 3:
        return await ctx.fail("setprop: Need 2 arguments (see \"setprop --help\")")
    key, value = ctx.argv[1], ctx.argv[2]
    props: dict[str, str] = ctx.phone.props
    # The shell user may only set debug/log/persist-style properties, and ro.* never changes once set.
    allowed = key.startswith(("debug.", "log.", "persist.", "service.adb.", "ctl.", "vendor.debug."))
    if not allowed or (key.startswith("ro.") and key in props):
        return await ctx.fail(f"Failed to set property '{key}' to '{value}'.\nSee dmesg for error reason.")
    props[key] = value
    return 0


SETTINGS_USAGE = """usage:  settings [--user <USER_ID> | current] get namespace key
        settings [--user <USER_ID> | current] put namespace key value
        settings [--user <USER_ID> | current] delete namespace key
        settings [--user <USER_ID> | current] list namespace

'namespace' is one of {system, secure, global}, case-insensitive
If '--user <USER_ID> | current' is not given, the operations are performed on the system user."""


@command("settings")
async def settings(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    while args and args[0] == "--user":
        args = args[2:]
    if len(args) < 2 or args[0] not in ("get", "put", "delete", "list", "reset"):
        return await ctx.fail(SETTINGS_USAGE, 255 if args else 0)
    verb, namespace = args[0], args[1].lower()
    if namespace not in NAMESPACES:
        return await ctx.fail(f"Invalid namespace '{args[1]}'\n{SETTINGS_USAGE}", 255)
    table: dict[str, str] = ctx.phone.settings.setdefault(namespace, {})
    if verb == "list":
        for key in sorted(table):
            await ctx.print(f"{key}={table[key]}")
        return 0
    if verb == "reset":
        return 0
    if len(args) < 3 or (verb == "put" and len(args) < 4):
        return await ctx.fail(SETTINGS_USAGE, 255)
    key = args[2]
    if verb == "get":
        await ctx.print(table.get(key, "null"))
    elif verb == "put":
        put_setting(ctx.phone, namespace, key, args[3])
    else:
        existed = table.pop(key, None) is not None
        invalidate(ctx.phone)
        await ctx.print(f"Deleted {int(existed)} rows")
    return 0


_SVC_SETTINGS = {"wifi": "wifi_on", "bluetooth": "bluetooth_on", "data": "mobile_data"}


@command("svc")
async def svc(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    if not args or args[0] not in (*_SVC_SETTINGS, "power", "nfc", "usb", "help"):
        await ctx.print("Available commands:\n    help     Show information about the subcommands\n"
                        "    power    Control the power manager\n    data     Control mobile data connectivity\n"
                        "    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n"
                        "    nfc      Control NFC functions\n    bluetooth Control Bluetooth service")
        return 0
    service = args[0]
    action = args[1] if len(args) > 1 else ""
    if service in _SVC_SETTINGS and action in ("enable", "disable"):
        put_setting(ctx.phone, "global", _SVC_SETTINGS[service], "1" if action == "enable" else "0")
        return 0
    if service == "power" and action == "stayon" and len(args) > 2:
        value = {"true": "7", "false": "0", "usb": "2", "ac": "1", "wireless": "4"}.get(args[2])
        if value is not None:
            put_setting(ctx.phone, "global", "stay_on_while_plugged_in", value)
            return 0
    await ctx.print(f"Control the {service} service\n\nusage: svc {service} [enable|disable]")
    return 0


# --------------------------------------------------------------------------- wm

@command("wm")
async def wm(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    if "-d" in args:  # one display: "-d 0" changes nothing
        index = args.index("-d")
        del args[index:index + 2]
    phone = ctx.phone
    if not args:
        return await ctx.fail("Window manager (window) commands:\n  help\n      Print this help text.\n"
                              "  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n      Return or override display size.\n"
                              "  density [reset|DENSITY] [-d DISPLAY_ID]\n      Return or override display density.",
                              255)
    sub, value = args[0], args[1] if len(args) > 1 else None
    if sub == "size":
        if value is None:
            width, height = phone.physical_size
            await ctx.print(f"Physical size: {width}x{height}")
            if phone.size_override is not None:
                await ctx.print(f"Override size: {phone.size_override[0]}x{phone.size_override[1]}")
            return 0
        if value == "reset":
            phone.size_override = None
        else:
            match = re.fullmatch(r"(\d+)x(\d+)", value)
            if match is None:
                return await ctx.fail(f"Error: bad size {value}", 255)
            phone.size_override = (int(match.group(1)), int(match.group(2)))
        invalidate(phone)
        return 0
    if sub == "density":
        if value is None:
            await ctx.print(f"Physical density: {phone.physical_density}")
            if phone.density_override is not None:
                await ctx.print(f"Override density: {phone.density_override}")
            return 0
        if value == "reset":
            phone.density_override = None
        elif value.isdigit() and int(value) > 0:
            phone.density_override = int(value)
        else:
            return await ctx.fail(f"Error: bad number For input string: \"{value}\"", 255)
        invalidate(phone)
        return 0
    if sub == "user-rotation" and len(args) >= 2:
        rotation = args[-1]
        if rotation.isdigit() and int(rotation) < 4:
            phone.rotate(int(rotation))
        return 0
    await ctx.print(f"Unknown command: {sub}")
    return 255


# --------------------------------------------------------------------------- network

def _wifi_on(ctx: CommandContext) -> bool:
    return ctx.phone.settings.get("global", {}).get("wifi_on", "1") == "1"


@command("ifconfig")
async def ifconfig(ctx: CommandContext) -> int:
    names = ctx.argv[1:] or ["lo", "wlan0"]
    for name in names:
        if name == "lo":
            await ctx.print("lo        Link encap:Local Loopback\n          inet addr:127.0.0.1  Mask:255.0.0.0\n"
                            "          UP LOOPBACK RUNNING  MTU:65536  Metric:1\n")
        elif name == "wlan0":
            inet = (f"          inet addr:{WLAN_IP}  Bcast:192.168.1.255  Mask:255.255.255.0\n"
                    if _wifi_on(ctx) else "")
            state = "UP BROADCAST RUNNING MULTICAST" if _wifi_on(ctx) else "BROADCAST MULTICAST"
            await ctx.print(f"wlan0     Link encap:Ethernet  HWaddr {WLAN_MAC}  Driver icnss\n{inet}"
                            f"          {state}  MTU:1500  Metric:1\n")
        else:
            return await ctx.fail(f"ifconfig: {name}: No such device")
    return 0


@command("ip")
async def ip(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    if not args or args[0] not in ("addr", "a", "address", "route", "r"):
        return await ctx.fail("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }", 255)
    if args[0] in ("route", "r"):
        if _wifi_on(ctx):
            await ctx.print(f"192.168.1.0/24 dev wlan0 proto kernel scope link src {WLAN_IP}")
        return 0
    device = args[args.index("dev") + 1] if "dev" in args and args.index("dev") + 1 < len(args) else None
    blocks = {
        "lo": "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n"
              "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
              "    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever",
        "wlan0": (f"3: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 3000\n"
                  f"    link/ether {WLAN_MAC} brd ff:ff:ff:ff:ff:ff\n"
                  f"    inet {WLAN_IP}/24 brd 192.168.1.255 scope global wlan0\n"
                  f"       valid_lft forever preferred_lft forever") if _wifi_on(ctx) else
                 (f"3: wlan0: <BROADCAST,MULTICAST> mtu 1500 qdisc mq state DOWN group default qlen 3000\n"
                  f"    link/ether {WLAN_MAC} brd ff:ff:ff:ff:ff:ff"),
    }
    if device is not None and device not in blocks:
        return await ctx.fail(f"Device \"{device}\" does not exist.", 1)
    for name, text in blocks.items():
        if device in (None, name):
            await ctx.print(text)
    return 0


@command("logcat")
async def logcat(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    if any(a in ("-c", "--clear") for a in args):
        return 0
    if any(a in ("-g", "--buffer-size") for a in args):
        await ctx.print("main: ring buffer is 256 KiB (0 B consumed), max entry is 5120 B, max payload is 4068 B")
        return 0
    await ctx.print("--------- beginning of main")
    if any(a in ("-d", "-t", "-T") or a.startswith(("-t", "-T")) for a in args):
        return 0
    # A streaming logcat never ends on its own; the adb client closes the stream to stop it.
    await asyncio.Event().wait()
    return 0


# --------------------------------------------------------------------------- cmd

_SERVICES = ("activity", "package", "input", "settings", "window", "statusbar", "clipboard", "power", "wifi",
             "display", "uimode", "appops", "media_session", "notification")


@command("cmd")
async def cmd(ctx: CommandContext) -> int:
    from relay_desktop.sim.shell.commands_input import run_input
    from relay_desktop.sim.shell.commands_pm import run_am, run_pm

    args = ctx.argv[1:]
    if not args or args[0] == "-l":
        await ctx.print("Currently running services:\n" + "".join(f"  {s}\n" for s in sorted(_SERVICES)), end="")
        return 0
    service, rest = args[0], args[1:]
    if service == "activity":
        return await run_am(ctx, rest)
    if service == "package":
        return await run_pm(ctx, rest)
    if service == "input":
        return await run_input(ctx, rest)
    if service in ("settings", "window"):
        inner = CommandContext(argv=["settings" if service == "settings" else "wm", *rest], env=ctx.env,
                               phone=ctx.phone, stdin=ctx.stdin, out=ctx.out, err=ctx.err, shell=ctx.shell,
                               session=ctx.session)
        return await (settings if service == "settings" else wm)(inner)
    if service == "statusbar" and rest:
        return await _statusbar(ctx, rest)
    if service == "notification" and rest[:1] == ["post"]:
        return await _post_notification(ctx, rest[1:])
    if service in _SERVICES:
        return 0
    return await ctx.fail(f"cmd: Can't find service: {service}", 20)


async def _statusbar(ctx: CommandContext, args: list[str]) -> int:
    """``cmd statusbar expand-notifications | expand-settings | collapse``."""
    shade = ctx.phone.notifications
    if args[0] in ("expand-notifications", "expand-settings"):
        shade.expand()
    elif args[0] == "collapse":
        shade.collapse()
    else:
        return await ctx.fail(f"Unknown command: {args[0]}", 1)
    return 0


async def _post_notification(ctx: CommandContext, args: list[str]) -> int:
    """``cmd notification post [-t TITLE] TAG TEXT``: a notification from the shell (com.android.shell), as
    Android's NotificationShellCmd posts it."""
    title = ""
    while args and args[0].startswith("-"):
        flag = args.pop(0)
        if flag in ("-t", "--title") and args:
            title = args.pop(0)
        elif flag in ("-v", "--verbose"):
            continue
        else:
            return await ctx.fail(f"Error: unknown or incomplete option {flag}", 1)
    if len(args) != 2:
        return await ctx.fail("usage: cmd notification post [-t TITLE] TAG TEXT", 1)
    tag, text = args
    ctx.phone.notifications.post("com.android.shell", title or tag, text)
    return 0
