"""The simulated shell end to end against a fake phone: outputs, exit codes, and the regexes clients use."""

from __future__ import annotations

import asyncio
import hashlib
import re
import struct

import pytest

from relay_desktop.keycodes import keycode
from relay_desktop.sim.shell import COMMANDS, CommandContext, Shell
from relay_desktop.sim.streams import BytePipe, ProcessIO
from tests.sim_shell_fake import HIERARCHY, PNG, FakePhone

APK_PATH = r"package:/data/app/~~[\w-]{22}==/com\.example\.notes-[\w-]{22}==/base\.apk"


@pytest.fixture
def phone() -> FakePhone:
    return FakePhone()


@pytest.fixture
def shell(phone: FakePhone) -> Shell:
    return Shell(phone)


async def sh(shell: Shell, command: str, stdin: bytes = b"") -> tuple[int, str, str]:
    io, out, err = ProcessIO.collecting(stdin)
    status = await shell.run(command, io)
    return status, out.decode(), err.decode()


async def adbutils_shell2(shell: Shell, command: str) -> tuple[int, str]:
    """What AdbDevice.shell2() does over shell v1: append the marker, merge the streams, parse."""
    merged = bytearray()

    async def write(data: bytes) -> None:
        merged.extend(data)

    pipe = BytePipe()
    pipe.close()
    await shell.run(command + "; echo X4EXIT:$?", ProcessIO(pipe, write, write))
    index = merged.rfind(b"X4EXIT:")
    return int(merged[index + 7:]), merged[:index].decode()


# ------------------------------------------------------------------ the shell itself


async def test_exit_marker_carries_the_last_status(shell: Shell) -> None:
    assert await adbutils_shell2(shell, "echo hi") == (0, "hi\n")
    assert await adbutils_shell2(shell, "ls /nope") == (1, "ls: /nope: No such file or directory\n")
    assert await adbutils_shell2(shell, "nosuchcmd") == (127, "/system/bin/sh: nosuchcmd: inaccessible or not found\n")


async def test_unknown_command_is_127(shell: Shell) -> None:
    assert await sh(shell, "frobnicate --now") == (127, "", "/system/bin/sh: frobnicate: inaccessible or not found\n")
    assert await sh(shell, "/system/bin/nope") == (
        127, "", "/system/bin/sh: /system/bin/nope: inaccessible or not found\n")


async def test_full_path_to_a_known_binary_runs_it(shell: Shell) -> None:
    assert await sh(shell, "/system/bin/echo ok") == (0, "ok\n", "")


async def test_syntax_error_runs_nothing(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "input tap 1 2; ;") == (1, "", "/system/bin/sh: syntax error: unexpected ';'\n")
    assert phone.calls == []
    assert await sh(shell, "echo 'oops") == (1, "", "/system/bin/sh: no closing quote\n")


async def test_status_and_and_or(shell: Shell) -> None:
    assert await sh(shell, "false; echo $?; true && echo yes || echo no; false && echo yes || echo no") == (
        0, "1\nyes\nno\n", "")
    assert await sh(shell, "false || false") == (1, "", "")
    assert await sh(shell, "! false") == (0, "", "")


async def test_exit_ends_the_command_line(shell: Shell) -> None:
    assert await sh(shell, "echo a; exit 3; echo b") == (3, "a\n", "")
    assert await sh(shell, "false; exit") == (1, "", "")


async def test_variables_expand_and_split(shell: Shell) -> None:
    assert await sh(shell, 'X="a  b"; echo $X; echo "$X"; echo ${X}c "${X}c"') == (0, "a b\na  b\na bc a  bc\n", "")
    assert await sh(shell, "echo \"[$UNSET]\" $UNSET end") == (0, "[] end\n", "")


async def test_env_prefix_applies_to_one_command(shell: Shell) -> None:
    assert await sh(shell, "FOO=bar env | grep FOO; env | grep -c FOO") == (1, "FOO=bar\n0\n", "")


async def test_command_substitution(shell: Shell) -> None:
    assert await sh(shell, "echo model=$(getprop ro.product.model)") == (0, "model=Relay Virtual Phone\n", "")


async def test_pipes(shell: Shell) -> None:
    assert await sh(shell, "getprop | grep model") == (0, "[ro.product.model]: [Relay Virtual Phone]\n", "")
    assert await sh(shell, "echo one two | wc -w") == (0, "2\n", "")
    assert await sh(shell, "getprop | grep nothing-like-this") == (1, "", "")


async def test_head_ends_a_pipeline_early(shell: Shell) -> None:
    # yes-like producer: 200k lines would block on the 256 KiB pipe if head did not close it.
    status, out, _ = await asyncio.wait_for(sh(shell, "dumpsys | head -n 2"), timeout=5)
    assert status == 0 and out.count("\n") == 2


async def test_redirect_to_a_file_and_back(shell: Shell) -> None:
    assert await sh(shell, "echo hi > /sdcard/x; echo there >> /sdcard/x; cat /sdcard/x") == (0, "hi\nthere\n", "")
    assert await sh(shell, "cat < /sdcard/x | wc -l") == (0, "2\n", "")


async def test_redirect_errors(shell: Shell) -> None:
    assert await sh(shell, "echo hi > /sdcard/nodir/x") == (
        1, "", "/system/bin/sh: can't create /sdcard/nodir/x: No such file or directory\n")
    assert await sh(shell, "echo hi > /system/x") == (
        1, "", "/system/bin/sh: can't create /system/x: Read-only file system\n")
    assert await sh(shell, "cat < /nope") == (1, "", "/system/bin/sh: can't open /nope: No such file or directory\n")


async def test_stderr_redirections(shell: Shell) -> None:
    assert await sh(shell, "ls /nope 2>/dev/null; echo $?") == (0, "1\n", "")
    assert await sh(shell, "ls /nope 2>&1 | grep -c nope") == (0, "1\n", "")
    assert await sh(shell, "echo oops >&2") == (0, "", "oops\n")


async def test_glob_expansion(shell: Shell, phone: FakePhone) -> None:
    phone.fs.write("/sdcard/a.png", b"1")
    phone.fs.write("/sdcard/b.png", b"2")
    assert await sh(shell, "echo /sdcard/*.png '/sdcard/*.png' /sdcard/*.gif") == (
        0, "/sdcard/a.png /sdcard/b.png /sdcard/*.png /sdcard/*.gif\n", "")
    assert await sh(shell, "cd /sdcard && echo *.png && pwd") == (0, "a.png b.png\n/sdcard\n", "")


async def test_background_job_does_not_block(shell: Shell) -> None:
    status, out, _ = await asyncio.wait_for(sh(shell, "sleep 30 & echo started"), timeout=2)
    assert (status, out) == (0, "started\n")
    assert shell.background_jobs == 1
    await shell.aclose()
    assert shell.background_jobs == 0


async def test_sh_dash_c_runs_nested(shell: Shell) -> None:
    assert await sh(shell, "sh -c 'echo inner; exit 4'; echo outer=$?") == (0, "inner\nouter=4\n", "")


async def test_interactive_prompt_echo_and_exit(shell: Shell) -> None:
    io, out, _ = ProcessIO.collecting(b"echo hi\rcd /sdcard\rpwd\rexit 5\r")
    assert await shell.interactive(io) == 5
    assert out.decode() == ("relay_sim:/ $ echo hi\r\nhi\r\nrelay_sim:/ $ cd /sdcard\r\nrelay_sim:/sdcard $ pwd\r\n"
                            "/sdcard\r\nrelay_sim:/sdcard $ exit 5\r\n")


async def test_interactive_without_tty_just_runs_lines(shell: Shell) -> None:
    io, out, _ = ProcessIO.collecting(b"echo a\nfalse\n")
    assert await shell.interactive(io, tty=False) == 1
    assert out.decode() == "a\n"


# ------------------------------------------------------------------ basic utilities


async def test_echo_options_and_escapes(shell: Shell) -> None:
    assert await sh(shell, r"echo -n a; echo 'b\tc'; echo -E 'd\ne'; echo 'f\cg'; echo") == (
        0, "ab\tc\nd\\ne\nf\n", "")


async def test_date_formats(shell: Shell) -> None:
    assert await sh(shell, "date") == (0, "Sun Nov 22 23:05:14 EST 2026\n", "")
    assert await sh(shell, "date +%Y-%m-%dT%H:%M:%S%z") == (0, "2026-11-22T23:05:14-0500\n", "")
    assert await sh(shell, "date +%s") == (0, "1795406714\n", "")


async def test_identity(shell: Shell) -> None:
    assert (await sh(shell, "whoami"))[1] == "shell\n"
    assert (await sh(shell, "id"))[1].startswith("uid=2000(shell) gid=2000(shell) groups=2000(shell),")
    assert await sh(shell, "which ls input cd; echo $?") == (0, "/system/bin/ls\n/system/bin/input\n1\n", "")


async def test_ls_formats(shell: Shell, phone: FakePhone) -> None:
    phone.fs.write("/data/local/tmp/u2.jar", b"x" * 5000)
    assert await sh(shell, "ls /data/local/tmp") == (0, "u2.jar\n", "")
    status, out, _ = await sh(shell, "ls -l /data/local/tmp")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "total 8"
    assert re.fullmatch(r"-rw-r--r-- 1 shell shell 5000 \d{4}-\d\d-\d\d \d\d:\d\d u2\.jar", lines[1])
    assert await sh(shell, "ls /x /data/local/tmp/u2.jar") == (
        1, "/data/local/tmp/u2.jar\n", "ls: /x: No such file or directory\n")
    assert await sh(shell, "ls -z") == (1, "", "ls: Unknown option 'z' (see \"ls --help\")\n")


async def test_file_utilities(shell: Shell) -> None:
    assert await sh(shell, "mkdir -p /sdcard/a/b && touch /sdcard/a/b/f && ls /sdcard/a/b") == (0, "f\n", "")
    assert await sh(shell, "mkdir /sdcard/a") == (1, "", "mkdir: '/sdcard/a': File exists\n")
    assert await sh(shell, "rm /sdcard/a") == (1, "", "rm: /sdcard/a: Is a directory\n")
    assert await sh(shell, "rm -rf /sdcard/a && ls /sdcard/a") == (1, "", "ls: /sdcard/a: No such file or directory\n")
    assert await sh(shell, "rm /sdcard/nope; rm -f /sdcard/nope") == (
        0, "", "rm: /sdcard/nope: No such file or directory\n")
    assert await sh(shell, "touch /system/x") == (1, "", "touch: '/system/x': Read-only file system\n")


async def test_md5sum_and_toybox_alias(shell: Shell, phone: FakePhone) -> None:
    phone.fs.write("/data/local/tmp/u2.jar", b"jar bytes")
    digest = hashlib.md5(b"jar bytes").hexdigest()
    assert await sh(shell, "toybox md5sum /data/local/tmp/u2.jar") == (0, f"{digest}  /data/local/tmp/u2.jar\n", "")
    assert await sh(shell, "md5sum /data/local/tmp/none") == (
        1, "", "md5sum: /data/local/tmp/none: No such file or directory\n")


async def test_text_filters(shell: Shell) -> None:
    text = b"alpha\nBeta\ngamma\ndelta\n"
    assert await sh(shell, "grep -i beta", text) == (0, "Beta\n", "")
    assert await sh(shell, "grep -v a", text) == (1, "", "")
    assert await sh(shell, "grep -vi 'beta\\|gamma'", text) == (0, "alpha\ndelta\n", "")
    assert await sh(shell, "grep -c ta", text) == (0, "2\n", "")
    assert await sh(shell, "grep -E '^(al|ga)'", text) == (0, "alpha\ngamma\n", "")
    assert await sh(shell, r"grep '^\(al\|ga\)'", text) == (0, "alpha\ngamma\n", "")
    assert await sh(shell, "grep -q zeta", text) == (1, "", "")
    assert await sh(shell, "head -n 2", text) == (0, "alpha\nBeta\n", "")
    assert await sh(shell, "tail -1", text) == (0, "delta\n", "")
    assert await sh(shell, "wc -l", text) == (0, "4\n", "")


async def test_sleep_accepts_fractions(shell: Shell) -> None:
    assert await sh(shell, "sleep 0.01 && echo done") == (0, "done\n", "")
    assert await sh(shell, "sleep x") == (1, "", "sleep: Not a number 'x'\n")


# ------------------------------------------------------------------ properties and settings


async def test_getprop(shell: Shell) -> None:
    status, out, _ = await sh(shell, "getprop")
    assert status == 0 and "[ro.build.version.sdk]: [34]\n" in out
    assert out.splitlines() == sorted(out.splitlines())
    assert await sh(shell, "getprop ro.product.model") == (0, "Relay Virtual Phone\n", "")
    assert await sh(shell, "getprop no.such.prop") == (0, "\n", "")


async def test_setprop(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "setprop debug.relay 1; getprop debug.relay") == (0, "1\n", "")
    assert (await sh(shell, "setprop ro.product.model X"))[0] == 1
    assert phone.props["ro.product.model"] == "Relay Virtual Phone"


async def test_settings(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "settings get system screen_brightness") == (0, "128\n", "")
    assert await sh(shell, "settings get secure nothing") == (0, "null\n", "")
    assert await sh(shell, "settings put system screen_brightness 200") == (0, "", "")
    assert phone.settings["system"]["screen_brightness"] == "200"
    assert await sh(shell, "settings delete system screen_brightness") == (0, "Deleted 1 rows\n", "")
    assert await sh(shell, "settings list global") == (0, "bluetooth_on=0\nwifi_on=1\n", "")


async def test_svc_toggles_the_settings_the_settings_app_uses(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "svc wifi disable && svc bluetooth enable") == (0, "", "")
    assert phone.settings["global"] == {"wifi_on": "0", "bluetooth_on": "1"}


async def test_wm_size_and_density(shell: Shell, phone: FakePhone) -> None:
    size_re = re.compile(r"Physical size: (\d+)x(\d+)")
    override_re = re.compile(r"Override size: (\d+)x(\d+)")
    status, out, _ = await sh(shell, "wm size")
    assert (status, out) == (0, "Physical size: 1080x2400\n")
    assert size_re.search(out) and not override_re.search(out)
    assert await sh(shell, "wm size 720x1600 && wm size") == (
        0, "Physical size: 1080x2400\nOverride size: 720x1600\n", "")
    assert phone.size_override == (720, 1600)
    assert await sh(shell, "wm size reset; wm density 320; wm density") == (
        0, "Physical density: 420\nOverride density: 320\n", "")
    assert phone.size_override is None


# ------------------------------------------------------------------ input


async def test_input_gestures(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "input tap 100 200.5 && input touchscreen swipe 1 2 3 4 && input swipe 1 2 3 4 500") == (
        0, "", "")
    assert await sh(shell, "input draganddrop 10 20 30 40 1000") == (0, "", "")
    assert phone.calls == [("tap", 100.0, 200.5), ("swipe", 1.0, 2.0, 3.0, 4.0, 300),
                           ("swipe", 1.0, 2.0, 3.0, 4.0, 500), ("drag", 10.0, 20.0, 30.0, 40.0, 1000)]


async def test_input_keyevents(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "input keyevent KEYCODE_HOME BACK 66 && input keyevent --longpress POWER") == (0, "", "")
    assert phone.calls == [("key", 3, False), ("key", 4, False), ("key", 66, False), ("key", 26, True)]
    assert keycode("KEYCODE_APP_SWITCH") == 187 and keycode("WAKEUP") == 224 and keycode("home") == 0


async def test_input_text_rules(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "input text 'hello%sworld' && input text it\\'s && input text a b") == (0, "", "")
    assert phone.calls == [("text", "hello world"), ("text", "it's"), ("text", "a")]


async def test_input_text_non_ascii_fails_like_android(shell: Shell, phone: FakePhone) -> None:
    status, out, err = await sh(shell, "input text 'héllo'")
    assert (status, out) == (255, "")
    assert err.startswith("\nException occurred while executing 'text':\n"
                          "java.lang.NullPointerException: Attempt to get length of null array\n"
                          "\tat com.android.server.input.InputShellCommand.sendText(")
    assert phone.calls == []


async def test_input_bad_arguments(shell: Shell, phone: FakePhone) -> None:
    status, _, err = await sh(shell, "input tap x 10")
    assert status == 255
    assert err.splitlines()[1:3] == ["Exception occurred while executing 'tap':",
                                     "java.lang.IllegalArgumentException: Error: Invalid arguments for command: tap"]
    status, _, err = await sh(shell, "input swipe 1 2 3")
    assert status == 255 and 'java.lang.IllegalArgumentException: Argument expected after "3"' in err
    status, out, _ = await sh(shell, "input")
    assert status == 0 and out.startswith("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n")
    assert await sh(shell, "input fly") == (0, "Unknown command: fly\n", "")
    assert phone.calls == []


async def test_input_motionevents_become_gestures(shell: Shell, phone: FakePhone) -> None:
    await sh(shell, "input motionevent DOWN 10 10; input motionevent UP 12 11")
    await sh(shell, "input motionevent DOWN 10 10; input motionevent MOVE 10 300; input motionevent UP 10 600")
    assert phone.calls[0] == ("tap", 10.0, 10.0)
    assert phone.calls[1][:5] == ("swipe", 10.0, 10.0, 10.0, 600.0)


# ------------------------------------------------------------------ uiautomator and screencap


async def test_uiautomator_dump_to_file_like_adbutils(shell: Shell, phone: FakePhone) -> None:
    target = "/data/local/tmp/uidump.xml"
    status, out, _ = await sh(shell, f"rm -f {target}; uiautomator dump {target} && echo success")
    assert (status, out) == (0, f"UI hierchary dumped to: {target}\nsuccess\n")
    assert phone.fs.read(target).decode() == HIERARCHY
    assert await sh(shell, "uiautomator dump") == (0, "UI hierchary dumped to: /sdcard/window_dump.xml\n", "")


async def test_uiautomator_dump_to_tty_and_idle_error(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "uiautomator dump /dev/tty") == (0, HIERARCHY + "UI hierchary dumped to: /dev/tty\n", "")
    phone.dump_error = True
    assert await sh(shell, "uiautomator dump") == (0, "", "ERROR: could not get idle state.\n")
    status, out, _ = await sh(shell, "uiautomator events")
    assert status == 1 and out.startswith("Usage: uiautomator <subcommand> [options]")


async def test_screencap(shell: Shell, phone: FakePhone) -> None:
    io, out, _ = ProcessIO.collecting()
    assert await shell.run("screencap -p", io) == 0
    assert bytes(out) == PNG
    io, out, _ = ProcessIO.collecting()
    assert await shell.run("screencap", io) == 0
    assert struct.unpack("<4I", out[:16]) == (2, 1, 1, 0)
    assert bytes(out[16:]) == bytes([255, 0, 0, 255, 0, 255, 0, 255])
    assert await sh(shell, "screencap /sdcard/s.png") == (0, "", "")
    assert phone.fs.read("/sdcard/s.png") == PNG


# ------------------------------------------------------------------ am, monkey, pm


async def test_am_start(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "am start -n com.android.settings/.Settings") == (
        0, "Starting: Intent { cmp=com.android.settings/.Settings }\n", "")
    assert await sh(shell, "am start -a android.intent.action.VIEW -d https://example.com/a?q=1") == (
        0, "Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/... }\n", "")
    assert phone.calls[1][:3] == ("intent", "android.intent.action.VIEW", "https://example.com/a?q=1")


async def test_am_start_wait(shell: Shell) -> None:
    status, out, _ = await sh(shell, "am start -W -S -n com.example.notes/.MainActivity")
    assert status == 0
    assert re.fullmatch(r"Stopping: com.example.notes\nStarting: Intent \{ cmp=com.example.notes/.MainActivity \}\n"
                        r"Status: ok\nLaunchState: \w+\nActivity: com.example.notes/.MainActivity\nTotalTime: \d+\n"
                        r"WaitTime: \d+\nComplete\n", out)


async def test_am_start_unknown_activity(shell: Shell) -> None:
    assert await sh(shell, "am start -n com.nope/.Main") == (
        1, "Starting: Intent { cmp=com.nope/.Main }\n",
        "Error type 3\nError: Activity class {com.nope/com.nope.Main} does not exist.\n")
    status, _, err = await sh(shell, "am start -a android.intent.action.DIAL -d tel:555-1234")
    assert (status, err) == (1, "Error: Activity not started, unable to resolve Intent { "
                                "act=android.intent.action.DIAL dat=tel:xxx-xxxx flg=0x10000000 }\n")


async def test_am_force_stop_and_broadcast(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "am force-stop com.android.settings") == (0, "", "")
    assert phone.calls == [("force_stop", "com.android.settings")]
    assert await sh(shell, "am broadcast -a android.intent.action.AIRPLANE_MODE --ez state true") == (
        0, "Broadcasting: Intent { act=android.intent.action.AIRPLANE_MODE flg=0x400000 (has extras) }\n"
           "Broadcast completed: result=0\n", "")


async def test_monkey_launch(shell: Shell, phone: FakePhone) -> None:
    status, out, _ = await sh(shell, "monkey -p com.example.notes -c android.intent.category.LAUNCHER 1")
    assert status == 0
    assert out.startswith("  bash arg: -p\n  bash arg: com.example.notes\n")
    assert "Events injected: 1\n## Network stats: elapsed time=" in out
    assert phone.calls == [("launch", "com.example.notes", None)]
    status, _, err = await sh(shell, "monkey -p com.nope -c android.intent.category.LAUNCHER 1")
    assert status == 252 and err.endswith("** No activities found to run, monkey aborted.\n")


async def test_pm_list_packages_matches_adbutils(shell: Shell) -> None:
    status, out, _ = await sh(shell, "pm list packages")
    found = [m.group(1) for m in re.finditer(r"^package:([^\s]+)\r?$", out, re.M)]
    assert (status, found) == (0, ["com.android.launcher3", "com.android.settings", "com.example.notes"])
    assert await sh(shell, "pm list packages -3") == (0, "package:com.example.notes\n", "")
    assert await sh(shell, "pm list packages -s settings") == (0, "package:com.android.settings\n", "")
    status, out, _ = await sh(shell, "pm list packages -f -3")
    assert re.fullmatch(APK_PATH + r"=com\.example\.notes\n", out)


async def test_pm_path_clear_and_resolve(shell: Shell, phone: FakePhone) -> None:
    status, out, _ = await sh(shell, "pm path com.example.notes")
    assert status == 0 and re.fullmatch(APK_PATH + r"\n", out)
    assert await sh(shell, "pm path com.nope") == (1, "", "")
    assert await sh(shell, "pm clear com.example.notes") == (0, "Success\n", "")
    assert phone.calls == [("clear", "com.example.notes")]
    assert await sh(shell, "cmd package resolve-activity --brief com.android.settings") == (
        0, "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n"
           "com.android.settings/.Settings\n", "")
    assert await sh(shell, "cmd package resolve-activity --brief com.nope") == (0, "No activity found\n", "")
    assert await sh(shell, "cmd nope") == (20, "", "cmd: Can't find service: nope\n")


async def test_app_info_regexes(shell: Shell) -> None:
    """The parsing AdbDevice.app_info() applies to `dumpsys package`."""
    _, out, _ = await sh(shell, "dumpsys package com.example.notes")
    assert re.search(r"versionName=(?P<name>[^\s]+)", out).group("name") == "2.3.1"
    assert re.search(r"versionCode=(?P<code>\d+)", out).group("code") == "231"
    assert re.search(r"PackageSignatures\{.*?\[(.*)\]\}", out) is not None
    assert re.search(r"pkgFlags=\[\s*(.*)\s*\]", out).group(1).split() == ["HAS_CODE", "ALLOW_CLEAR_USER_DATA",
                                                                          "ALLOW_BACKUP"]
    time_regex = r"[-\d]+\s+[:\d]+"
    assert re.search(f"firstInstallTime=({time_regex})", out).group(1) == "2026-01-05 09:30:00"
    assert re.search(f"lastUpdateTime=({time_regex})", out).group(1) == "2026-01-05 09:30:00"
    assert (await sh(shell, "pm dump com.example.notes"))[1] == out


# ------------------------------------------------------------------ dumpsys


async def test_app_current_regexes(shell: Shell) -> None:
    """The three fallbacks of AdbDevice.app_current(), in order."""
    _, windows, _ = await sh(shell, "dumpsys window windows")
    m = re.search(r"mCurrentFocus=Window{.*\s+(?P<package>[^\s]+)/(?P<activity>[^\s]+)\}", windows)
    assert (m.group("package"), m.group("activity")) == ("com.android.settings", "com.android.settings.Settings")
    assert re.search(r"^  mFocusedApp=ActivityRecord\{\w+ u0 com\.android\.settings/\.Settings t\d+\}$", windows, re.M)
    assert re.search(r"^  mInputMethodWindow=Window\{\w+ u0 InputMethod\}$", windows, re.M)
    _, activities, _ = await sh(shell, "dumpsys activity activities")
    m = re.search(r"mResumedActivity: ActivityRecord\{.*?\s+(?P<package>[^\s]+)/(?P<activity>[^\s]+)\s.*?\}",
                  activities)
    assert (m.group("package"), m.group("activity")) == ("com.android.settings", ".Settings")
    assert re.search(r"^  topResumedActivity=ActivityRecord\{", activities, re.M)
    _, top, _ = await sh(shell, "dumpsys activity top")
    m = re.search(r"ACTIVITY (?P<package>[^\s]+)/(?P<activity>[^/\s]+) \w+ pid=(?P<pid>\d+)", top)
    assert (m.group("package"), m.group("activity")) == ("com.android.settings", ".Settings")


async def test_no_focus_prints_null(shell: Shell, phone: FakePhone) -> None:
    phone.focus = None
    _, windows, _ = await sh(shell, "dumpsys window")
    assert "  mCurrentFocus=null\n" in windows and "  mFocusedApp=null\n" in windows


async def test_input_method_reflects_the_keyboard(shell: Shell, phone: FakePhone) -> None:
    assert "mInputShown=false" in (await sh(shell, "dumpsys input_method"))[1]
    phone.keyboard_shown = True
    _, out, _ = await sh(shell, "dumpsys input_method")
    assert "mInputShown=true" in out and "mIsInputViewShown=true" in out


async def test_display_rotation_regexes(shell: Shell, phone: FakePhone) -> None:
    display_re = re.compile(r".*DisplayViewport{.*?valid=true, .*?orientation=(?P<orientation>\d+), .*?"
                            r"deviceWidth=(?P<width>\d+), deviceHeight=(?P<height>\d+).*")
    phone.rotation = 1
    _, out, _ = await sh(shell, "dumpsys display")
    first = next(re.search(r".*?orientation=(?P<orientation>\d+)", line) for line in out.splitlines()
                 if re.search(r".*?orientation=(?P<orientation>\d+)", line))
    assert first.group("orientation") == "1"
    m = display_re.search(out)
    assert (m.group("orientation"), m.group("width"), m.group("height")) == ("1", "2400", "1080")


async def test_power_and_battery(shell: Shell) -> None:
    _, power, _ = await sh(shell, "dumpsys power")
    assert "mHoldingDisplaySuspendBlocker=true" in power and "mWakefulness=Awake" in power
    _, battery, _ = await sh(shell, "dumpsys battery")
    fields = dict(line.strip().split(":", 1) for line in battery.splitlines() if ":" in line)
    assert fields["level"].strip() == "100" and fields["USB powered"].strip() == "true"


async def test_dumpsys_unknown_service(shell: Shell) -> None:
    assert await sh(shell, "dumpsys nosuch") == (0, "", "Can't find service: nosuch\n")


# ------------------------------------------------------------------ app_process and the registry


async def test_app_process_runs_a_registered_main(shell: Shell, phone: FakePhone) -> None:
    seen: dict[str, object] = {}

    async def server_main(ctx: CommandContext, args: list[str]) -> int:
        seen.update(args=args, classpath=ctx.env.get("CLASSPATH"))
        await ctx.print("[server] INFO: Device: Relay")
        return 0

    phone.java_mains["com.genymobile.scrcpy.Server"] = server_main
    assert await sh(shell, "CLASSPATH=/data/local/tmp/scrcpy-server.jar app_process / com.genymobile.scrcpy.Server "
                           "3.3.4 log_level=info") == (0, "[server] INFO: Device: Relay\n", "")
    assert seen == {"args": ["3.3.4", "log_level=info"], "classpath": "/data/local/tmp/scrcpy-server.jar"}
    status, _, err = await sh(shell, "app_process / com.wetest.uia2.Main")
    assert status == 1 and err.startswith("Error: Could not find class 'com.wetest.uia2.Main'\n")


def test_registry_has_the_documented_commands() -> None:
    expected = {"echo", "true", "false", "exit", "sleep", "cat", "ls", "rm", "mkdir", "touch", "md5sum", "toybox",
                "date", "id", "whoami", "pwd", "cd", "which", "wc", "head", "tail", "grep", "svc", "getprop",
                "setprop", "settings", "wm", "input", "uiautomator", "screencap", "am", "monkey", "pm", "cmd",
                "dumpsys", "app_process"}
    assert expected <= set(COMMANDS)


# ------------------------------------------------------------------ what Relay's own device layer sends


async def test_relay_device_layer_commands(shell: Shell, phone: FakePhone) -> None:
    """Commands and regexes of relay_desktop/device/device.py (copied so this test pins the contract)."""
    component = re.compile(r"^\s*(?P<pkg>[A-Za-z][\w.]*)/(?P<act>[\w.$]+)\s*$", re.M)
    _, out, _ = await sh(shell, "cmd package query-activities --brief -a android.intent.action.MAIN "
                                "-c android.intent.category.LAUNCHER")
    assert out.startswith("2 activities found:\n  Activity #0:\n")
    assert sorted(m.group("pkg") for m in component.finditer(out)) == ["com.android.settings", "com.example.notes"]
    focus = re.compile(r"mCurrentFocus=Window\{\S+ \S+ (?P<pkg>[^\s/}]+)/(?P<act>[^\s}]+)\}")
    _, windows, _ = await sh(shell, "dumpsys window windows")
    assert focus.search(windows).group("pkg", "act") == ("com.android.settings", "com.android.settings.Settings")
    resumed = re.compile(r"(?:mResumedActivity|topResumedActivity)[:=] ?ActivityRecord\{\S+ \S+ "
                         r"(?P<pkg>[^\s/}]+)/(?P<act>[^\s}]+)")
    _, activities, _ = await sh(shell, "dumpsys activity activities")
    assert resumed.search(activities).group("pkg", "act") == ("com.android.settings", ".Settings")
    # type_steps(): quoted words joined with &&, newline as a key press.
    assert await sh(shell, "input text 'it'\\''s%sok' && input keyevent 66") == (0, "", "")
    assert phone.calls == [("text", "it's ok"), ("key", 66, False)]


async def test_unknown_key_names_send_nothing(shell: Shell, phone: FakePhone) -> None:
    assert await sh(shell, "input keyevent home KEYCODE_NOPE 999") == (0, "", "")
    assert phone.calls == []


async def test_interactive_ctrl_c_interrupts_the_running_command(shell: Shell) -> None:
    stdin = BytePipe()
    out = bytearray()

    async def write(data: bytes) -> None:
        out.extend(data)

    stdin.feed(b"sleep 30\r")
    session = asyncio.create_task(shell.interactive(ProcessIO(stdin, write, write)))
    await asyncio.sleep(0.05)
    stdin.feed(b"\x03")
    await asyncio.sleep(0.05)
    stdin.feed(b"echo $?\r")
    stdin.close()
    assert await asyncio.wait_for(session, timeout=2) == 0
    assert out.decode() == "relay_sim:/ $ sleep 30\r\n^C\r\nrelay_sim:/ $ echo $?\r\n130\r\nrelay_sim:/ $ "
