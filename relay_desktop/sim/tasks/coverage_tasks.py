"""Tasks that widen the suite's reach: the recent-apps screen, a Settings page of choices, Clock's timer and
alarm labels, and Chrome's history."""

from __future__ import annotations

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Chrome
from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.deskclock import Clock
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.phone import LAUNCHER_PACKAGE, VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_DEL,
    CheckResult,
    Driver,
    Task,
    failed,
    fresh_start,
    passed,
    tap_on,
)
from relay_desktop.sim.tasks.settings_tasks import SETTINGS

KEY_APP_SWITCH = 187
FIVE_MINUTES = "300000"
MARMALADE = "https://www.marmaladeguild.org/recipes/seville-orange-marmalade"
MARMALADE_TITLE = "Seville orange marmalade recipe"


def _clock(phone: VirtualPhone) -> Clock:
    return phone.apps[CLOCK]  # type: ignore[return-value]


# ---------------------------------------------------------------- recent apps: close everything

def _three_apps_open(phone: VirtualPhone) -> None:
    fresh_start(phone, CHROME, KEEP, CLOCK)
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    chrome.navigate("https://relayweather.com/forecast")
    phone.launch(KEEP)
    phone.launch(CLOCK)
    phone.go_home()


def _nothing_open(phone: VirtualPhone) -> CheckResult:
    still = phone.recent_packages()
    if still:
        return failed(f"still open in Recents: {', '.join(phone.apps[p].label for p in still)}")
    return passed("no apps left in Recents")


async def _clear_all(driver: Driver) -> None:
    await driver.press_key(KEY_APP_SWITCH)
    await tap_on(driver, text="Clear all")


# ---------------------------------------------------------------- Settings: screen timeout

def _one_minute_timeout(phone: VirtualPhone) -> None:
    phone.settings["system"]["screen_off_timeout"] = "60000"
    fresh_start(phone, SETTINGS)


def _five_minute_timeout(phone: VirtualPhone) -> CheckResult:
    value = phone.setting("system", "screen_off_timeout")
    if value == FIVE_MINUTES:
        return passed("the screen turns off after 5 minutes")
    return failed(f"screen_off_timeout is {value!r} ms, not {FIVE_MINUTES}")


async def _set_five_minutes(driver: Driver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Display")
    await tap_on(driver, text="Screen timeout")
    await tap_on(driver, text="5 minutes")


# ---------------------------------------------------------------- Clock: a 10-minute timer

def _ten_minute_timer(phone: VirtualPhone) -> CheckResult:
    timers = _clock(phone).timers
    if len(timers) != 1:
        return failed(f"{len(timers)} timers exist; expected one of 10 minutes")
    timer = timers[0]
    if timer.seconds != 600:
        return failed(f"the timer is {timer.seconds // 60} min {timer.seconds % 60} s long, not 10 minutes")
    return passed("a 10-minute timer is running") if timer.running else failed("the 10-minute timer is paused")


async def _start_timer(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await tap_on(driver, desc="Timer")
    for digit in "1000":  # the keypad fills hh mm ss from the right: 1000 is 00h 10m 00s
        await tap_on(driver, id=f"timer_setup_digit_{digit}")
    await tap_on(driver, desc="Start")


# ---------------------------------------------------------------- Clock: rename an alarm's label

def _gym_renamed(phone: VirtualPhone) -> CheckResult:
    clock = _clock(phone)
    described = [f"{a.time} {a.label or '(no label)'} {'on' if a.enabled else 'off'}" for a in clock.alarms]
    if described == ["06:30 Swimming off", "08:00 Work on"]:
        return passed("the 06:30 alarm is now labelled Swimming")
    return failed(f"alarms are {described}; expected 06:30 Swimming (still off) and 08:00 Work")


async def _rename_gym(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await tap_on(driver, text="Gym")
    for _ in "Gym":  # the cursor sits after the old label
        await driver.press_key(KEY_DEL)
    await driver.type_text("Swimming")
    await tap_on(driver, text="OK")


# ---------------------------------------------------------------- Chrome: back to a page from History

def _browsed_earlier(phone: VirtualPhone) -> None:
    fresh_start(phone, CHROME)
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    for url in ("https://www.citrusfarm.es/seville-oranges", MARMALADE, "https://www.trailfinder.org/hikes/blue-ridge",
                "https://relayweather.com/forecast"):
        chrome.navigate(url)
    phone.force_stop(CHROME)  # the tab is gone; only History remembers the recipe
    phone.go_home()


def _on_marmalade(phone: VirtualPhone) -> CheckResult:
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    url = chrome.current_url
    if url == MARMALADE:
        return passed("Chrome shows the marmalade recipe again")
    return failed(f"Chrome shows {url or 'nothing'}, not {MARMALADE}")


async def _reopen_from_history(driver: Driver) -> None:
    await driver.launch_app(CHROME)
    await tap_on(driver, desc="Customize and control Google Chrome")
    await tap_on(driver, text="History")
    await tap_on(driver, text=MARMALADE_TITLE)


TASKS: list[Task] = [
    Task("launcher_close_all_apps", "Close all my open apps", _three_apps_open, _nothing_open, _clear_all,
         apps=(LAUNCHER_PACKAGE,), tags=("launcher", "recents"), max_steps=8),
    Task("settings_screen_timeout", "Make the screen stay on for 5 minutes before it turns off",
         _one_minute_timeout, _five_minute_timeout, _set_five_minutes, apps=(SETTINGS,), tags=("settings",),
         max_steps=12),
    Task("clock_timer_10_min", "Start a 10 minute timer", lambda phone: fresh_start(phone, CLOCK), _ten_minute_timer,
         _start_timer, apps=(CLOCK,), tags=("clock", "timer"), max_steps=18),
    Task("clock_rename_gym_label", "Rename my Gym alarm to Swimming", lambda phone: fresh_start(phone, CLOCK),
         _gym_renamed, _rename_gym, apps=(CLOCK,), tags=("clock", "edit"), max_steps=16),
    Task("chrome_reopen_from_history", "Reopen the marmalade recipe I was reading in Chrome earlier",
         _browsed_earlier, _on_marmalade, _reopen_from_history, apps=(CHROME,), tags=("chrome", "history"),
         max_steps=12),
]
