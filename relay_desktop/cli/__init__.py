"""The command line: `relay-desktop` and its commands, one module per command (the window opens with none).

Beside them: the shared output of runs on a terminal (output.py), option checking (options.py), driving one run
from a terminal (drive.py), and bench's table and replays (bench_report.py, bench_replay.py).
"""

from relay_desktop.cli.main import main

__all__ = ["main"]
