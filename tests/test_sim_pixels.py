"""Screens without accessibility on the virtual phone, as Google's adb sees them: a site drawn on a canvas (one web
view node with no children), a music player's unlabelled icon buttons (NAF), a game on one SurfaceView. Their
content is in the screenshot only, and taps land where it is drawn. The untidy pixel tasks' near misses fail."""

from __future__ import annotations

import asyncio
import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Chrome
from relay_desktop.sim.apps.browser_pixels import BRAND, HOME, MENU
from relay_desktop.sim.apps.music import PACKAGE as TEMPO
from relay_desktop.sim.apps.music import Tempo
from relay_desktop.sim.apps.tictactoe import NIGHT, TicTacToe, cell_centre
from relay_desktop.sim.apps.tictactoe import PACKAGE as GAME
from relay_desktop.sim.canvas import Canvas
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.sim.tasks.base import PhoneDriver
from relay_desktop.sim.tasks.untidy_pixels_tasks import NEAR_MISSES, TASKS
from tests.conftest import AdbTestServer


async def _adb(adb_server: AdbTestServer, sim: VirtualPhoneService, *args: str) -> bytes:
    done = await asyncio.to_thread(adb_server.run, "-s", sim.serial, *args, timeout=30)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


async def _dump(adb_server: AdbTestServer, sim: VirtualPhoneService) -> ET.Element:
    out = (await _adb(adb_server, sim, "exec-out", "uiautomator", "dump", "/dev/tty")).decode()
    return ET.fromstring(out[out.index("<?xml"):out.rindex("</hierarchy>") + len("</hierarchy>")])


def _of(root: ET.Element, package: str) -> list[ET.Element]:
    return [n for n in root.iter("node") if n.get("package") == package]


async def _screencap(adb_server: AdbTestServer, sim: VirtualPhoneService) -> Image.Image:
    return Image.open(io.BytesIO(await _adb(adb_server, sim, "exec-out", "screencap", "-p"))).convert("RGB")


async def test_a_site_drawn_on_a_canvas_is_one_web_view_without_children_through_adb(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    await _adb(adb_server, sim, "shell", "am", "start", "-a", "android.intent.action.VIEW", "-d", HOME)
    root = await _dump(adb_server, sim)
    webs = [n for n in root.iter("node") if n.get("class") == "android.webkit.WebView"]
    assert len(webs) == 1
    web = webs[0]
    assert list(web) == [] and web.get("scrollable") == "true"
    assert web.get("text", "").startswith("Rosie's Bakery")      # the page's title, as Chrome reports it
    texts = " ".join(f"{n.get('text')} {n.get('content-desc')}" for n in root.iter("node"))
    for drawn in ("Opening hours", "Sunday", "8:00", "Menu", "555-0199"):
        assert drawn not in texts
    # ... yet the page is on the screen: the header's brown band under the toolbar.
    picture = await _screencap(adb_server, sim)
    top = int(web.get("bounds", "").split("][")[0].split(",")[1])
    assert picture.getpixel((540, top + 20)) == BRAND


async def test_a_drawn_link_works_where_it_is_drawn_and_a_swipe_scrolls_the_drawing() -> None:
    phone = VirtualPhone()
    phone.start_intent("android.intent.action.VIEW", HOME, None)
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    web = next(v for w in phone.windows() for v in w.root.walk() if isinstance(v, Canvas))
    menu = next(v for v in web.drawn_views() if v.key == f"link:{MENU}")
    found = web.view_at(*menu.visible.center, lambda v: v.clickable)
    assert found is not None and found.key == menu.key and found.text == "Menu"
    before = await phone.screenshot()
    await phone.swipe(540, 1800, 540, 1000, 500)
    assert (await phone.screenshot()).tobytes() != before.tobytes()
    await phone.swipe(540, 1000, 540, 1800, 500)        # back to the top, where the header is
    await phone.tap(*menu.visible.center)
    assert chrome.current_url == MENU
    # A tap on plain drawn text does nothing, as on a web page.
    await phone.tap(300, 1500)
    assert chrome.current_url == MENU


async def test_tempos_icon_buttons_have_no_text_description_or_id_through_adb(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    await _adb(adb_server, sim, "shell", "monkey", "-p", TEMPO, "1")
    root = await _dump(adb_server, sim)
    buttons = [n for n in _of(root, TEMPO) if n.get("clickable") == "true"]
    assert len(buttons) == 10
    for button in buttons:
        assert button.get("class") == "android.widget.Button"
        assert (button.get("text"), button.get("content-desc"), button.get("resource-id")) == ("", "", "")
        assert button.get("NAF") == "true"
        assert button.get("checkable") == "false"     # an on toggle says nothing either: it is only tinted
    # The song's name is ordinary text.
    assert any(n.get("text") == "Golden Hour Drive" for n in _of(root, TEMPO))


async def test_an_active_toggle_shows_only_in_the_pixels() -> None:
    phone = VirtualPhone()
    phone.launch(TEMPO)
    tempo: Tempo = phone.apps[TEMPO]  # type: ignore[assignment]
    dump, picture = await phone.dump_hierarchy(), await phone.screenshot()
    tempo.toggle_shuffle()
    assert await phone.dump_hierarchy() == dump
    assert (await phone.screenshot()).tobytes() != picture.tobytes()


async def test_the_game_is_one_surface_without_text_through_adb(adb_server: AdbTestServer,
                                                                sim: VirtualPhoneService) -> None:
    await _adb(adb_server, sim, "shell", "monkey", "-p", GAME, "1")
    root = await _dump(adb_server, sim)
    mine = _of(root, GAME)
    surfaces = [n for n in mine if n.get("class") == "android.view.SurfaceView"]
    assert len(surfaces) == 1 and list(surfaces[0]) == []
    assert not any(n.get("text") or n.get("content-desc") for n in mine)
    bounds = surfaces[0].get("bounds", "")
    left, top, right, bottom = (int(v) for v in bounds.replace("][", ",").strip("[]").split(","))
    # A tap at a cell's centre through adb plays there; the picture shows the board in its own colours.
    x, y = cell_centre((left, top, right, bottom), 0)
    await _adb(adb_server, sim, "shell", "input", "tap", str(x), str(y))
    game: TicTacToe = sim.phone.apps[GAME]  # type: ignore[assignment]
    assert game.board[0] == "X" and game.board.count("O") == 1
    assert (await _screencap(adb_server, sim)).getpixel((left + 10, top + 10)) == NIGHT


async def test_the_game_keeps_its_colours_under_the_dark_theme() -> None:
    phone = VirtualPhone()
    phone.launch(GAME)
    light = await phone.screenshot()
    phone.put_setting("secure", "ui_night_mode", "2")
    dark = await phone.screenshot()
    assert phone.dark_theme
    assert light.crop((0, 300, 1080, 2200)).tobytes() == dark.crop((0, 300, 1080, 2200)).tobytes()


def test_the_pixel_tasks_are_registered_and_tagged() -> None:
    assert len(TASKS) >= 4
    for task in TASKS:
        assert TASKS_BY_ID[task.id] is task
        assert {"untidy", "pixels"} <= set(task.tags)
    assert set(NEAR_MISSES) == {t.id for t in TASKS}


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_a_near_miss_fails_the_task_through_adb(task: object, adb_server: AdbTestServer,
                                                      sim: VirtualPhoneService) -> None:
    from relay_desktop.sim.tasks import Task

    assert isinstance(task, Task)
    task.setup(sim.phone)
    device = await adb_server.server().device(sim.serial)
    await NEAR_MISSES[task.id](device)  # type: ignore[arg-type]
    result = task.check(sim.phone)
    assert not result.ok, f"{task.id}: the near miss passes ({result.detail})"
    # ...while the oracle, from the same start, solves it (the through-adb run of every oracle is test_sim_tasks').
    task.setup(sim.phone)
    await task.oracle(PhoneDriver(sim.phone))
    assert task.check(sim.phone).ok
