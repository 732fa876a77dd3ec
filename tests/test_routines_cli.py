"""`relay-desktop routines …` and `run` with routines, as a user types them, on virtual phones through adb."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from relay_desktop.cli import main
from relay_desktop.llm.keys import ApiKey
from relay_desktop.sim.config import PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_agent_e2e import wifi_model
from tests.test_cli_run import home  # noqa: F401  (fixture: history and settings in a temporary folder)

pytestmark = pytest.mark.usefixtures("home")

TEXT_BOB = 'Text Bob "running late"'


def _saved_run(capsys: pytest.CaptureFixture[str]) -> str:
    """A successful run of the Bob task by the rule-based planner (no key), its id."""
    assert main(["run", TEXT_BOB, "--sim", "--yes", "--no-routines"]) == 0, capsys.readouterr().out
    return capsys.readouterr().out.rsplit("Saved as run ", 1)[1].split()[0]


def test_save_show_run_with_other_values_and_the_history_marks_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_id = _saved_run(capsys)
    assert main(["routines", "save", run_id[:14], "--name", "text someone"]) == 0
    out = capsys.readouterr().out
    assert "Saved the routine 'text someone', version 1: 4 steps." in out
    assert "parameters: name='Bob', message='running late'" in out
    assert main(["routines", "show", "text someone", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["parameters"] == [{"name": "name", "default": "Bob"},
                                   {"name": "message", "default": "running late"}]
    assert shown["task"] == 'Text {name} "{message}"'

    code = main(["routines", "run", "text someone", "--sim", "--yes", "--param", "name=Grace",
                 "--param", "message=on my way"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "replayed (routine text someone v1)" in out and "0 tokens" in out
    run_id = out.rsplit("Saved as run ", 1)[1].split()[0]
    assert main(["runs", "list", "--json"]) == 0
    latest = json.loads(capsys.readouterr().out)[0]
    assert latest["id"] == run_id and latest["driver"] == "routine" and latest["task"] == 'Text Grace "on my way"'
    assert main(["runs", "show", run_id]) == 0
    assert capsys.readouterr().out.count("(replayed)") == 4
    report = tmp_path / "replay.html"
    assert main(["runs", "export", run_id, "-o", str(report)]) == 0
    assert "replayed (routine text someone v1)" in report.read_text()
    capsys.readouterr()
    assert main(["routines", "list", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["runs"] == 1 and listed["last_outcome"] == "success"


def test_a_typed_task_uses_a_matching_routine_unless_told_not_to(
        capsys: pytest.CaptureFixture[str]) -> None:
    run_id = _saved_run(capsys)
    assert main(["routines", "save", run_id, "--name", "text", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == 1
    assert main(["run", "text Carol ‘see you at 8’", "--sim", "--yes", "--json"]) == 0
    captured = capsys.readouterr()
    assert 'This task is the saved routine "text" (version 1) with name=Carol, message=see you at 8' in captured.err
    events = [json.loads(line) for line in captured.out.splitlines()]
    plans = [e for e in events if e["event"] == "plan_received"]
    assert plans and all(e["source"] == "routine" for e in plans)

    assert main(["run", TEXT_BOB, "--sim", "--yes", "--no-routines"]) == 0
    out = capsys.readouterr().out
    assert "saved routine" not in out and "fallback planner" in out


def test_export_edit_import_and_versions(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    run_id = _saved_run(capsys)
    assert main(["routines", "save", run_id, "--name", "text"]) == 0
    capsys.readouterr()
    assert main(["routines", "export", "text"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# A Relay Desktop routine") and "{message}" in text
    edited = tmp_path / "late.yaml"
    edited.write_text(text.replace("default: running late", "default: stuck in traffic"), encoding="utf-8")
    assert main(["routines", "import", str(edited), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == 2
    assert main(["routines", "versions", "text", "--json"]) == 0
    versions = json.loads(capsys.readouterr().out)
    assert [v["version"] for v in versions] == [1, 2] and versions[1]["current"]
    assert main(["routines", "show", "text", "--version", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["parameters"][1]["default"] == "running late"

    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace("action: type", "action: typo"), encoding="utf-8")
    assert main(["routines", "import", str(broken)]) == 1
    err = capsys.readouterr().err
    assert "broken.yaml: steps[3].action: 'typo' is not an action a routine can replay" in err
    assert "Traceback" not in err

    assert main(["routines", "rename", "text", "late note", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "late note"
    assert main(["routines", "delete", "late note"]) == 0
    assert main(["routines", "list"]) == 0
    assert "No routines yet" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["routines", "show", "nope"], "no routine is called 'nope'"),
    (["routines", "save", "zzzz", "--name", "x"], "no run has an id starting with 'zzzz'"),
    (["routines", "run", "nope", "--sim"], "no routine is called 'nope'"),
])
def test_bad_input_is_one_clear_line(args: list[str], message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) in (1, 2)
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_failed_run_cannot_be_saved_and_an_unknown_parameter_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "Fly to the moon", "--sim", "--max-steps", "2", "--no-routines"]) != 0
    failed = capsys.readouterr().out.rsplit("Saved as run ", 1)[1].split()[0]
    assert main(["routines", "save", failed, "--name", "moon"]) == 1
    assert "only a successful run can become a routine" in capsys.readouterr().err
    run_id = _saved_run(capsys)
    assert main(["routines", "save", run_id, "--name", "text"]) == 0
    capsys.readouterr()
    assert main(["routines", "run", "text", "--sim", "--param", "colour=red"]) == 2
    assert "has no parameter colour (its parameters: name, message)" in capsys.readouterr().err


def test_with_no_model_a_replay_that_must_hand_over_exits_with_one_clear_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    run_id = _saved_run(capsys)
    assert main(["routines", "save", run_id, "--name", "text"]) == 0
    capsys.readouterr()
    code = main(["routines", "run", "text", "--sim", "--yes", "--param", "name=Nobody"])
    out = capsys.readouterr().out
    assert code == 1
    assert "could not be replayed past its step 2" in out and "no model is set up to take over" in out


async def _two_phones(adb_server: AdbTestServer) -> list[Any]:
    phones = [VirtualPhoneService(PhoneConfig(), adb=adb_server.server()) for _ in range(2)]
    for phone in phones:
        await phone.start()
    return phones


def test_group_control_runs_a_routine_on_every_phone_at_once(
        adb_server: AdbTestServer, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    run_id = _saved_run(capsys)
    assert main(["routines", "save", run_id, "--name", "text"]) == 0
    capsys.readouterr()
    loop = asyncio.new_event_loop()
    phones = loop.run_until_complete(_two_phones(adb_server))
    try:
        serve = loop.create_task(asyncio.sleep(3600))
        thread_code: list[int] = []

        def run_command() -> None:
            thread_code.append(main(["routines", "run", "text", "--yes", "--device", phones[0].serial,
                                     "--device", phones[1].serial, "--param", "message=on my way"]))
        import threading

        worker = threading.Thread(target=run_command)
        worker.start()
        while worker.is_alive():
            loop.run_until_complete(asyncio.sleep(0.2))
        serve.cancel()
        out = capsys.readouterr().out
        assert thread_code == [0], out
        assert "2 of 2 phones succeeded." in out
        for phone in phones:
            assert [(m.name, m.text) for m in phone.phone.apps["com.google.android.apps.messaging"].sent] == [
                ("Bob Martinez", "on my way")]
            assert f"[{phone.serial}]" in out
    finally:
        for phone in phones:
            loop.run_until_complete(phone.stop())
        loop.close()


def test_a_routine_saved_from_a_models_run_runs_with_no_model_configured_at_all(
        capsys: pytest.CaptureFixture[str], fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_llm.default = Reply.from_request(wifi_model)
    with monkeypatch.context() as keyed:
        keyed.setattr("relay_desktop.llm.keys.KeyStore.keys",
                      lambda self, provider: [ApiKey(provider, "sk-test-1234567890", "session")])
        assert main(["run", "Turn on Wi-Fi", "--sim", "--provider", "openai", "--base-url",
                     fake_llm.base_url_for("openai"), "--no-split-screen", "--no-routines"]) == 0
    out = capsys.readouterr().out
    run_id = out.rsplit("Saved as run ", 1)[1].split()[0]
    asked = len(fake_llm.requests)
    assert asked > 0
    assert main(["routines", "save", run_id, "--name", "wifi"]) == 0
    code = main(["routines", "run", "wifi", "--sim"])          # no key anywhere now, no --provider
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Models (only if the phone differs from the recording): none set up" in out
    assert "Virtual phone check: passed (Wi-Fi is on)" in out
    assert len(fake_llm.requests) == asked                    # the replay asked nothing
