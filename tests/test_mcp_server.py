"""``relay-desktop mcp`` as an MCP client sees it: the SDK's own stdio client starts ``python -m relay_desktop mcp
--sim`` (the virtual phone, on the tests' private adb server) and calls its tools."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp.types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.fake_llm.recorded import RecordedRequest
from tests.test_agent_e2e import wifi_model

pytestmark = pytest.mark.timeout(60)

CALL_TIMEOUT = 30.0


@asynccontextmanager
async def connect(adb_server: AdbTestServer, *extra: str, elicit: Any = None,
                  sim: bool = True) -> AsyncIterator[ClientSession]:
    """A session with a fresh server on a fresh virtual phone (``sim``); ``elicit`` is the client's elicitation
    callback (None: a client that cannot ask its user)."""
    # The server gets this process's environment: the private adb port, the private data folder, OCR off.
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(adb_server.port)}
    args = ["-m", "relay_desktop", "mcp", *(["--sim"] if sim else []), "--no-mirror", *extra]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    async with stdio_client(params) as (read, write), \
            ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT, elicitation_callback=elicit) as session:
        await asyncio.wait_for(session.initialize(), CALL_TIMEOUT)
        yield session


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def call(session: ClientSession, name: str, **arguments: Any) -> types.CallToolResult:
    return await asyncio.wait_for(session.call_tool(name, arguments), CALL_TIMEOUT)


async def test_tools_screen_and_actions(adb_server: AdbTestServer) -> None:
    async with connect(adb_server) as session:
        tools = {t.name: t for t in (await asyncio.wait_for(session.list_tools(), CALL_TIMEOUT)).tools}
        assert {"list_devices", "screen", "run_task", "stop_task", "tap", "type_text", "swipe", "press_key",
                "launch_app"} <= set(tools)
        assert tools["screen"].annotations is not None and tools["screen"].annotations.read_only_hint

        devices = await call(session, "list_devices")
        assert not devices.is_error, text_of(devices)
        assert "(used by this server)" in text_of(devices)

        shown = await call(session, "screen")
        assert not shown.is_error, text_of(shown)
        text = text_of(shown)
        assert "<screen_data>" in text and "launcher" in text, text
        assert '"Settings"' in text, text
        images = [c for c in shown.content if isinstance(c, types.ImageContent)]
        assert images and images[0].mime_type == "image/jpeg" and images[0].data

        opened = await call(session, "launch_app", app="Settings")
        assert not opened.is_error, text_of(opened)
        assert "com.android.settings" in text_of(opened)
        settings = text_of(await call(session, "screen"))
        assert "App in front: com.android.settings" in settings, settings

        # A tap on an element id from the last screen opens that page.
        network = next(line.split()[0] for line in settings.splitlines() if '"Network & internet' in line)
        tapped = await call(session, "tap", element=network)
        assert not tapped.is_error, text_of(tapped)
        assert '"Wi-Fi' in text_of(await call(session, "screen"))

        bad = await call(session, "swipe", direction="diagonal")
        assert bad.is_error and "direction" in text_of(bad), text_of(bad)
        swiped = await call(session, "swipe", direction="up")
        assert not swiped.is_error, text_of(swiped)
        missing = await call(session, "tap", element="e999")
        assert missing.is_error and "e999" in text_of(missing) and "Traceback" not in text_of(missing)
        home = await call(session, "press_key", key="home")
        assert not home.is_error, text_of(home)
        assert "launcher" in text_of(await call(session, "screen"))

        nothing = await call(session, "stop_task")
        assert "No task is running" in text_of(nothing)


async def test_without_its_phone_every_tool_says_so_plainly(adb_server: AdbTestServer) -> None:
    # A serial no phone has: other tests' virtual phones may still be attached to the shared adb server.
    async with connect(adb_server, "--fallback", "--device", "no-such-phone", sim=False) as session:
        listed = await call(session, "list_devices")
        assert not listed.is_error and "no-such-phone" not in text_of(listed), text_of(listed)
        for name, arguments in [("screen", {}), ("tap", {"x": 5, "y": 5}), ("run_task", {"task": "Turn on Wi-Fi"})]:
            result = await call(session, name, **arguments)
            assert result.is_error, text_of(result)
            assert "no phone: device 'no-such-phone' not found" in text_of(result), text_of(result)
            assert "Traceback" not in text_of(result)


async def test_run_task_with_the_fallback_planner_reports_progress(adb_server: AdbTestServer) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with connect(adb_server, "--fallback") as session:
        result = await asyncio.wait_for(
            session.call_tool("run_task", {"task": "Turn on Wi-Fi", "max_steps": 12}, progress_callback=on_progress),
            CALL_TIMEOUT)
        assert not result.is_error, text_of(result)
        outcome = result.structured_content
        assert outcome is not None
        assert outcome["outcome"] == "success", outcome
        assert outcome["virtual_phone_check"].startswith("passed"), outcome
        assert outcome["run_id"] and outcome["steps"] >= 1
    assert progress, "no progress notification arrived"
    assert any(m and m.startswith("Step 1 of 12:") for _, _, m in progress), progress
    values = [v for v, _, _ in progress]
    assert values == sorted(values) and len(set(values)) == len(values)


async def test_stop_task_ends_a_running_task(adb_server: AdbTestServer) -> None:
    async with connect(adb_server, "--fallback") as session:
        # A task the rule-based planner cannot finish: it keeps trying until stopped.
        running = asyncio.ensure_future(session.call_tool("run_task", {"task": "Find the recipe for a lemon cake "
                                                                               "in the Notes app and share it"}))
        try:
            for _ in range(100):
                await asyncio.sleep(0.1)
                busy = await call(session, "tap", x=10, y=10)
                if busy.is_error and "stop_task" in text_of(busy):
                    break
            stopped = await call(session, "stop_task")
            assert "Stopped run" in text_of(stopped), text_of(stopped)
            result = await asyncio.wait_for(running, CALL_TIMEOUT)
        finally:
            running.cancel()
        assert result.structured_content is not None and result.structured_content["outcome"] == "stopped", \
            text_of(result)


async def _sensitive_tap(session: ClientSession) -> types.CallToolResult:
    """Delete the alarm the virtual phone starts with: a tap on a "Delete" control."""
    opened = await call(session, "launch_app", app="Clock")
    assert not opened.is_error, text_of(opened)
    screen = text_of(await call(session, "screen"))
    delete = next((line.split()[0] for line in screen.splitlines() if "delete" in line.lower()), None)
    assert delete is not None, screen
    return await call(session, "tap", element=delete)


async def test_sensitive_action_needs_the_clients_confirmation(adb_server: AdbTestServer) -> None:
    async with connect(adb_server, "--fallback") as session:
        refused = await _sensitive_tap(session)
        assert refused.is_error and "cannot ask" in text_of(refused), text_of(refused)
        assert "Traceback" not in text_of(refused)
        # The agent's own sensitive steps are refused too when the client cannot ask.
        run = await call(session, "run_task", task="Delete the contact Dave Kim", max_steps=6)
        assert run.structured_content is not None, text_of(run)
        assert run.structured_content["outcome"] != "success", run.structured_content
        assert run.structured_content["virtual_phone_check"].startswith("failed"), run.structured_content

    asked: list[str] = []
    answers = ["decline", "accept"]

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        action = answers.pop(0)
        return types.ElicitResult(action=action, content={"allow": True} if action == "accept" else None)

    async with connect(adb_server, elicit=answer) as session:
        declined = await _sensitive_tap(session)
        assert declined.is_error and "did not allow" in text_of(declined), text_of(declined)
        done = await _sensitive_tap(session)
        assert not done.is_error, text_of(done)
        alarms = text_of(await call(session, "screen")).count('"Delete ')
        assert alarms == 1, "the alarm was not deleted"
    assert len(asked) == 2 and "delete" in asked[0].lower(), asked


async def test_run_task_confirms_sensitive_steps_through_the_client(adb_server: AdbTestServer) -> None:
    asked: list[str] = []

    async def allow(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"allow": True})

    async with connect(adb_server, "--fallback", elicit=allow) as session:
        run = await call(session, "run_task", task="Delete the contact Dave Kim", max_steps=12)
        assert run.structured_content is not None, text_of(run)
        assert run.structured_content["outcome"] == "success", run.structured_content
        assert run.structured_content["virtual_phone_check"].startswith("passed"), run.structured_content
    assert asked and all("delete" in message.lower() for message in asked), asked


async def test_run_task_asks_the_agents_question_through_the_client(
        adb_server: AdbTestServer, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model (the fake provider server, behind the real OpenAI SDK) asks which network first; the client's user
    answers through elicitation, and the answer reaches the model's next prompt."""
    asked: list[str] = []

    def model(record: RecordedRequest) -> Reply:
        if record.tool_names()[:1] == ["act"] and not asked:
            step = {"action": "ask_user", "question": "Which network should I join?"}
            return Reply.tool_call("act", {"thinking": "ask first", "steps": [step]})
        return wifi_model(record)

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"answer": "the home network"})

    fake_llm.default = Reply.from_request(model)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-1234567890")      # the server's environment is this one's
    async with connect(adb_server, "--provider", "openai", "--base-url", fake_llm.base_url_for("openai"),
                       elicit=answer) as session:
        run = await call(session, "run_task", task="Turn on Wi-Fi", max_steps=10)
    assert run.structured_content is not None, text_of(run)
    assert run.structured_content["outcome"] == "success", run.structured_content
    assert asked == ["The phone agent asks: Which network should I join?"], asked
    assert any("the home network" in text for r in fake_llm.requests for text in r.texts()), "answer not passed on"


def test_the_swipe_tools_choices_are_the_agents() -> None:
    from typing import get_args

    from relay_desktop.agent.steps.actions import DIRECTIONS, EDGES
    from relay_desktop.mcp.server import Direction, Edge

    assert get_args(Direction) == DIRECTIONS and get_args(Edge) == EDGES


async def _save_text_routine(sim: Any) -> None:
    """'text someone', learnt from the rule-based planner's run of the Bob task on ``sim``, in this test's home."""
    from relay_desktop.agent.events import EventBus
    from relay_desktop.agent.orchestrator import Orchestrator
    from relay_desktop.agent.steps.safety import Handlers
    from relay_desktop.routines.learn import learn_routine
    from relay_desktop.routines.service import RunActions
    from relay_desktop.routines.store import RoutineStore
    from relay_desktop.sim.tasks import TASKS_BY_ID

    task = TASKS_BY_ID["messages_text_bob"]
    task.setup(sim.phone)
    device = await sim.adb.device(sim.serial)
    bus, actions = EventBus(), RunActions()
    actions.attach(bus)

    async def yes(description: str) -> bool:
        return True
    try:
        result = await Orchestrator(device, None, bus=bus, handlers=Handlers(confirm=yes)).run(task.goal)
    finally:
        await device.close()
    assert result.outcome == "success", result.reason
    store = RoutineStore()
    store.save(learn_routine("text someone", task.goal, actions.records()))
    store.close()


async def test_routines_are_listed_and_run_with_parameters_and_run_task_says_when_one_ran(
        adb_server: AdbTestServer, sim: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    await _save_text_routine(sim)

    async def allow(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"allow": True})
    async with connect(adb_server, "--fallback", elicit=allow) as session:
        listed = await call(session, "list_routines")
        assert not listed.is_error, text_of(listed)
        [routine] = listed.structured_content["result"]
        assert routine["name"] == "text someone" and routine["parameters"] == [
            {"name": "name", "default": "Bob"}, {"name": "message", "default": "running late"}]

        ran = await asyncio.wait_for(session.call_tool("run_routine", {
            "name": "text someone", "parameters": {"name": "Grace", "message": "on my way"}}), CALL_TIMEOUT)
        assert not ran.is_error, text_of(ran)
        outcome = ran.structured_content
        assert outcome["outcome"] == "success", outcome
        assert outcome["routine"]["replayed_steps"] == 4 and outcome["routine"]["agent_steps"] == 0

        typed = await call(session, "run_task", task="Text Carol 'see you at 8'")
        assert typed.structured_content["routine"]["parameters"] == {"name": "Carol", "message": "see you at 8"}

        unknown = await asyncio.wait_for(session.call_tool("run_routine", {
            "name": "text someone", "parameters": {"colour": "red"}}), CALL_TIMEOUT)
        assert unknown.is_error and "has no parameter colour" in text_of(unknown)
        missing = await asyncio.wait_for(session.call_tool("run_routine", {"name": "nope"}), CALL_TIMEOUT)
        assert missing.is_error and "no routine is called 'nope'" in text_of(missing)


async def test_type_text_types_a_saved_secret_whose_value_no_reply_holds(
        adb_server: AdbTestServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_SECRET_DOOR_CODE", "4711")
    async with connect(adb_server) as session:
        assert not (await call(session, "launch_app", app="Keep Notes")).is_error
        notes = text_of(await call(session, "screen"))
        new_note = next(line.split()[0] for line in notes.splitlines() if '"New note' in line or '"Create' in line)
        assert not (await call(session, "tap", element=new_note)).is_error
        editor = text_of(await call(session, "screen"))
        field = next(line.split()[0] for line in editor.splitlines() if " field " in line)
        typed = await call(session, "type_text", element=field, secret="door_code")
        assert not typed.is_error, text_of(typed)
        assert "typed the saved secret door_code (its value hidden)" in text_of(typed), text_of(typed)
        after = text_of(await call(session, "screen"))
        assert "4711" not in after and "4711" not in text_of(typed) and "[REDACTED]" in after, after
        missing = await call(session, "type_text", element=field, secret="no_such")
        assert missing.is_error and "no secret called 'no_such' is saved" in text_of(missing)
        neither = await call(session, "type_text", element=field)
        assert neither.is_error and "either text or the name of a saved secret" in text_of(neither)


async def test_run_task_returns_the_answer_to_a_question(
        adb_server: AdbTestServer, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    def model(record: RecordedRequest) -> Reply:
        if record.tool_names()[:1] == ["act"]:
            step = {"action": "complete", "summary": "Wi-Fi shows off", "answer": "no"}
            return Reply.tool_call("act", {"thinking": "the switch is off", "steps": [step]})
        return wifi_model(record)

    fake_llm.default = Reply.from_request(model)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-1234567890")
    async with connect(adb_server, "--provider", "openai", "--base-url", fake_llm.base_url_for("openai")) as session:
        run = await call(session, "run_task", task="Is Wi-Fi on?", max_steps=5)
    assert run.structured_content is not None, text_of(run)
    assert run.structured_content["outcome"] == "success" and run.structured_content["answer"] == "no"
