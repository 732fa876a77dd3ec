"""The device layer's errors. Nothing from adbutils escapes this package: every failure is one of these."""

from __future__ import annotations


class DeviceError(Exception):
    """Base class: something went wrong talking to a phone or to the adb server."""


class AdbServerError(DeviceError):
    """The adb server could not be reached or started."""


class DeviceNotFoundError(DeviceError):
    """No device with that serial is attached (or none at all, or several and none was chosen)."""


class DeviceUnauthorizedError(DeviceError):
    """The phone has not accepted this computer's RSA key yet."""

    def __init__(self, serial: str) -> None:
        super().__init__(f"{serial} is unauthorized: unlock the phone and accept the "
                         f"'Allow USB debugging?' prompt, then try again")
        self.serial = serial


class DeviceOfflineError(DeviceError):
    """The phone is attached but not responding (booting, or the connection is stale)."""


class DeviceDisconnectedError(DeviceError):
    """The connection dropped while a command was running (cable pulled, Wi-Fi lost, adb restarted)."""


class DeviceTimeoutError(DeviceError):
    """A command did not finish in time."""


class CommandFailedError(DeviceError):
    """A shell command ran but failed; carries its output and exit code."""

    def __init__(self, command: str, output: str, exit_code: int | None = None) -> None:
        detail = output.strip().splitlines()[-1] if output.strip() else "no output"
        code = f" (exit {exit_code})" if exit_code is not None else ""
        super().__init__(f"`{command}` failed{code}: {detail}")
        self.command = command
        self.output = output
        self.exit_code = exit_code


class CommandInterruptedError(CommandFailedError, DeviceDisconnectedError):
    """The connection dropped while a command that changes the phone (a tap, typed text) was running: it may or
    may not have happened, so it is not sent again. The connection itself is recovered by the next command."""

    def __init__(self, command: str, serial: str) -> None:
        super().__init__(command, "connection lost")
        self.args = (f"`{command}` was interrupted: the connection to {serial} dropped while it ran, so it may or "
                     "may not have taken effect",)
        self.serial = serial


class HierarchyDumpError(CommandFailedError):
    """``uiautomator dump`` kept failing (usually: the screen never stopped animating)."""


class AppNotFoundError(DeviceError):
    """No installed app matches the requested name or package."""


class UnsupportedTextError(DeviceError):
    """The text cannot be typed through this input path (``adb shell input text`` is ASCII-only)."""
