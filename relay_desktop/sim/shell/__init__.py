"""The virtual phone's ``/system/bin/sh``: what ``adb shell CMD`` and ``adb exec-out CMD`` run.

``Shell(phone).run(command, io)`` parses a command line the way Android's mksh does and runs it
against the phone, with Android's commands (``input``, ``am``, ``pm``, ``dumpsys``, ``uiautomator``,
``screencap``, toybox utilities...) printing what the real ones print.
"""

from relay_desktop.sim.shell.base import COMMANDS, CommandContext, command
from relay_desktop.sim.shell.interpreter import Session, Shell, ShellExit

__all__ = ["COMMANDS", "CommandContext", "Session", "Shell", "ShellExit", "command"]
