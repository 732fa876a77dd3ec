"""Plain data returned by the device layer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceInfo:
    """One line of ``adb devices -l``."""

    serial: str
    state: str                  # "device", "unauthorized", "offline", "authorizing", ...
    product: str = ""
    model: str = ""
    device: str = ""
    transport_id: int | None = None

    @property
    def ready(self) -> bool:
        return self.state == "device"

    @property
    def label(self) -> str:
        name = self.model.replace("_", " ") or self.serial
        return f"{name} ({self.serial})" if self.model else name


@dataclass(frozen=True)
class ShellResult:
    command: str
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@dataclass(frozen=True)
class AppInfo:
    package: str
    label: str


@dataclass(frozen=True)
class CurrentApp:
    package: str
    activity: str


@dataclass(frozen=True)
class DeviceContext:
    """What the agent is told about the phone in every prompt."""

    serial: str
    model: str
    manufacturer: str
    android_release: str
    sdk: int
    locale: str
    timezone: str
    screen_width: int
    screen_height: int
    density: int
    keyboard_shown: bool
    current_app: CurrentApp | None
