#!/usr/bin/env bash
# Smoke-test the built bundle (packaging/build.sh) headless, the way a user's first minutes would go:
#   1. it starts and knows its version;
#   2. it ships what it finds at run time (adb, prices, the phone's font, Qt's platform plugins, the icon, keyring
#      metadata) and nothing of the machine it was built on;
#   3. `run --sim --fallback`: the agent completes a task on the virtual phone, through the bundled adb, with and
#      without the live mirror (PyAV decoding), reading the screen with the bundled uiautomator2 server;
#   4. each provider SDK makes a real request (to the tests' fake server), and the MCP server answers the SDK's
#      client (its tools, and the virtual phone's screen);
#   5. the window opens (Qt offscreen, and on X11 when Xvfb is installed), runs its demo task to success, and
#      is closed.
#
#   packaging/smoke.sh [BUNDLE_DIR]      (default dist/relay-desktop; exits non-zero on the first failure)
#
# Everything runs in a temporary RELAY_DESKTOP_HOME with a private adb server port, so it neither reads the user's
# settings, keys or runs nor disturbs an adb server in use. Linux one-folder layout (the CI's).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BUNDLE="${1:-dist/relay-desktop}"
[ -x "$BUNDLE/relay-desktop" ] || { echo "smoke.sh: no bundle at $BUNDLE; build it with packaging/build.sh" >&2; exit 2; }
BUNDLE=$(cd "$BUNDLE" && pwd -P)  # physical: compared below with the running adb's /proc/PID/exe
APP="$BUNDLE/relay-desktop"
INTERNAL="$BUNDLE/_internal"
BUNDLED_ADB="$INTERNAL/adbutils/binaries/adb"
PYTHON="${PYTHON:-.venv/bin/python}"
[ -x "$PYTHON" ] || { echo "smoke.sh: no $PYTHON (the project's venv runs the fake LLM server); set PYTHON" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/relay-smoke.XXXXXX")
ADB_PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
WINDOW_PID=
XVFB_PID=
cleanup() {
    [ -n "$WINDOW_PID" ] && kill "$WINDOW_PID" 2>/dev/null || true
    [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
    # The app leaves the adb server it started running, as adb itself does; this one was only for the smoke.
    [ -x "$BUNDLED_ADB" ] && "$BUNDLED_ADB" -P "$ADB_PORT" kill-server >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/empty-path"
# The virtual phone runs its own scrcpy server, so any file stands in for the jar the mirror pushes; without
# one the app would try to download the real server from GitHub.
echo "The virtual phone runs its own scrcpy server." >"$WORK/virtual-phone-server.jar"
export SCRCPY_SERVER_PATH="$WORK/virtual-phone-server.jar"
export QT_QPA_PLATFORM=offscreen ANDROID_ADB_SERVER_PORT="$ADB_PORT" RELAY_DESKTOP_HOME="$WORK/home"
# The bundled adb must be the one that runs: an $BUNDLED_ADB or an adb on PATH would be picked first.
unset ADB ADBUTILS_ADB_PATH ANDROID_ADB_SERVER_ADDRESS ANDROID_ADB_SERVER_HOST ANDROID_SERIAL

fail() { echo "SMOKE FAIL: $*" >&2; exit 1; }
step() { echo "── $*"; }
# The bundle runs with an empty PATH below, so it can only use what it ships.

step "version"
version=$(timeout 60 "$APP" --version) || fail "--version exited with $?"
expected=$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
[ "$version" = "relay-desktop $expected" ] || fail "--version printed '$version', expected 'relay-desktop $expected'"
echo "$version"

step "contents"
for path in adbutils/binaries/adb relay_desktop/llm/prices.json relay_desktop/py.typed \
            PySide6/Qt/plugins/platforms/libqoffscreen.so PySide6/Qt/plugins/platforms/libqxcb.so \
            PySide6/Qt/plugins/platforms/libqwayland.so resources/relay-desktop.desktop \
            resources/icons/hicolor/512x512/apps/relay-desktop.png; do
    [ -e "$INTERNAL/$path" ] || fail "the bundle lacks $path"
done
[ -x "$BUNDLED_ADB" ] || fail "the bundled adb is not executable"
compgen -G "$INTERNAL/fontpkg_roboto/files/Roboto*.ttf" >/dev/null || fail "the bundle lacks the Roboto font"
compgen -G "$INTERNAL/keyring-*.dist-info/entry_points.txt" >/dev/null \
    || fail "the bundle lacks keyring's entry points (it would find no OS keyring)"
# Nothing of the build machine: no path into the checkout or the venv (where a user's settings, keys or a
# developer's files could come from), and no settings or run history.
venv_prefix=$("$PYTHON" -c 'import sys; print(sys.prefix)')
for local_path in "$ROOT" "$venv_prefix"; do
    found=$(grep -rlF "$local_path" "$BUNDLE" | head -5 || true)
    [ -z "$found" ] || fail "the bundle mentions the build machine's $local_path in: $found"
done
found=$(find "$BUNDLE" \( -name settings.json -o -name 'runs.sqlite*' -o -name '*.egg-info' -o -name .env \) | head -5)
[ -z "$found" ] || fail "the bundle holds local files: $found"
echo "ok ($(du -sh "$BUNDLE" | cut -f1))"

step "run on the virtual phone, no mirror"
timeout 180 env PATH="$WORK/empty-path" "$APP" run "Turn on Wi-Fi" --sim --fallback --no-mirror 2>&1 \
    | tee "$WORK/no-mirror.log"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "run --sim --fallback --no-mirror exited with $status"
# The bundle ships uiautomator2's u2.jar: the screen is read by its server, not by `uiautomator dump`.
grep -q "Screen read by the uiautomator2 server" "$WORK/no-mirror.log" \
    || fail "the run did not use the uiautomator2 server (is u2.jar in the bundle?)"
adb_exe=$(for proc in /proc/[0-9]*; do
    if { tr '\0' ' ' <"$proc/cmdline"; } 2>/dev/null | grep -q "tcp:$ADB_PORT fork-server"; then
        readlink "$proc/exe"
    fi
done | head -1)
[ "$adb_exe" = "$BUNDLED_ADB" ] || fail "the adb server on port $ADB_PORT runs '$adb_exe', not the bundled $BUNDLED_ADB"

step "run on the virtual phone, with the live mirror"
timeout 180 env PATH="$WORK/empty-path" "$APP" run "Turn off Bluetooth" --sim --fallback 2>&1 | tee "$WORK/mirror.log"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "run --sim --fallback exited with $status"
if grep -q "No live mirror" "$WORK/mirror.log"; then fail "the run had no live mirror"; fi

step "provider SDKs"
timeout 300 "$PYTHON" packaging/smoke_providers.py "$APP" || fail "a provider SDK failed in the bundle"

step "MCP server"
timeout 300 "$PYTHON" packaging/smoke_mcp.py "$APP" || fail "the bundle's MCP server failed"

# Open the window's demo with the environment given as NAME=VALUE arguments, wait until its run ends, close it.
window_demo() {
    local label=$1 log="$WORK/window-$1.log" outcome= runs
    shift
    export RELAY_DESKTOP_HOME="$WORK/window-home-$label"  # its own run history, to tell its run apart
    env "$@" PATH="$WORK/empty-path" "$APP" --demo >"$log" 2>&1 &
    WINDOW_PID=$!
    for _ in $(seq 1 120); do
        sleep 1
        kill -0 "$WINDOW_PID" 2>/dev/null || { cat "$log" >&2; fail "the $label window exited before its demo finished"; }
        runs=$(timeout 30 "$APP" runs list --json 2>/dev/null || true)
        # `|| true`: no run listed yet is "not yet", not a failure of the pipeline under `set -e -o pipefail`.
        outcome=$( (grep -o '"outcome": "[a-z_]*"' <<<"$runs" || true) | head -1 | cut -d'"' -f4)
        [ -n "$outcome" ] && [ "$outcome" != interrupted ] && break  # a run still going reads as interrupted
    done
    kill "$WINDOW_PID"
    wait "$WINDOW_PID" 2>/dev/null || true
    WINDOW_PID=
    if grep -q "Traceback" "$log"; then
        cat "$log" >&2
        fail "the $label window logged an exception"
    fi
    [ "$outcome" = success ] || { cat "$log" >&2; fail "the $label window's demo run ended '${outcome:-never}'"; }
    echo "ok: the demo run succeeded"
}

step "window (Qt offscreen), demo task"
window_demo offscreen QT_QPA_PLATFORM=offscreen

# What a Linux user runs: Qt's X11 plugin and the X libraries the bundle ships. Needs a virtual X server.
if command -v Xvfb >/dev/null; then
    step "window (X11, under Xvfb), demo task"
    Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$WORK/display" 2>"$WORK/xvfb.log" &
    XVFB_PID=$!
    for _ in $(seq 1 100); do [ -s "$WORK/display" ] && break; sleep 0.1; done
    [ -s "$WORK/display" ] || { cat "$WORK/xvfb.log" >&2; fail "Xvfb did not start"; }
    window_demo x11 QT_QPA_PLATFORM=xcb DISPLAY=":$(cat "$WORK/display")"
else
    echo "── (no Xvfb here: the window under X11 is not tested)"
fi

echo "SMOKE OK"
