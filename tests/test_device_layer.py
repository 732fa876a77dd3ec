"""The device layer against the virtual phone, through Google's adb server: no mocks."""

from __future__ import annotations

import asyncio

import pytest

from relay_desktop.device.adb_server import AdbServer
from relay_desktop.device.errors import (
    AdbServerError,
    AppNotFoundError,
    CommandFailedError,
    DeviceDisconnectedError,
    DeviceNotFoundError,
    DeviceOfflineError,
    DeviceUnauthorizedError,
    HierarchyDumpError,
    UnsupportedTextError,
)
from relay_desktop.sim.config import PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import find
from tests.conftest import AdbTestServer, free_port


async def test_lists_devices_and_opens_one_by_serial(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    server = adb_server.server()
    devices = {d.serial: d for d in await server.devices()}
    info = devices[sim.serial]
    assert (info.state, info.model, info.product, info.ready) == ("device", "Relay_Virtual_Phone", "relay_sim", True)
    device = await server.device(sim.serial)
    assert device.serial == sim.serial


async def test_unknown_serial_is_a_clear_error(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    with pytest.raises(DeviceNotFoundError, match="'emulator-5554' not found"):
        await adb_server.server().device("emulator-5554")


async def test_unauthorized_device_is_reported_as_such(adb_server: AdbTestServer) -> None:
    service = VirtualPhoneService(PhoneConfig(), adb=adb_server.server(), require_auth=True)
    await service.start(wait_ready=False)
    try:
        await adb_server.server().wait_for_state(service.serial, "unauthorized", timeout=15)
        with pytest.raises(DeviceUnauthorizedError, match="Allow USB debugging"):
            await adb_server.server().device(service.serial)
    finally:
        await service.stop()


async def test_connect_rejects_bad_addresses_and_closed_ports(adb_server: AdbTestServer) -> None:
    server = adb_server.server()
    with pytest.raises(DeviceNotFoundError, match="is not HOST:PORT"):
        await server.connect("127.0.0.1:notaport")
    with pytest.raises(DeviceNotFoundError, match="failed to connect"):
        await server.connect(f"127.0.0.1:{free_port()}")


async def test_remote_server_that_is_not_there(adb_server: AdbTestServer) -> None:
    with pytest.raises(AdbServerError, match="no adb server answers"):
        await AdbServer(host="127.0.0.2", port=free_port()).ensure_running()


async def test_screen_size_screenshot_and_hierarchy(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    assert await device.screen_size() == (1080, 2400)
    image = await device.screenshot()
    assert (image.mode, image.size) == ("RGB", (1080, 2400))
    expected = await sim.phone.screenshot()
    # The navigation bar never changes, so it must match the phone's own rendering pixel for pixel.
    box = (0, 2300, 1080, 2400)
    assert image.crop(box).tobytes() == expected.crop(box).tobytes()
    xml = await device.dump_hierarchy()
    assert xml.startswith("<?xml") and xml.endswith("</hierarchy>")
    assert find(xml, desc="Settings") is not None
    await device.shell("wm size 720x1600", check=True)
    assert await device.screen_size() == (720, 1600)


async def test_dump_retries_while_the_screen_animates(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_UI_SERVER", "off")        # `uiautomator dump`, which waits for idle
    device = await adb_server.server().device(sim.serial)
    sim.phone.faults.dump_failures = 2
    assert "</hierarchy>" in await device.dump_hierarchy(retries=3, backoff=0.05)
    sim.phone.faults.dump_failures = 10
    with pytest.raises(HierarchyDumpError, match="could not get idle state"):
        await device.dump_hierarchy(retries=2, backoff=0.05)
    sim.phone.faults.dump_failures = 0
    sim.phone.faults.dump_fails_while_animating = True
    sim.phone.animate_for(0.4)
    assert "</hierarchy>" in await device.dump_hierarchy(retries=4, backoff=0.1)


async def test_the_uiautomator2_server_reads_a_screen_that_never_goes_idle(adb_server: AdbTestServer,
                                                                          sim: VirtualPhoneService) -> None:
    """`uiautomator dump` fails on screens that never stop animating; uiautomator2's server does not wait."""
    device = await adb_server.server().device(sim.serial)
    sim.phone.faults.dump_failures = 1000
    assert (await device.start_reading()).startswith("Screen read by the uiautomator2 server")
    assert "</hierarchy>" in await device.dump_hierarchy(retries=0)
    await device.close()
    assert not device.ui_server.running


async def test_apps_launch_keys_and_taps(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    apps = await device.installed_apps()
    assert any(a.package == "com.android.settings" and a.label == "Settings" for a in apps)
    assert await device.launch_app("settings") == "com.android.settings"
    current = await device.current_app()
    assert current is not None and current.package == "com.android.settings"
    row = find(await device.dump_hierarchy(), text="Network & internet")
    assert row is not None
    await device.tap(*row.center)
    assert sim.phone.focused_activity() == ("com.android.settings", ".NetworkDashboardActivity")
    await device.press_key("back")
    assert sim.phone.focused_activity() == ("com.android.settings", ".Settings")
    await device.press_key("KEYCODE_HOME")
    assert sim.phone.focused_activity() == ("com.android.launcher3", ".Launcher")
    with pytest.raises(AppNotFoundError, match="no installed app is called 'Frobnicator'"):
        await device.launch_app("Frobnicator")
    with pytest.raises(ValueError, match="unknown key 'FLY'"):
        await device.press_key("FLY")


async def test_swipe_scrolls_and_long_press_is_a_swipe_in_place(adb_server: AdbTestServer,
                                                                sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    await device.launch_app("com.android.settings")
    await device.swipe(540, 1500, 540, 700, 300)
    # Settings' main list fits on screen, so it cannot scroll: nothing moves and nothing breaks.
    assert sim.phone.current_activity().scroll.get("settings_homepage", 0) == 0
    await device.long_press(540, 600)
    assert sim.phone.focused_activity() == ("com.android.settings", ".Settings")


async def test_device_context(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    context = await device.device_context()
    assert (context.model, context.android_release, context.sdk) == ("Relay Virtual Phone", "14", 34)
    assert (context.locale, context.timezone) == ("en-US", "America/New_York")
    assert (context.screen_width, context.screen_height, context.density) == (1080, 2400, 420)
    assert context.keyboard_shown is False
    assert context.current_app is not None and context.current_app.package == "com.android.launcher3"


async def test_text_that_input_text_cannot_type_is_refused_before_sending(
        adb_server: AdbTestServer, sim: VirtualPhoneService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_UI_SERVER", "off")
    device = await adb_server.server().device(sim.serial)
    with pytest.raises(UnsupportedTextError, match="types only ASCII") as refused:
        await device.type_text("Grüße")
    assert "uiautomator2 server" in str(refused.value) and "Start the mirror" in str(refused.value)


async def test_bad_input_arguments_fail_with_the_phone_output(adb_server: AdbTestServer,
                                                              sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    with pytest.raises(CommandFailedError) as failure:
        await device.shell("input tap left top", check=True)
    assert failure.value.exit_code == 255
    assert "Invalid arguments for command: tap" in failure.value.output


async def test_device_vanishing_mid_command_is_a_disconnect_not_a_hang(adb_server: AdbTestServer,
                                                                       sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    device.reconnect_timeout = 0.5    # how long a command waits for a phone to come back (see the fault matrix)
    running = asyncio.create_task(device.shell("sleep 30", timeout=40))
    await asyncio.sleep(0.5)
    sim.transport.accepting = False
    sim.transport.drop_connections()
    with pytest.raises(DeviceDisconnectedError):
        await asyncio.wait_for(running, 15)
    with pytest.raises((DeviceNotFoundError, DeviceOfflineError, DeviceDisconnectedError)):
        await device.dump_hierarchy(retries=0)
