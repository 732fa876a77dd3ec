"""The built-in apps of the virtual phone."""

from __future__ import annotations

from relay_desktop.sim.app import App
from relay_desktop.sim.apps.bank import NorthwindBank
from relay_desktop.sim.apps.browser import Chrome
from relay_desktop.sim.apps.contacts import Contacts
from relay_desktop.sim.apps.deskclock import Clock
from relay_desktop.sim.apps.keep import KeepNotes
from relay_desktop.sim.apps.launcher import Launcher
from relay_desktop.sim.apps.messages import Messages
from relay_desktop.sim.apps.music import Tempo
from relay_desktop.sim.apps.settings import Settings
from relay_desktop.sim.apps.store import Shop
from relay_desktop.sim.apps.tictactoe import TicTacToe

BUILTIN_APPS: list[type[App]] = [Launcher, Settings, Contacts, Messages, Chrome, KeepNotes, Clock, Shop,
                                 NorthwindBank, Tempo, TicTacToe]
