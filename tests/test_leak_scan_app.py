"""The app-wide key-leak scan: after a whole run as a user starts it — `relay-desktop -v run … --sim` with a
key in the OS keyring and others in the environment, every logger at DEBUG, the model echoing a key in its error
messages, another key pasted into the task — plus the settings saved, the run shown and exported, and a crash
report written, no form of any key is in any file the app wrote under its home (settings, the run store with its
SQLite WAL and shared-memory files, the JPEG screenshots and their metadata, logs, the HTML export, crash reports,
phone locks) nor in anything it printed or logged.

tests/test_llm_leak_scan.py does the same for the LLM layer alone; this one is the whole app.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import keyring.backends.SecretService
import pytest
from PIL import Image

from relay_desktop.app_settings import AppSettings
from relay_desktop.cli import main
from relay_desktop.llm.config import LLMSettings
from relay_desktop.llm.keys import KeyStore
from relay_desktop.runs import RunStore
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_agent_e2e import wifi_model

RING_KEY = "sk-ant-api03-RINGcanary1111aaaa2222BBBB3333cccc"          # anthropic's, in the OS keyring
ENV_KEYS = {"ANTHROPIC_API_KEY": "sk-ant-api03-ENVcanary4444dddd5555EEEE6666",
            "OPENAI_API_KEY": "sk-proj-ENVcanary7777ffff8888GGGG9999hhhh",
            "GEMINI_API_KEY": "AIzaSyENVcanary0000iiii1111JJJJ2222kkkk"}
KEYS = (RING_KEY, *ENV_KEYS.values())
# The user pasted a key into the task (the run never loads OpenAI's key, so only its shape gives it away).
TASK = f"Turn on Wi-Fi. If a site asks, my key is {ENV_KEYS['OPENAI_API_KEY']}"


def forms(key: str) -> list[bytes]:
    """The key as it could be written: as is, URL-quoted, JSON-escaped, UTF-16 (EXIF comments, Windows APIs),
    base64 at each of the three alignments it can take inside a longer base64 text, and its distinctive middle."""
    raw = key.encode()
    shifted = [base64.b64encode(b"\0" * pad + raw)[4:-4] for pad in range(3)]
    return [raw, quote(key, safe="").encode(), json.dumps(key).encode(), key.encode("utf-16-le"), *shifted,
            key[6:-6].encode()]


@pytest.fixture
def debug_logging(tmp_path: Path) -> Iterator[tuple[Path, io.StringIO]]:
    """Every logger at DEBUG, into a log file in the app's home and a console stream (as `-v 2> file` would)."""
    root = logging.getLogger()
    log_file = tmp_path / "home" / "logs" / "relay-debug.log"
    log_file.parent.mkdir(parents=True)
    stream = io.StringIO()
    handlers = [logging.FileHandler(log_file, encoding="utf-8"), logging.StreamHandler(stream)]
    for handler in handlers:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    names = ["", "anthropic", "openai", "httpx", "httpcore", "google_genai", "asyncio", "urllib3", "keyring",
             *logging.root.manager.loggerDict]
    levels = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield log_file, stream
    finally:
        for handler in handlers:
            root.removeHandler(handler)
            handler.close()
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def crash_in_a_subprocess(home: Path) -> subprocess.CompletedProcess[bytes]:
    """The command line crashing with the keys in the exception's message: the report lands in ``home``."""
    script = ("import os, sys\n"
              "import relay_desktop.cli.tasks as tasks\nimport relay_desktop.cli as cli\n"
              "async def boom(args):\n"
              "    raise RuntimeError('the provider refused ' + os.environ['ANTHROPIC_API_KEY'] + ' and ' + "
              f"{RING_KEY!r})\n"
              "tasks.run = boom\n"
              "sys.exit(cli.main(['-v', 'tasks']))\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "RELAY_DESKTOP_HOME": str(home),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", **ENV_KEYS}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, env=env,
                          stdin=subprocess.DEVNULL, cwd=Path(__file__).parent.parent)


def test_no_key_in_anything_the_app_wrote_after_a_full_run(
        adb_server: AdbTestServer, fake_llm: FakeLLMServer, secret_service: keyring.backends.SecretService.Keyring,
        debug_logging: tuple[Path, io.StringIO], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(home))
    stand_in = tmp_path / "scrcpy-server"          # the virtual phone runs its own scrcpy server for any file
    stand_in.write_bytes(b"scrcpy server stand-in")
    monkeypatch.setenv("SCRCPY_SERVER_PATH", str(stand_in))
    monkeypatch.setenv("SCRCPY_SERVER_VERSION", "3.3.4")
    for name, value in ENV_KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("keyring.core._keyring_backend", secret_service)   # the app's KeyStore() finds it
    KeyStore().save("anthropic", [RING_KEY])
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)                 # main() installs the crash handler
    monkeypatch.setattr("threading.excepthook", __import__("threading").excepthook)

    # The model: the keyring's key is refused with the key echoed back, the environment's key meets a server
    # error that echoes it too, and then the run goes on to turn Wi-Fi on.
    fake_llm.script(Reply.error(401, message=f"Incorrect API key provided: {RING_KEY}. You can find your key at …"),
                    Reply.error(500, message=f"upstream failed for key {ENV_KEYS['ANTHROPIC_API_KEY']}"))
    fake_llm.default = Reply.from_request(wifi_model)
    url = fake_llm.base_url_for("anthropic")

    reader = RunStore()          # open all along, so the run's pages stay in the WAL file for the scan
    reader.list_runs()
    try:
        assert main(["-v", "run", TASK, "--sim", "--provider", "anthropic", "--base-url", url, "--json"]) == 0
        run_id = reader.list_runs()[0].id
        AppSettings(llm=LLMSettings.for_providers("anthropic")).save()
        assert main(["-v", "runs", "show", run_id]) == 0
        assert main(["-v", "runs", "show", run_id, "--json"]) == 0
        export = home / "exports" / "run.html"
        export.parent.mkdir()
        assert main(["-v", "runs", "export", run_id, "-o", str(export)]) == 0
        crash = crash_in_a_subprocess(home)
        assert crash.returncode == 1 and b"A crash report was written to" in crash.stderr
        written = {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*") if p.is_file()}
    finally:
        reader.close()

    # Every kind of file the brief names is there to scan (else the scan below proves nothing about it).
    names = list(written)
    for ending in ("settings.json", "runs.sqlite3", "runs.sqlite3-wal", "runs.sqlite3-shm", ".jpg",
                   "relay-debug.log", "run.html", ".lock"):
        assert any(n.endswith(ending) for n in names), f"no {ending} among {names}"
    assert any(n.startswith("data/crashes/crash-") for n in names)
    assert len(written["data/runs/runs.sqlite3-wal"]) > 0
    for name in [n for n in names if n.endswith(".jpg")]:
        with Image.open(io.BytesIO(written[name])) as picture:        # metadata, decoded, scanned too
            written[f"{name} (metadata)"] = f"{picture.info!r} {dict(picture.getexif())!r}".encode()

    log_file, stream = debug_logging
    captured = capsys.readouterr()
    written["console log"] = stream.getvalue().encode()
    written["pytest log capture"] = caplog.text.encode()
    written["stdout"] = captured.out.encode()
    written["stderr"] = captured.err.encode()
    written["crash stdout+stderr"] = crash.stdout + crash.stderr

    # The scan had something to find: both anthropic keys were sent, echoed back, and masked where they landed.
    assert {r.key() for r in fake_llm.requests} == {RING_KEY, ENV_KEYS["ANTHROPIC_API_KEY"]}
    assert len(log_file.read_bytes()) > 20_000, "debug logging should have written plenty"
    assert b"[REDACTED]" in written[str(log_file.relative_to(home))]
    assert any(b"[REDACTED]" in data for name, data in written.items() if name.startswith("data/crashes/"))
    assert b'"event": "run_finished"' in written["stdout"] and b"Turn on Wi-Fi" in written["exports/run.html"]
    assert b"my key is [REDACTED]" in written["exports/run.html"]
    leaks = [(where, form) for where, data in written.items() for key in KEYS for form in forms(key) if form in data]
    assert leaks == [], sorted({w for w, _ in leaks})
