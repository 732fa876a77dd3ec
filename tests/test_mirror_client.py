"""The whole mirror against the virtual phone through Google's adb server: frames, taps, Unicode, faults."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from relay_desktop.mirror.client import MirrorClient, MirrorError
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import find
from tests.conftest import AdbTestServer
from tests.waiting import until


@pytest.fixture
def server_file(tmp_path: Path) -> ServerFile:
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"PK\x03\x04 the virtual phone runs its own server for this class")
    return ServerFile(jar, "3.3.4", "test")


@pytest.fixture
async def mirror(adb_server: AdbTestServer, sim: VirtualPhoneService,
                 server_file: ServerFile) -> AsyncIterator[MirrorClient]:
    device = await adb_server.server().device(sim.serial)
    client = MirrorClient(device, server_file, max_size=1200)
    await asyncio.wait_for(client.start(), 20)
    try:
        yield client
    finally:
        await client.stop()


async def test_frames_arrive_at_the_phone_s_aspect_and_the_jar_is_gone(mirror: MirrorClient,
                                                                        sim: VirtualPhoneService) -> None:
    await until(lambda: mirror.latest.take()[1] >= 2)
    assert mirror.device_name == "Relay Virtual Phone"
    assert mirror.frame_size == (536, 1200)                   # 1080x2400 scaled to 1200, multiples of 8
    shot = await mirror.latest.screenshot()
    assert shot.size == (536, 1200)
    assert not sim.phone.fs.exists(mirror.remote_path)        # the server removed its jar, as the real one does


async def test_a_tap_on_mirrored_coordinates_lands_on_the_element(mirror: MirrorClient,
                                                                 sim: VirtualPhoneService) -> None:
    phone = sim.phone
    phone.settings["global"]["wifi_on"] = "0"
    phone.launch("com.android.settings")
    await until(lambda: mirror.frame_size is not None)
    node = find(await phone.dump_hierarchy(), text="Network & internet")
    assert node is not None
    await mirror.tap(*node.center, screen=phone.display_size)
    await until(lambda: (phone.focused_activity() or ("", ""))[1].endswith("NetworkDashboardActivity"))


async def test_unicode_text_types_through_the_clipboard(mirror: MirrorClient, sim: VirtualPhoneService) -> None:
    phone = sim.phone
    phone.launch("com.google.android.keep")
    await until(lambda: mirror.frame_size is not None)
    node = find(await phone.dump_hierarchy(), desc="New note")
    assert node is not None
    await mirror.tap(*node.center, screen=phone.display_size)
    await until(lambda: (phone.focused_activity() or ("", ""))[1].endswith("EditorActivity"))
    await asyncio.wait_for(mirror.type_text("Grüße, 你好"), 10)
    keep = phone.apps["com.google.android.keep"]
    assert any("Grüße, 你好" in note.body for note in keep.notes)  # type: ignore[attr-defined]


async def test_settle_follows_the_screen(mirror: MirrorClient, sim: VirtualPhoneService) -> None:
    await until(lambda: mirror.latest.take()[1] >= 1)
    assert await asyncio.wait_for(mirror.settle.wait_settled(0.3, timeout=3), 5)
    sim.phone.launch("com.android.settings")
    await until(lambda: mirror.settle.still_for() < 0.2, timeout=5)


async def test_a_wrong_version_is_reported_in_plain_words(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                          server_file: ServerFile) -> None:
    device = await adb_server.server().device(sim.serial)
    client = MirrorClient(device, ServerFile(server_file.path, "3.3.1", "test"))
    with pytest.raises(MirrorError, match=r"another version: The server version \(3\.3\.4\) does not match the "
                                          r"client \(3\.3\.1\)"):
        await asyncio.wait_for(client.start(), 30)


async def test_a_dropped_stream_is_reported_and_a_new_mirror_starts(adb_server: AdbTestServer,
                                                                    sim: VirtualPhoneService,
                                                                    server_file: ServerFile,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("relay_desktop.mirror.client.RESTART_DELAYS_S", ())   # no restarts: test_mirror_restart.py
    device = await adb_server.server().device(sim.serial)
    client = MirrorClient(device, server_file, max_size=800)
    ended: list[str | None] = []
    client.on_end = ended.append
    await asyncio.wait_for(client.start(), 20)
    await until(lambda: client.latest.take()[1] >= 1)
    client._video.close()                                        # the socket drops (cable, adb restart)
    await until(lambda: bool(ended))
    assert ended[0] is not None and "the mirror stream ended" in ended[0]
    await client.stop()
    again = MirrorClient(device, server_file, max_size=800)      # reconnecting is starting again
    await asyncio.wait_for(again.start(), 20)
    try:
        await until(lambda: again.latest.take()[1] >= 1)
    finally:
        await again.stop()


async def test_the_screencap_fallback_shows_the_phone_with_a_notice(adb_server: AdbTestServer,
                                                                    sim: VirtualPhoneService) -> None:
    from relay_desktop.mirror.screencap_mirror import ScreencapMirror

    device = await adb_server.server().device(sim.serial)
    fallback = ScreencapMirror(device, "no scrcpy server could be downloaded", interval_s=0.05)
    await fallback.start()
    try:
        await until(lambda: fallback.latest.take()[1] >= 2)
    finally:
        await fallback.stop()
    assert fallback.latest.size == (1080, 2400)
    assert fallback.notice.startswith("Live mirror unavailable (no scrcpy server could be downloaded)")


async def test_swipe_keys_text_and_clipboard(mirror: MirrorClient, sim: VirtualPhoneService) -> None:
    phone = sim.phone
    phone.launch("com.google.android.contacts")
    await until(lambda: mirror.frame_size is not None)
    assert find(await phone.dump_hierarchy(), text="Zoe Adams") is None
    width, height = phone.display_size
    for _ in range(3):                                            # a finger drag with intermediate moves
        await mirror.swipe(width / 2, height * 0.8, width / 2, height * 0.3, screen=phone.display_size)
    assert find(await phone.dump_hierarchy(), text="Zoe Adams") is not None
    await mirror.press_key("HOME")
    await until(lambda: "launcher" in (phone.focused_activity() or ("", ""))[0])
    phone.launch("com.android.chrome")
    field = find(await phone.dump_hierarchy(), text="Search or type URL")
    assert field is not None
    await mirror.tap(*field.center, screen=phone.display_size)
    await mirror.inject_text("relay")
    await until(lambda: _field_has(phone, "relay"))
    phone.clipboard = "copied on the phone"
    assert await mirror.clipboard() == "copied on the phone"
    await mirror.back()
    with pytest.raises(MirrorError, match="only ASCII"):
        await mirror.inject_text("ü")


def _field_has(phone, text: str) -> bool:  # type: ignore[no-untyped-def]
    """The text is in a draft of the screen in front (a field's value lives in the activity's state)."""
    activity = phone.current_activity()
    return any(text in str(value) for value in activity.state.values())


async def test_a_server_killed_mid_stream_is_reported(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                      server_file: ServerFile, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("relay_desktop.mirror.client.RESTART_DELAYS_S", ())   # no restarts: test_mirror_restart.py
    device = await adb_server.server().device(sim.serial)
    client = MirrorClient(device, server_file, max_size=800)
    ended: list[str | None] = []
    client.on_end = ended.append
    await asyncio.wait_for(client.start(), 20)
    try:
        await until(lambda: client.latest.take()[1] >= 1)
        client._process.close()                                   # the adb shell running the server goes away
        await until(lambda: bool(ended), timeout=10)
        assert ended[0] is not None and "the mirror stream ended" in ended[0]
        assert client.error == ended[0]
    finally:
        await client.stop()


async def test_a_size_change_mid_stream_is_followed_and_taps_use_the_new_size(
        mirror: MirrorClient, sim: VirtualPhoneService) -> None:
    phone = sim.phone
    await until(lambda: mirror.frame_size == (536, 1200))
    phone.size_override = (2400, 1080)        # landscape, as after a rotation
    phone.invalidate()
    await until(lambda: mirror.frame_size == (1200, 536))
    phone.settings["global"]["wifi_on"] = "0"
    phone.launch("com.android.settings")
    node = find(await phone.dump_hierarchy(), text="Network & internet")
    assert node is not None
    await mirror.tap(*node.center, screen=phone.display_size)
    await until(lambda: (phone.focused_activity() or ("", ""))[1].endswith("NetworkDashboardActivity"))


async def test_recording_starts_at_a_key_frame_asked_for_at_once(mirror: MirrorClient, sim: VirtualPhoneService,
                                                                tmp_path: Path) -> None:
    import av

    await until(lambda: mirror.latest.take()[1] >= 2)
    recorder = await mirror.start_recording(tmp_path / "run.mp4")
    await until(lambda: recorder.packets >= 3, timeout=5)      # not 10 s: the server sent a key frame now
    sim.phone.launch("com.android.settings")
    await until(lambda: recorder.packets >= 5, timeout=5)
    await asyncio.to_thread(mirror.stop_recording, recorder)
    with av.open(str(tmp_path / "run.mp4")) as container:
        frames = list(container.decode(container.streams.video[0]))
    assert len(frames) >= 5 and (frames[0].width, frames[0].height) == (536, 1200)
