"""Settings on the virtual phone: Sound & vibration (volume sliders, Do Not Disturb), Connection preferences and
the search over every page, observed through the hierarchy dump and input events; values land in the same
settings keys ``adb shell settings get`` reads."""

from __future__ import annotations

import pytest

from relay_desktop.sim.apps.settings_search import SEARCH, search_settings
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.streams import ProcessIO
from relay_desktop.sim.tasks.base import KEY_BACK, Node, PhoneDriver, find, nodes, tap_on

SETTINGS = "com.android.settings"


@pytest.fixture
def phone() -> VirtualPhone:
    return VirtualPhone()


@pytest.fixture
def driver(phone: VirtualPhone) -> PhoneDriver:
    return PhoneDriver(phone)


async def texts_with_id(driver: PhoneDriver, id: str) -> list[str]:
    xml = await driver.dump_hierarchy()
    return [n.attrs["text"] for n in nodes(xml) if n.attrs.get("resource-id", "").endswith(f":id/{id}")]


async def must_find(driver: PhoneDriver, **query: str) -> Node:
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    assert node is not None, f"nothing matches {query}"
    return node


async def shell(phone: VirtualPhone, command: str) -> str:
    io, out, _err = ProcessIO.collecting(b"")
    await phone.run_shell(command, io)
    return out.decode().strip()


async def test_sound_page_sliders_write_each_streams_volume(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(SETTINGS)
    assert (await must_find(driver, text="Sound & vibration")).attrs["resource-id"] == f"{SETTINGS}:id/title"
    await tap_on(driver, text="Sound & vibration")
    assert phone.focused_activity() == (SETTINGS, ".SoundSettingsActivity")
    sliders = [n for n in nodes(await driver.dump_hierarchy()) if n.attrs.get("class") == "android.widget.SeekBar"]
    assert [(n.attrs["content-desc"], n.attrs["text"]) for n in sliders] == [
        ("Media volume", "15"), ("Call volume", "4"), ("Ring & notification volume", "5"), ("Alarm volume", "6")]
    ring = sliders[2].bounds
    await driver.tap(ring[0], (ring[1] + ring[3]) // 2)         # the left end: silent
    await driver.tap(sliders[3].bounds[2] - 1, (sliders[3].bounds[1] + sliders[3].bounds[3]) // 2)
    assert await shell(phone, "settings get system volume_ring_speaker") == "0"
    assert await shell(phone, "settings get system volume_alarm_speaker") == "7"
    assert phone.setting("system", "volume_music_speaker", "unset") == "unset"   # untouched streams stay unset
    assert (await must_find(driver, desc="Ring & notification volume")).attrs["text"] == "0"


async def test_do_not_disturb_turns_on_and_off_from_its_page(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Sound & vibration")
    assert await texts_with_id(driver, "summary") == ["Off", "Pixel Sounds"]
    await tap_on(driver, text="Do Not Disturb")
    button = await must_find(driver, text="Turn on now")
    assert button.attrs["resource-id"] == f"{SETTINGS}:id/zen_mode_settings_turn_on_button"
    await driver.tap(*button.center)
    assert phone.setting("global", "zen_mode") == "1"             # important interruptions: alarms still ring
    assert (await must_find(driver, text="Turn off now")).attrs["resource-id"].endswith("turn_off_button")
    await tap_on(driver, desc="Navigate up")
    assert await texts_with_id(driver, "summary") == ["On", "Pixel Sounds"]
    await tap_on(driver, text="Do Not Disturb")
    await tap_on(driver, text="Turn off now")
    assert await shell(phone, "settings get global zen_mode") == "0"


def test_search_matches_titles_and_keywords_but_nothing_the_phone_lacks() -> None:
    assert search_settings("") == []
    assert [t for t, _w, _a in search_settings("sleep")] == ["Screen timeout"]
    assert [t for t, _w, _a in search_settings("wifi")] == ["Wi-Fi"]
    assert ("Dark theme", "Display", ".DisplaySettingsActivity") in search_settings("night")
    assert [t for t, _w, _a in search_settings("alarm vol")] == ["Alarm volume"]
    assert "Do Not Disturb" in [t for t, _w, _a in search_settings("dnd")]
    for missing in ("NFC", "contactless", "tap to pay", "hotspot"):
        assert search_settings(missing) == [], missing


async def test_the_search_page_opens_a_result_and_says_when_nothing_matches(phone: VirtualPhone,
                                                                          driver: PhoneDriver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Display")
    await tap_on(driver, desc="Search settings")                # every page's magnifier opens the search
    assert phone.focused_activity() == (SETTINGS, SEARCH)
    assert phone.keyboard_shown and phone.focus_key == "search_settings"
    await driver.type_text("NFC")
    assert await texts_with_id(driver, "no_results") == ["No results for “NFC”"]
    await tap_on(driver, desc="Clear text")
    await driver.type_text("dark")
    assert await texts_with_id(driver, "title") == ["Dark theme"]
    assert await texts_with_id(driver, "summary") == ["Display"]
    await tap_on(driver, text="Dark theme")
    assert phone.focused_activity() == (SETTINGS, ".DisplaySettingsActivity")
    await driver.press_key(KEY_BACK)
    assert phone.focused_activity() == (SETTINGS, SEARCH)


async def test_connection_preferences_has_no_nfc(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Connected devices")
    await tap_on(driver, text="Connection preferences")
    titles = await texts_with_id(driver, "title")
    assert titles == ["Bluetooth", "Quick Share", "Android Auto", "Printing", "Files received via Bluetooth"]
    assert not [t for t in titles if "NFC" in t]
    await tap_on(driver, text="Bluetooth")
    assert phone.focused_activity() == (SETTINGS, ".ConnectedDevicesActivity")


async def test_sound_and_dnd_intents_open_their_pages(phone: VirtualPhone) -> None:
    await shell(phone, "am start -a android.settings.ZEN_MODE_SETTINGS")
    assert phone.focused_activity() == (SETTINGS, ".ZenModeSettingsActivity")
    await shell(phone, "am start -a android.settings.SOUND_SETTINGS")
    assert phone.focused_activity() == (SETTINGS, ".SoundSettingsActivity")
