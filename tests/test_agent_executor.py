"""The executor on the virtual phone through Google's adb server: each action does what it says on a real
device connection, the step's own failures become StepErrors for the model, and nothing reaches the phone
once stop was asked for."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from relay_desktop.agent.control import RunControl, RunStopped
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.actions import Step, StepError, resolve_step
from relay_desktop.agent.steps.executor import Executor
from relay_desktop.device.device import Device
from relay_desktop.device.models import DeviceContext
from relay_desktop.perception import Element, ElementMap, build_element_map
from relay_desktop.sim.apps.browser import NEW_TAB, search_query
from relay_desktop.sim.phone import LAUNCHER_PACKAGE, VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.streams import ProcessIO
from tests.conftest import AdbTestServer

SETTINGS = "com.android.settings"
CHROME = "com.android.chrome"
CONTACTS = "com.google.android.contacts"
CLOCK = "com.google.android.deskclock"
CONTEXT = DeviceContext(serial="sim", model="Relay Virtual Phone", manufacturer="Relay", android_release="14",
                        sdk=34, locale="en-US", timezone="UTC", screen_width=1080, screen_height=2274, density=420,
                        keyboard_shown=False, current_app=None)


@dataclass
class Rig:
    device: Device
    phone: VirtualPhone
    control: RunControl
    executor: Executor
    commands: list[str]          # every shell command that reached the phone

    async def observe(self) -> Observation:
        element_map = build_element_map(await self.device.dump_hierarchy())
        return Observation.of(element_map, None, CONTEXT, 0.0, 0.0)

    async def run(self, step: Step, observation: Observation | None = None) -> str:
        observation = observation or await self.observe()
        return await self.executor.run(resolve_step(step, observation.element_map), observation)


@pytest.fixture
async def rig(adb_server: AdbTestServer, sim: VirtualPhoneService,
              monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Rig]:
    device = await adb_server.server().device(sim.serial)
    commands: list[str] = []
    real_run_shell = sim.phone.run_shell

    async def recording_run_shell(command: str, io: ProcessIO) -> int:
        commands.append(command)
        return await real_run_shell(command, io)

    monkeypatch.setattr(sim.phone, "run_shell", recording_run_shell)
    control = RunControl()
    yield Rig(device, sim.phone, control, Executor(device, control), commands)


def _one(element_map: ElementMap, label: str, role: str | None = None) -> Element:
    found = [e for e in element_map.find(label) if role is None or e.role == role]
    assert len(found) == 1, (label, found)
    return found[0]


def _open_network_settings(phone: VirtualPhone) -> None:
    phone.launch(SETTINGS)
    phone.app(SETTINGS).open(".NetworkDashboardActivity")


# ------------------------------------------------------------ tap, type, scroll


async def test_tap_on_the_wifi_switch_toggles_wifi(rig: Rig) -> None:
    _open_network_settings(rig.phone)
    assert rig.phone.setting("global", "wifi_on") == "1"
    observation = await rig.observe()
    wifi = _one(observation.element_map, "Wi-Fi", "switch")
    done = await rig.run(Step.of("tap", element=wifi.id), observation)
    assert done == f"tap at ({wifi.tap[0]},{wifi.tap[1]})"
    assert rig.phone.setting("global", "wifi_on") == "0"
    again = await rig.observe()
    assert "off" in _one(again.element_map, "Wi-Fi", "switch").states
    await rig.run(Step.of("tap", element=wifi.id), again)
    assert rig.phone.setting("global", "wifi_on") == "1"


async def test_type_clears_the_field_types_and_submits(rig: Rig) -> None:
    rig.phone.launch(CHROME)
    rig.phone.current_activity().state["ntp_query"] = "stale words"
    rig.phone.invalidate()
    observation = await rig.observe()
    box = _one(observation.element_map, "Search or type URL", "field")
    assert box.value == "stale words"
    step = Step.of("type", element=box.id, text="lighthouse", clear=True, submit=True)
    done = await rig.run(step, observation)
    assert done == 'tapped the field, cleared it, typed "lighthouse", pressed Enter'
    url = rig.phone.app(CHROME).current_url
    assert url is not None and search_query(url) == "lighthouse"


async def test_type_with_clear_into_the_focused_field(rig: Rig) -> None:
    rig.phone.launch(CHROME)
    rig.phone.current_activity().state["ntp_query"] = "stale words"
    rig.phone.invalidate()
    box = _one((await rig.observe()).element_map, "Search or type URL", "field")
    await rig.run(Step.of("tap", element=box.id))
    focused = await rig.observe()
    assert "focused" in _one(focused.element_map, "Search or type URL", "field").states
    await rig.run(Step.of("type", text="lighthouse", clear=True, submit=True), focused)
    url = rig.phone.app(CHROME).current_url
    assert url is not None and search_query(url) == "lighthouse", url


async def test_type_without_clear_or_submit_adds_to_the_field(rig: Rig) -> None:
    rig.phone.launch(CHROME)
    rig.phone.current_activity().state["ntp_query"] = "old "
    rig.phone.invalidate()
    observation = await rig.observe()
    box = _one(observation.element_map, "Search or type URL", "field")
    assert await rig.run(Step.of("type", element=box.id, text="news"), observation) == \
        'tapped the field, typed "news"'
    assert rig.phone.app(CHROME).current_url == NEW_TAB
    assert _one((await rig.observe()).element_map, "Search or type URL", "field").value == "old news"


async def test_scroll_down_moves_a_long_list(rig: Rig) -> None:
    rig.phone.launch(CONTACTS)
    top = await rig.observe()
    assert not top.element_map.find("Zoe Adams")
    assert await rig.run(Step.of("scroll", direction="up"), top) == "scrolled up"   # already at the top
    assert (await rig.observe()).fingerprint == top.fingerprint
    assert await rig.run(Step.of("scroll", direction="down"), top) == "scrolled down"
    below = await rig.observe()
    assert below.fingerprint != top.fingerprint
    assert below.element_map.find("Zoe Adams")
    assert not below.element_map.find("Amara Okafor")


# ------------------------------------------------------------ system keys and apps


async def test_back_leaves_the_page(rig: Rig) -> None:
    _open_network_settings(rig.phone)
    assert await rig.run(Step.of("back")) == "pressed back"
    assert rig.phone.focused_activity() == (SETTINGS, ".Settings")


async def test_home_goes_to_the_launcher(rig: Rig) -> None:
    _open_network_settings(rig.phone)
    assert await rig.run(Step.of("home")) == "pressed home"
    assert rig.phone.focused_activity() is not None and rig.phone.focused_activity()[0] == LAUNCHER_PACKAGE


async def test_recent_apps_shows_recents(rig: Rig) -> None:
    _open_network_settings(rig.phone)
    assert await rig.run(Step.of("recent_apps")) == "pressed recent apps"
    assert rig.phone.focused_activity() == (LAUNCHER_PACKAGE, ".RecentsActivity")


async def test_launch_app_by_label(rig: Rig) -> None:
    assert await rig.run(Step.of("launch_app", app="Clock")) == f"opened {CLOCK}"
    assert rig.phone.focused_activity() is not None and rig.phone.focused_activity()[0] == CLOCK
    assert rig.executor.launched == CLOCK


async def test_an_unknown_app_is_a_step_error_pointing_at_installed_apps(rig: Rig) -> None:
    before = rig.phone.focused_activity()
    with pytest.raises(StepError) as error:
        await rig.run(Step.of("launch_app", app="Flux Capacitor"))
    assert "Flux Capacitor" in str(error.value) and "installed apps" in str(error.value)
    assert rig.phone.focused_activity() == before and rig.executor.launched is None


async def test_non_ascii_text_without_a_way_to_paste_is_a_step_error_and_types_nothing(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rig.device.ui_server, "error", "turned off (RELAY_DESKTOP_UI_SERVER=off)")
    rig.phone.launch(CHROME)
    observation = await rig.observe()
    box = _one(observation.element_map, "Search or type URL", "field")
    await rig.run(Step.of("tap", element=box.id), observation)
    focused = await rig.observe()
    rig.commands.clear()
    with pytest.raises(StepError, match="ASCII"):
        await rig.run(Step.of("type", text="café"), focused)
    assert rig.commands == []
    assert _one((await rig.observe()).element_map, "Search or type URL", "field").value == ""


async def test_non_ascii_text_is_pasted_through_the_uiautomator2_server_without_a_mirror(rig: Rig) -> None:
    rig.phone.launch(CHROME)
    observation = await rig.observe()
    box = _one(observation.element_map, "Search or type URL", "field")
    await rig.run(Step.of("tap", element=box.id), observation)
    await rig.run(Step.of("type", text="Grüße 你好 18°"), await rig.observe())
    assert _one((await rig.observe()).element_map, "Search or type URL", "field").value == "Grüße 你好 18°"


# ------------------------------------------------------------ stop


@pytest.mark.parametrize("how", ["flag", "stop"])
async def test_nothing_is_sent_once_stop_was_asked_for(rig: Rig, how: str) -> None:
    _open_network_settings(rig.phone)
    observation = await rig.observe()
    wifi = _one(observation.element_map, "Wi-Fi", "switch")
    if how == "flag":
        rig.control._stop_requested = True
    else:
        await rig.control.stop()                 # unbound: only marks the run stopped
    assert rig.control.stop_requested
    rig.commands.clear()
    steps = [Step.of("tap", element=wifi.id), Step.of("long_press", element=wifi.id),
             Step.of("type", element=wifi.id, text="x", submit=True), Step.of("scroll", direction="down"),
             Step.of("press_key", key="enter"), Step.of("back"), Step.of("home"), Step.of("recent_apps"),
             Step.of("launch_app", app="Clock")]
    for step in steps:
        with pytest.raises(RunStopped):
            await rig.executor.run(resolve_step(step, observation.element_map), observation)
    assert rig.commands == []
    assert rig.phone.setting("global", "wifi_on") == "1"
    assert rig.phone.focused_activity() == (SETTINGS, ".NetworkDashboardActivity")
    assert rig.executor.launched is None
