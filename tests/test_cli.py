"""The `relay-desktop` command as a newcomer runs it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from relay_desktop import __version__
from tests.conftest import AdbTestServer, free_port


def run_cli(*args: str, timeout: float = 30, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "relay_desktop.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_version_and_help() -> None:
    assert run_cli("--version").stdout.strip() == f"relay-desktop {__version__}"
    assert "--demo" in run_cli("--help").stdout
    headless = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    bare = run_cli(env=headless)
    assert bare.returncode == 1 and "no display to open the window on" in bare.stderr
    assert 'relay-desktop run "Turn on Wi-Fi" --sim' in bare.stderr


def test_bad_size_is_explained() -> None:
    result = run_cli("sim", "--size", "big", "--no-connect")
    assert result.returncode != 0 and "--size must look like 1080x2400" in result.stderr
    tiny = run_cli("sim", "--size", "10x10", "--no-connect")
    assert tiny.returncode == 2 and "smaller than any Android phone" in tiny.stderr


def test_sim_connects_itself_to_adb_and_serves_until_interrupted(adb_server: AdbTestServer) -> None:
    port = free_port()
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(adb_server.port))
    # Ctrl+C as a terminal sends it, whatever pytest itself was started with (a script's background job
    # ignores SIGINT, and its children inherit that).
    proc = subprocess.Popen([sys.executable, "-m", "relay_desktop.cli", "sim", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        lines = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                break
            lines.append(line)
            if "Press Ctrl+C" in line:
                break
        banner = "".join(lines)
        assert "Relay virtual phone is running" in banner, banner + proc.stderr.read()  # type: ignore[union-attr]
        assert f"as 127.0.0.1:{port}" in banner
        echoed = adb_server.run("-s", f"127.0.0.1:{port}", "shell", "echo", "hello")
        assert echoed.stdout == b"hello\n"
        # A second phone on the same port is refused with a helpful message.
        clash = run_cli("sim", "--port", str(port), "--no-connect")
        assert clash.returncode == 1 and "Another virtual phone may be running" in clash.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        finally:
            if proc.poll() is None:       # never leave a phone behind
                proc.kill()
                proc.wait(timeout=5)
    assert proc.returncode in (0, 130)
    devices = adb_server.run("devices").stdout.decode()
    assert f"127.0.0.1:{port}\tdevice" not in devices  # it disconnected itself on the way out


def test_sim_started_in_the_background_stops_cleanly_on_sigterm(adb_server: AdbTestServer) -> None:
    """A script's background job ignores SIGINT: it is stopped with SIGTERM, and then too the phone says goodbye
    to adb (no stale 'offline' device) and exits 0."""
    port = free_port()
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(adb_server.port))
    proc = subprocess.Popen([sys.executable, "-m", "relay_desktop.cli", "sim", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line or "Press Ctrl+C" in line:
                break
        assert f"127.0.0.1:{port}\tdevice" in adb_server.run("devices").stdout.decode()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)
    assert proc.returncode == 0, proc.stderr.read()  # type: ignore[union-attr]
    assert f"127.0.0.1:{port}\tdevice" not in adb_server.run("devices").stdout.decode()
