"""The agent on screens without accessibility: a point read off the screenshot lands on the phone's pixel it shows,
however the picture was scaled, and text read from pixels is an element the agent taps by its id.

The end-to-end tests run the agent through Google's adb against the virtual phone; the fake model finds its
target in the JPEG it was sent (the game board's grid lines, by colour), as a model looking at the picture would.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from relay_desktop.agent.steps.actions import Step, StepError, parse_plan, screen_step
from relay_desktop.llm.types import LLMRequest
from relay_desktop.perception import prepare_screenshot
from relay_desktop.sim.apps.tictactoe import GRID, TicTacToe
from relay_desktop.sim.apps.tictactoe import PACKAGE as GAME
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import PhoneDriver
from tests.agent_harness import Script, complete, run_task
from tests.agent_scripts import act
from tests.conftest import AdbTestServer

# ---------------------------------------------------------------- the mapping itself


def test_a_screenshot_point_maps_to_the_display_pixel_it_shows_not_to_the_pictures_source() -> None:
    # A 536x1200 mirror frame of a 1080x2400 phone, sent as is: its pixels are not the phone's.
    shot = prepare_screenshot(Image.new("RGB", (536, 1200), "white"), max_side=1200)
    assert (shot.width, shot.height) == (536, 1200)
    assert shot.to_screen(0, 0, (1080, 2400)) == (1, 1)          # the middle of the 2.01 x 2 block it shows
    assert shot.to_screen(535, 1199, (1080, 2400)) == (1078, 2399)
    for x in (0, 100, 267, 535):
        screen_x = shot.to_screen(x, 0, (1080, 2400))[0]
        # The phone pixel lies inside the block of phone pixels that one picture pixel stands for.
        assert x * 1080 / 536 <= screen_x < (x + 1) * 1080 / 536
    with pytest.raises(ValueError, match="off the 536x1200 screenshot"):
        shot.to_screen(536, 10, (1080, 2400))


def test_a_step_on_the_screenshot_becomes_a_step_in_screen_pixels() -> None:
    plan = parse_plan({"steps": [{"action": "tap", "x": 270, "y": 600, "in_screenshot": True}]})
    step = screen_step(plan.steps[0], lambda x, y: (round(x * 2), round(y * 2)))
    assert step.params == {"x": 540, "y": 1200, "from_screenshot": [270, 600]}
    assert step.describe() == "tap (540,1200) (the screenshot's (270,600))"
    # Screen points and element ids are left alone; a point off the picture is the model's to correct.
    assert screen_step(Step.of("tap", x=5, y=6), lambda x, y: (0, 0)) == Step.of("tap", x=5, y=6)

    def off(x: float, y: float) -> tuple[int, int]:
        raise ValueError("(900,10) is off the 540x1200 screenshot")

    with pytest.raises(StepError, match="off the 540x1200 screenshot; give an element id"):
        screen_step(Step.of("tap", x=900, y=10, in_screenshot=True), off)


# ---------------------------------------------------------------- text read from pixels, merged with the dump

_WEB_PAGE = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
             "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
             "package=\"com.android.chrome\" content-desc=\"\" clickable=\"false\" enabled=\"true\" "
             "bounds=\"[0,0][1080,2400]\">"
             "<node index=\"0\" text=\"Rosie's Bakery — bread, pastries and cakes\" resource-id=\"\" "
             "class=\"android.webkit.WebView\" package=\"com.android.chrome\" content-desc=\"\" "
             "clickable=\"false\" enabled=\"true\" scrollable=\"true\" bounds=\"[0,231][1080,2274]\" />"
             "</node></hierarchy>")


def test_lines_drawn_in_a_web_view_are_elements_in_reading_order_even_when_its_title_says_the_same() -> None:
    from relay_desktop.perception import Bounds, build_element_map, parse_hierarchy
    from relay_desktop.perception.ocr import OCR_STATE, OcrText

    lines = [OcrText("Order", Bounds(930, 280, 1030, 330), 0.98),      # a pixel higher than "Menu", on its right
             OcrText("Menu", Bounds(780, 282, 880, 332), 0.97),
             OcrText("Rosie's Bakery", Bounds(50, 270, 430, 335), 0.99),
             OcrText("Sunday", Bounds(50, 1770, 190, 1820), 0.99)]
    element_map = build_element_map(parse_hierarchy(_WEB_PAGE), None, ocr=lines)
    read = [e for e in element_map.elements if OCR_STATE in e.states]
    assert [e.label for e in read] == ["Rosie's Bakery", "Menu", "Order", "Sunday"]
    assert all(e.id for e in read)
    menu = read[1]
    assert menu.tap == (830, 307)       # a tap on its id lands in the middle of the text


def test_an_icon_read_as_two_letters_is_not_text_but_a_short_word_read_clearly_is() -> None:
    from relay_desktop.perception import Bounds
    from relay_desktop.perception.ocr import OcrText, readable

    box = Bounds(916, 1665, 986, 1728)
    assert not readable(OcrText("11", box, 0.70))      # Tempo's repeat icon, as RapidOCR reads it
    assert readable(OcrText("OK", box, 0.97))
    assert readable(OcrText("1:12", box, 0.75))


# ---------------------------------------------------------------- end to end: a tap on a point of the picture

def _middle_of_board(image: Image.Image) -> tuple[int, int]:
    """The middle cell of the game board in a picture, between its grid lines: the rows and columns mostly of
    the lines' colour (JPEG blurs it, hence the slack)."""
    rgb = image.convert("RGB")
    pixels = rgb.load()

    def grid(x: int, y: int) -> bool:
        return all(abs(a - b) <= 24 for a, b in zip(pixels[x, y], GRID, strict=True))

    rows = [y for y in range(rgb.height) if sum(grid(x, y) for x in range(rgb.width)) > rgb.width // 2]
    columns = [x for x in range(rgb.width) if sum(grid(x, y) for y in range(rgb.height)) > rgb.height // 3]
    assert rows and columns, "no board in the picture"
    return (columns[0] + columns[-1]) // 2, (rows[0] + rows[-1]) // 2


def _middle_cell_script(seen: dict[str, Any]) -> Script:
    """A model that looks at the picture, finds the board and taps its middle cell by a point on the picture."""

    def fast(n: int, request: LLMRequest) -> object:
        if n > 1:
            return complete("played the middle cell")
        picture = Image.open(io.BytesIO(request.messages[-1].images[0].data))
        x, y = _middle_of_board(picture)
        seen.update(picture=picture.size, point=(x, y))
        return act({"action": "tap", "x": x, "y": y, "in_screenshot": True})

    return Script(fast)


def _recording_taps(sim: VirtualPhoneService) -> list[tuple[float, float]]:
    taps: list[tuple[float, float]] = []
    real = sim.phone.tap

    async def tap(x: float, y: float) -> None:
        taps.append((x, y))
        await real(x, y)

    sim.phone.tap = tap  # type: ignore[method-assign]
    return taps


async def test_a_point_on_the_scaled_screenshot_lands_on_the_phone_pixel_it_shows(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    await PhoneDriver(sim.phone).launch_app(GAME)
    taps = _recording_taps(sim)
    device = await adb_server.server().device(sim.serial)
    seen: dict[str, Any] = {}
    run = await run_task(device, _middle_cell_script(seen), planning=False, timeout=60)
    assert run.result is not None
    # The 1080x2400 screen went to the model at half size; its point came back doubled, to the block's middle.
    assert seen["picture"] == (540, 1200)
    x, y = seen["point"]
    assert taps == [(2 * x + 1, 2 * y + 1)]
    game: TicTacToe = sim.phone.apps[GAME]  # type: ignore[assignment]
    assert game.board[4] == "X"
    text = run.fast_texts()[1]
    assert f"the screenshot's ({x},{y})" in text, text


async def test_a_point_on_a_mirror_frame_smaller_than_the_display_lands_on_the_phone_pixel(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path: Path) -> None:
    """The mirror's frame is 536x1200 for a 1080x2400 phone: mapping to the frame's own size would tap at half
    the place. Nothing here is the virtual phone's own: the sizes come from the frame and from `wm size`."""
    from relay_desktop.mirror.client import MirrorClient
    from relay_desktop.mirror.mirrored_phone import MirroredPhone
    from relay_desktop.mirror.provisioning import ServerFile

    await PhoneDriver(sim.phone).launch_app(GAME)
    taps = _recording_taps(sim)
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"server")
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=1200)
    await asyncio.wait_for(mirror.start(), 20)
    seen: dict[str, Any] = {}
    try:
        assert await asyncio.wait_for(mirror.first_frame(10), 15)
        run = await run_task(MirroredPhone(device, mirror), _middle_cell_script(seen), planning=False, timeout=60)
    finally:
        await mirror.stop()
    assert run.result is not None
    width, height = seen["picture"]
    assert height == 1200 and width < 540
    x, y = seen["point"]
    assert len(taps) == 1
    tapped = taps[0]
    assert x * 1080 / width <= tapped[0] < (x + 1) * 1080 / width
    assert y * 2400 / height <= tapped[1] < (y + 1) * 2400 / height
    game: TicTacToe = sim.phone.apps[GAME]  # type: ignore[assignment]
    assert game.board[4] == "X"


# ---------------------------------------------------------------- end to end: text read from pixels, tapped by id

@pytest.mark.ocr
@pytest.mark.parametrize("look_again", [False, True], ids=["acted-at-once", "looked-again-first"])
async def test_a_link_drawn_on_a_canvas_is_read_from_pixels_and_tapped_by_its_id(
        adb_server: AdbTestServer, sim: VirtualPhoneService, look_again: bool) -> None:
    """Rosie's Bakery's page is one web view with no children: its "Menu" link is only pixels. Read from them, it
    is an element with an id; tapping that id taps the middle of the text, which follows the link. A model that
    thinks long has the screen read again before its step (stale_check_after_s): the text read from pixels is on
    that second look too, so the link is not "no longer on the screen"."""
    pytest.importorskip("rapidocr")
    from relay_desktop.sim.apps.browser import PACKAGE as CHROME
    from relay_desktop.sim.apps.browser import Chrome
    from relay_desktop.sim.apps.browser_pixels import HOME, MENU
    from tests.agent_scripts import element_id

    sim.phone.start_intent("android.intent.action.VIEW", HOME, None)
    device = await adb_server.server().device(sim.serial)

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            link = element_id(request, "Menu", "text")
            assert link, request.messages[-1].text
            return act({"action": "tap", "element": link})
        return complete()

    run = await run_task(device, Script(fast), planning=False, timeout=90,
                         **({"stale_check_after_s": 0.0} if look_again else {}))
    first = run.fast_texts()[0]
    # The site's name in its header is read too, though the web view's title starts with it.
    assert 'text "Rosie\'s Bakery" (read from pixels)' in first, first
    assert 'text "Menu" (read from pixels)' in first
    chrome: Chrome = sim.phone.apps[CHROME]  # type: ignore[assignment]
    assert chrome.current_url == MENU
    assert "Almond croissant" in run.fast_texts()[1]
    assert "no longer on the screen" not in run.fast_texts()[1]


async def test_an_mcp_client_taps_a_point_of_the_screenshot_it_was_given(adb_server: AdbTestServer) -> None:
    """Through `relay-desktop mcp --sim`: the client reads the board off the screen tool's picture and taps its middle
    cell with in_screenshot; the next picture shows an X there."""
    import base64

    import mcp.types as types

    from relay_desktop.sim.apps.tictactoe import CROSS
    from tests.test_mcp_server import call, connect, text_of

    def picture(result: types.CallToolResult) -> Image.Image:
        image = next(c for c in result.content if isinstance(c, types.ImageContent))
        return Image.open(io.BytesIO(base64.b64decode(image.data))).convert("RGB")

    async with connect(adb_server) as session:
        assert not (await call(session, "launch_app", app="Tic Tac Toe")).is_error
        before = picture(await call(session, "screen"))
        x, y = _middle_of_board(before)
        tapped = await call(session, "tap", x=x, y=y, in_screenshot=True)
        assert not tapped.is_error, text_of(tapped)
        after = picture(await call(session, "screen"))
    assert after.size == before.size
    cell = after.crop((x - 40, y - 40, x + 40, y + 40)).tobytes()
    red = sum(1 for i in range(0, len(cell), 3) if all(abs(a - b) <= 40 for a, b in zip(cell[i:i + 3], CROSS,
                                                                                           strict=True)))
    assert red > 200, f"no X in the middle cell ({red} red pixels)"


# ---------------------------------------------------------------- a control whose state is only a colour

async def test_a_toggle_that_only_changes_colour_is_not_reported_as_changing_nothing(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    """Tempo's shuffle button has no label and no state in the dump: turned on, it only turns green. The step's
    result must say the picture changed where the agent tapped, not "changed nothing … do not repeat it"."""
    from relay_desktop.sim.apps.music import PACKAGE as TEMPO
    from relay_desktop.sim.tasks.untidy_pixels_tasks import _controls

    driver = PhoneDriver(sim.phone)
    await driver.launch_app(TEMPO)
    row, _heart = await _controls(driver)
    x, y = row[0].center
    device = await adb_server.server().device(sim.serial)

    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "tap", "x": x, "y": y}) if n == 1 else complete("shuffle is on")

    run = await run_task(device, Script(fast), planning=False, timeout=60)
    assert sim.phone.apps[TEMPO].shuffle  # type: ignore[attr-defined]
    after = run.fast_texts()[1]
    assert "changed nothing" not in after and "CHECK FAILED" not in after and "INEFFECTIVE" not in after, after
    assert "the picture changed where you acted" in after, after


async def test_tapping_a_colour_only_control_again_and_again_is_not_standing_still(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    """Tempo's repeat button goes off → all → one with each tap, in colour and a small "1" only: the element list
    never changes, so the loop must not call the screen stagnant or the agent stuck."""
    from relay_desktop.sim.apps.music import PACKAGE as TEMPO
    from relay_desktop.sim.tasks.untidy_pixels_tasks import _controls

    driver = PhoneDriver(sim.phone)
    await driver.launch_app(TEMPO)
    row, _heart = await _controls(driver)
    x, y = row[-1].center
    device = await adb_server.server().device(sim.serial)

    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "tap", "x": x, "y": y}) if n <= 4 else complete("repeat cycled")

    run = await run_task(device, Script(fast), planning=False, timeout=90)
    texts = "\n".join(run.fast_texts())
    assert "Screen stagnant" not in texts and "STUCK" not in texts and "INEFFECTIVE" not in texts, texts[-3000:]
