"""Run history: steps committed as they end, interrupted runs, disk failures, no key on disk, the HTML report."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from relay_desktop.agent.events import (
    ActionResult,
    ActionStarted,
    EventBus,
    LogLine,
    PlanReceived,
    RunFinished,
    RunStarted,
    ScreenCaptured,
    StepStarted,
    Verification,
)
from relay_desktop.agent.steps.actions import SemanticActionPlan, Step
from relay_desktop.cli.runs import _show
from relay_desktop.llm.redaction import register_secret
from relay_desktop.perception import Bounds, build_element_map, prepare_screenshot
from relay_desktop.runs import RunNotFound, RunRecorder, RunStore, render_html
from tests.agent_phone import FakePhone, Screen, Widget

RUN = "20261123-101010-abcdef"
SECRET = "sk-ant-api03-THIS-IS-A-FAKE-KEY-0123456789"


def screen(label: str = "Send") -> tuple[object, object]:
    phone = FakePhone({"s": Screen("com.example.app", [Widget("Hello", "text"), Widget(label)])}, "s")
    element_map = build_element_map(phone.xml())
    shot = prepare_screenshot(Image.new("RGB", (1080, 2400), "white"), max_side=1200)
    return element_map, shot


def step_events(step: int, label: str = "Send", thinking: str = "tap it") -> list[object]:
    element_map, shot = screen(label)
    action = Step.of("tap", element="e2")
    return [
        StepStarted(run_id=RUN, step=step, max_steps=10),
        ScreenCaptured(run_id=RUN, step=step, element_map=element_map, screenshot=shot, app="com.example.app",
                       layout_hash="abc", fingerprint="f", capture_ms=3.0, diff_text=""),
        PlanReceived(run_id=RUN, step=step, plan=SemanticActionPlan((action,), thinking), source="model",
                     thinking=thinking, model="fake/m", latency_ms=10, input_tokens=100, output_tokens=10,
                     prompt=f"prompt {step}", response=f"response {step}"),
        ActionStarted(run_id=RUN, step=step, index=0, action=action, description="tap e2",
                      bounds=Bounds(0, 260, 1080, 410), point=(540, 335)),
        ActionResult(run_id=RUN, step=step, index=0, action=action, ok=True, message="tap at (540,335)",
                     duration_ms=20.0),
        Verification(run_id=RUN, step=step, check="step", ok=True, reason="the screen changed"),
    ]


def finished() -> RunFinished:
    return RunFinished(run_id=RUN, outcome="success", reason="done", steps=2, elapsed_s=1.5, input_tokens=200,
                       output_tokens=20, cost_usd=0.01)


async def record(store: RunStore, events: list[object]) -> RunRecorder:
    bus = EventBus()
    recorder = RunRecorder(store)
    recorder.attach(bus)
    for event in events:
        bus.emit(event)  # type: ignore[arg-type]
    await asyncio.wait_for(recorder.flush(), 10)
    return recorder


def started(task: str = "Text Bob") -> RunStarted:
    return RunStarted(run_id=RUN, task=task, serial="fake", max_steps=10, settings={"models": {"fast": "x/y"}})


async def test_each_step_is_committed_when_the_next_one_starts(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    await record(store, [started(), *step_events(1), StepStarted(run_id=RUN, step=2, max_steps=10)])
    # Another connection (another process, the window) sees step 1 while step 2 is still running.
    with sqlite3.connect(tmp_path / "runs.sqlite3") as other:
        assert other.execute("SELECT step, app FROM steps").fetchall() == [(1, "com.example.app")]
    run = store.get_run(RUN)
    assert run.summary.outcome == "interrupted" and run.summary.steps == 1
    step = run.steps[0]
    assert step.actions[0]["ok"] is True and step.actions[0]["point"] == [540, 335]
    assert step.verifications == [{"check": "step", "ok": True, "reason": "the screen changed"}]
    assert step.screenshot and (tmp_path / step.screenshot).read_bytes()[:2] == b"\xff\xd8"
    assert step.element_map is not None and step.element_map["elements"][1]["label"] == "Send"


async def test_a_finished_run_has_its_totals_and_a_killed_one_reads_as_interrupted(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    recorder = await record(store, [started(), *step_events(1), *step_events(2), finished()])
    await recorder.aclose()
    summary = store.list_runs()[0]
    assert (summary.outcome, summary.steps, summary.input_tokens, summary.cost_usd) == ("success", 2, 200, 0.01)
    # A second run that never finishes (the app was killed): listed, readable, marked interrupted.
    other = RunStore(tmp_path)
    other.begin_run("20261123-111111-000000", "Turn on Wi-Fi", "fake", {}, 2e9)
    assert other.list_runs()[0].outcome == "interrupted"
    assert "stopped before the run finished" in other.list_runs()[0].reason


async def test_ids_resolve_by_unique_prefix(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.begin_run("20261123-aaa", "a", "", {}, 1.0)
    store.begin_run("20261123-aab", "b", "", {}, 2.0)
    assert store.resolve("20261123-aaa") == "20261123-aaa"
    with pytest.raises(RunNotFound, match="matches several runs"):
        store.resolve("20261123-aa")
    with pytest.raises(RunNotFound, match="no run has an id starting with 'zzz'"):
        store.get_run("zzz")
    store.delete_run("20261123-aab")
    assert [r.id for r in store.list_runs()] == ["20261123-aaa"]


async def test_a_full_disk_stops_the_history_not_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RunStore(tmp_path)

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RunStore, "save_step", full)
    bus = EventBus()
    recorder = RunRecorder(store)
    recorder.attach(bus)
    seen: list[object] = []
    bus.subscribe(seen.append)
    events = [started(), *step_events(1), *step_events(2), finished()]
    for event in events:
        bus.emit(event)  # type: ignore[arg-type]
    await asyncio.wait_for(recorder.aclose(), 10)
    assert seen[:len(events)] == events              # every event still reached every other subscriber...
    told = seen[len(events):]                        # ...and the people watching were told once, at once
    assert [(e.level, e.message) for e in told if isinstance(e, LogLine)] == [
        ("error", "Run history is not being saved from now on (OSError: [Errno 28] No space left on device); "
                  "the run goes on.")] and len(told) == 1
    assert recorder.error == "OSError: [Errno 28] No space left on device"


async def test_no_api_key_reaches_any_file_of_the_history(tmp_path: Path) -> None:
    register_secret(SECRET)
    store = RunStore(tmp_path)
    events = [started(f"use key {SECRET}"), *step_events(1, thinking=f"the key is {SECRET}"),
              LogLine(run_id=RUN, message=f"retry with {SECRET}", step=1), finished()]
    recorder = await record(store, events)
    await recorder.aclose()
    store.close()
    reader = RunStore(tmp_path)
    (tmp_path / "report.html").write_text(render_html(reader, reader.get_run(RUN)))
    reader.close()      # an open connection's -wal file vanishes whenever it is collected: not while files are read
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 3
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path


async def test_the_html_report_is_self_contained_and_escapes_screen_text(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    evil = '<script>alert("pwned")</script>'
    recorder = await record(store, [started(), *step_events(1, label=evil, thinking=evil), finished()])
    await recorder.aclose()
    html = render_html(store, store.get_run(RUN))
    assert "<script" not in html and "&lt;script&gt;" in html
    assert 'src="data:image/jpeg;base64,' in html and "http://" not in html and "https://" not in html
    assert '<svg viewBox="0 0 1080 2400"' in html and '<circle cx="540" cy="335"' in html
    assert '<rect x="0" y="260" width="1080" height="150"' in html


async def test_a_newer_history_format_is_refused_plainly(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "runs.sqlite3") as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(sqlite3.DatabaseError, match="newer Relay Desktop"):
        RunStore(tmp_path).list_runs()


async def test_a_mirror_frame_smaller_than_the_screen_keeps_actions_in_device_pixels(tmp_path: Path) -> None:
    # With the mirror running, the picture is a 536x1200 video frame while actions are in 1080x2400 device pixels.
    element_map, _ = screen()
    frame_shot = prepare_screenshot(Image.new("RGB", (536, 1200), "white"))
    events = step_events(1)
    events[1] = ScreenCaptured(run_id=RUN, step=1, element_map=element_map, screenshot=frame_shot,
                               app="com.example.app", layout_hash="abc", fingerprint="f", capture_ms=3.0, diff_text="",
                               display=(1080, 2400))
    store = RunStore(tmp_path)
    recorder = await record(store, [started(), *events, finished()])
    await recorder.aclose()
    assert store.get_run(RUN).steps[0].screen_size == (536, 1200, 1080, 2400)
    assert '<svg viewBox="0 0 1080 2400"' in render_html(store, store.get_run(RUN))


async def test_history_measures_by_the_whole_display_not_the_dumps_shorter_screen(tmp_path: Path) -> None:
    # The dump's root leaves out the navigation bar (1080x2274) on a 1080x2400 phone; the picture shows all of it,
    # so history and the report must scale by 2400, or every box drifts down the picture.
    element_map = build_element_map(
        '<hierarchy rotation="0"><node index="0" class="android.widget.FrameLayout" package="com.example.app" '
        'bounds="[0,0][1080,2274]"><node index="0" class="android.widget.Button" text="OK" clickable="true" '
        'enabled="true" package="com.example.app" bounds="[100,2100][500,2200]"/></node></hierarchy>')
    assert element_map.screen.height == 2274
    frame_shot = prepare_screenshot(Image.new("RGB", (540, 1200), "white"))
    events = step_events(1)
    events[1] = ScreenCaptured(run_id=RUN, step=1, element_map=element_map, screenshot=frame_shot,
                               app="com.example.app", layout_hash="abc", fingerprint="f", capture_ms=3.0, diff_text="",
                               display=(1080, 2400))
    store = RunStore(tmp_path)
    recorder = await record(store, [started(), *events, finished()])
    await recorder.aclose()
    assert store.get_run(RUN).steps[0].screen_size == (540, 1200, 1080, 2400)
    assert '<svg viewBox="0 0 1080 2400"' in render_html(store, store.get_run(RUN))


async def test_a_history_of_the_first_format_opens_and_records_protected_steps(tmp_path: Path) -> None:
    # A history written before steps had a "withheld" column: opened, the column is added and old rows read.
    old_steps = ("CREATE TABLE steps (run_id TEXT NOT NULL, step INTEGER NOT NULL, started_at REAL, ended_at REAL, "
                 "screenshot TEXT, screen_size TEXT, app TEXT, layout_hash TEXT, element_map TEXT, prompt TEXT, "
                 "response TEXT, thinking TEXT, plan TEXT, source TEXT, model TEXT, latency_ms REAL, "
                 "input_tokens INTEGER, output_tokens INTEGER, cost_usd REAL, guidance TEXT, actions TEXT, "
                 "verifications TEXT, PRIMARY KEY (run_id, step))")
    with sqlite3.connect(tmp_path / "runs.sqlite3") as db:
        db.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, task TEXT NOT NULL, serial TEXT, settings TEXT, "
                   "started_at REAL NOT NULL, finished_at REAL, outcome TEXT, reason TEXT, steps INTEGER DEFAULT 0, "
                   "elapsed_s REAL DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, "
                   "cost_usd REAL DEFAULT 0)")
        db.execute(old_steps)
        db.execute("INSERT INTO runs (id, task, started_at) VALUES ('old', 'an old run', 1.0)")
        db.execute("INSERT INTO steps (run_id, step, app) VALUES ('old', 1, 'com.example.app')")
        db.execute("PRAGMA user_version=1")
    store = RunStore(tmp_path)
    assert store.get_run("old").steps[0].withheld == ""
    element_map, _ = screen()
    bus = EventBus()
    recorder = RunRecorder(store)
    recorder.attach(bus)
    for event in [started(), *step_events(1), finished()]:
        if isinstance(event, ScreenCaptured):      # the bank's screen: black to capture, so no picture
            event = ScreenCaptured(run_id=RUN, step=1, element_map=element_map, screenshot=None,
                                   app="com.northwind.bank", layout_hash="abc", fingerprint="f", capture_ms=3.0,
                                   diff_text="", withheld="protected")
        bus.emit(event)
    await recorder.aclose()
    step = store.get_run(RUN).steps[0]
    assert step.withheld == "protected" and step.screenshot is None
    assert "Protected screen: the app forbids screenshots" in render_html(store, store.get_run(RUN))


async def test_the_answer_is_kept_shown_and_exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = RunStore(tmp_path)
    answered = RunFinished(run_id=RUN, outcome="success", reason="read the alarm list", answer="7:30", steps=1,
                           elapsed_s=1.0, input_tokens=10, output_tokens=1, cost_usd=0.0)
    recorder = await record(store, [started("When does my first alarm ring?"), *step_events(1), answered])
    await recorder.aclose()
    assert store.list_runs()[0].answer == "7:30" and store.get_run(RUN).summary.to_json()["answer"] == "7:30"
    assert "<td>Answer</td><td><strong>7:30</strong></td>" in render_html(store, store.get_run(RUN))
    _show(store, RUN[:8], False)
    assert "  Answer: 7:30\n" in capsys.readouterr().out
    _show(store, RUN, True)
    assert '"answer": "7:30"' in capsys.readouterr().out


async def test_a_history_of_the_second_format_opens_and_keeps_answers(tmp_path: Path) -> None:
    # Format 2 had no answer column: opened, it is added, old runs have none, and new ones keep theirs.
    with sqlite3.connect(tmp_path / "runs.sqlite3") as db:
        db.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, task TEXT NOT NULL, serial TEXT, settings TEXT, "
                   "started_at REAL NOT NULL, finished_at REAL, outcome TEXT, reason TEXT, steps INTEGER DEFAULT 0, "
                   "elapsed_s REAL DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, "
                   "cost_usd REAL DEFAULT 0)")
        db.execute("INSERT INTO runs (id, task, started_at, outcome, reason) VALUES ('old', 'an old run', 1.0, "
                   "'success', 'done')")
        db.execute("PRAGMA user_version=2")
    store = RunStore(tmp_path)
    assert store.get_run("old").summary.answer == ""
    store.finish_run("old", outcome="success", reason="done", answer="no", steps=1, elapsed_s=1.0,
                     input_tokens=0, output_tokens=0, cost_usd=0.0, finished_at=2.0)
    assert store.get_run("old").summary.answer == "no"
    with sqlite3.connect(tmp_path / "runs.sqlite3") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
