"""Configuration of a virtual phone: hardware, identity, realism profile and fault hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


class IdleStateError(RuntimeError):
    """``uiautomator dump`` could not wait for the UI to go idle (the screen kept animating)."""

    def __init__(self) -> None:
        super().__init__("ERROR: could not get idle state.")


@dataclass(frozen=True)
class Realism:
    """How slow the phone is. Tests use ``INSTANT``; the demo and benchmarks use ``REALISTIC``."""

    name: str
    dump_seconds: float = 0.0        # uiautomator dump
    screencap_seconds: float = 0.0   # screencap -p
    transition_seconds: float = 0.0  # activity open/close animation
    input_seconds: float = 0.0       # input tap / swipe / keyevent round trip
    u2_dump_seconds: float = 0.0     # uiautomator2's dumpWindowHierarchy (u2.jar, already running)


INSTANT = Realism("instant")
# u2_dump_seconds: nobody publishes a benchmark of u2.jar's dump; the figure is a user's statement that
# "Android's u2 takes within 100 ms" for dump_hierarchy (github.com/codematrixer/hmdriver2/issues/10,
# 2024-10-23), against the 1.5 s here for `uiautomator dump`, which starts a fresh process and waits for idle.
REALISTIC = Realism("realistic", dump_seconds=1.5, screencap_seconds=0.3, transition_seconds=0.35,
                    input_seconds=0.05, u2_dump_seconds=0.1)
PROFILES = {p.name: p for p in (INSTANT, REALISTIC)}


@dataclass
class Faults:
    """Switches a test flips to make the phone misbehave the way real phones do.

    Faults that are events rather than states are methods: ``VirtualPhoneService.unplug()`` / ``replug()`` (the
    cable pulled and put back), ``VirtualPhone.rotate()`` (the phone turned), ``VirtualPhone.kill_scrcpy_servers()``
    (the mirror's server dies on the phone). ``before_command`` fires any of them at an exact moment.
    """

    # Fail every dump while the screen animates (see VirtualPhone.animate_for), like uiautomator does.
    dump_fails_while_animating: bool = False
    # Fail the next N dumps with the idle-state error regardless of animation.
    dump_failures: int = 0
    # Called with the text of every shell or exec command the phone receives, before it runs (awaited when it
    # returns an awaitable): pull the cable on "input tap", kill the adb server during "screencap", turn the
    # phone before a dump. The command then runs as usual, if the phone is still there to run it.
    before_command: Callable[[str], Awaitable[None] | None] | None = None


@dataclass
class PhoneConfig:
    width: int = 1080
    height: int = 2400
    density: int = 420
    model: str = "Relay Virtual Phone"
    product: str = "relay_sim"
    device: str = "relay_sim"
    manufacturer: str = "Relay"
    android_release: str = "14"
    sdk: int = 34
    locale: str = "en-US"
    timezone: str = "America/New_York"
    serial: str = "RELAYSIM0001"
    realism: Realism = INSTANT
    extra_props: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.width < 320 or self.height < 480:
            raise ValueError(f"screen {self.width}x{self.height} is smaller than any Android phone (min 320x480)")
        if not 120 <= self.density <= 640:
            raise ValueError(f"density {self.density} dpi is outside Android's range (120-640)")
        for name in ("model", "product", "device"):
            if ":" in getattr(self, name) or ";" in getattr(self, name):
                # adb splits the connection banner on ':' and ';'.
                raise ValueError(f"{name} must not contain ':' or ';'")

    def props(self) -> dict[str, str]:
        props = {
            "ro.product.model": self.model,
            "ro.product.name": self.product,
            "ro.product.device": self.device,
            "ro.product.brand": self.manufacturer.lower(),
            "ro.product.manufacturer": self.manufacturer,
            "ro.product.cpu.abi": "arm64-v8a",
            "ro.product.cpu.abilist": "arm64-v8a,armeabi-v7a,armeabi",
            "ro.product.locale": self.locale,
            "ro.build.version.release": self.android_release,
            "ro.build.version.sdk": str(self.sdk),
            "ro.build.type": "user",
            "ro.build.tags": "release-keys",
            "ro.build.id": "UQ1A.240205.004",
            "ro.build.fingerprint": f"relay/{self.product}/{self.device}:{self.android_release}/UQ1A.240205.004/"
                                    f"11269751:user/release-keys",
            "ro.serialno": self.serial,
            "ro.sf.lcd_density": str(self.density),
            "ro.hardware": "relay",
            "ro.secure": "1",
            "ro.debuggable": "0",
            "sys.boot_completed": "1",
            "persist.sys.locale": self.locale,
            "persist.sys.timezone": self.timezone,
            "gsm.sim.operator.iso-country": self.locale.split("-")[-1].lower(),
            "gsm.operator.alpha": "Relay Mobile",
        }
        props.update(self.extra_props)
        return props
