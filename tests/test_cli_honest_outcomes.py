"""Outcomes say who drove, and the CLI never shows a traceback: a model that cannot be used ends the run with an
error naming it (unless the user allowed the rule-based planner to take over, which history then says); a server
that refuses is called that, not "no network"; empty input is refused before a phone is touched; a closed pipe
ends quietly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from relay_desktop.cli import main
from relay_desktop.llm.keys import ApiKey
from tests.conftest import AdbTestServer


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adb_server: AdbTestServer) -> Path:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys", lambda self, provider: [])
    return tmp_path


def test_a_named_model_without_a_key_ends_the_run_with_an_error_that_names_it(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "Turn on Wi-Fi", "--sim", "--no-mirror", "--model", "openai/nonsense"])
    captured = capsys.readouterr()
    assert code == 1, captured.out
    assert "✔ success" not in captured.out
    assert "openai/nonsense" in captured.out and "No API key for openai" in captured.out
    assert "--allow-fallback" in captured.out                     # and how to let the rules drive instead
    assert "WARNING" not in captured.out + captured.err           # no raw log lines without -v
    assert main(["runs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["outcome"] == "error" and "openai/nonsense" in listed[0]["reason"]


def test_when_allowed_the_rules_take_over_and_history_says_they_drove(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "Turn on Wi-Fi", "--sim", "--no-mirror", "--model", "openai/nonsense", "--allow-fallback"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "the rule-based fallback planner takes over" in out
    run_id = out.rsplit("Saved as run ", 1)[1].split()[0]
    assert main(["runs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["driver"] == "rule-based planner"
    assert main(["runs", "list"]) == 0
    assert "rules" in capsys.readouterr().out.splitlines()[1]
    assert main(["runs", "show", run_id]) == 0
    assert "driven by the rule-based planner" in capsys.readouterr().out
    report = home / "r.html"
    assert main(["runs", "export", run_id, "-o", str(report)]) == 0
    assert "rule-based planner" in report.read_text(encoding="utf-8")


def test_a_server_that_refuses_is_named_as_such_not_no_network(
        home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys",
                        lambda self, provider: [ApiKey(provider, "sk-test-1234567890", "session")])
    code = main(["run", "Turn on Wi-Fi", "--sim", "--no-mirror", "--provider", "openai",
                 "--base-url", "http://127.0.0.1:9/v1", "--max-steps", "3"])
    captured = capsys.readouterr()
    assert code == 1, captured.out
    assert "no network" not in captured.out.lower()
    assert "refused" in captured.out
    assert "WARNING" not in captured.out + captured.err


@pytest.mark.parametrize("task", ["", "   \n"])
def test_an_empty_task_is_refused_before_a_phone_is_touched_or_a_run_saved(
        task: str, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_phone(self: object, *args: object, **kwargs: object) -> None:
        raise AssertionError("a phone was started for an empty task")
    monkeypatch.setattr("relay_desktop.sim.service.VirtualPhoneService.start", no_phone)
    assert main(["run", task, "--sim"]) == 2
    assert "the task is empty" in capsys.readouterr().err
    assert main(["runs", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_a_closed_pipe_ends_quietly(tmp_path: Path, adb_server: AdbTestServer) -> None:
    env = {**os.environ, "RELAY_DESKTOP_HOME": str(tmp_path), "ANDROID_ADB_SERVER_PORT": str(adb_server.port)}
    process = subprocess.Popen([sys.executable, "-m", "relay_desktop", "run", "Turn on Wi-Fi", "--sim", "--fallback",
                                "--no-mirror"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdout is not None and process.stderr is not None
    first = [process.stdout.readline() for _ in range(3)]      # `| head -3`
    process.stdout.close()
    try:
        err = process.stderr.read().decode()
        code = process.wait(timeout=90)
    finally:
        process.kill()
    assert all(first), first
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert code in (0, 141), err       # done, or ended by the closed pipe as `head` expects
    assert not list(tmp_path.rglob("crash-*")), list(tmp_path.rglob("*crash*"))
    # The history tells what happened: nobody pressed Stop (issue 26: it said "stopped by the user").
    listed = subprocess.run([sys.executable, "-m", "relay_desktop", "runs", "list", "--json"], capture_output=True,
                            text=True, env=env, timeout=60)
    [run] = json.loads(listed.stdout)
    if code == 141:
        assert run["outcome"] == "stopped" and "by the user" not in run["reason"], run
        assert "output" in run["reason"] and "closed" in run["reason"], run


def test_exporting_into_a_missing_folder_names_the_folder_not_the_history(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "Turn on Wi-Fi", "--sim", "--fallback", "--no-mirror"]) == 0
    run_id = capsys.readouterr().out.rsplit("Saved as run ", 1)[1].split()[0]
    assert main(["runs", "export", run_id, "-o", str(home / "nowhere" / "r.html")]) == 1
    err = capsys.readouterr().err
    assert "cannot write" in err and "does not exist" in err and "history" not in err


def test_elements_on_a_picture_says_it_is_a_picture_without_dumping_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    picture = tmp_path / "screen.png"
    Image.new("RGB", (10, 10), "white").save(picture)
    assert main(["elements", str(picture)]) == 1
    err = capsys.readouterr().err
    assert "this is a PNG image, not a UI dump" in err
    assert "\\x" not in err and "IHDR" not in err


def test_the_sim_demo_ends_once_every_task_was_tried(adb_server: AdbTestServer, home: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_desktop.sim.tasks import TASKS_BY_ID

    # Two tasks stand in for the suite: what is tested is that the command ends, and says how it went.
    monkeypatch.setattr("relay_desktop.sim.tasks.ALL_TASKS", [TASKS_BY_ID["wifi_on"], TASKS_BY_ID["bluetooth_off"]])
    assert main(["sim", "--port", "0", "--demo"]) == 0
    out = capsys.readouterr().out
    assert "2/2 tasks solved." in out and "Press Ctrl+C" not in out
