"""`relay-desktop run` and `runs` as a user types them, on the virtual phone (`bench`: tests/test_cli_bench.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relay_desktop.cli import main
from relay_desktop.llm.keys import ApiKey
from relay_desktop.sim.service import VirtualPhoneService
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.fake_llm.recorded import RecordedRequest
from tests.test_agent_e2e import wifi_model


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adb_server: AdbTestServer) -> Path:
    """Run history and settings in a temporary folder; the private adb server from the fixture."""
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    # The virtual phone runs its own scrcpy server for any pushed file; no download in tests.
    server = tmp_path / "scrcpy-server"
    server.write_bytes(b"scrcpy server stand-in")
    monkeypatch.setenv("SCRCPY_SERVER_PATH", str(server))
    monkeypatch.setenv("SCRCPY_SERVER_VERSION", "3.3.4")
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys", lambda self, provider: [])
    return tmp_path


def test_run_turn_on_wifi_on_the_virtual_phone_with_the_fallback_planner(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "Turn on Wi-Fi", "--sim"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "rule-based fallback planner (no API key found" in out
    assert "✔ success after" in out and "Virtual phone check: passed (Wi-Fi is on)" in out
    assert "Mirror running: screenshots come from the video stream" in out
    run_id = out.rsplit("Saved as run ", 1)[1].split()[0]

    assert main(["runs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["id"] == run_id and listed[0]["outcome"] == "success"
    assert main(["runs", "show", run_id[:12]]) == 0
    assert "launch_app Settings" in capsys.readouterr().out
    report = home / "report.html"
    assert main(["runs", "export", run_id, "-o", str(report)]) == 0
    assert report.read_text().count("<img") >= 3


def test_run_with_a_model_prints_json_lines(home: Path, capsys: pytest.CaptureFixture[str],
                                            fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_llm.default = Reply.from_request(wifi_model)
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys",
                        lambda self, provider: [ApiKey(provider, "sk-test-1234567890", "session")])
    code = main(["run", "Turn on Wi-Fi", "--sim", "--provider", "openai", "--base-url", fake_llm.base_url_for("openai"),
                 "--json", "--no-split-screen"])
    captured = capsys.readouterr()
    events = [json.loads(line) for line in captured.out.splitlines()]
    assert code == 0, captured.err
    started = next(e for e in events if e["event"] == "run_started")
    assert started["settings"]["agent"]["split_screen"] is False
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_state" and "run_started" in kinds and kinds[-1] in ("run_finished", "run_state")
    finished = next(e for e in events if e["event"] == "run_finished")
    assert finished["outcome"] == "success" and finished["input_tokens"] > 0
    assert "sk-test-1234567890" not in captured.out + captured.err


@pytest.mark.parametrize(("task", "message"), [
    ("   ", "the task is empty"),
    ("x" * 100_000, "the task is 100,000 characters long; the limit is 4,000"),
])
def test_bad_tasks_are_refused_plainly_before_a_phone_or_history(task: str, message: str, home: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", task, "--sim", "--fallback"]) == 2
    assert message in capsys.readouterr().err
    assert main(["runs", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_an_unknown_device_is_a_clear_error(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "Turn on Wi-Fi", "--device", "no-such-phone", "--fallback"]) == 1
    err = capsys.readouterr().err
    assert "no-such-phone" in err


def test_bad_model_options_are_refused(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "x", "--sim", "--model", "boss=openai/gpt-4.1"]) == 2
    assert "the role must be one of fast, planning, verifier" in capsys.readouterr().err


def test_a_model_that_answers_garbage_every_time_fails_clearly_and_is_saved(
        home: Path, capsys: pytest.CaptureFixture[str], fake_llm: FakeLLMServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake_llm.default = Reply.text("Sure! I'd love to help you with your phone today.")
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys",
                        lambda self, provider: [ApiKey(provider, "sk-test-1234567890", "session")])
    code = main(["run", "Turn on Wi-Fi", "--sim", "--provider", "openai", "--base-url", fake_llm.base_url_for("openai"),
                 "--max-steps", "10"])
    out = capsys.readouterr().out
    assert code == 1
    assert "✘ failed after 5 steps" in out and "5 errors in a row; the last: no usable plan" in out
    assert main(["runs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["outcome"] == "failed" and "5 errors in a row" in listed[0]["reason"]


def test_the_virtual_phone_is_mirrored_offline_with_its_own_server(home: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCRCPY_SERVER_PATH")
    monkeypatch.setattr("relay_desktop.mirror.provisioning.install_locations", lambda *a, **k: [])
    monkeypatch.setenv("RELAY_SCRCPY_SERVER_URL", "http://127.0.0.1:9/scrcpy-server")   # nothing listens
    assert main(["run", "Turn on Wi-Fi", "--sim"]) == 0
    out = capsys.readouterr().out
    assert "Mirror running" in out and "No live mirror" not in out and "✔ success" in out


async def test_without_a_scrcpy_server_a_phone_is_not_mirrored_and_says_why(
        home: Path, sim: VirtualPhoneService, adb_server: AdbTestServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_desktop.cli.phone_and_models import start_mirror

    monkeypatch.delenv("SCRCPY_SERVER_PATH")
    monkeypatch.setattr("relay_desktop.mirror.provisioning.install_locations", lambda *a, **k: [])
    monkeypatch.setenv("RELAY_SCRCPY_SERVER_URL", "http://127.0.0.1:9/scrcpy-server")   # nothing listens
    said: list[str] = []
    device = await adb_server.server().device(sim.serial)
    assert await start_mirror(device, said.append) is None
    assert any(line.startswith("No live mirror: could not download the scrcpy server") for line in said), said


def question_model(record: RecordedRequest) -> Reply:
    """A model asked whether Wi-Fi is on: it reads Settings' switch off and answers "no"."""
    if (record.tool_names() or ["act"])[0] == "act":
        step = {"action": "complete", "summary": "Wi-Fi shows off in Quick Settings", "answer": "no"}
        return Reply.tool_call("act", {"thinking": "the switch is off", "steps": [step]})
    return wifi_model(record)


@pytest.mark.parametrize("as_json", [False, True])
def test_run_prints_the_answer_and_json_has_it_in_the_last_event(
        as_json: bool, home: Path, capsys: pytest.CaptureFixture[str], fake_llm: FakeLLMServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake_llm.default = Reply.from_request(question_model)
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys",
                        lambda self, provider: [ApiKey(provider, "sk-test-1234567890", "session")])
    code = main(["run", "Is Wi-Fi on?", "--sim", "--provider", "openai", "--base-url",
                 fake_llm.base_url_for("openai"), "--no-split-screen", *(["--json"] if as_json else [])])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    if as_json:
        events = [json.loads(line) for line in captured.out.splitlines()]
        finished = [e for e in events if e["event"] == "run_finished"]
        assert finished == [e for e in events if e["event"] != "run_state"][-1:] and finished[0]["answer"] == "no"
    else:
        assert "\nAnswer: no\n" in captured.out, captured.out
