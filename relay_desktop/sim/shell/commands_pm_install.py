"""``pm install [-r] [-t] [-d] [-g] PATH``: installs an APK pushed to the phone, as ``adb install`` does after its
push to ``/data/local/tmp``.

The package name and version come from the APK's manifest (``sim/apk.py``); the app then shows in ``pm list
packages`` and can be launched. Texts are Android 14's PackageManagerShellCommand's: ``Success``, or
``Failure [CODE: message]`` (stdout, exit 1) for a file that is not an APK or a package already installed
without ``-r``, and ``Error: Can't open file: PATH`` when there is no such file.
"""

from __future__ import annotations

import random

from relay_desktop.sim.apk import ApkError, read_apk
from relay_desktop.sim.apps.sideloaded import sideloaded_app_class
from relay_desktop.sim.shell.base import CommandContext

__all__ = ["pm_install"]

_VALUE_OPTIONS = ("--user", "-i", "--install-reason", "--originating-uri", "--referrer", "--abi", "-S",
                  "--install-location", "--force-uuid", "-p", "--pkg")


async def pm_install(ctx: CommandContext, args: list[str]) -> int:
    options: set[str] = set()
    paths: list[str] = []
    items = iter(args)
    for arg in items:
        if arg in _VALUE_OPTIONS:
            next(items, None)
        elif arg.startswith("-"):
            options.add(arg)
        else:
            paths.append(arg)
    if not paths:
        await ctx.err(b"Error: must either specify a package size or an APK file\n")
        return 1
    source = ctx.phone.fs.normalize(paths[-1]) if paths[-1].startswith("/") else paths[-1]
    if not ctx.phone.fs.exists(source) or ctx.phone.fs.is_dir(source):
        await ctx.err(f"Error: Can't open file: {source}\n".encode())
        return 1
    # The session copies the file first: the failure names the copy, as on a phone.
    staged = f"/data/app/vmdl{random.randrange(10**8, 10**9)}.tmp/base.apk"
    try:
        info = read_apk(ctx.phone.fs.read(source))
    except ApkError:
        await ctx.print(f"Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse {staged}: Failed to load asset "
                        f"path {staged}]")
        return 1
    apps = ctx.phone.apps
    existing = apps.get(info.package)
    if existing is not None and getattr(existing, "system", False):
        await ctx.print(f"Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package {info.package} signatures do not "
                        "match previously installed version; ignoring!]")
        return 1
    if existing is not None and "-r" not in options:
        await ctx.print(f"Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install {info.package} without "
                        "first uninstalling.]")
        return 1
    apps[info.package] = sideloaded_app_class(info)(ctx.phone)
    ctx.phone.invalidate()          # the launcher shows the new app
    await ctx.print("Success")
    return 0
