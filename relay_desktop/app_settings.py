"""The app's settings (everything but API keys), as a typed schema saved to ``settings.json`` in the config folder.

Keys never come here: they live in the OS keyring, the environment, or this session only (``llm.keys``). A file
that cannot be read is moved aside and the defaults are used, with a sentence saying so (``problem``) that the
command line prints and the window shows, once (the next load finds no file); a save is atomic (temporary
file, then rename), so a crash mid-save never leaves half a file.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from relay_desktop.agent.settings import AgentSettings
from relay_desktop.llm.config import LLMSettings
from relay_desktop.paths import config_dir

__all__ = ["SETTINGS_VERSION", "THEMES", "AppSettings", "settings_path"]

log = logging.getLogger(__name__)

SETTINGS_VERSION = 1


def settings_path() -> Path:
    return config_dir() / "settings.json"


THEMES = ("system", "light", "dark")


@dataclass(frozen=True)
class AppSettings:
    llm: LLMSettings = field(default_factory=lambda: LLMSettings.for_providers("anthropic"))
    max_steps: int = 50
    screenshot_max_kb: int = 150
    screenshots: bool = True
    private_apps: tuple[str, ...] = ()      # packages whose screens are never sent as images (banking apps)
    shell_allowed: tuple[str, ...] = ()
    speak_progress: bool = False
    split_screen: bool = True               # the planning agent may put two apps side by side
    use_routines: bool = True               # a typed task that matches a saved routine replays it
    theme: str = "system"                   # "system" (follow the desktop), "light" or "dark"
    clipboard_sync: bool = True             # the computer's and the phone's clipboards shared both ways
    problem: str = ""                       # why the saved file was not used, if it was not

    def __post_init__(self) -> None:
        if not 1 <= self.max_steps <= 500:
            raise ValueError(f"max steps must be between 1 and 500, not {self.max_steps}")
        if not 20 <= self.screenshot_max_kb <= 2000:
            raise ValueError(f"the screenshot budget must be 20–2000 kB, not {self.screenshot_max_kb}")
        if self.theme not in THEMES:
            raise ValueError(f"the theme must be one of {', '.join(THEMES)}, not {self.theme!r}")

    def agent_settings(self, **overrides: Any) -> AgentSettings:
        values: dict[str, Any] = {"max_steps": self.max_steps, "screenshots": self.screenshots,
                                  "screenshot_max_bytes": self.screenshot_max_kb * 1000,
                                  "private_apps": self.private_apps,
                                  "shell_allowed": self.shell_allowed, "split_screen": self.split_screen}
        values.update(overrides)
        return AgentSettings(**values)

    def to_dict(self) -> dict[str, Any]:
        return {"version": SETTINGS_VERSION, "llm": self.llm.to_dict(), "max_steps": self.max_steps,
                "screenshot_max_kb": self.screenshot_max_kb, "screenshots": self.screenshots,
                "private_apps": list(self.private_apps),
                "shell_allowed": list(self.shell_allowed), "speak_progress": self.speak_progress,
                "split_screen": self.split_screen, "use_routines": self.use_routines, "theme": self.theme,
                "clipboard_sync": self.clipboard_sync}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AppSettings:
        if not isinstance(data, dict):
            raise ValueError("the settings file does not hold an object")
        if int(data.get("version", SETTINGS_VERSION)) > SETTINGS_VERSION:
            raise ValueError("the settings file was written by a newer Relay Desktop")
        llm = LLMSettings.from_dict(data["llm"]) if "llm" in data else cls().llm
        return cls(llm=llm, max_steps=int(data.get("max_steps", 50)),
                   screenshot_max_kb=int(data.get("screenshot_max_kb", 150)),
                   screenshots=bool(data.get("screenshots", True)),
                   private_apps=tuple(str(p) for p in data.get("private_apps", [])),
                   shell_allowed=tuple(str(p) for p in data.get("shell_allowed", [])),
                   speak_progress=bool(data.get("speak_progress", False)),
                   split_screen=bool(data.get("split_screen", True)),
                   use_routines=bool(data.get("use_routines", True)),
                   theme=str(data.get("theme", "system")),
                   clipboard_sync=bool(data.get("clipboard_sync", True)))

    @classmethod
    def load(cls, path: Path | None = None) -> AppSettings:
        path = path or settings_path()
        if not path.exists():
            return cls()
        try:
            return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            aside = path.with_suffix(".json.unreadable")
            try:
                os.replace(path, aside)     # nothing lost, and the next start is told nothing again
                kept = f"kept as {aside}"
            except OSError:
                kept = f"left as {path}: it could not be moved aside"
            log.warning("settings in %s not used: %s", path, exc)
            reason = "not valid JSON" if isinstance(exc, json.JSONDecodeError) else str(exc)
            return replace(cls(), problem=f"Settings file was unreadable ({kept}); using defaults ({reason}).")

    def save(self, path: Path | None = None) -> Path:
        path = path or settings_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self.to_dict(), out, indent=1)
            os.replace(temp, path)
        finally:
            if os.path.exists(temp):
                os.unlink(temp)
        return path
