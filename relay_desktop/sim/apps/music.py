"""Tempo, a music player written with Jetpack Compose whose icon buttons have no content description.

This is how many real apps ship: ``IconButton { Icon(painter, contentDescription = null) }``. Accessibility then
sees clickable ``android.widget.Button`` nodes with no text, no description and (Compose has no view ids) no
resource id; ``uiautomator dump`` marks them ``NAF="true"`` (not accessibility friendly). Which button is
shuffle and which is repeat, and whether shuffle is on, shows only in the pixels: an active toggle is tinted and
has a dot under it, as in the big players. The song's title and artist and the queue's rows are ordinary text.

State lives on the app for task checkers: :attr:`Tempo.current`, :attr:`Tempo.playing`, :attr:`Tempo.shuffle`,
:attr:`Tempo.repeat` ("off", "all" or "one": each tap moves to the next, as in Spotify), :attr:`Tempo.liked`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageDraw

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.contacts import popup_menu
from relay_desktop.sim.canvas import Canvas
from relay_desktop.sim.paint import Ctx, fill_round, glyph
from relay_desktop.sim.ui import ON_SURFACE, ON_SURFACE_VARIANT, SURFACE
from relay_desktop.sim.views import Color, Rect, Style, View

__all__ = ["PACKAGE", "PLAYLIST", "REPEAT_MODES", "TRACKS", "Tempo", "Track"]

PACKAGE = "app.tempo.music"
PLAYER, QUEUE = ".PlayerActivity", ".QueueActivity"
PLAYLIST = "Morning Run"
REPEAT_MODES = ("off", "all", "one")
RESTART_AFTER_S = 3            # "previous" restarts a song played longer than this, as every player does

ACCENT: Color = (29, 185, 84)  # the app's green: active toggles, the play button, the playing row
BUTTON = "android.widget.Button"   # what Compose's IconButton reports (Role.Button)


@dataclass(frozen=True)
class Track:
    title: str
    artist: str
    seconds: int
    cover: Color            # the album art's colour

    @property
    def length(self) -> str:
        return f"{self.seconds // 60}:{self.seconds % 60:02d}"


TRACKS: tuple[Track, ...] = (
    Track("Golden Hour Drive", "The Lanterns", 221, (239, 160, 64)),
    Track("Paper Planes at Dawn", "Mira Vale", 192, (120, 170, 230)),
    Track("Neon Harbor", "Static Tides", 245, (156, 92, 214)),
    Track("Slow Burn", "June & the Foxes", 208, (222, 84, 84)),
    Track("Quiet Engines", "Holloway", 177, (90, 160, 130)),
    Track("Open Roads", "The Lanterns", 230, (214, 180, 90)),
    Track("Satellite Heart", "Mira Vale", 213, (80, 110, 190)),
    Track("Last Light", "Ember Coast", 252, (235, 120, 150)),
)
# The order "next" follows with shuffle on: fixed, so a checker knows what a shuffled "next" plays.
SHUFFLED = (0, 5, 2, 7, 4, 1, 6, 3)


def _cover(ctx: Ctx, r: Rect, track: Track) -> None:
    """Album art: the cover's colour fading to a darker shade, with a record's rings (no text: art is pixels)."""
    t = ctx.theme
    top, bottom = t.c(track.cover), t.c(tuple(round(c * 0.55) for c in track.cover))  # type: ignore[arg-type]
    art = Image.new("RGB", (r.width, r.height))
    column = Image.linear_gradient("L").resize((r.width, r.height))
    art.paste(Image.composite(Image.new("RGB", art.size, bottom), Image.new("RGB", art.size, top), column))
    draw = ImageDraw.Draw(art)
    cx, cy = r.width * 2 // 3, r.height * 2 // 3
    for ring in range(6):
        radius = r.width // 3 + ring * t.px(14)
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), outline=top, width=t.px(2))
    mask = Image.new("L", art.size, 0)
    fill_round(mask, Rect(0, 0, r.width, r.height), t.px(12), 255)
    ctx.img.paste(art, (r.left, r.top), mask)
    glyph(ctx, "music", (cx + r.left, cy + r.top), t.px(72), (255, 255, 255))


class Tempo(App):
    package = PACKAGE
    label = "Tempo"
    icon = "music"
    color = ACCENT
    main_activity = PLAYER
    system = False
    version_name = "3.8.1"
    version_code = 30801
    screens = {PLAYER: "player", QUEUE: "queue_screen"}
    dialogs = {"menu": "overflow_menu"}

    def reset(self) -> None:
        self.current = 0
        self.position = 72             # seconds into the current song (paused at 1:12)
        self.playing = False
        self.shuffle = False
        self.repeat = "off"
        self.liked: set[str] = set()   # titles of the songs the heart was tapped on
        self.played: list[str] = []    # titles in the order they were started, for checkers

    @property
    def track(self) -> Track:
        return TRACKS[self.current]

    # ------------------------------------------------------------ what the controls do

    def _play(self, index: int) -> None:
        self.current, self.position, self.playing = index, 0, True
        self.played.append(TRACKS[index].title)
        self.phone.invalidate()

    def toggle_play(self) -> None:
        self.playing = not self.playing
        self.phone.invalidate()

    def skip(self, step: int) -> None:
        order = SHUFFLED if self.shuffle else tuple(range(len(TRACKS)))
        at = order.index(self.current) + step
        if not 0 <= at < len(order):
            if self.repeat == "off":
                # Past the end: the player stops on the last song, as at the end of a playlist.
                self.position, self.playing = 0, False
                self.phone.invalidate()
                return
            at %= len(order)
        self._play(order[at])

    def previous(self) -> None:
        if self.position > RESTART_AFTER_S:
            self.position = 0
            self.phone.invalidate()
            return
        self.skip(-1)

    def toggle_shuffle(self) -> None:
        self.shuffle = not self.shuffle
        self.phone.invalidate()

    def cycle_repeat(self) -> None:
        self.repeat = REPEAT_MODES[(REPEAT_MODES.index(self.repeat) + 1) % len(REPEAT_MODES)]
        self.phone.invalidate()

    def toggle_like(self) -> None:
        self.liked ^= {self.track.title}
        self.phone.invalidate()

    # ------------------------------------------------------------ views

    def _icon_button(self, icon: str, on_click: Callable[[], None], *, size: float = 48, active: bool = False,
                     filled: bool = False, color: Color = ON_SURFACE) -> View:
        """An IconButton with ``contentDescription = null``: a clickable node that says nothing. It draws itself
        (a Compose node's drawing adds no nodes): the icon, a filled disc behind it, a dot under an active one."""
        fg = (255, 255, 255) if filled else ACCENT if active else color

        def draw(ctx: Ctx, r: Rect) -> None:
            t = ctx.theme
            side = min(r.width, r.height)
            cx, cy = r.center
            if filled:
                fill_round(ctx.img, r, side // 2, t.c(ACCENT))
            if active:
                cy -= t.px(3)
                dot, top = t.px(2), cy + side // 4 + t.px(3)
                fill_round(ctx.img, Rect(cx - dot, top, cx + dot, top + 2 * dot), dot, t.c(ACCENT))
            glyph(ctx, icon, (cx, cy), side // 2, (255, 255, 255) if filled else t.c(fg))

        return Canvas(cls=BUTTON, clickable=True, focusable=True, on_click=on_click, width=self.ui.dp(size),
                      height=self.ui.dp(size), align="center", painter=draw)

    def player(self, activity: Activity) -> View:
        ui, track = self.ui, self.track
        heading = View(cls="android.view.View", weight=1, justify="center", children=[
            ui.text("PLAYING FROM PLAYLIST", size=11, weight=500, color=ON_SURFACE_VARIANT, align="center"),
            ui.text(PLAYLIST, size=14, weight=700, align="center"),
        ])
        top = View(cls="android.view.View", orientation="h", height=ui.dp(64), padding=ui.pad(4, 8),
                   children=[self._icon_button("expand_more", self.finish), heading,
                             self._icon_button("more_vert", lambda: self.show_dialog(activity, "menu"))])
        side = self.window_size[0] - ui.dp(48)
        art = Canvas(cls="android.widget.ImageView", width=side, height=side, align="center",
                     painter=lambda ctx, r: _cover(ctx, r, track))
        names = View(cls="android.view.View", weight=1, gap=ui.dp(4), children=[
            ui.text(track.title, size=22, weight=700, max_lines=1),
            ui.text(track.artist, size=16, color=ON_SURFACE_VARIANT, max_lines=1),
        ])
        liked = track.title in self.liked
        heart = self._icon_button("favorite" if liked else "favorite_border", self.toggle_like,
                                  color=ACCENT if liked else ON_SURFACE)
        about = View(cls="android.view.View", orientation="h", align="center", children=[names, heart])
        controls = View(cls="android.view.View", orientation="h", align="center", height=ui.dp(80), children=[
            self._icon_button("shuffle", self.toggle_shuffle, active=self.shuffle),
            ui.spacer(weight=1), self._icon_button("skip_previous", self.previous, size=56), ui.spacer(weight=1),
            self._icon_button("pause" if self.playing else "play", self.toggle_play, size=72, filled=True),
            ui.spacer(weight=1), self._icon_button("skip_next", lambda: self.skip(1), size=56), ui.spacer(weight=1),
            self._icon_button("repeat_one" if self.repeat == "one" else "repeat", self.cycle_repeat,
                              active=self.repeat != "off"),
        ])
        bottom = View(cls="android.view.View", orientation="h", children=[
            self._icon_button("cast", lambda: self.toast("No devices found")), ui.spacer(weight=1),
            self._icon_button("queue_music", lambda: self.open(QUEUE))])
        body = View(cls="android.view.View", weight=1, padding=ui.pad(24, 8, 24, 16), gap=ui.dp(16), children=[
            art, about, self._progress(track), controls, ui.spacer(weight=1), bottom])
        return View(cls="android.view.View", children=[top, body], style=Style(bg=SURFACE))

    def _progress(self, track: Track) -> View:
        """The progress bar and the two times: drawn, as Compose's LinearProgressIndicator is one node."""
        ui = self.ui
        done = self.position / track.seconds

        def draw(ctx: Ctx, r: Rect) -> None:
            t = ctx.theme
            fill_round(ctx.img, r, r.height // 2, t.c((218, 220, 224)))
            fill_round(ctx.img, Rect(r.left, r.top, r.left + round(r.width * done), r.bottom), r.height // 2,
                       t.c(ON_SURFACE))

        bar = Canvas(cls="android.widget.ProgressBar", height=ui.dp(4), painter=draw)
        times = View(cls="android.view.View", orientation="h", children=[
            ui.text(f"{self.position // 60}:{self.position % 60:02d}", size=12, color=ON_SURFACE_VARIANT),
            ui.spacer(weight=1), ui.text(track.length, size=12, color=ON_SURFACE_VARIANT)])
        return View(cls="android.view.View", gap=ui.dp(8), padding=ui.pad(0, 8), children=[bar, times])

    def overflow_menu(self, activity: Activity) -> View:
        def go_to_queue() -> None:
            self.dismiss_dialog(activity)
            self.open(QUEUE)

        def share() -> None:
            self.dismiss_dialog(activity)
            self.toast("Link copied to clipboard")

        activity.state["dialog_dim"] = False
        return popup_menu(self.ui, [("Go to queue", go_to_queue), ("Share", share)])

    def queue_screen(self, activity: Activity) -> View:
        ui = self.ui
        top = View(cls="android.view.View", orientation="h", height=ui.dp(64), padding=ui.pad(4, 8), gap=ui.dp(4),
                   children=[self._icon_button("back", self.finish),
                             ui.text("Up next", size=22, weight=500, max_lines=1)], align="center")
        top.children[1].weight = 1
        rows = []
        for i, track in enumerate(TRACKS):
            now = i == self.current
            row = ui.list_item(track.title, f"{track.artist} · {track.length}",
                               on_click=lambda i=i: (self._play(i), self.finish()),
                               leading=View(cls="android.widget.ImageView", width=ui.dp(48), height=ui.dp(48),
                                            style=Style(kind="image", bg=track.cover, icon="music",
                                                        radius=ui.dp(6))),
                               key=f"track_{i}", title_id="", subtitle_id="")
            if now:
                row.children[1].children[0].style.fg = ACCENT
            rows.append(row)
        listing = ui.scroll(rows, key="queue_list", cls="android.view.View")
        return View(cls="android.view.View", children=[top, listing], style=Style(bg=SURFACE, fg=ON_SURFACE))
