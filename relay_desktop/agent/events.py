"""What a run tells the world: one typed record per stage, on one stream.

The window, the command line and the run store all consume the same :class:`EventBus`. Events are plain
frozen dataclasses emitted on the event loop; subscribers are called synchronously and must be quick
(queue the work, as the run store does). A subscriber that raises is logged and kept — one broken consumer
must not stop a run. ``to_json`` gives every event's JSON-lines form (no images, no API keys).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from relay_desktop.agent.steps.actions import SemanticActionPlan, Step
    from relay_desktop.perception import Bounds, ElementMap, PreparedScreenshot

log = logging.getLogger(__name__)

Outcome = Literal["success", "failed", "stopped", "max_steps", "error"]


@dataclass(frozen=True, kw_only=True)
class Event:
    run_id: str
    time: float = field(default_factory=time.time)

    @property
    def kind(self) -> str:
        return _KINDS[type(self)]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind}
        for f in fields(self):
            if f.name in _HEAVY:
                continue
            out[f.name] = _plain(getattr(self, f.name))
        return out


@dataclass(frozen=True, kw_only=True)
class RunStarted(Event):
    task: str
    serial: str
    max_steps: int
    settings: dict[str, Any]          # models per role and agent options — never keys


@dataclass(frozen=True, kw_only=True)
class StepStarted(Event):
    step: int                          # 1-based iteration number
    max_steps: int
    window: str = ""                   # in split screen: the app whose half's loop this step is


@dataclass(frozen=True, kw_only=True)
class ScreenCaptured(Event):
    step: int
    element_map: ElementMap
    screenshot: PreparedScreenshot | None
    app: str                           # package in front
    layout_hash: str
    fingerprint: str
    capture_ms: float
    diff_text: str                     # what changed since the previous step
    # The whole display in device pixels, turned as the phone is (navigation bar included): what element bounds
    # and action points are measured in, and what the picture shows. The element map's own screen can be shorter.
    display: tuple[int, int] = (0, 0)
    # Why no picture of this screen was kept or sent (Observation.withheld): "protected" (FLAG_SECURE) or
    # "private app"; "" when the picture went as usual.
    withheld: str = ""


@dataclass(frozen=True, kw_only=True)
class PlanReceived(Event):
    step: int
    plan: SemanticActionPlan
    source: str                        # "model" or "fallback"
    thinking: str = ""                 # the model's reasoning (its thinking tokens, else the plan's own words)
    model: str = ""
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    prompt: str = ""                   # the prompt text as sent (screen data included, images not)
    response: str = ""                 # the model's raw answer


@dataclass(frozen=True, kw_only=True)
class GuidanceUpdated(Event):
    step: int
    trigger: str                       # "initial", "stall", "failures", "last_resort"
    guidance: str                      # the strategic guidance text as the fast agent reads it
    approach: str                      # name of the recommended approach


@dataclass(frozen=True, kw_only=True)
class ActionStarted(Event):
    step: int
    index: int                         # position in the plan
    action: Step
    description: str
    bounds: Bounds | None              # the target element's box on the device screen
    point: tuple[int, int] | None      # where the touch lands
    # What a routine needs to find the target again another day (routines/identity.py), and the screen it acted
    # on: plain JSON, None when the step had no element (or no screen was known).
    target: dict[str, Any] | None = None
    screen: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class ActionResult(Event):
    step: int
    index: int
    action: Step
    ok: bool
    message: str
    duration_ms: float


@dataclass(frozen=True, kw_only=True)
class ActionEffect(Event):
    """What a carried-out action changed, judged on the next look at the screen (routines/effects.py)."""

    step: int                          # the step the action ran in (the effect is seen one step later)
    index: int
    effect: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Verification(Event):
    step: int
    check: str                         # "step", "progress", "completion", "stale_ui"
    ok: bool
    reason: str
    # A step check: whether the step changed the screen at all. A scroll at a list's end passes its check (the
    # end reached is news) yet changed nothing, and the bench counts it among the steps without effect.
    changed: bool | None = None


@dataclass(frozen=True, kw_only=True)
class LogLine(Event):
    message: str
    level: str = "info"                # "info", "warning", "error"
    step: int | None = None


@dataclass(frozen=True, kw_only=True)
class HumanInput(Event):
    step: int
    purpose: str                       # "question", "confirmation", "sign_in"
    prompt: str
    answer: str


@dataclass(frozen=True, kw_only=True)
class RunStateChanged(Event):
    state: str                         # "running", "paused", "stopping"
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class RunFinished(Event):
    outcome: Outcome
    reason: str
    answer: str = ""                   # complete's answer: the value a question task asked for, short
    steps: int
    elapsed_s: float
    input_tokens: int
    output_tokens: int
    cost_usd: float


_KINDS: dict[type, str] = {
    RunStarted: "run_started", StepStarted: "step_started", ScreenCaptured: "screen_captured",
    PlanReceived: "plan_received", GuidanceUpdated: "guidance_updated", ActionStarted: "action_started",
    ActionResult: "action_result", ActionEffect: "action_effect", Verification: "verification", LogLine: "log",
    HumanInput: "human_input", RunStateChanged: "run_state", RunFinished: "run_finished",
}
# Too big for a JSON line: the window and the run store read these from the event object itself.
_HEAVY = {"element_map", "screenshot", "prompt", "response", "screen"}


def _plain(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if hasattr(value, "as_list"):
        return value.as_list()
    if isinstance(value, tuple):
        return list(value)
    return value


Subscriber = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback`` with every event; returns the function that unsubscribes it."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)
        return unsubscribe

    def emit(self, event: Event) -> None:
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:
                log.exception("event subscriber %r failed on %s", callback, event.kind)
