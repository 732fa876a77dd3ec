"""Where Relay Desktop keeps its files: settings and prices in the config folder, runs in the data folder.

`RELAY_DESKTOP_HOME` puts both under one folder, which is how tests and portable installs keep away from the
user's real files.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "relay-desktop"


def _home() -> Path | None:
    home = os.environ.get("RELAY_DESKTOP_HOME")
    return Path(home) if home else None


def config_dir() -> Path:
    home = _home()
    return home / "config" if home else platformdirs.user_config_path(APP_NAME)


def data_dir() -> Path:
    home = _home()
    return home / "data" if home else platformdirs.user_data_path(APP_NAME)
