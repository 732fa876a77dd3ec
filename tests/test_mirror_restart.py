"""When the scrcpy server dies mid-run (the low-memory killer, a crash), the mirror starts it again instead of
leaving the rest of the run to slow adb screenshots and fixed pauses; when it cannot, it says so and adb takes
over, as before."""

from __future__ import annotations

import asyncio
import time

import pytest

from relay_desktop.mirror.client import MirrorClient
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.perception.pixels import pixel_signature, pixels_changed
from relay_desktop.sim.service import VirtualPhoneService
from tests.conftest import AdbTestServer


async def _mirrored(adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path) -> tuple[MirroredPhone, list[str]]:  # type: ignore[no-untyped-def]
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"server")
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=1200)
    await asyncio.wait_for(mirror.start(), 20)
    assert await asyncio.wait_for(mirror.first_frame(10), 15)
    phone = MirroredPhone(device, mirror)
    notices: list[str] = []
    phone.subscribe_notices(notices.append)
    return phone, notices


async def _until(condition, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def test_a_killed_scrcpy_server_is_started_again_and_the_mirror_goes_on(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path) -> None:  # type: ignore[no-untyped-def]
    phone, notices = await _mirrored(adb_server, sim, tmp_path)
    mirror = phone.mirror
    assert mirror is not None
    try:
        assert sim.phone.kill_scrcpy_servers() == 1
        assert await _until(lambda: not phone.mirroring, 5), "the dead stream still counted as a mirror"
        assert await _until(lambda: phone.mirroring, 15), f"the mirror did not come back: {mirror.error} {notices}"
        assert mirror.error is None and mirror.restarts == 1
        sim.phone.launch("com.android.settings")
        truth = pixel_signature(await sim.phone.screenshot())
        seen = pixel_signature(await asyncio.wait_for(mirror.latest.screenshot_since(time.monotonic()), 10)
                               or await phone.device.screenshot())
        assert not pixels_changed(truth, seen), "the restarted mirror does not show the phone"
    finally:
        await mirror.stop()
    assert any("restarting it" in n for n in notices), notices
    assert any("running again" in n for n in notices), notices


async def test_a_server_that_cannot_start_again_ends_the_mirror_after_a_few_tries_and_adb_takes_over(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path,  # type: ignore[no-untyped-def]
        monkeypatch: pytest.MonkeyPatch) -> None:
    import relay_desktop.mirror.client as client

    monkeypatch.setattr(client, "RESTART_DELAYS_S", (0.1, 0.1, 0.1))
    phone, notices = await _mirrored(adb_server, sim, tmp_path)
    mirror = phone.mirror
    assert mirror is not None
    try:
        broken = "3.0.0"            # every restart now fails: the server refuses the client's version
        mirror.server = ServerFile(mirror.server.path, broken, "test")
        sim.phone.kill_scrcpy_servers()
        assert await _until(lambda: mirror.error is not None, 30), notices
        assert not phone.mirroring
        picture = await phone.screenshot()          # over adb now
        assert picture.size == (1080, 2400)
    finally:
        await mirror.stop()
    assert "could not be restarted" in (mirror.error or ""), mirror.error
    assert sum("restarting it" in n for n in notices) == 1, notices
    assert any("screenshots now come over adb" in n for n in notices), notices
