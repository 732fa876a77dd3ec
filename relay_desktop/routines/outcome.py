"""What one look at the screen found for a replayed step, and how a replay went."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.routines.model import BoundStep

__all__ = ["Look", "ReplayOutcome"]


@dataclass(frozen=True)
class Look:
    observation: Observation
    problem: str | None = None           # why the step cannot go ahead on this screen
    element: Any = None                  # the step's target on it, when found


@dataclass
class ReplayOutcome:
    finished: bool                         # every step replayed and the end checked
    replayed: int                          # steps carried out from the routine
    reason: str = ""                       # why it stopped, when it did
    stopped_at: int | None = None          # the routine step (0-based) it stopped before
    remaining: list[BoundStep] = field(default_factory=list)
    last: Observation | None = None        # the screen it stopped on
    interruption: str | None = None        # the dialog in its way, when that is why it stopped
    ended_at: float = field(default_factory=time.monotonic)
    done: list[str] = field(default_factory=list)   # what the replay did, step by step, in words
