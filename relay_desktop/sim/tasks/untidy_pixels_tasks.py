"""Tasks on screens without accessibility: what they need shows only in the pixels.

- Rosie's Bakery's site is drawn on a canvas: Chrome's web view is one node with no children, so the opening
  hours and the menu's prices are read off the screenshot, and the site's "Menu" link is tapped where it is drawn.
- Tempo's icon buttons have no content description: shuffle, repeat and the heart are told apart by their icons,
  and whether shuffle or repeat is on shows only as a tint (repeat-one as a "1" in the icon).
- Tic Tac Toe is one SurfaceView: the board, whose turn it is and the score are pixels, and moves are taps on
  points of the screenshot.

Checkers read the apps' state. The oracles use only the dump and input, like an agent without eyes would: they
find the controls by their place (the row of five unlabelled buttons, the board centred in the surface) and know
the site's facts as a regular customer does. :data:`NEAR_MISSES` holds, per task, what an agent that misread the
pixels does instead (the repeat button for shuffle, Saturday's hours for Sunday's); each fails its checker.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser_pixels import HOURS, MENU_ITEMS
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import same_number
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.keep import KeepNotes
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import Messages
from relay_desktop.sim.apps.music import PACKAGE as TEMPO
from relay_desktop.sim.apps.music import TRACKS, Tempo
from relay_desktop.sim.apps.tictactoe import PACKAGE as GAME
from relay_desktop.sim.apps.tictactoe import TicTacToe, cell_centre
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_ENTER,
    CheckResult,
    Driver,
    Node,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    nodes,
    passed,
    tap_on,
    type_into,
)

TAGS = ("untidy", "pixels")
BOB, BOB_NAME = "555-0142", "Bob Martinez"
NOTE_TITLE = "Bakery hours"
SUNDAY = dict(HOURS)["Sunday"]                       # "8:00 – 13:00"
CROISSANT = dict(MENU_ITEMS[1][1])["Almond croissant"]  # "$4.25"
PLAYING = TRACKS[0].title                            # the song Tempo has paused when it opens

Script = Callable[[Driver], Awaitable[None]]


def _setup(*packages: str) -> Callable[[VirtualPhone], None]:
    def setup(phone: VirtualPhone) -> None:
        fresh_start(phone, *packages)

    return setup


def _tempo(phone: VirtualPhone) -> Tempo:
    return phone.apps[TEMPO]  # type: ignore[return-value]


# ---------------------------------------------------------------- the drawn site: Sunday's hours into a note

_OPENS = re.compile(r"\b0?8(?:[:.]00)?\s*(?:am|a\.m\.)?(?!\d)", re.I)
_CLOSES = re.compile(r"\b(?:13(?:[:.]00)?|1(?:[:.]00)?\s*(?:pm|p\.m\.))(?!\d)", re.I)


def _hours_noted(phone: VirtualPhone) -> CheckResult:
    keep: KeepNotes = phone.apps[KEEP]  # type: ignore[assignment]
    notes = keep.titled(NOTE_TITLE)
    if len(notes) != 1:
        return failed(f"{len(notes)} notes are titled {NOTE_TITLE!r}; expected one")
    body = notes[0].body
    if not (_OPENS.search(body) and _CLOSES.search(body)):
        return failed(f"the note says {body!r}, not Sunday's hours ({SUNDAY})")
    return passed(f"noted: {body!r}")


async def _open_site(driver: Driver, address: str) -> None:
    await driver.launch_app(CHROME)
    await type_into(driver, address, text="Search or type URL")
    await driver.press_key(KEY_ENTER)
    web = find(await driver.dump_hierarchy(), cls="android.webkit.WebView")
    if web is None or "Rosie's Bakery" not in web.attrs.get("text", ""):
        raise OracleError(f"{address} did not open Rosie's Bakery")


async def _new_note(driver: Driver, title: str, body: str) -> None:
    await driver.launch_app(KEEP)
    await tap_on(driver, desc="New note")
    await type_into(driver, title, id="editable_title")
    await type_into(driver, body, id="edit_note_text")
    await tap_on(driver, desc="Navigate up")


async def _note_sunday_hours(driver: Driver) -> None:
    await _open_site(driver, "rosiesbakery.com")
    await _new_note(driver, NOTE_TITLE, f"Sunday {SUNDAY}")


async def _note_saturday_hours(driver: Driver) -> None:
    """The row above Sunday's, misread."""
    await _open_site(driver, "rosiesbakery.com")
    await _new_note(driver, NOTE_TITLE, f"Saturday {dict(HOURS)['Saturday']}")


# ---------------------------------------------------------------- the drawn site: a price behind its Menu link

def _price_texted(phone: VirtualPhone) -> CheckResult:
    messages: Messages = phone.apps[MESSAGES]  # type: ignore[assignment]
    strays = [m for m in messages.sent if not same_number(m.number, BOB)]
    if strays:
        return failed(f"a text went to someone other than {BOB_NAME}: {strays[0].name}: {strays[0].text!r}")
    hits = [m for m in messages.sent if re.search(r"(?<![\d.])4\.25(?!\d)", m.text)]
    if len(hits) != 1:
        tried = "; ".join(repr(m.text) for m in messages.sent) or "nothing was sent"
        return failed(f"{len(hits)} texts to {BOB_NAME} give the croissant's price {CROISSANT} ({tried})")
    return passed(f"texted {BOB_NAME}: {hits[0].text!r}")


async def _text_bob(driver: Driver, text: str) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text=BOB_NAME)
    await type_into(driver, text, text="Text message")
    await tap_on(driver, desc="Send SMS")


async def _text_croissant_price(driver: Driver) -> None:
    await _open_site(driver, "rosiesbakery.com/menu")
    await _text_bob(driver, f"An almond croissant at Rosie's is {CROISSANT}")


async def _text_bun_price(driver: Driver) -> None:
    """The next row of the menu, misread."""
    await _open_site(driver, "rosiesbakery.com/menu")
    await _text_bob(driver, f"An almond croissant at Rosie's is {dict(MENU_ITEMS[1][1])['Cinnamon bun']}")


# ---------------------------------------------------------------- unlabelled icons: shuffle on, the song liked

def _shuffled_and_liked(phone: VirtualPhone) -> CheckResult:
    tempo = _tempo(phone)
    problems = []
    if not tempo.shuffle:
        problems.append("shuffle is off")
    if tempo.repeat != "off":
        problems.append(f"repeat was turned to {tempo.repeat!r}")
    if tempo.liked != {PLAYING}:
        problems.append(f"the liked songs are {sorted(tempo.liked)}, not just {PLAYING!r}")
    if tempo.track.title != PLAYING:
        problems.append(f"the player moved on to {tempo.track.title!r}")
    return failed("; ".join(problems)) if problems else passed(f"shuffle on, {PLAYING!r} liked")


def _unlabelled_buttons(xml: str) -> list[Node]:
    return [n for n in nodes(xml) if n.attrs.get("class") == "android.widget.Button"
            and n.attrs.get("clickable") == "true" and not n.attrs.get("text") and not n.attrs.get("content-desc")]


async def _controls(driver: Driver) -> tuple[list[Node], Node]:
    """Tempo's transport row (the five unlabelled buttons on one line, left to right) and the button beside the
    song's title (the heart), found by where they are."""
    await driver.launch_app(TEMPO)
    xml = await driver.dump_hierarchy()
    buttons = _unlabelled_buttons(xml)
    rows: list[list[Node]] = []
    for button in sorted(buttons, key=lambda n: n.center[1]):
        # Buttons of different sizes on one line have centres a pixel or two apart.
        if rows and abs(rows[-1][0].center[1] - button.center[1]) <= 16:
            rows[-1].append(button)
        else:
            rows.append([button])
    row = next((sorted(r, key=lambda n: n.center[0]) for r in rows if len(r) == 5), None)
    title, artist = find(xml, text=PLAYING), find(xml, text=TRACKS[0].artist)
    if row is None or title is None or artist is None:
        raise OracleError("Tempo shows no row of five controls or no song title")
    heart = next((b for b in buttons if title.bounds[1] <= b.center[1] <= artist.bounds[3]), None)
    if heart is None:
        raise OracleError("no button beside the song's title")
    return row, heart


async def _shuffle_and_like(driver: Driver) -> None:
    row, heart = await _controls(driver)
    await driver.tap(*row[0].center)
    await driver.tap(*heart.center)


async def _repeat_and_like(driver: Driver) -> None:
    """Shuffle and repeat look alike at a glance: the button at the other end of the row."""
    row, heart = await _controls(driver)
    await driver.tap(*row[-1].center)
    await driver.tap(*heart.center)


# ---------------------------------------------------------------- unlabelled icons: repeat the one song

def _repeating_one(phone: VirtualPhone) -> CheckResult:
    tempo = _tempo(phone)
    if tempo.repeat != "one":
        return failed(f"repeat is {tempo.repeat!r}, not the one song")
    if tempo.shuffle or tempo.track.title != PLAYING:
        return failed(f"something else changed: shuffle {tempo.shuffle}, playing {tempo.track.title!r}")
    return passed(f"repeating {PLAYING!r}")


async def _repeat_one(driver: Driver) -> None:
    row, _ = await _controls(driver)
    for _ in range(2):      # off → all → one
        await driver.tap(*row[-1].center)


async def _repeat_all(driver: Driver) -> None:
    """One tap: the icon turns green, but repeats the whole playlist (the "1" is missing)."""
    row, _ = await _controls(driver)
    await driver.tap(*row[-1].center)


# ---------------------------------------------------------------- the game: beat the phone

def _won(phone: VirtualPhone) -> CheckResult:
    game: TicTacToe = phone.apps[GAME]  # type: ignore[assignment]
    if "win" not in game.results:
        shown = ", ".join(game.results) or "no game finished"
        return failed(f"no game won ({shown}); the board is {game.board}")
    return passed(f"won a game: {game.results}")


async def _play(driver: Driver, cells: tuple[int, ...]) -> None:
    await driver.launch_app(GAME)
    surface = find(await driver.dump_hierarchy(), cls="android.view.SurfaceView")
    if surface is None:
        raise OracleError("the game shows no surface")
    for cell in cells:
        await driver.tap(*cell_centre(surface.bounds, cell))


async def _win(driver: Driver) -> None:
    # Corner, opposite corner, third corner: two threats at once, and the phone can block only one. A tap on a
    # taken cell or after the win does nothing, so the last two cover either block.
    await _play(driver, (0, 8, 6, 3, 7))


async def _lose(driver: Driver) -> None:
    await _play(driver, (1, 3, 2))


TASKS: list[Task] = [
    Task("web_bakery_sunday_hours",
         f"When is Rosie's Bakery open on Sunday? Look it up on their website, rosiesbakery.com, and save the hours "
         f"in a Keep note titled '{NOTE_TITLE}'.", _setup(CHROME, KEEP), _hours_noted, _note_sunday_hours,
         apps=(CHROME, KEEP), tags=TAGS, max_steps=25),
    Task("web_bakery_croissant_price",
         f"Find the price of an almond croissant on Rosie's Bakery's menu (rosiesbakery.com) and text it to "
         f"{BOB_NAME}.", _setup(CHROME, MESSAGES, CONTACTS), _price_texted, _text_croissant_price,
         apps=(CHROME, MESSAGES), tags=TAGS, max_steps=25),
    Task("music_shuffle_and_like",
         "In the Tempo music app, turn on shuffle and like the song that's playing now.", _setup(TEMPO),
         _shuffled_and_liked, _shuffle_and_like, apps=(TEMPO,), tags=TAGS, max_steps=15),
    Task("music_repeat_one_song",
         "Make Tempo repeat the current song over and over.", _setup(TEMPO), _repeating_one, _repeat_one,
         apps=(TEMPO,), tags=TAGS, max_steps=15),
    Task("game_tictactoe_win",
         "Open Tic Tac Toe and win a game against the phone.", _setup(GAME), _won, _win, apps=(GAME,), tags=TAGS,
         max_steps=25),
]

# What an agent that misread the pixels does instead; each leaves its task failing.
NEAR_MISSES: dict[str, Script] = {
    "web_bakery_sunday_hours": _note_saturday_hours,
    "web_bakery_croissant_price": _text_bun_price,
    "music_shuffle_and_like": _repeat_and_like,
    "music_repeat_one_song": _repeat_all,
    "game_tictactoe_win": _lose,
}
