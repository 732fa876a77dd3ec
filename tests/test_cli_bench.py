"""`relay-desktop bench` on the virtual phone: the product's own path (the live mirror), a scripted user, and
what it measures per task — counted at the model boundary and from the run's events."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from relay_desktop.agent.events import Event, HumanInput, StepStarted
from relay_desktop.cli import main
from relay_desktop.cli.bench import BenchRun, run_bench
from relay_desktop.cli.bench_report import BenchRow
from relay_desktop.llm.keys import ApiKey
from relay_desktop.llm.types import LLMRequest, Usage
from relay_desktop.mirror.client import MirrorClient, MirrorError
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.sinks import LatestFrame
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.sim.tasks.base import CheckResult, failed, passed
from tests.agent_fakes import ScriptedModels, make_response
from tests.agent_harness import Script
from tests.agent_scripts import act, wifi_agent
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_agent_e2e import wifi_model

WIFI_ON = TASKS_BY_ID["wifi_on"]
TIMEOUT = 120


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adb_server: AdbTestServer) -> Path:
    """Run history, settings and app knowledge in a temporary folder; the private adb server; no API keys."""
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys", lambda self, provider: [])
    return tmp_path


@pytest.fixture
def spies(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """The phone each agent was given, mirrors stopped, and screenshots taken from the mirror's frames."""
    from relay_desktop.agent import orchestrator

    seen: dict[str, list[Any]] = {"phones": [], "stopped": [], "frame_shots": []}

    class Recording(orchestrator.Orchestrator):
        def __init__(self, phone: Any, *args: Any, **kwargs: Any) -> None:
            seen["phones"].append(phone)
            super().__init__(phone, *args, **kwargs)

    stop, screenshot = MirrorClient.stop, LatestFrame.screenshot

    async def recording_stop(self: MirrorClient) -> None:
        seen["stopped"].append(self)
        await stop(self)

    async def recording_screenshot(self: LatestFrame) -> Any:
        seen["frame_shots"].append(self.take()[1])
        return await screenshot(self)

    monkeypatch.setattr(orchestrator, "Orchestrator", Recording)
    monkeypatch.setattr(MirrorClient, "stop", recording_stop)
    monkeypatch.setattr(LatestFrame, "screenshot", recording_screenshot)
    return seen


# Prompt sizes of the fast agent's plans: the median (1,000) is not the mean (1,800).
ACT_INPUT_TOKENS = [1000, 1000, 1000, 5000, 1000]


def wifi_with_a_useless_scroll(n: int, request: LLMRequest) -> Any:
    """Open Settings, scroll up at the top of its list (changes nothing), then turn Wi-Fi on and complete."""
    data = act({"action": "scroll", "direction": "up"}) if n == 2 else wifi_agent("fast", request)
    return make_response(data, usage=Usage(ACT_INPUT_TOKENS[n - 1], 20), cost_usd=0.002)


async def test_requests_no_effect_steps_and_prompt_tokens_are_counted(home: Path, spies: dict[str, list[Any]]) -> None:
    script = Script(wifi_with_a_useless_scroll)
    models = ScriptedModels(script, cost_usd=0.001)
    events: list[Event] = []
    rows = await run_bench([WIFI_ON], models, history=False, on_event=events.append, say=lambda line: None)

    [row] = rows
    assert row.solved and row.outcome == "success", row.detail
    assert script.fast_calls == 5
    kinds = [r.contract.name if r.contract else "" for _, r in models.requests]
    assert row.requests_by_kind == {"act": 5, "planning": kinds.count("plan_strategy"),
                                    "progress": kinds.count("progress"), "completion": 1,
                                    "other": kinds.count("app_notes")}
    assert row.requests_by_kind["planning"] >= 1
    assert row.requests_by_kind["other"] >= 1          # the app-knowledge describer is counted too
    assert row.requests == len(models.requests) == sum(row.requests_by_kind.values())
    assert row.no_effect_steps == 1, [e for e in events if e.kind == "verification"]
    assert row.actions == 4                             # launch, scroll, tap, tap
    assert row.prompt_tokens_per_step == 1000
    others = len(models.requests) - 5
    assert row.tokens == sum(ACT_INPUT_TOKENS) + 5 * 20 + others * (100 + 20)
    assert row.cost_usd == pytest.approx(5 * 0.002 + others * 0.001)
    assert row.mirrored and row.questions == 0


async def test_the_scripted_user_answers_from_the_task_in_order_then_not_at_all(home: Path) -> None:
    task = replace(WIFI_ON, id="wifi_which", answers=("the home network", "yes"), must_ask=True)
    questions = ["Which network?", "Shall I turn it on?", "Anything else?"]

    def fast(n: int, request: LLMRequest) -> Any:
        return act({"action": "ask_user", "question": questions[n - 1]}) if n <= 3 else wifi_agent("fast", request)

    script = Script(fast)
    models = ScriptedModels(script)
    events: list[Event] = []
    [row] = await run_bench([task], models, history=False, on_event=events.append, say=lambda line: None)

    asked = [(e.prompt, e.answer) for e in events if isinstance(e, HumanInput)]
    assert asked == [("Which network?", "the home network"), ("Shall I turn it on?", "yes"), ("Anything else?", "")]
    later_prompts = [r.messages[-1].text for r in models.requests_for("fast")
                     if r.contract is not None and r.contract.name == "act"][1:]
    assert any("the home network" in text for text in later_prompts)
    assert row.questions == 3 and row.solved, row.detail


def _wifi_still_off(phone: VirtualPhone) -> CheckResult:
    return passed("Wi-Fi left off") if phone.setting("global", "wifi_on") == "0" else failed("Wi-Fi was turned on")


async def test_an_infeasible_task_is_solved_only_when_the_agent_fails(home: Path) -> None:
    gives_up = replace(WIFI_ON, id="teleport", goal="Teleport me to Mars", check=_wifi_still_off,
                       expected_outcome="failed")
    claims = replace(gives_up, id="teleport_again", goal="Teleport me to Venus")

    def fast(n: int, request: LLMRequest) -> Any:
        if any("Mars" in m.text for m in request.messages):
            return act({"action": "fail", "reason": "a phone cannot teleport anyone"})
        return act({"action": "complete", "summary": "teleported"})

    rows = await run_bench([gives_up, claims], ScriptedModels(Script(fast)), history=False, say=lambda line: None)

    assert [(r.task, r.outcome, r.solved) for r in rows] == [("teleport", "failed", True),
                                                             ("teleport_again", "success", False)]
    assert rows[1].detail.startswith("expected the agent to fail (infeasible) but it ended with success")


async def test_a_must_ask_task_fails_when_the_agent_never_asks(home: Path) -> None:
    task = replace(WIFI_ON, id="wifi_ambiguous", must_ask=True, answers=("the home network",))
    [row] = await run_bench([task], ScriptedModels(wifi_agent), history=False, say=lambda line: None)
    assert row.outcome == "success" and not row.solved and row.questions == 0
    assert row.detail.startswith("never asked the user")


def _bench_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    assert main(["bench", *args, "--json", "--no-history"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return lines[:-1], lines[-1]["summary"]


def test_the_mirror_is_used_by_default_and_not_with_no_mirror(home: Path, capsys: pytest.CaptureFixture[str],
                                                              spies: dict[str, list[Any]]) -> None:
    rows, summary = _bench_json(["--fallback", "--task", "wifi_on", "--task", "bluetooth_off"], capsys)
    assert [r["solved"] for r in rows] == [True, True] and all(r["mirrored"] for r in rows) and summary["mirror"]
    phones = spies["phones"]
    assert len(phones) == 2 and all(isinstance(p, MirroredPhone) and p.mirroring for p in phones)
    assert phones[0].mirror is phones[1].mirror                     # one mirror for the whole bench
    assert len(spies["frame_shots"]) >= 4 and all(n > 0 for n in spies["frame_shots"])   # screenshots are frames
    assert spies["stopped"] == [phones[0].mirror]                    # and it is stopped at the end

    for seen in spies.values():
        seen.clear()
    rows, summary = _bench_json(["--fallback", "--task", "wifi_on", "--no-mirror"], capsys)
    assert rows[0]["solved"] and not rows[0]["mirrored"] and not summary["mirror"]
    assert [p.mirror for p in spies["phones"]] == [None]
    assert spies["frame_shots"] == [] and spies["stopped"] == []


def test_without_a_mirror_the_bench_says_so_in_one_line_and_goes_on(
        home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    async def refuse(self: MirrorClient) -> None:
        raise MirrorError("the scrcpy server did not start")

    monkeypatch.setattr(MirrorClient, "start", refuse)
    assert main(["bench", "--fallback", "--task", "wifi_on", "--no-history"]) == 0
    out = capsys.readouterr().out
    assert out.count("No live mirror: the scrcpy server did not start") == 1
    assert "over adb only" in out and "✔ pass" in out and "Solved 1/1 (100%)" in out


def test_bench_prints_the_suite_table(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--fallback", "--task", "wifi_on", "--task", "bluetooth_off", "--no-history"]) == 0
    out = capsys.readouterr().out
    assert "wifi_on" in out and "bluetooth_off" in out and "✔ pass" in out
    assert "Solved 2/2 (100%)" in out


def test_the_table_has_the_new_columns_and_fits_120_columns(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--fallback", "--task", "wifi_on", "--task", "contacts_add_alice", "--max-steps", "3",
                 "--no-history"]) == 0
    out = capsys.readouterr().out
    assert "through the live mirror" in out
    for column in ("reqs", "no-eff", "tok/step", "tokens", "cost"):
        assert f" {column}" in out
    assert "wifi_on" in out and "✔ pass" in out and "✘ fail" in out
    assert "↳ no contact named Alice Smith; agent: " in out                 # why it failed, under its row
    assert "Solved 1/2 (50%) · median" in out and "requests per action" in out
    assert max(len(line) for line in out.splitlines()) <= 120


def test_json_rows_and_summary_with_a_model_on_the_wire(home: Path, capsys: pytest.CaptureFixture[str],
                                                        fake_llm: FakeLLMServer,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    fake_llm.default = Reply.from_request(wifi_model)
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys",
                        lambda self, provider: [ApiKey(provider, "sk-test-1234567890", "session")])
    rows, summary = _bench_json(["--task", "wifi_on", "--provider", "openai", "--base-url",
                                 fake_llm.base_url_for("openai")], capsys)
    [row] = rows
    received = [(r.tool_names() or [""])[0] for r in fake_llm.requests]
    assert row["solved"] and row["requests"] == len(received)     # every request that reached the server
    assert row["requests_by_kind"]["act"] == received.count("act") >= 3
    assert row["requests_by_kind"]["completion"] == received.count("completion") == 1
    assert row["prompt_tokens_per_step"] == 1500                    # what the model's usage said
    assert row["actions"] >= 3 and row["mirrored"]
    assert summary["tasks"] == summary["solved"] == 1
    assert summary["requests"] == row["requests"] and summary["median_requests"] == row["requests"]
    assert summary["requests_per_action"] == pytest.approx(row["requests"] / row["actions"], abs=1e-3)
    assert summary["tokens"] == summary["median_tokens"] == row["tokens"] > 0
    assert set(BenchRow.__dataclass_fields__) == set(row)


async def test_ctrl_c_stops_the_running_task_ends_the_bench_and_stops_the_mirror(
        home: Path, spies: dict[str, list[Any]]) -> None:
    said: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, StepStarted) and event.step == 2:
            # A real SIGINT, caught by the bench's own handler (a default handler would end this test session).
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            os.kill(os.getpid(), signal.SIGINT)

    bench = BenchRun(history=False, on_event=on_event, say=said.append)
    rows = await bench.run([WIFI_ON, TASKS_BY_ID["bluetooth_off"]], ScriptedModels(wifi_agent))
    assert bench.interrupted and [(r.task, r.outcome, r.solved) for r in rows] == [("wifi_on", "stopped", False)]
    assert "Stopping (Ctrl+C again to end at once)" in said
    assert len(spies["stopped"]) == 1
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


async def test_the_mirror_is_stopped_when_a_task_breaks_the_bench(home: Path, spies: dict[str, list[Any]]) -> None:
    def broken(phone: VirtualPhone) -> None:
        raise RuntimeError("setup broke")

    with pytest.raises(RuntimeError, match="setup broke"):
        await run_bench([replace(WIFI_ON, setup=broken)], None, history=False, say=lambda line: None)
    assert len(spies["stopped"]) == 1


def test_phones_n_runs_the_tasks_on_n_phones_at_once_and_each_row_says_which(
        home: Path, capsys: pytest.CaptureFixture[str], spies: dict[str, list[Any]]) -> None:
    tasks = ["wifi_on", "bluetooth_off", "dark_theme_dim", "wifi_on"]
    rows, summary = _bench_json(["--fallback", "--phones", "2", *(a for t in tasks for a in ("--task", t))], capsys)
    # Printed as they finish (each task once), whichever phone is free takes the next.
    assert sorted(r["task"] for r in rows) == ["bluetooth_off", "dark_theme_dim", "wifi_on"]
    assert all(r["solved"] and r["mirrored"] for r in rows) and summary["solved"] == 3
    assert len({r["phone"] for r in rows}) == 2 and all(r["phone"].startswith("127.0.0.1:") for r in rows)
    mirrors = {id(p.mirror) for p in spies["phones"]}
    assert len(mirrors) == 2 and len(spies["stopped"]) == 2                 # a mirror per phone, both stopped


def test_phones_out_of_range_is_refused_before_any_phone_starts(home: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "--fallback", "--phones", "0", "--task", "wifi_on"])
    assert exited.value.code == 2
    assert "--phones: must be from 1 to 8, not 0" in capsys.readouterr().err


async def test_replay_runs_the_saved_routine_on_a_fresh_phone_then_a_perturbed_one(home: Path) -> None:
    from tests.agent_scripts import text_agent

    task = TASKS_BY_ID["messages_text_bob"]
    models = ScriptedModels(text_agent("Bob", "running late"))
    [row] = await run_bench([task], models, replay=True, perturb="all", history=False, say=lambda line: None)
    assert row.solved and row.requests > 0
    assert row.replay is not None
    assert row.replay["solved"] and row.replay["requests"] == 0 and row.replay["replayed_steps"] == 4
    assert row.replay["agent_steps"] == 0
    perturbed = row.perturbed
    assert perturbed is not None and perturbed["kind"] == "popup" and "keeps stopping" in perturbed["what"]
    # The agent took over at the pop-up: no request before it, some after (it cleared the pop-up, and the replay
    # went on); its fix then replays with none.
    assert perturbed["solved"] and perturbed["replay_requests"] == 0 and perturbed["requests"] > 0
    assert perturbed["replayed_steps"] == 4 and perturbed["agent_steps"] == 1
    assert perturbed["repaired"]["solved"] and perturbed["repaired"]["requests"] == 0
    assert perturbed["repaired"]["version"] == 2


def test_replay_columns_json_and_summary_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--task", "wifi_on", "--fallback", "--replay"]) == 0
    out = capsys.readouterr().out
    assert "replay r-reqs r-time" in out
    assert "replay: 1 of 1 solved, 1 with 0 model requests, median time" in out
    assert main(["bench", "--task", "wifi_on", "--fallback", "--replay", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert set(lines[0]["replay"]) == {"solved", "requests", "seconds", "replayed_steps", "agent_steps", "tokens"}
    assert lines[0]["replay"]["solved"] is True and lines[0]["replay"]["requests"] == 0
    assert lines[-1]["summary"]["replay"]["zero_requests"] == 1
    assert main(["bench", "--task", "wifi_on", "--fallback", "--perturb"]) == 2
    assert "--perturb goes with --replay" in capsys.readouterr().err
    assert main(["bench", "--task", "wifi_on", "--task", "bluetooth_off", "--fallback", "--allow-fallback",
                 "--replay", "--perturb", "elsewhere", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()][:-1]
    assert [row["perturbed"]["kind"] for row in rows] == ["elsewhere", "elsewhere"]
    assert all(row["perturbed"]["solved"] for row in rows)


async def test_no_screenshots_sends_element_lists_only(home: Path) -> None:
    script = Script(lambda n, request: make_response(wifi_agent("fast", request)))
    models = ScriptedModels(script)
    [row] = await run_bench([WIFI_ON], models, history=False, screenshots=False, say=lambda line: None)
    assert row.solved, row.detail
    assert models.requests and not any(m.images for _, r in models.requests for m in r.messages)
    with_pictures = ScriptedModels(Script(lambda n, request: make_response(wifi_agent("fast", request))))
    await run_bench([WIFI_ON], with_pictures, history=False, say=lambda line: None)
    assert any(m.images for _, r in with_pictures.requests for m in r.messages)


def test_a_task_s_secrets_are_given_as_the_environment_would_beside_the_user_s(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from relay_desktop.cli.bench import _task_secrets

    monkeypatch.setenv("RELAY_SECRET_WIFI_GUEST", "sunflower42")
    secrets = _task_secrets(TASKS_BY_ID["bank_pay_dana"])
    assert secrets.get("bank_pin").reveal() == "4071" and secrets.get("wifi_guest").reveal() == "sunflower42"
    assert "4071" not in TASKS_BY_ID["bank_pay_dana"].goal
    assert _task_secrets(WIFI_ON).get("bank_pin") is None


async def test_a_question_is_solved_only_by_the_right_answer_and_rows_carry_both(home: Path) -> None:
    asked = TASKS_BY_ID["question_bluetooth_on"]                        # "Is Bluetooth on?" — it is off
    again = replace(asked, id="question_bluetooth_again", goal="Is Bluetooth on right now?")
    silent = replace(asked, id="question_bluetooth_silent", goal="Tell me: is Bluetooth on?")

    def fast(n: int, request: LLMRequest) -> Any:
        text = request.messages[0].text
        answer = "yes" if "right now" in text else "" if "Tell me" in text else "No, it's off"
        return act({"action": "complete", "summary": "Read the Bluetooth switch", "answer": answer})

    rows = await run_bench([asked, again, silent], ScriptedModels(Script(fast)), history=False,
                           say=lambda line: None)
    assert [(r.task, r.solved) for r in rows] == [(asked.id, True), (again.id, False), (silent.id, False)]
    assert [(r.answer, r.expected_answer) for r in rows] == [("No, it's off", "no"), ("yes", "no"), ("", "no")]
    assert rows[1].detail.startswith("answered 'yes', expected 'no'")
    assert rows[2].detail.startswith("no answer given; expected 'no'")
    assert rows[0].to_json()["answer"] == "No, it's off" and rows[0].to_json()["expected_answer"] == "no"


async def test_each_task_starts_from_the_factory_state_whatever_the_last_one_left(home: Path) -> None:
    def untidy(phone: VirtualPhone) -> None:
        WIFI_ON.setup(phone)
        phone.settings["global"]["airplane_mode_on"] = "1"
        phone.settings["secure"]["ui_night_mode"] = "2"                 # dark theme
        phone.settings["global"]["zen_mode"] = "1"                      # Do Not Disturb
        phone.settings["system"]["screen_brightness"] = "12"
        phone.clipboard = "left over"
        phone.rotate(1)
        phone.notifications.post("com.google.android.apps.messaging", "Bob", "hi")

    seen: dict[str, Any] = {}

    def look(phone: VirtualPhone) -> CheckResult:
        seen.update(airplane=phone.setting("global", "airplane_mode_on"), dark=phone.dark_theme,
                    dnd=phone.setting("global", "zen_mode", "0"), brightness=phone.setting("system",
                                                                                       "screen_brightness"),
                    clipboard=phone.clipboard, rotation=phone.rotation, wifi=phone.setting("global", "wifi_on"),
                    notifications=len(phone.notifications.active))
        return passed("looked")

    first = replace(WIFI_ON, id="untidy", setup=untidy, check=lambda phone: passed("untidy"))
    second = replace(WIFI_ON, id="tidy", check=look)
    await run_bench([first, second], ScriptedModels(Script(lambda n, r: act({"action": "complete", "summary": "ok"}))),
                    history=False, say=lambda line: None)
    assert seen == {"airplane": "0", "dark": False, "dnd": "0", "brightness": "128", "clipboard": "",
                    "rotation": 0, "wifi": "0", "notifications": 0}     # Wi-Fi off: the task's own setup still ran
