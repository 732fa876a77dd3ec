"""Split screen on the virtual phone, the way Android 14 does it on a Pixel.

A user enters it from Overview: the app icon above a card opens the card's menu, "Split screen" stages that
app for the top half (left in landscape) and leaves Overview (or, with no other recent app, the home screen)
showing "Tap another app to use split screen"; the next app opened, from a card or an icon, fills the other
half. Both tasks are then visible and resumed, each laid out at its half's size, with System UI's divider
window between them.

State kept here: the staged app while the user picks the second one (``selecting``) and the pair on screen
(``pair``). The pair's two tasks are always the last two of ``phone.tasks``, the focused one (last touched)
last, so everything that acts on "the current activity" (keys, BACK, text, dialogs) acts on the focused half.

Leaving, kept simple and documented: Home, Overview, or an app outside the pair coming to the front ends
split screen with both tasks left in Recents as separate cards (Android 14 keeps them as one paired card);
an app of the pair closing (BACK out of its last screen, force stop) leaves the other full screen; dragging
the divider to an edge dismisses the app on that side and the other goes full screen, as Android does. While
the keyboard is up it covers the lower part of the screen; the divider does not move for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relay_desktop.sim.views import Rect, Style, View

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

LAUNCHER = "com.android.launcher3"
SYSTEM_UI = "com.android.systemui"
INSTRUCTIONS = "Tap another app to use split screen"
# docked_stack_divider_thickness / _insets: a 48 dp window, of which the middle 10 dp is the visible bar.
DIVIDER_WINDOW_DP = 48
DIVIDER_INSETS_DP = 19
SNAP_RATIOS = (1 / 3, 1 / 2, 2 / 3)   # where a released divider settles (share of the first app)
DISMISS_RATIO = 0.12                 # released closer to an edge than this: that side's app is dismissed
DIVIDER_COLOR = (21, 21, 24)
HANDLE_COLOR = (255, 255, 255)


@dataclass
class SplitPair:
    first: str            # package in the top half (left in landscape)
    second: str           # package in the bottom half (right)
    ratio: float = 0.5    # the divider's centre as a share of the space between the system bars

    @property
    def packages(self) -> tuple[str, str]:
        return self.first, self.second


@dataclass
class SplitLayout:
    first: Rect           # the tasks' bounds (their app windows)
    second: Rect
    divider: Rect         # the divider window (its touch area)
    bar: Rect             # the visible bar inside it
    vertical: bool        # True when the halves are side by side (landscape)


class SplitScreen:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.pair: SplitPair | None = None
        self.selecting: str | None = None

    @property
    def active(self) -> bool:
        return self.pair is not None

    # ------------------------------------------------------------ entering

    def select(self, package: str) -> None:
        """"Split screen" chosen in a card's menu: stage ``package`` and let the user pick the other app."""
        phone = self.phone
        self.pair = None
        self.selecting = package
        if not [p for p in phone.recent_packages() if p != package]:
            phone.go_home()   # nothing else in Overview to pick from: the home screen's icons, as on a Pixel
        phone.invalidate()

    def cancel_selection(self) -> bool:
        if self.selecting is None:
            return False
        self.selecting = None
        self.phone.invalidate()
        return True

    def sync(self) -> None:
        """After any navigation: pair the staged app with the one just opened, or end split screen when the
        pair is no longer what is in front."""
        tasks = self.phone.tasks
        front = next(reversed(tasks))
        if self.selecting is not None:
            if self.selecting not in tasks:
                self.selecting = None
            elif front not in (LAUNCHER, self.selecting):
                self._enter(self.selecting, front)
            return
        if self.pair is None:
            return
        alive = [p for p in self.pair.packages if p in tasks]
        if len(alive) < 2 or front not in self.pair.packages:
            self.pair = None

    def _enter(self, first: str, second: str) -> None:
        phone = self.phone
        self.selecting = None
        self.pair = SplitPair(first, second)
        launcher = phone.tasks.get(LAUNCHER)
        if launcher is not None and len(launcher) > 1:
            del launcher[1:]          # Overview closes once the pair launches
        # The pair on top of the task list, the app just opened last: it has focus, as on Android.
        phone.tasks[first] = phone.tasks.pop(first)
        phone.tasks[second] = phone.tasks.pop(second)

    # ------------------------------------------------------------ while in split screen

    def focus(self, package: str) -> bool:
        """A touch in a half gives that app focus (keys and text go to it). True when focus moved."""
        phone = self.phone
        if self.pair is None or package not in self.pair.packages or next(reversed(phone.tasks)) == package:
            return False
        phone.tasks[package] = phone.tasks.pop(package)
        phone.focus_key = None            # the other app's field loses input focus; the keyboard goes
        phone.keyboard_shown = False
        phone.invalidate()
        return True

    @property
    def focused(self) -> str | None:
        return next(reversed(self.phone.tasks)) if self.pair is not None else None

    def drag_divider(self, x: float, y: float) -> None:
        """The divider was dragged to (x, y) and let go: it snaps to the nearest target, or past the last
        target towards an edge it dismisses the app on that side and the other app fills the screen."""
        pair, layout = self.pair, self.layout()
        if pair is None or layout is None:
            return
        start, length = self._stable_span(layout.vertical)
        ratio = ((x if layout.vertical else y) - start) / length
        if ratio < DISMISS_RATIO:
            self.exit(keep=pair.second)
        elif ratio > 1 - DISMISS_RATIO:
            self.exit(keep=pair.first)
        else:
            pair.ratio = min(SNAP_RATIOS, key=lambda r: abs(r - ratio))
            self.phone.invalidate()

    def exit(self, keep: str) -> None:
        """End split screen with ``keep`` full screen; the other app stays in Recents."""
        phone = self.phone
        self.pair = None
        if keep in phone.tasks:
            phone.tasks[keep] = phone.tasks.pop(keep)
        phone.refresh_after_navigation()

    # ------------------------------------------------------------ geometry

    def _bars(self) -> tuple[int, int, int, int]:
        width, height = self.phone.display_size
        return width, height, self.phone.kit.dp(24), self.phone.kit.dp(48)

    def _stable_span(self, vertical: bool) -> tuple[int, int]:
        """Where the divider can go: between the status and navigation bars (portrait), or the full width."""
        width, height, status_h, nav_h = self._bars()
        return (0, width) if vertical else (status_h, height - status_h - nav_h)

    def layout(self) -> SplitLayout | None:
        if self.pair is None:
            return None
        width, height, _status_h, nav_h = self._bars()
        dp = self.phone.kit.dp
        vertical = width > height
        start, length = self._stable_span(vertical)
        centre = start + round(length * self.pair.ratio)
        bar = dp(DIVIDER_WINDOW_DP) - 2 * dp(DIVIDER_INSETS_DP)
        half_window = dp(DIVIDER_WINDOW_DP) // 2
        bar_start = centre - bar // 2
        bottom = height - nav_h     # app windows end at the navigation bar here, as in full screen
        if vertical:
            return SplitLayout(Rect(0, 0, bar_start, bottom), Rect(bar_start + bar, 0, width, bottom),
                               Rect(centre - half_window, 0, centre + half_window, bottom),
                               Rect(bar_start, 0, bar_start + bar, bottom), True)
        return SplitLayout(Rect(0, 0, width, bar_start), Rect(0, bar_start + bar, width, bottom),
                           Rect(0, centre - half_window, width, centre + half_window),
                           Rect(0, bar_start, width, bar_start + bar), False)

    def frame_of(self, package: str) -> Rect | None:
        layout = self.layout()
        if layout is None or self.pair is None or package not in self.pair.packages:
            return None
        return layout.first if package == self.pair.first else layout.second


def divider_view(layout: SplitLayout, dp: Callable[[float], int]) -> View:
    """System UI's divider window (WM Shell's DividerView): the bar and its handle, ids as on a Pixel."""
    handle_long, handle_short = dp(40), dp(4)
    bar, window = layout.bar, layout.divider
    if layout.vertical:
        handle_w, handle_h = handle_short, handle_long
    else:
        handle_w, handle_h = handle_long, handle_short
    handle = View(cls="android.view.View", id="docked_divider_handle", desc="Split screen divider",
                  width=handle_w, height=handle_h, anchor="center",
                  style=Style(kind="plain", bg=HANDLE_COLOR, radius=min(handle_w, handle_h) // 2))
    background = View(cls="android.view.View", id="docked_divider_background", style=Style(bg=DIVIDER_COLOR))
    inset = (bar.left - window.left, bar.top - window.top, window.right - bar.right, window.bottom - bar.bottom)
    divider_bar = View(cls="android.widget.FrameLayout", id="divider_bar", orientation="stack",
                       children=[background, handle])
    return View(cls="android.widget.FrameLayout", orientation="stack", children=[divider_bar], padding=inset)
