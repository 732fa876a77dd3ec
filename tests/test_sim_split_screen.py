"""Split screen on the virtual phone, driven through Google's adb the way a user (or an agent) does it:
Overview → the app's icon above its card → "Split screen" → the second app; then taps, typing, the divider."""

from __future__ import annotations

import asyncio
import io
import re

from PIL import Image

from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.split_screen import DIVIDER_COLOR, INSTRUCTIONS
from relay_desktop.sim.tasks.base import Node, find, nodes
from tests.conftest import AdbTestServer

SETTINGS = "com.android.settings"
MESSAGES = "com.google.android.apps.messaging"
LAUNCHER = "com.android.launcher3"
DIVIDER_HANDLE = "com.android.systemui:id/docked_divider_handle"


class Adb:
    def __init__(self, server: AdbTestServer, sim: VirtualPhoneService) -> None:
        self.server, self.serial = server, sim.serial

    async def shell(self, command: str) -> str:
        result = await asyncio.to_thread(self.server.run, "-s", self.serial, "shell", command)
        assert result.returncode == 0, result.stderr.decode()
        return result.stdout.decode()

    async def dump(self) -> str:
        await self.shell("uiautomator dump /sdcard/window_dump.xml")
        return await self.shell("cat /sdcard/window_dump.xml")

    async def screenshot(self) -> Image.Image:
        result = await asyncio.to_thread(self.server.run, "-s", self.serial, "exec-out", "screencap -p")
        assert result.returncode == 0, result.stderr.decode()
        return Image.open(io.BytesIO(result.stdout)).convert("RGB")

    async def tap(self, node: Node | None) -> None:
        assert node is not None
        x, y = node.center
        await self.shell(f"input tap {x} {y}")

    async def tap_on(self, **query: str) -> None:
        node = find(await self.dump(), **query)
        assert node is not None, f"nothing on screen matches {query}"
        await self.tap(node)


def bounds(node: Node | None) -> tuple[int, int, int, int]:
    assert node is not None
    return node.bounds


def by_id(xml: str, resource_id: str, text: str | None = None) -> Node | None:
    """The last node with this full resource id (and text, if given)."""
    found = [n for n in with_id(xml, resource_id) if text is None or n.attrs.get("text") == text]
    return found[-1] if found else None


def with_id(xml: str, resource_id: str) -> list[Node]:
    return [n for n in nodes(xml) if n.attrs.get("resource-id") == resource_id]


async def open_two_apps(adb: Adb) -> None:
    for component in (f"{SETTINGS}/.Settings", f"{MESSAGES}/.ui.ConversationListActivity"):
        await adb.shell(f"am start -n {component}")


async def enter_split(adb: Adb, first: str = "Settings", second: str = "Messages") -> str:
    """Overview → the first app's icon → "Split screen" → the second app's card; returns the dump after."""
    await adb.shell("input keyevent KEYCODE_APP_SWITCH")
    await adb.tap_on(desc=first)                 # the icon above the card (the card itself has no description)
    menu = await adb.dump()
    options = [n.attrs["text"] for n in with_id(menu, f"{LAUNCHER}:id/text")]
    assert options == ["App info", "Split screen", "Pause app"]
    await adb.tap(find(menu, text="Split screen"))
    picking = await adb.dump()
    assert find(picking, text=INSTRUCTIONS) is not None
    placeholder = by_id(picking, f"{LAUNCHER}:id/split_placeholder")
    assert placeholder is not None and placeholder.attrs["content-desc"] == first
    await adb.tap_on(text=second)               # the other app's card in Overview
    return await adb.dump()


async def test_entering_split_screen_from_recents_shows_both_apps(adb_server: AdbTestServer,
                                                                   sim: VirtualPhoneService) -> None:
    adb = Adb(adb_server, sim)
    await open_two_apps(adb)
    xml = await enter_split(adb)
    height = sim.phone.display_size[1]
    roots = re.findall(r'<hierarchy rotation="0"><node [^>]*?package="([^"]+)"', xml)
    assert roots == [SETTINGS]                   # windows are dumped one after the other, each its own root
    top_title, bottom_title = find(xml, text="Settings"), find(xml, text="Messages")
    assert top_title is not None and bottom_title is not None
    assert bounds(top_title)[3] < height // 2 < bounds(bottom_title)[1]
    app_roots = [n for n in nodes(xml) if n.attrs.get("class") == "android.widget.FrameLayout"
                 and n.attrs.get("resource-id") == "" and n.attrs.get("index") == "0"
                 and n.attrs.get("package") in (SETTINGS, MESSAGES) and n.attrs["bounds"].startswith("[0,")]
    top_root = next(n for n in app_roots if n.attrs["package"] == SETTINGS)
    bottom_root = next(n for n in app_roots if n.attrs["package"] == MESSAGES)
    assert bounds(top_root)[1] == 0 and bounds(top_root)[3] < bounds(bottom_root)[1]
    handle = by_id(xml, DIVIDER_HANDLE)
    assert handle is not None and handle.attrs["package"] == "com.android.systemui"
    assert bounds(top_root)[3] <= handle.center[1] <= bounds(bottom_root)[1]
    assert by_id(xml, "com.android.systemui:id/docked_divider_background") is not None

    windows = await adb.shell("dumpsys window windows")
    assert "ty=DOCK_DIVIDER" in windows
    assert re.search(r"mCurrentFocus=Window\{\w+ u0 com\.google\.android\.apps\.messaging/", windows)
    assert windows.count("mWindowingMode=multi-window") == 2
    activities = await adb.shell("dumpsys activity activities")
    split_tasks = [line for line in activities.splitlines() if "mode=multi-window" in line]
    assert len(split_tasks) == 2 and all("visible=true" in t for t in split_tasks)
    assert {SETTINGS, MESSAGES} == {re.search(r":(\S+) U=0", t).group(1) for t in split_tasks}  # type: ignore[union-attr]
    resumed = re.findall(r"    ResumedActivity: ActivityRecord\{\w+ u0 (\S+)/", activities)
    assert sorted(resumed) == sorted([SETTINGS, MESSAGES])
    assert re.search(r"topResumedActivity=ActivityRecord\{\w+ u0 com\.google\.android\.apps\.messaging/", activities)


async def test_taps_reach_the_app_under_the_finger_and_text_the_focused_half(adb_server: AdbTestServer,
                                                                             sim: VirtualPhoneService) -> None:
    adb = Adb(adb_server, sim)
    await open_two_apps(adb)
    xml = await enter_split(adb)
    await adb.tap(find(xml, desc="Search settings"))          # top half: Settings opens its search there
    xml = await adb.dump()
    field = by_id(xml, f"{SETTINGS}:id/search_src_text")
    assert field is not None and bounds(field)[3] < sim.phone.display_size[1] // 2
    assert find(xml, text="Messages") is not None             # the bottom half is untouched
    await adb.tap(field)
    await adb.shell("input text wifi")
    await adb.tap_on(text="Bob Martinez")                     # bottom half: Messages opens the conversation
    xml = await adb.dump()
    assert by_id(xml, f"{SETTINGS}:id/search_src_text", text="wifi") is not None
    compose = by_id(xml, f"{MESSAGES}:id/compose_message_text")
    assert compose is not None and bounds(compose)[1] > sim.phone.display_size[1] // 2
    await adb.tap(compose)
    await adb.shell("input text hello")
    xml = await adb.dump()
    assert by_id(xml, f"{MESSAGES}:id/compose_message_text", text="hello") is not None
    assert by_id(xml, f"{SETTINGS}:id/search_src_text", text="wifi") is not None
    focus = await adb.shell("dumpsys window windows")
    assert "mCurrentFocus=Window{" in focus and f"u0 {MESSAGES}/" in focus.split("mCurrentFocus=")[1]

    await adb.tap(by_id(xml, f"{SETTINGS}:id/search_src_text"))   # back to the top half
    await adb.shell("input text 6")
    await adb.shell("input keyevent KEYCODE_BACK")            # keys follow focus: BACK hides Settings' keyboard
    xml = await adb.dump()
    assert by_id(xml, f"{SETTINGS}:id/search_src_text", text="wifi6") is not None
    assert by_id(xml, f"{MESSAGES}:id/compose_message_text", text="hello") is not None
    assert sim.phone.split.active


async def test_dragging_the_divider_resizes_and_to_an_edge_ends_split_screen(adb_server: AdbTestServer,
                                                                            sim: VirtualPhoneService) -> None:
    adb = Adb(adb_server, sim)
    await open_two_apps(adb)
    xml = await enter_split(adb)
    width, height = sim.phone.display_size
    x, y = by_id(xml, DIVIDER_HANDLE).center                   # type: ignore[union-attr]
    await adb.shell(f"input swipe {x} {y} {x} {height * 2 // 3} 400")     # settles on the 2/3 snap target
    xml = await adb.dump()
    x, lower = by_id(xml, DIVIDER_HANDLE).center               # type: ignore[union-attr]
    assert lower > y + height // 8
    title = find(xml, text="Settings")
    assert title is not None and find(xml, text="Messages") is not None

    await adb.shell(f"input swipe {x} {lower} {x} {height - 10} 400")     # to the bottom edge: Messages goes
    xml = await adb.dump()
    assert by_id(xml, DIVIDER_HANDLE) is None
    assert find(xml, text="Messages") is None and find(xml, text="Network & internet") is not None
    root = next(n for n in nodes(xml) if n.attrs.get("package") == SETTINGS)
    assert bounds(root)[3] > height * 3 // 4                              # Settings fills the screen again
    activities = await adb.shell("dumpsys activity activities")
    assert "mode=multi-window" not in activities
    assert MESSAGES in await adb.shell("dumpsys activity recents")       # the dismissed app is still in Recents
    assert not sim.phone.split.active and width > 0


async def test_the_second_app_can_come_from_the_home_screen_and_home_leaves_split(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    adb = Adb(adb_server, sim)
    await adb.shell(f"am start -n {SETTINGS}/.Settings")
    await adb.shell("input keyevent KEYCODE_APP_SWITCH")
    await adb.tap_on(desc="Settings")
    await adb.tap_on(text="Split screen")
    xml = await adb.dump()                       # no other recent app: the home screen's icons to pick from
    assert by_id(xml, f"{LAUNCHER}:id/workspace") is not None and find(xml, text=INSTRUCTIONS)
    await adb.tap_on(desc="Messages")
    xml = await adb.dump()
    assert by_id(xml, DIVIDER_HANDLE) is not None
    assert find(xml, text="Settings") is not None and find(xml, text="Messages") is not None
    await adb.shell("input keyevent KEYCODE_HOME")
    xml = await adb.dump()
    assert by_id(xml, DIVIDER_HANDLE) is None and by_id(xml, f"{LAUNCHER}:id/workspace")
    recents = await adb.shell("dumpsys activity recents")
    assert SETTINGS in recents and MESSAGES in recents


async def test_back_cancels_picking_the_second_app(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    adb = Adb(adb_server, sim)
    await open_two_apps(adb)
    await adb.shell("input keyevent KEYCODE_APP_SWITCH")
    await adb.tap_on(desc="Settings")
    await adb.tap_on(text="Split screen")
    await adb.shell("input keyevent KEYCODE_BACK")
    xml = await adb.dump()
    assert find(xml, text=INSTRUCTIONS) is None
    assert find(xml, text="Settings") is not None and find(xml, text="Messages") is not None   # both cards again
    await adb.tap_on(text="Messages")
    assert not sim.phone.split.active


async def test_the_screenshot_shows_both_halves_and_the_divider(adb_server: AdbTestServer,
                                                                sim: VirtualPhoneService) -> None:
    adb = Adb(adb_server, sim)
    await open_two_apps(adb)
    xml = await enter_split(adb)
    shot = await adb.screenshot()
    assert shot.size == sim.phone.display_size
    handle = by_id(xml, DIVIDER_HANDLE)
    bar = by_id(xml, "com.android.systemui:id/docked_divider_background")
    assert handle is not None and bar is not None
    left, top, right, bottom = bounds(bar)
    middle = (top + bottom) // 2
    assert shot.getpixel((left + 20, middle)) == DIVIDER_COLOR           # the dark bar across the screen
    assert shot.getpixel((right - 20, middle)) == DIVIDER_COLOR
    assert min(shot.getpixel(handle.center)) > 200                        # the light handle in its middle
    # Each half shows its own app: the title text is drawn where the dump says it is, in its half.
    for title in ("Settings", "Messages"):
        node = find(xml, text=title)
        assert node is not None
        crop = shot.crop(bounds(node))
        dark = sum(crop.convert("L").histogram()[:100])
        assert dark > 200, f"no text drawn for {title}"
    top_half = shot.crop((0, 0, shot.width, top))
    bottom_half = shot.crop((0, bottom, shot.width, bottom + top_half.height))
    assert top_half.tobytes() != bottom_half.tobytes()
    # Tapping in the top half does not scroll or change the bottom one (a second screenshot agrees).
    await adb.shell("input swipe 540 900 540 500 300")
    after = await adb.screenshot()
    assert after.crop((0, bottom, shot.width, shot.height - 200)).tobytes() == \
        shot.crop((0, bottom, shot.width, shot.height - 200)).tobytes()


async def test_uiautomator2_sees_both_windows_and_landscape_splits_side_by_side(adb_server: AdbTestServer,
                                                                                 sim: VirtualPhoneService) -> None:
    from relay_desktop.sim import u2_selector
    from relay_desktop.sim.hierarchy import dump_xml_pretty

    adb = Adb(adb_server, sim)
    await open_two_apps(adb)
    await enter_split(adb)
    # u2's dump: every window a root of its own, the divider among them (System UI's, between the apps).
    pretty = dump_xml_pretty(sim.phone.windows())
    roots = re.findall(r'^  <node [^>]*?package="([^"]+)"', pretty, flags=re.MULTILINE)
    assert roots[:3] == [SETTINGS, MESSAGES, "com.android.systemui"]
    found = u2_selector.find(sim.phone.windows(), {"resourceId": DIVIDER_HANDLE})
    assert len(found) == 1 and found[0].window.kind == "divider"

    sim.phone.rotate(1)          # landscape: the apps sit side by side, the divider upright between them
    xml = await adb.dump()
    width = sim.phone.display_size[0]
    handle = bounds(by_id(xml, DIVIDER_HANDLE))
    assert handle[3] - handle[1] > handle[2] - handle[0]
    assert bounds(find(xml, text="Settings"))[2] < width // 2 < bounds(find(xml, text="Messages"))[0]
