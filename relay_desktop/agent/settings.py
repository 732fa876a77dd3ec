"""The agent's options, and what a finished run reports."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

from relay_desktop.agent.events import Outcome

__all__ = ["MAX_TASK_CHARS", "AgentSettings", "RunResult"]

MAX_TASK_CHARS = 4000


def task_problem(task: str) -> str | None:
    """Why a task cannot be run as given (a sentence to show), or None. Asked before a phone is touched."""
    task = task.strip()
    if not task:
        return "the task is empty: say what the agent should do on the phone"
    if len(task) > MAX_TASK_CHARS:
        return (f"the task is {len(task):,} characters long; the limit is {MAX_TASK_CHARS:,}. "
                "Describe what to do in a few sentences.")
    return None


@dataclass(frozen=True)
class AgentSettings:
    max_steps: int = 50
    screenshots: bool = True               # send a screenshot with every step (element maps alone are cheaper)
    screenshot_max_bytes: int = 150_000
    # Apps (package names) whose screens are never sent to a model as images: the agent works from their
    # elements there, as on a protected (FLAG_SECURE) screen.
    private_apps: tuple[str, ...] = ()
    # Read text off the screenshot too (toasts, canvases, web content), when the ocr extra is installed;
    # RELAY_DESKTOP_OCR=off turns it off (it costs CPU on every step).
    ocr: bool = field(default_factory=lambda: os.environ.get("RELAY_DESKTOP_OCR", "on").lower() not in
                      ("off", "0", "false", "no"))
    planning: bool = True                  # the planning agent (initial + recovery guidance)
    split_screen: bool = True              # two apps side by side, one loop each, when the planning agent says so
    verify_completion: bool = True         # check the fast agent's "complete" before ending as a success
    progress_every: int = 3                # progress check after this many stale iterations
    failure_replan: int = 3                # step failures since the last plan that call the planning agent
    last_resort_window: int = 5            # blocking planning this many steps before the end
    consecutive_error_limit: int = 5
    stale_check_after_s: float = 1.0       # re-read the screen before acting when planning took longer
    recovery_wait_s: float = 120.0         # how long the fast agent waits for a recovery plan in flight
    settle_s: float = 0.0                  # pause after acting before the next capture (no mirror to watch)
    pace_s: float = 0.0                    # shortest step, so a person can follow (the demo); 0: full speed
    max_self_heals: int = 3
    fast_max_tokens: int = 1024
    shell_allowed: tuple[str, ...] = ()    # adb shell command prefixes the agent may run; empty: no shell tool
    # When every model fails mid-run, the rule-based planner carries on only if the user allowed it; otherwise
    # the run ends with an error naming the model, never a "success" a model the user chose did not earn.
    allow_fallback: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.max_steps <= 500:
            raise ValueError(f"max steps must be between 1 and 500, not {self.max_steps}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RunResult:
    run_id: str
    task: str
    outcome: Outcome
    reason: str
    steps: int
    elapsed_s: float
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    answer: str = ""                       # the value a question task asked for ("" when it asked none)

    @property
    def success(self) -> bool:
        return self.outcome == "success"
