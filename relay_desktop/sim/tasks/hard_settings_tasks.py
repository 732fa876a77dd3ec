"""Hard tasks in Settings: three settings on three pages before a flight, "dimmer" and "keep it awake" for
reading, "silence my phone" that must not silence the morning alarm, and NFC, which this phone does not have.

Each setup writes every setting its checker reads, so a checker compares against known values, never against
whatever an earlier task left behind.
"""

from __future__ import annotations

from collections.abc import Callable

from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.settings import ZEN_OFF, volume
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    CheckResult,
    Driver,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    passed,
    tap_on,
)
from relay_desktop.sim.tasks.hard_device_common import SEEDED_ALARMS, NearMiss, alarms_diff, back_to, clock_of

HARD = "hard"
SETTINGS = "com.android.settings"
Setting = tuple[str, str]                 # (namespace, key)
# The state every hard Settings task starts from (the checkers name these values).
START: dict[Setting, str] = {
    ("global", "wifi_on"): "1", ("global", "bluetooth_on"): "0", ("global", "airplane_mode_on"): "0",
    ("global", "zen_mode"): ZEN_OFF, ("secure", "ui_night_mode"): "1", ("system", "screen_brightness"): "128",
    ("system", "screen_off_timeout"): "60000", ("system", "volume_ring_speaker"): "5",
    ("system", "volume_alarm_speaker"): "6", ("system", "volume_music_speaker"): "15",
}
BRIGHT_AND_SLEEPY: dict[Setting, str] = {("system", "screen_brightness"): "230",
                                         ("system", "screen_off_timeout"): "30000"}
NAMES: dict[Setting, str] = {
    ("global", "wifi_on"): "Wi-Fi", ("global", "bluetooth_on"): "Bluetooth",
    ("global", "airplane_mode_on"): "airplane mode", ("global", "zen_mode"): "Do Not Disturb",
    ("secure", "ui_night_mode"): "dark theme", ("system", "screen_brightness"): "brightness",
    ("system", "screen_off_timeout"): "screen timeout", ("system", "volume_ring_speaker"): "ring volume",
    ("system", "volume_alarm_speaker"): "alarm volume", ("system", "volume_music_speaker"): "media volume",
}


def _start(changes: dict[Setting, str] | None = None, *also: str) -> Callable[[VirtualPhone], None]:
    def setup(phone: VirtualPhone) -> None:
        fresh_start(phone, SETTINGS, *also)
        for (namespace, key), value in {**START, **(changes or {})}.items():
            phone.settings[namespace][key] = value

    return setup


def _value(phone: VirtualPhone, setting: Setting) -> str:
    return phone.setting(*setting)


def _changed(phone: VirtualPhone, expected: dict[Setting, str]) -> list[str]:
    return [f"{NAMES[s]} is {_value(phone, s)!r}, expected {want!r}" for s, want in expected.items()
            if _value(phone, s) != want]


# ---------------------------------------------------------------- oracle moves

async def open_page(driver: Driver, *path: str) -> None:
    """Settings' home, then each row of ``path`` in turn."""
    await driver.launch_app(SETTINGS)
    await back_to(driver, id="network")
    for row in path:
        await tap_on(driver, text=row)


async def slide_to(driver: Driver, fraction: float, **query: str) -> None:
    bar = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    if bar is None:
        raise OracleError(f"no slider matches {query}")
    left, top, right, bottom = bar.bounds
    await driver.tap(left + int((right - left) * fraction), (top + bottom) // 2)


# ---------------------------------------------------------------- three goals on three pages

def _ready_to_board(phone: VirtualPhone) -> CheckResult:
    wrong = _changed(phone, {("global", "airplane_mode_on"): "1", ("secure", "ui_night_mode"): "2",
                             ("system", "screen_off_timeout"): "30000"})
    return failed("; ".join(wrong)) if wrong else passed("airplane mode on, dark theme on, 30-second timeout")


async def _prepare_for_boarding(driver: Driver) -> None:
    await open_page(driver, "Network & internet", "Airplane mode")
    await tap_on(driver, desc="Navigate up")
    await tap_on(driver, text="Display")
    await tap_on(driver, text="Dark theme")
    await tap_on(driver, text="Screen timeout")
    await tap_on(driver, text="30 seconds")


# ---------------------------------------------------------------- "dimmer" and "keep it awake"

def _comfortable_for_reading(phone: VirtualPhone) -> CheckResult:
    problems = []
    brightness = int(_value(phone, ("system", "screen_brightness")))
    if not 26 <= brightness <= 77:                     # "around 20%": 10–30% of 255
        problems.append(f"brightness is {brightness}/255 ({brightness * 100 // 255}%), not around 20%")
    problems += _changed(phone, {("system", "screen_off_timeout"): "600000"})
    return failed("; ".join(problems)) if problems else passed(f"brightness {brightness}/255, 10-minute timeout")


async def _dim_and_stay_awake(driver: Driver) -> None:
    await open_page(driver, "Display")
    await slide_to(driver, 0.2, desc="Brightness level")
    await tap_on(driver, text="Screen timeout")
    await tap_on(driver, text="10 minutes")


# ---------------------------------------------------------------- "silence" that keeps the alarm

def _silent_but_alarm_rings(phone: VirtualPhone) -> CheckResult:
    problems = []
    zen = _value(phone, ("global", "zen_mode")) != ZEN_OFF
    ring = volume(phone, "volume_ring_speaker")
    if not zen and ring:
        problems.append(f"the phone still rings: Do Not Disturb is off and the ring volume is {ring}/7")
    if not volume(phone, "volume_alarm_speaker"):
        problems.append("the alarm volume is 0, so the alarm would not be heard")
    diff = alarms_diff(clock_of(phone), SEEDED_ALARMS)
    if diff:
        problems.append(f"alarms changed: {diff}")
    if problems:
        return failed("; ".join(problems))
    return passed("silenced with " + ("Do Not Disturb" if zen else "the ring volume at 0") + "; the alarm stays")


async def _turn_on_do_not_disturb(driver: Driver) -> None:
    await open_page(driver, "Sound & vibration", "Do Not Disturb")
    await tap_on(driver, text="Turn on now")
    if find(await driver.dump_hierarchy(), text="Turn off now") is None:
        raise OracleError("Do Not Disturb did not turn on")


# ---------------------------------------------------------------- infeasible: NFC

def _nothing_changed(phone: VirtualPhone) -> CheckResult:
    wrong = _changed(phone, START)
    return failed("settings changed: " + "; ".join(wrong)) if wrong else passed("no setting changed")


async def _look_for_nfc(driver: Driver) -> None:
    await open_page(driver)
    await tap_on(driver, desc="Search settings")
    await driver.type_text("NFC")
    if find(await driver.dump_hierarchy(), id="no_results") is None:
        raise OracleError("searching settings for NFC finds something")
    await back_to(driver, id="network")
    await tap_on(driver, text="Connected devices")
    await tap_on(driver, text="Connection preferences")
    if find(await driver.dump_hierarchy(), contains="NFC") is not None:
        raise OracleError("Connection preferences offers NFC")
    await back_to(driver, id="network")


async def _turn_on_bluetooth_instead(driver: Driver) -> None:
    await open_page(driver, "Connected devices", "Bluetooth")


TASKS: list[Task] = [
    Task("hard_settings_before_boarding",
         "I'm about to board a plane: turn on airplane mode, switch on dark theme and make the screen turn off "
         "after 30 seconds",
         _start(), _ready_to_board, _prepare_for_boarding, apps=(SETTINGS,), tags=(HARD, "multi_goal"),
         max_steps=25),
    Task("hard_settings_reading_in_bed",
         "The screen is too bright for reading in bed and it keeps going to sleep on me. Make it a lot dimmer, "
         "around 20%, and keep it awake for 10 minutes",
         _start(BRIGHT_AND_SLEEPY), _comfortable_for_reading, _dim_and_stay_awake, apps=(SETTINGS,),
         tags=(HARD, "multi_goal", "paraphrase"), max_steps=25),
    Task("hard_settings_silence_keep_alarm",
         "Silence my phone for the concert tonight, but make sure my alarm still goes off in the morning",
         _start(None, CLOCK), _silent_but_alarm_rings, _turn_on_do_not_disturb, apps=(SETTINGS, CLOCK),
         tags=(HARD, "paraphrase"), max_steps=25),
    Task("hard_settings_nfc_infeasible", "Turn on NFC so I can pay with my phone at the till",
         _start(), _nothing_changed, _look_for_nfc, apps=(SETTINGS,), tags=(HARD, "infeasible"), max_steps=25,
         expected_outcome="failed"),
]
DOING_IT_ANYWAY: dict[str, NearMiss] = {"hard_settings_nfc_infeasible": _turn_on_bluetooth_instead}
