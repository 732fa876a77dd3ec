"""Spoken progress ("step 3: tapping Wi-Fi") through Qt's text-to-speech, where this Qt has it.

QtTextToSpeech ships in PySide6-Addons, not in the Essentials wheel the app needs, and even when installed a
machine may have no speech engine; either way the option says it is unavailable instead of failing.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

from relay_desktop.agent.events import ActionStarted, Event, HumanInput, RunFinished

__all__ = ["Speaker", "spoken_text"]

log = logging.getLogger(__name__)

_VERBS = {"tap": "tapping", "long_press": "long-pressing", "type": "typing into", "swipe": "swiping",
          "scroll": "scrolling", "press_key": "pressing", "back": "going back", "home": "going home",
          "recent_apps": "showing recent apps", "launch_app": "opening", "wait": "waiting",
          "ask_user": "asking you a question", "complete": "finishing", "fail": "giving up",
          "shell": "running a shell command"}
_OUTCOMES = {"success": "Task done.", "failed": "The task failed.", "stopped": "Run stopped.",
             "max_steps": "Out of steps.", "error": "The run hit an error."}


def spoken_text(event: Event, element_name: str | None = None) -> str | None:
    """A short phrase worth saying aloud for this event, or None (most events are not)."""
    if isinstance(event, ActionStarted):
        step = event.action
        verb = _VERBS.get(step.action, step.action.replace("_", " "))
        what = element_name or str(step.params.get("app") or step.params.get("direction")
                                   or step.params.get("key") or "")
        if step.action in ("back", "home", "recent_apps", "wait", "ask_user", "complete", "fail", "shell"):
            what = ""
        return f"step {event.step}: {verb} {what}".strip()
    if isinstance(event, RunFinished):
        return _OUTCOMES.get(event.outcome, event.outcome)
    if isinstance(event, HumanInput) and event.purpose == "confirmation":
        return "The agent needs your confirmation."
    return None


def _engine() -> Any | None:
    try:
        from PySide6.QtTextToSpeech import QTextToSpeech
    except ImportError:
        return None
    try:
        engine = QTextToSpeech()
    except RuntimeError as exc:
        log.info("no text-to-speech engine: %s", exc)
        return None
    return engine if engine.availableEngines() or engine.state() != QTextToSpeech.State.Error else None


class Speaker:
    """Says progress phrases when enabled; a newer phrase replaces one still being spoken."""

    def __init__(self, engine: Any | None = None, *, probe: bool = True) -> None:
        self.engine = engine if engine is not None or not probe else _engine()
        self.enabled = False
        self.said: deque[str] = deque(maxlen=50)      # the latest phrases, for the log and tests

    @property
    def available(self) -> bool:
        return self.engine is not None

    def why_unavailable(self) -> str:
        return "" if self.available else ("Spoken progress needs Qt's text-to-speech (pip install PySide6-Addons) "
                                          "and a speech engine (e.g. speech-dispatcher).")

    def say(self, text: str) -> None:
        if not (self.enabled and self.engine is not None):
            return
        self.said.append(text)
        self.engine.stop()              # the agent moves faster than speech: say the latest, not a backlog
        self.engine.say(text)
