"""The bundle's entry point: the same ``relay-desktop`` command pip installs (pyproject's [project.scripts])."""

from __future__ import annotations

import os
import sys


def _give_windowed_builds_stdio() -> None:
    # A Windows GUI executable (console=False) starts with no stdout/stderr: sys.stdout is None, and the first
    # print or log line would raise. Point them at nothing, so the window runs and a stray CLI call exits
    # cleanly instead of crashing.
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - lives as long as the process


if __name__ == "__main__":
    _give_windowed_builds_stdio()
    from relay_desktop.cli import main

    sys.exit(main())
