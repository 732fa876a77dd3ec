"""Clock's Timer tab: the digit keypad that fills "00h 00m 00s" from the right, Start, and the running timer.

Time does not pass on the virtual phone, so a started timer shows its full length until paused or deleted;
what tasks check is :attr:`Clock.timers` (length and whether it runs), not a countdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from relay_desktop.sim.ui import ON_SURFACE_VARIANT
from relay_desktop.sim.views import Style, View

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.deskclock import Clock

MAX_DIGITS = 6              # hh mm ss
KEY_BG = (222, 226, 232)
ACCENT = (0, 104, 122)
FAB_BG = (178, 230, 240)


@dataclass
class Timer:
    id: int
    seconds: int
    running: bool = True


def setup_text(digits: str) -> str:
    """What the setup display shows for the digits typed so far: they fill from the right, as in Clock."""
    padded = digits.rjust(MAX_DIGITS, "0")
    return f"{padded[0:2]}h {padded[2:4]}m {padded[4:6]}s"


def seconds_of(digits: str) -> int:
    padded = digits.rjust(MAX_DIGITS, "0")
    return int(padded[0:2]) * 3600 + int(padded[2:4]) * 60 + int(padded[4:6])


def running_text(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def timer_tab(clock: Clock, activity: Activity) -> View:
    timer = clock.timers[-1] if clock.timers else None
    return _running(clock, timer) if timer is not None else _setup(clock, activity)


def _setup(clock: Clock, activity: Activity) -> View:
    ui = clock.ui
    typed = str(activity.state.get("timer_digits", ""))

    def press(digit: str) -> None:
        current = str(activity.state.get("timer_digits", ""))
        # A leading zero adds nothing, and a seventh digit does not fit, as on Clock's keypad.
        if (current or digit != "0") and len(current) < MAX_DIGITS:
            activity.state["timer_digits"] = current + digit
        clock.phone.invalidate()

    def delete() -> None:
        activity.state["timer_digits"] = str(activity.state.get("timer_digits", ""))[:-1]
        clock.phone.invalidate()

    def key(digit: str) -> View:
        return View(cls="android.widget.Button", id=f"timer_setup_digit_{digit}", text=digit, clickable=True,
                    focusable=True, on_click=lambda: press(digit), width=ui.dp(80), height=ui.dp(64),
                    style=Style(kind="button", bg=KEY_BG, fg=(27, 27, 31), size=ui.sp(28), radius=ui.dp(32),
                                align="center"))

    def keypad_row(keys: list[View]) -> View:
        return ui.row([ui.spacer(weight=1), *keys, ui.spacer(weight=1)], gap=20)

    erase = ui.icon_button("backspace", "Delete", delete, id="timer_setup_delete")
    erase.width, erase.height = ui.dp(80), ui.dp(64)
    rows = [keypad_row([key(d) for d in digits]) for digits in ("123", "456", "789")]
    blank = ui.spacer()
    blank.width = ui.dp(80)
    rows.append(keypad_row([blank, key("0"), erase]))
    display = ui.text(setup_text(typed), size=48, weight=300, align="center", id="timer",
                      color=(27, 27, 31) if typed else ON_SURFACE_VARIANT)
    start = View(cls="android.widget.ImageButton", id="fab", desc="Start", clickable=bool(typed), focusable=True,
                 enabled=bool(typed), on_click=lambda: _start(clock, activity), width=ui.dp(96), height=ui.dp(96),
                 align="center", style=Style(kind="fab", icon="play", bg=FAB_BG, fg=(0, 54, 64), radius=ui.dp(28)))
    return ui.column([ui.spacer(24), display, ui.spacer(16), ui.column(rows, gap=12), ui.spacer(24), start],
                     gap=0, id="timer_setup")


def _start(clock: Clock, activity: Activity) -> None:
    seconds = seconds_of(str(activity.state.pop("timer_digits", "")))
    if seconds:
        clock.timers.append(Timer(clock.next_timer_id, seconds))
        clock.next_timer_id += 1
    clock.phone.invalidate()


def _running(clock: Clock, timer: Timer) -> View:
    ui = clock.ui

    def pause() -> None:
        timer.running = not timer.running
        clock.phone.invalidate()

    def delete() -> None:
        clock.timers = [t for t in clock.timers if t.id != timer.id]
        clock.phone.invalidate()

    time = ui.text(running_text(timer.seconds), size=72, weight=300, align="center", id="timer_text")
    state = ui.text("Timer" if timer.running else "Paused", size=16, color=ON_SURFACE_VARIANT, align="center",
                    id="timer_label")
    toggle = ui.button("Pause" if timer.running else "Resume", pause, id="play_pause")
    remove = ui.button("Delete", delete, id="delete_timer", variant="outlined")
    for button in (toggle, remove):
        button.width = ui.dp(140)
        if button is toggle:
            button.style.bg = ACCENT
        else:
            button.style.fg = ACCENT
    return ui.column([ui.spacer(96), time, state, ui.spacer(48),
                      ui.row([ui.spacer(weight=1), remove, toggle, ui.spacer(weight=1)], gap=16)],
                     gap=8, id="timer_container")
