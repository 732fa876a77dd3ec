"""``dumpsys SERVICE``: the lines clients grep for, in Android 14's formats.

Only the lines that tools parse are reproduced faithfully (adbutils: ``mCurrentFocus=Window{...}``,
``mResumedActivity: ActivityRecord{...}``, ``ACTIVITY pkg/.Act hash pid=N``, ``orientation=N``,
``mHoldingDisplaySuspendBlocker=true``, ``level: N``, ``versionName=``, ``firstInstallTime=``); the rest
is enough surrounding text to look like the real dump.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from relay_desktop.sim.shell.base import (
    CommandContext,
    apk_path,
    command,
    fake_pid,
    full_class,
    hexid,
    short_component,
)

DISPLAY_ID = "4619827259835644672"


def _focus(phone: Any) -> tuple[str, str] | None:
    focused = phone.focused_activity()
    return (focused[0], focused[1]) if focused else None


def _task_id(package: str) -> int:
    return 10 + int(hexid("task", package), 16) % 90


def _record(package: str, activity: str) -> str:
    return (f"ActivityRecord{{{hexid('record', package, activity)} u0 {short_component(package, activity)} "
            f"t{_task_id(package)}}}")


def _app_window(package: str, activity: str) -> str:
    return f"Window{{{hexid('window', package, activity)} u0 {package}/{full_class(package, activity)}}}"


def _ime_window(phone: Any) -> str:
    return f"Window{{{hexid('window', phone.ime_package)} u0 InputMethod}}"


def _stack(phone: Any) -> list[tuple[str, list[str]]]:
    """(package, activity names bottom to top) per task, front task first."""
    tasks = getattr(phone, "tasks", None)
    if isinstance(tasks, dict) and tasks:
        return [(pkg, [getattr(a, "name", str(a)) for a in stack]) for pkg, stack in reversed(tasks.items())]
    focus = _focus(phone)
    return [(focus[0], [focus[1]])] if focus else []


def _split_bounds(phone: Any) -> dict[str, Any]:
    """package -> task bounds for the two tasks of split screen (empty when not split)."""
    split = getattr(phone, "split", None)
    if split is None or split.pair is None:
        return {}
    return {package: split.frame_of(package) for package in split.pair.packages}


def _rect(bounds: Any) -> str:
    return f"Rect({bounds.left}, {bounds.top} - {bounds.right}, {bounds.bottom})"


def _rotation(phone: Any) -> int:
    return int(getattr(phone, "rotation", 0)) % 4


def _logical_size(phone: Any) -> tuple[int, int]:
    width, height = phone.size_override or phone.physical_size
    return (height, width) if _rotation(phone) % 2 else (width, height)


# --------------------------------------------------------------------------- window

def window_dump(phone: Any, section: str) -> str:
    focus = _focus(phone)
    shown = bool(phone.keyboard_shown)
    width, height = _logical_size(phone)
    density = phone.density_override or phone.physical_density
    lines = [f"WINDOW MANAGER {section.upper()} (dumpsys window {section})"]
    windows = [("NavigationBar0", "com.android.systemui", "NAVIGATION_BAR", True),
               ("StatusBar", "com.android.systemui", "STATUS_BAR", True),
               ("InputMethod", phone.ime_package, "INPUT_METHOD", shown)]
    split = _split_bounds(phone)
    if split:   # WM Shell's divider window sits above both halves
        windows.append(("StageCoordinatorSplitDivider", "com.android.systemui", "DOCK_DIVIDER", True))
    windows += [(f"{pkg}/{full_class(pkg, stack[-1])}", pkg, "BASE_APPLICATION", index == 0 or pkg in split)
                for index, (pkg, stack) in enumerate(_stack(phone)) if stack]
    windows.append(("com.android.systemui.wallpapers.ImageWallpaper", "com.android.systemui", "WALLPAPER", True))
    for index, (title, owner, kind, visible) in enumerate(windows):
        lines += [f"  Window #{index} Window{{{hexid('window', title)} u0 {title}}}:",
                  f"    mDisplayId=0 rootTaskId={_task_id(owner)} mSession=Session{{{hexid('session', owner)} "
                  f"{fake_pid(owner)}:u0a{fake_pid(owner) % 1000}}} mClient=android.os.BinderProxy@{hexid(title)}",
                  f"    mOwnerUid={10000 + fake_pid(owner) % 1000} showForAllUsers=false package={owner} appop=NONE",
                  f"    mAttrs={{(0,0)(fillxfill) ty={kind} fmt=TRANSLUCENT}}",
                  f"    mHasSurface={str(visible).lower()} isReadyForDisplay()={str(visible).lower()}",
                  f"    mViewVisibility={'0x0' if visible else '0x8'} mHaveFrame=true mObscured=false",
                  f"    isOnScreen={str(visible).lower()}", f"    isVisible={str(visible).lower()}"]
        if kind == "BASE_APPLICATION" and owner in split:
            bounds = split[owner]
            lines += [f"    Frames: parent={bounds.uiautomator()} display={bounds.uiautomator()} "
                      f"frame={bounds.uiautomator()}",
                      f"    WindowConfiguration: mBounds={_rect(bounds)} mAppBounds={_rect(bounds)} "
                      f"mWindowingMode=multi-window mActivityType=standard"]
    orientation = "land" if _rotation(phone) % 2 else "port"
    lines += [
        "",
        f"  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw{min(width, height) * 160 // density}dp "
        f"w{width * 160 // density}dp h{height * 160 // density}dp {density}dpi nrml long {orientation} finger "
        f"-keyb/v/h -nav/h winConfig={{ mBounds=Rect(0, 0 - {width}, {height}) mAppBounds=Rect(0, 0 - {width}, "
        f"{height}) mDisplayRotation=ROTATION_{_rotation(phone) * 90} mWindowingMode=fullscreen}} s.6}}",
        "  mHasPermanentDpad=false",
        "  mTopFocusedDisplayId=0",
        f"  imeLayeringTarget in display# 0 {_app_window(*focus) if focus else 'null'}",
        f"  imeInputTarget in display# 0 {_app_window(*focus) if focus else 'null'}",
        "  mInTouchMode=true",
        "  mSystemBooted=true mDisplayEnabled=true",
        f"  mDisplayFrozen=false windows=0 client=false apps=0  mRotation={_rotation(phone)}  mLastOrientation=-1",
        f"  mCurrentFocus={_app_window(*focus) if focus else 'null'}",
        f"  mFocusedApp={_record(*focus) if focus else 'null'}",
        f"  mInputMethodWindow={_ime_window(phone)}",
        f"  mCurrentRotation=ROTATION_{_rotation(phone) * 90}",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- activity

def activity_dump(phone: Any, args: list[str]) -> str:
    what = args[0] if args else "activities"
    focus = _focus(phone)
    if what == "top":
        if focus is None:
            return ""
        package, activity = focus
        return (f"TASK {package} id={_task_id(package)} userId=0\n"
                f"  ACTIVITY {short_component(package, activity)} {hexid('record', package, activity)} "
                f"pid={fake_pid(package)}\n"
                f"    Local Activity {hexid('local', package, activity)} State:\n"
                f"      mResumed=true mStopped=false mFinished=false\n")
    if what in ("recents", "r"):
        lines = ["ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)", "  Recent tasks:"]
        for index, (package, _) in enumerate(_stack(phone)):
            lines.append(f"  * Recent #{index}: {_task(package, 1)}")
        return "\n".join(lines) + "\n"
    if what not in ("activities", "a"):
        return f"ACTIVITY MANAGER {what.upper()} (dumpsys activity {what})\n  (nothing)\n"
    lines = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
             "Display #0 (activities from top to bottom):"]
    split = _split_bounds(phone)
    resumed: list[tuple[str, str]] = []
    for index, (package, stack) in enumerate(_stack(phone)):
        # In split screen both tasks are resumed (multi-resume); the focused one is the top resumed.
        running = index == 0 or package in split
        lines.append(f"  * {_task(package, len(stack), 'multi-window' if package in split else 'fullscreen')}")
        if package in split:
            lines.append(f"    mBounds={_rect(split[package])} mWindowingMode=multi-window (split-screen)")
        if running:
            resumed.append((package, stack[-1]))
            lines += [f"    mResumedActivity: {_record(package, stack[-1])}", "    isSleeping=false"]
            if index == 0:
                lines.append(f"    topResumedActivity={_record(package, stack[-1])}")
        for position, activity in reversed(list(enumerate(stack))):
            lines += [f"    * Hist  #{position}: {_record(package, activity)}",
                      f"      packageName={package} processName={package}",
                      "      launchedFromUid=2000 launchedFromPackage=com.android.shell userId=0",
                      f"      state={'RESUMED' if running and position == len(stack) - 1 else 'STOPPED'}"]
    if focus:
        lines += ["", "  Resumed activities in task display areas (from top to bottom):",
                  *[f"    ResumedActivity: {_record(*r)}" for r in resumed], "",
                  f"  ResumedActivity:{_record(*focus)}", f"  topResumedActivity={_record(*focus)}"]
    return "\n".join(lines) + "\n"


def _task(package: str, size: int, mode: str = "fullscreen") -> str:
    kind = "home" if "launcher" in package else "standard"
    return (f"Task{{{hexid('taskrec', package)} #{_task_id(package)} type={kind} A={10000 + fake_pid(package) % 1000}:"
            f"{package} U=0 visible=true visibleRequested=true mode={mode} translucent=false sz={size}}}")


# --------------------------------------------------------------------------- other services

def input_method_dump(phone: Any) -> str:
    shown = str(bool(phone.keyboard_shown)).lower()
    ime = phone.ime_package
    method = f"{ime}/com.android.inputmethod.latin.LatinIME"
    focus = _focus(phone)
    return (f"Current Input Method Manager state:\n"
            f"  Input Methods: mMethodMapUpdateCount=2 mBindInstantServiceAllowed=false\n"
            f"    InputMethod #0:\n      mId={method} mIsVrOnly=false mSupportsSwitchingToNextInputMethod=true\n"
            f"  mCurMethodId={method}\n"
            f"  mCurFocusedWindow={_app_window(*focus) if focus else 'null'} "
            f"softInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE|IS_FORWARD_NAVIGATION\n"
            f"  mCurIntent=Intent {{ act=android.view.InputMethod cmp={method} (has extras) }}\n"
            f"  mShowRequested={shown} mShowExplicitlyRequested=false mShowForced=false mInputShown={shown}\n"
            f"  mInFullscreenMode=false\n  mSystemReady=true mInteractive=true\n"
            f"  mImeWindowVis={3 if phone.keyboard_shown else 0}\n"
            f"  mInputShown={shown}\n"
            f"InputMethodService:\n"
            f"  mWindowVisible={shown} mInShowWindow=false\n"
            f"  mInputStarted={shown} mInputViewStarted={shown} mCandidatesViewStarted=false\n"
            f"  mShowInputRequested={shown} mLastShowInputRequested={shown} mShowInputFlags=0x0\n"
            f"  mIsInputViewShown={shown} mStatusIcon=0\n")


def display_dump(phone: Any) -> str:
    width, height = _logical_size(phone)
    pw, ph = phone.physical_size
    rotation = _rotation(phone)
    density = phone.density_override or phone.physical_density
    return (f"DISPLAY MANAGER (dumpsys display)\n  mOnlyCode=false\n  mSafeMode=false\n  mPendingTraversal=false\n"
            f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, "
            f"uniqueId='local:{DISPLAY_ID}', physicalPort=0, orientation={rotation}, "
            f"logicalFrame=Rect(0, 0 - {width}, {height}), physicalFrame=Rect(0, 0 - {width}, {height}), "
            f"deviceWidth={width}, deviceHeight={height}}}]\n"
            f"\nDisplay Devices: size=1\n"
            f"  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"local:{DISPLAY_ID}\", {pw} x {ph}, modeId 1, "
            f"defaultModeId 1, supportedModes [{{id=1, width={pw}, height={ph}, fps=60.0}}], density "
            f"{phone.physical_density}, {phone.physical_density}.0 x {phone.physical_density}.0 dpi, "
            f"touch INTERNAL, rotation 0, type INTERNAL, state ON}}\n"
            f"\nLogical Displays: size=1\n  Display 0:\n    mDisplayId=0\n"
            f"    mBaseDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real {pw} x {ph}, "
            f"rotation 0, density {phone.physical_density}}}\n"
            f"    mOverrideDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, app {width} x {height}, "
            f"real {width} x {height}, rotation {rotation}, density {density}}}\n")


def power_dump(phone: Any) -> str:
    awake = bool(getattr(phone, "screen_on", True))
    return (f"POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n"
            f"  mWakefulness={'Awake' if awake else 'Asleep'}\n  mWakefulnessChanging=false\n"
            f"  mIsPowered=true\n  mPlugType=2\n  mBatteryLevel={getattr(phone, 'battery_level', 100)}\n"
            f"  mStayOn=false\n  mProximityPositive=false\n  mBootCompleted=true\n  mSystemReady=true\n"
            f"  mHoldingWakeLockSuspendBlocker=false\n"
            f"  mHoldingDisplaySuspendBlocker={str(awake).lower()}\n\n"
            f"Display Power: state={'ON' if awake else 'OFF'}\n")


def battery_dump(phone: Any) -> str:
    level = getattr(phone, "battery_level", 100)
    return ("Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n"
            "  Dock powered: false\n  Max charging current: 500000\n  Max charging voltage: 5000000\n"
            f"  Charge counter: {level * 40000}\n  status: {5 if level >= 100 else 2}\n  health: 2\n"
            f"  present: true\n  level: {level}\n  scale: 100\n  voltage: 4350\n  temperature: 250\n"
            "  technology: Li-ion\n")


def package_dump(phone: Any, package: str) -> str:
    app = phone.apps.get(package)
    if app is None:
        return "Dexopt state:\n  Unable to find package: " + package + "\n"
    code_path = apk_path(app).rsplit("/", 1)[0]
    installed = app.install_time.strftime("%Y-%m-%d %H:%M:%S")
    flags = "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA" if app.system else "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
    main = full_class(app.package, app.main_activity)
    return (f"Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n"
            f"        {hexid('filter', main)} {short_component(app.package, app.main_activity)} filter "
            f"{hexid('intent', main)}\n          Action: \"android.intent.action.MAIN\"\n"
            f"          Category: \"android.intent.category.LAUNCHER\"\n\n"
            f"Packages:\n  Package [{app.package}] ({hexid('pkg', app.package)}):\n"
            f"    userId={1000 if app.system else 10000 + sum(app.package.encode()) % 900}\n"
            f"    pkg=Package{{{hexid('pkgobj', app.package)} {app.package}}}\n"
            f"    codePath={code_path}\n    resourcePath={code_path}\n    primaryCpuAbi=arm64-v8a\n"
            f"    versionCode={app.version_code} minSdk=28 targetSdk=34\n    versionName={app.version_name}\n"
            f"    splits=[base]\n    apkSigningVersion=3\n    flags=[ {flags} ]\n"
            f"    dataDir=/data/user/0/{app.package}\n    timeStamp={installed}\n"
            f"    lastUpdateTime={installed}\n"
            f"    installerPackageName={'null' if app.system else 'com.android.vending'}\n"
            f"    signatures=PackageSignatures{{{hexid('sig', app.package)} version:3, signatures:["
            f"{hexid('cert', app.package)}], past signatures:[]}}\n"
            f"    pkgFlags=[ {flags} ]\n"
            f"    User 0: ceDataInode=0 installed=true hidden=false suspended=false distractionFlags=0 "
            f"stopped=false notLaunched=false enabled=0 instant=false virtual=false\n"
            f"      firstInstallTime={installed}\n")


def surfaceflinger_dump(phone: Any, args: list[str]) -> str:
    name = phone.props.get("ro.product.model", "EMU_display_0")
    if "--display-id" in args:
        return f"Display {DISPLAY_ID} (HWC display 0): port=0 pnpId=GGL displayName=\"{name}\"\n"
    width, height = phone.physical_size
    return f"Display {DISPLAY_ID} (active) HWC layers:\n  size={width}x{height}\n"


_SERVICES: dict[str, Callable[[Any, list[str]], str]] = {
    "activity": activity_dump,
    "window": lambda phone, args: window_dump(phone, args[0] if args else "windows"),
    "input_method": lambda phone, args: input_method_dump(phone),
    "display": lambda phone, args: display_dump(phone),
    "power": lambda phone, args: power_dump(phone),
    "battery": lambda phone, args: battery_dump(phone),
    "package": lambda phone, args: package_dump(phone, args[0] if args else ""),
    "SurfaceFlinger": surfaceflinger_dump,
}


@command("dumpsys")
async def dumpsys(ctx: CommandContext) -> int:
    args = ctx.argv[1:]
    if args and args[0] == "-l":
        await ctx.print("Currently running services:\n" + "".join(f"  {s}\n" for s in sorted(_SERVICES)), end="")
        return 0
    if args and not args[0].startswith("-"):
        dump = _SERVICES.get(args[0])
        if dump is None:
            return await ctx.fail(f"Can't find service: {args[0]}", 0)
        await ctx.out(dump(ctx.phone, args[1:]).encode())
        return 0
    for name in sorted(_SERVICES):
        text = _SERVICES[name](ctx.phone, [])
        await ctx.out(("-" * 79 + f"\nDUMP OF SERVICE {name}:\n{text}").encode())
    return 0
