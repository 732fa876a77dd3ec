"""The README's set-up names every system library Qt's window needs on Debian/Ubuntu: the same ones the CI
installs on its clean machine (where the window tests then run), and on this machine Qt's xcb plugin finds them all.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
QT_LIBRARY = re.compile(r"^lib(xcb|x11-xcb|xkbcommon|gl1|egl|dbus|fontconfig|glib)")


def _readme_apt_packages() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"sudo apt install ((?:\\\n|[^`\n])+)", text)
    return {word for command in commands for word in command.replace("\\\n", " ").split()}


def test_the_readme_names_every_qt_library_the_ci_installs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = ci[ci.index("apt-get install"):]
    install = install[:install.index(">/dev/null\n")]
    needed = {word for word in install.replace("\\\n", " ").split() if QT_LIBRARY.match(word)}
    assert needed, "no Qt library found in .ci/run"
    missing = needed - _readme_apt_packages()
    assert not missing, f"the README's apt line misses {sorted(missing)}"


@pytest.mark.skipif(shutil.which("ldd") is None, reason="ldd is Linux's")
def test_qts_window_plugin_finds_every_library_it_links() -> None:
    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.exists():
        pytest.skip("this PySide6 has no xcb plugin")
    env = {**os.environ, "LD_LIBRARY_PATH": str(Path(PySide6.__file__).parent / "Qt" / "lib")}
    linked = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, env=env, timeout=30).stdout
    assert "not found" not in linked, linked
