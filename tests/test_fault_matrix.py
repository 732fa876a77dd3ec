"""The fault matrix, device side: what a run does when the phone, adb or the mirror misbehave.

Every case goes through Google's adb server and the virtual phone's real ADB transport, and (where a run is
involved) the real Orchestrator with a scripted model that turns Wi-Fi on. Each test's docstring states the
expected outcome; each checks that outcome and that nothing hangs (every wait has a deadline). The matrix
itself, with these tests' names, is in docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from relay_desktop.agent.events import ActionResult, ActionStarted, EventBus, LogLine, RunFinished, ScreenCaptured
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings, RunResult
from relay_desktop.device.device import Device
from relay_desktop.device.errors import DeviceUnauthorizedError
from relay_desktop.llm.types import LLMRequest, Role
from relay_desktop.mirror.client import MirrorClient, MirrorError
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.mirror.screencap_mirror import ScreencapMirror
from relay_desktop.perception import build_element_map
from relay_desktop.runs import RunRecorder, RunStore
from relay_desktop.sim.config import Faults, PhoneConfig, Realism
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from tests.agent_fakes import ScriptedModels, make_response
from tests.agent_scripts import element_id, wifi_agent
from tests.conftest import AdbTestServer, start_adb_server
from tests.waiting import until

pytestmark = pytest.mark.timeout(60)

WIFI = TASKS_BY_ID["wifi_on"]
SETTINGS = AgentSettings(planning=False, max_steps=10)


# ------------------------------------------------------------------ helpers


@pytest.fixture
def private_adb() -> Iterator[AdbTestServer]:
    """A Google adb server of this test's own, on its own port: killing it leaves the session's one alone."""
    server = start_adb_server()
    try:
        yield server
    finally:
        server.run("kill-server", timeout=15)


@asynccontextmanager
async def virtual_phone(adb: AdbTestServer, config: PhoneConfig | None = None, *, faults: Faults | None = None,
                        require_auth: bool = False) -> AsyncIterator[VirtualPhoneService]:
    service = VirtualPhoneService(config or PhoneConfig(), adb=adb.server(), faults=faults, require_auth=require_auth)
    await asyncio.wait_for(service.start(wait_ready=not require_auth), 30)
    try:
        yield service
    finally:
        await asyncio.wait_for(service.stop(), 15)


def once(condition: Callable[[str], bool], action: Callable[[], Awaitable[None] | None]) -> Callable[[str], Any]:
    """A ``Faults.before_command`` hook that runs ``action`` before the first command matching ``condition``."""
    fired = False

    def hook(command: str) -> Awaitable[None] | None:
        nonlocal fired
        if fired or not condition(command):
            return None
        fired = True
        return action()
    return hook


def wifi_model(at_call: int = 0, action: Callable[[LLMRequest], Any] | None = None) -> ScriptedModels:
    """The scripted Wi-Fi agent; on its ``at_call``-th step (from 1) ``action(request)`` runs first (awaited when
    it returns an awaitable) and, when it returns an answer, that answer replaces the agent's own."""
    calls = 0

    def respond(role: Role, request: LLMRequest) -> Any:
        nonlocal calls
        answer = wifi_agent(role, request)
        if role != "fast" or request.contract is None or request.contract.name != "act":
            return answer
        calls += 1
        if calls != at_call or action is None:
            return answer
        result = action(request)
        if not asyncio.iscoroutine(result):
            return answer if result is None else result

        async def later() -> Any:
            replaced = await result
            return answer if replaced is None else replaced
        return later()
    return ScriptedModels(respond)


class Watched:
    """A run's events, and its result."""

    def __init__(self, agent: Orchestrator) -> None:
        self.agent = agent
        self.events: list[Any] = []
        agent.bus.subscribe(self.events.append)
        self.result: RunResult | None = None

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def warnings(self) -> list[str]:
        return [e.message for e in self.of(LogLine) if e.level == "warning"]


async def run(phone: Any, models: ScriptedModels | None = None, *, bus: EventBus | None = None,
              timeout: float = 30, task: str = WIFI.goal) -> Watched:
    agent = Orchestrator(phone, models if models is not None else wifi_model(), settings=SETTINGS,
                         bus=bus or EventBus())
    watched = Watched(agent)
    watched.result = await asyncio.wait_for(agent.run(task), timeout)
    return watched


def stand_in_server(tmp_path: Path, version: str = "3.3.4") -> ServerFile:
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"PK\x03\x04 the virtual phone runs its own scrcpy server")
    return ServerFile(jar, version, "test")


# ------------------------------------------------------------------ 1. the phone unplugged


async def test_unplugged_mid_step_ends_the_run_naming_the_phone_and_a_new_run_works_after_replugging(
        adb_server: AdbTestServer, tmp_path: Path) -> None:
    """The cable is pulled while a tap runs and stays out: the tap is reported as interrupted, the next command
    waits ``reconnect_timeout`` for the phone, and the run ends as an error whose reason says the phone (by
    serial) was disconnected — no traceback, the history row finished. Plugged back in, the next run on the
    same Device waits for the phone and succeeds."""
    async with virtual_phone(adb_server) as sim:
        WIFI.setup(sim.phone)
        sim.phone.faults.before_command = once(lambda c: c.startswith("input tap"), lambda: sim.unplug())
        device = await adb_server.server().device(sim.serial)
        device.reconnect_timeout = 1.5
        bus = EventBus()
        recorder = RunRecorder(RunStore(tmp_path / "runs"))
        recorder.attach(bus)
        started = time.monotonic()
        first = await run(device, bus=bus)
        await asyncio.wait_for(recorder.aclose(), 10)
        assert first.result is not None
        assert first.result.outcome == "error"
        assert first.result.reason.startswith(f"the phone was disconnected: {sim.serial} was disconnected and did "
                                              "not come back within 1.5 s")
        assert "check the USB cable" in first.result.reason and "Traceback" not in first.result.reason
        assert time.monotonic() - started < 15
        taps = [r for r in first.of(ActionResult) if r.action.action == "tap"]
        assert taps and not taps[0].ok and "was interrupted: the connection to" in taps[0].message
        row = recorder.store.get_run(first.result.run_id).summary
        assert row.finished_at is not None and row.outcome == "error" and sim.serial in row.reason

        sim.phone.faults.before_command = None
        sim.replug()
        device.reconnect_timeout = 10.0          # the product's wait: the run starts while adb is reconnecting
        second = await run(device)
    assert second.result is not None and second.result.outcome == "success", second.result
    assert WIFI.check(sim.phone).ok


async def test_a_short_unplug_mid_run_is_waited_out_and_the_run_carries_on(adb_server: AdbTestServer) -> None:
    """The cable is pulled during a tap and put back half a second later: the interrupted tap is a failed step
    (it may or may not have happened, so it is not sent twice), the next capture waits for the phone, the run's
    log says the connection was lost and is back, and the task is done."""
    async with virtual_phone(adb_server) as sim:
        WIFI.setup(sim.phone)
        loop = asyncio.get_running_loop()

        def pull() -> None:
            sim.unplug()
            loop.call_later(0.5, sim.replug)
        sim.phone.faults.before_command = once(lambda c: c.startswith("input tap"), pull)
        device = await adb_server.server().device(sim.serial)
        watched = await run(device)
        assert watched.result is not None and watched.result.outcome == "success", watched.result
        assert WIFI.check(sim.phone).ok
    assert any(w.startswith(f"The connection to {device.serial} was lost (the phone went offline); it is back "
                            "after") for w in watched.warnings()), watched.warnings()
    assert any(not r.ok and "was interrupted" in r.message for r in watched.of(ActionResult))


# ------------------------------------------------------------------ 2. the adb server killed


async def test_adb_server_killed_mid_run_is_restarted_and_the_run_carries_on(private_adb: AdbTestServer) -> None:
    """The adb server dies while the phone is sending a screenshot (second capture): the device layer starts the
    server again on its own port, reconnects the phone (a new server does not know it), sends the screenshot
    again, says so in the run's log, and the run finishes the task."""
    screencaps = 0

    async def kill_on_second_screencap(command: str) -> None:
        nonlocal screencaps
        if command.startswith("screencap"):
            screencaps += 1
            if screencaps == 2:
                killed = await asyncio.to_thread(private_adb.run, "kill-server", timeout=15)
                assert killed.returncode == 0, killed.stderr

    async with virtual_phone(private_adb) as sim:
        WIFI.setup(sim.phone)
        device = await private_adb.server().device(sim.serial)
        sim.phone.faults.before_command = kill_on_second_screencap
        watched = await run(device, timeout=45)
        assert watched.result is not None and watched.result.outcome == "success", watched.result
        assert WIFI.check(sim.phone).ok
        assert screencaps >= 3                                   # the interrupted screenshot was taken again
        assert await private_adb.server().version() > 0          # the server runs again, on the same port
    notices = [w for w in watched.warnings() if w.startswith(f"The connection to {device.serial} was lost")]
    assert notices and "restarted the adb server" in notices[0] and "reconnected over the network" in notices[0]


# ------------------------------------------------------------------ 3. and 4. the mirror


async def test_mirror_server_dying_mid_run_is_started_again_and_the_run_goes_on_with_the_stream(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path: Path) -> None:
    """The scrcpy server dies on the phone while the model thinks about step 2: the mirror starts it again, the
    run's log says so both ways, the following screenshots are stream frames again, and the task is done."""
    WIFI.setup(sim.phone)
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, stand_in_server(tmp_path), max_size=1200)
    await asyncio.wait_for(mirror.start(), 20)
    phone = MirroredPhone(device, mirror)
    try:
        assert await mirror.first_frame(timeout=5)

        async def kill_mirror(request: LLMRequest) -> None:
            assert sim.phone.kill_scrcpy_servers() == 1
            await until(lambda: mirror.restarts == 1 and phone.mirroring, timeout=20)
        watched = await run(phone, wifi_model(at_call=2, action=kill_mirror))
    finally:
        await asyncio.wait_for(mirror.stop(), 10)
    assert watched.result is not None and watched.result.outcome == "success", watched.result
    assert WIFI.check(sim.phone).ok
    assert mirror.error is None
    warnings = watched.warnings()
    assert any(w.startswith("The live mirror stopped (the mirror stream ended") and "restarting it" in w
               for w in warnings), warnings
    assert not any("screenshots now come over adb" in w for w in warnings)
    sizes = [(e.screenshot.source_width, e.screenshot.source_height) for e in watched.of(ScreenCaptured)]
    assert sizes[0] == (536, 1200) and sizes[-1] == (536, 1200)


async def test_mirror_server_that_cannot_be_started_again_falls_back_to_adb_screenshots_and_says_so(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scrcpy server dies and every restart fails: after its tries the mirror ends, the run's log says
    screenshots now come over adb, the following screenshots are full-size adb screencaps instead of 1200-pixel
    stream frames, and the run finishes the task."""
    monkeypatch.setattr("relay_desktop.mirror.client.RESTART_DELAYS_S", (0.1, 0.1))
    WIFI.setup(sim.phone)
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, stand_in_server(tmp_path), max_size=1200)
    await asyncio.wait_for(mirror.start(), 20)
    try:
        assert await mirror.first_frame(timeout=5)

        async def kill_mirror(request: LLMRequest) -> None:
            mirror.server = stand_in_server(tmp_path, version="3.0.0")      # the phone refuses every restart
            assert sim.phone.kill_scrcpy_servers() == 1
            await until(lambda: mirror.error is not None, timeout=20)
        watched = await run(MirroredPhone(device, mirror), wifi_model(at_call=2, action=kill_mirror))
    finally:
        await asyncio.wait_for(mirror.stop(), 10)
    assert watched.result is not None and watched.result.outcome == "success", watched.result
    assert WIFI.check(sim.phone).ok
    assert mirror.error is not None and "the mirror stream ended" in mirror.error
    assert "could not be restarted" in mirror.error
    lost = [w for w in watched.warnings() if "screenshots now come over adb" in w]
    assert len(lost) == 1 and lost[0].startswith("The live mirror stopped (the mirror stream ended")
    sizes = [(e.screenshot.source_width, e.screenshot.source_height) for e in watched.of(ScreenCaptured)]
    assert sizes[0] == (536, 1200) and sizes[-1] == (1080, 2400)


async def test_scrcpy_version_mismatch_names_both_versions_and_falls_back_to_screencap_mirroring(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path: Path) -> None:
    """The scrcpy server on the phone is 3.3.4 and the client asks for 3.3.1: starting the mirror fails with a
    message naming both versions; the window's fallback, the screencap mirror, shows the phone with that reason
    in its notice, and a run beside it works over adb screenshots."""
    WIFI.setup(sim.phone)
    device = await adb_server.server().device(sim.serial)
    client = MirrorClient(device, stand_in_server(tmp_path, version="3.3.1"))
    with pytest.raises(MirrorError) as failure:
        await asyncio.wait_for(client.start(), 20)
    reason = str(failure.value)
    assert "The server version (3.3.4) does not match the client (3.3.1)" in reason
    assert "another version" in reason and "SCRCPY_SERVER_PATH" in reason
    fallback = ScreencapMirror(device, reason, interval_s=0.2)
    await fallback.start()
    try:
        await until(lambda: fallback.latest.take()[1] >= 1)
        watched = await run(MirroredPhone(device, None))
        assert fallback.error is None                          # the poller shared the phone with the run
    finally:
        await asyncio.wait_for(fallback.stop(), 5)
    assert fallback.notice.startswith("Live mirror unavailable (the scrcpy server on the phone is another version")
    assert "(3.3.4)" in fallback.notice and "(3.3.1)" in fallback.notice
    assert fallback.latest.size == (1080, 2400)
    assert watched.result is not None and watched.result.outcome == "success", watched.result
    assert any(e.message.startswith("No mirror: screenshots over adb") for e in watched.of(LogLine))


# ------------------------------------------------------------------ 5. uiautomator cannot get idle


async def test_uiautomator_idle_state_failures_are_retried_and_the_run_succeeds(
        adb_server: AdbTestServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every screen change animates for 0.4 s, uiautomator fails while it does (and the first two dumps fail
    regardless): each failed dump is retried with backoff inside the capture, and the run succeeds with no
    error. (On a phone where uiautomator2's server cannot run: it does not wait for idle.)"""
    monkeypatch.setenv("RELAY_DESKTOP_UI_SERVER", "off")
    dumps = 0

    def count(command: str) -> None:
        nonlocal dumps
        dumps += command.startswith("uiautomator dump")
    faults = Faults(dump_failures=2, dump_fails_while_animating=True, before_command=count)
    config = PhoneConfig(realism=Realism("animated", transition_seconds=0.4))
    async with virtual_phone(adb_server, config, faults=faults) as sim:
        WIFI.setup(sim.phone)
        device = await adb_server.server().device(sim.serial)
        watched = await run(device)
        assert watched.result is not None and watched.result.outcome == "success", watched.result
        assert WIFI.check(sim.phone).ok
    captures = len(watched.of(ScreenCaptured))
    assert dumps >= captures + 2                               # the failures were retried, not passed on
    assert not [e for e in watched.of(LogLine) if e.level == "error"]


async def test_a_screen_that_never_stops_animating_ends_the_run_with_a_clear_message(
        adb_server: AdbTestServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """uiautomator never gets an idle state: after its retries the run ends as an error that says the screen
    never stopped animating and what to do, in a few seconds. (Without uiautomator2's server, which does not
    wait for idle: see test_device_layer.py.)"""
    monkeypatch.setenv("RELAY_DESKTOP_UI_SERVER", "off")
    async with virtual_phone(adb_server, faults=Faults(dump_failures=1000)) as sim:
        device = await adb_server.server().device(sim.serial)
        watched = await run(device, timeout=20)
    assert watched.result is not None and watched.result.outcome == "error"
    assert watched.result.reason.startswith("the phone's screen could not be read, because it never stopped "
                                            "animating")
    assert "could not get idle state" in watched.result.reason and "pause any video" in watched.result.reason


# ------------------------------------------------------------------ 6. unauthorized


async def test_unauthorized_phone_is_refused_with_the_prompt_to_accept_and_nothing_hangs(
        adb_server: AdbTestServer) -> None:
    """The phone has not accepted this computer's key: picking it fails at once with a message telling the
    user to accept the 'Allow USB debugging?' prompt; a run on it ends quickly with the same advice (no waiting
    for a reconnect); once the user taps Allow, a run works."""
    async with virtual_phone(adb_server, require_auth=True) as sim:
        server = adb_server.server()
        await server.wait_for_state(sim.serial, "unauthorized", timeout=15)
        with pytest.raises(DeviceUnauthorizedError, match=r"accept the 'Allow USB debugging\?' prompt"):
            await asyncio.wait_for(server.device(sim.serial), 10)
        device = Device(server, sim.serial)                     # e.g. the key was revoked after it was picked
        started = time.monotonic()
        refused = await run(device, timeout=10)
        assert refused.result is not None and refused.result.outcome == "error"
        assert refused.result.reason == (f"the phone does not allow this computer yet: {sim.serial} is unauthorized: "
                                         "unlock the phone and accept the 'Allow USB debugging?' prompt, then try "
                                         "again")
        assert time.monotonic() - started < device.reconnect_timeout
        await sim.transport.authorize()                         # the user taps "Allow"
        await server.wait_for_state(sim.serial, "device", timeout=15)
        WIFI.setup(sim.phone)
        allowed = await run(device)
    assert allowed.result is not None and allowed.result.outcome == "success", allowed.result


# ------------------------------------------------------------------ 7. two runs, one phone


async def test_a_second_run_on_the_same_phone_is_refused_naming_the_first(adb_server: AdbTestServer,
                                                                          sim: VirtualPhoneService) -> None:
    """While one run drives the phone, a second run started on it ends at once as an error naming the phone and
    the run that holds it (and sends it nothing); the first run is undisturbed, and after it a new run may
    start."""
    WIFI.setup(sim.phone)
    device = await adb_server.server().device(sim.serial)
    gate = asyncio.Event()

    async def hold(request: LLMRequest) -> None:
        await asyncio.wait_for(gate.wait(), 20)
    first_agent = Orchestrator(device, wifi_model(at_call=1, action=hold), settings=SETTINGS)
    first = asyncio.ensure_future(first_agent.run(WIFI.goal))
    try:
        await until(lambda: first_agent.iteration >= 1)
        second_models = wifi_model()
        second = await run(device, second_models, timeout=5, task="Turn off Wi-Fi")
        assert second.result is not None and second.result.outcome == "error"
        assert second.result.reason == (f"{sim.serial} is busy: run {first_agent.run_id} (\"{WIFI.goal}\") is "
                                        "driving it. Stop that run or wait for it to finish, then start this one "
                                        "again.")
        assert not second_models.requests and not second.of(ActionStarted)
        assert second.of(RunFinished)[0].reason == second.result.reason
        gate.set()
        result = await asyncio.wait_for(first, 30)
    finally:
        gate.set()
        if not first.done():
            await first_agent.control.stop()
    assert result.outcome == "success", result
    sim.phone.settings["global"]["wifi_on"] = "0"
    again = await run(device)
    assert again.result is not None and again.result.outcome == "success", again.result


def test_a_phone_driven_by_another_process_is_refused_until_that_process_dies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window and `relay-desktop run` are separate processes: a run in one holds the phone against the other
    (naming the run, its task and the process), and a process killed with SIGKILL lets go of it at once."""
    import signal
    import subprocess
    import sys

    from relay_desktop.agent.claims import PhoneBusy, claim_phone

    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom relay_desktop.agent.claims import claim_phone\n"
         "with claim_phone('127.0.0.1:5555', 'run-elsewhere', 'Turn on Wi-Fi'):\n"
         "    print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True, env={**os.environ})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(PhoneBusy) as busy, claim_phone("127.0.0.1:5555", "run-here", "Turn off Wi-Fi"):
            pass
        assert str(busy.value).startswith('127.0.0.1:5555 is busy: run run-elsewhere ("Turn on Wi-Fi") in another '
                                          f"Relay Desktop process (pid {holder.pid}) is driving it.")
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
    with claim_phone("127.0.0.1:5555", "run-here", "Turn off Wi-Fi") as claim:
        assert claim.run_id == "run-here"


# ------------------------------------------------------------------ 8. rotation


async def test_rotation_mid_run_keeps_taps_on_target(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    """The phone turns to landscape while the model thinks about its tap on 'Network & internet' (for 1.5 s, like
    a real model): the stale-screen check reads the screen again, so the tap lands on the element's landscape
    position; the prompts after that say the screen is 2400x1080 (while `wm size` keeps reporting the panel's
    1080x2400, as Android does), and the run succeeds."""
    WIFI.setup(sim.phone)
    device = await adb_server.server().device(sim.serial)
    points: list[tuple[int, int]] = []                          # where the element is: portrait, landscape

    async def turn(request: LLMRequest) -> Any:
        target = element_id(request, "Network & internet")
        assert target is not None, "step 2 should see the Settings list"
        points.append(build_element_map(await sim.phone.dump_hierarchy()).find("Network & internet")[0].tap)
        sim.phone.rotate(1)
        points.append(build_element_map(await sim.phone.dump_hierarchy()).find("Network & internet")[0].tap)
        data = {"thinking": "open the network page", "steps": [{"action": "tap", "element": target}]}
        return make_response(data, latency_s=1.5)
    models = wifi_model(at_call=2, action=turn)
    watched = await run(device, models)
    assert watched.result is not None and watched.result.outcome == "success", watched.result
    assert WIFI.check(sim.phone).ok
    taps = [e for e in watched.of(ActionStarted) if e.action.action == "tap"]
    portrait, landscape = points
    assert portrait != landscape and taps[0].point == landscape   # the landscape position, not the stale one
    later = [r for role, r in models.requests if role == "fast" and r.contract is not None
             and r.contract.name == "act"][2:]
    assert later and all("the screen is 2400x1080 pixels" in r.messages[-1].text and
                         "screen 2400x1080" in r.messages[0].text for r in later)
    assert (await device.shell("wm size")).stdout.strip() == "Physical size: 1080x2400"
    assert (await device.screenshot()).size == (2400, 1080)


# ------------------------------------------------------------------ the adb server this process starts


async def test_a_dead_custom_port_server_is_never_restarted_on_the_default_port(private_adb: AdbTestServer) -> None:
    """With the adb server on a custom port gone, asking it for devices fails with a plain error at once; no adb
    server is started on the default port (5037) or on $ANDROID_ADB_SERVER_PORT behind the user's back."""
    from relay_desktop.device.errors import AdbServerError

    server = private_adb.server()
    await server.kill()
    default = int(os.environ.get("ANDROID_ADB_SERVER_PORT") or 5037)
    was_running = _listening(default)
    with pytest.raises(AdbServerError, match="cannot reach the adb server"):
        await asyncio.wait_for(server.devices(), 10)
    assert _listening(default) == was_running
    assert await asyncio.wait_for(server.ensure_running(), 30) > 0  # ours starts it, on its own port


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True
