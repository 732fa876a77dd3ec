"""The agent's events on a terminal: a readable live log, or one JSON object per line (``--json``).

Everything printed is redacted: a terminal's scrollback and a CI log are files too, and a task or a screen can
hold a key (the user pasted one into the task)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TextIO

from relay_desktop.agent.events import (
    ActionResult,
    Event,
    GuidanceUpdated,
    HumanInput,
    LogLine,
    PlanReceived,
    RunFinished,
    RunStarted,
    RunStateChanged,
    ScreenCaptured,
    Verification,
)
from relay_desktop.llm.redaction import redact

__all__ = ["EventPrinter", "silence_stdout"]

_MARKS = {"success": "✔", "failed": "✘", "stopped": "■", "max_steps": "✘", "error": "✘"}


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def silence_stdout() -> None:
    """Point stdout at the null device: its reader went away (``| head``), and Python would otherwise fail
    once more flushing it at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):   # no real file descriptor (a test's captured stream)
        pass


class EventPrinter:
    """``phone``: with several phones at once, whose events these are (each line says it)."""

    def __init__(self, json_lines: bool = False, stream: TextIO | None = None, phone: str = "") -> None:
        self.json_lines = json_lines
        self.phone = phone
        self.stream = stream or sys.stdout
        self.closed = False                            # the reader of our output went away
        self.on_closed: Callable[[], None] | None = None

    def _print(self, text: str, target: TextIO) -> None:
        if self.closed and target is self.stream:
            return
        try:
            print(redact(text), file=target, flush=True)
        except BrokenPipeError:       # `relay-desktop run … | head -3`: the reader had enough
            if target is self.stream:
                self.closed = True
                silence_stdout()
                if self.on_closed is not None:
                    self.on_closed()

    def line(self, text: str) -> None:
        """A line of the command's own (not an event): on stderr in JSON mode, so stdout stays parseable."""
        self._print(self._prefixed(text), sys.stderr if self.json_lines else self.stream)

    def _prefixed(self, text: str) -> str:
        return "\n".join(f"[{self.phone}] {line}" for line in text.split("\n")) if self.phone else text

    def print_event(self, event: Event) -> None:
        if self.json_lines:
            data = event.to_json()
            if self.phone:
                data["phone"] = self.phone
            self._print(json.dumps(data, ensure_ascii=False, default=str), self.stream)
            return
        text = self.format(event)
        if text is not None:
            self._print(self._prefixed(text), self.stream)

    @staticmethod
    def format(event: Event) -> str | None:
        if isinstance(event, RunStateChanged):   # pause, resume and stop; the first "running" says nothing new
            if event.state == "paused":
                return f"⏸ Paused: {event.reason}" if event.reason else "⏸ Paused"
            if event.state == "running" and event.reason == "resumed":
                return "▶ Resumed"
            if event.state == "stopping":
                return f"■ Stopping: {event.reason}" if event.reason else "■ Stopping"
            return None
        if isinstance(event, RunStarted):
            return (f'Run {event.run_id} on {event.serial}: "{_short(event.task, 100)}" '
                    f"(at most {event.max_steps} steps)")
        if isinstance(event, ScreenCaptured):
            return (f"── step {event.step} · {event.app or '?'} · {len(event.element_map)} elements "
                    f"(captured in {event.capture_ms:.0f} ms)")
        if isinstance(event, PlanReceived):
            if event.source == "routine":
                return f"   replayed ({event.model}): {event.thinking or event.plan.steps[0].describe()}"
            who = "fallback planner" if event.source == "fallback" else \
                f"{event.model}, {event.latency_ms / 1000:.1f} s"
            steps = "; ".join(s.describe() for s in event.plan.steps)
            thinking = f" — {_short(event.plan.thinking, 120)}" if event.plan.thinking else ""
            return f"   plan ({who}): {steps}{thinking}"
        if isinstance(event, ActionResult):
            mark = "→" if event.ok else "✘"
            return f"   {mark} {event.action.describe()}: {_short(event.message)}"
        if isinstance(event, Verification):
            if event.check == "step" and event.ok:
                return None  # the common case; failures are what a reader needs to see
            mark = "✓" if event.ok else "✗"
            return f"   {mark} {event.check} check: {_short(event.reason)}"
        if isinstance(event, GuidanceUpdated):
            return f"   ★ planning agent ({event.trigger}): {event.approach}"
        if isinstance(event, HumanInput):
            return f"   ? {event.purpose}: {_short(event.prompt)} → {event.answer or '(no answer)'}"
        if isinstance(event, LogLine):
            mark = {"warning": "!", "error": "✘"}.get(event.level, "·")
            return f"   {mark} {_short(event.message, 300)}"
        if isinstance(event, RunFinished):
            mark = _MARKS.get(event.outcome, "·")
            tokens = event.input_tokens + event.output_tokens
            line = (f"{mark} {event.outcome} after {event.steps} steps, {event.elapsed_s:.1f} s, {tokens:,} tokens, "
                    f"${event.cost_usd:.4f}: {event.reason}")
            # What the user asked for, on a line of its own: the point of a question task.
            return f"{line}\nAnswer: {event.answer}" if event.answer else line
        return None
