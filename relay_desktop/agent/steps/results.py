"""What each step of a plan did, told step by step: target by label, where it landed, what changed.

A plan "type the text, then tap Send" once came back as one line — ``type e12 "running late"; tap e13 → the
screen changed`` — though the tap had gone astray and nothing was sent. Now every step has its own outcome:
done (with its effect, judged on the element list *and* the picture), failed (with the error), or not run
(and why), so the model knows exactly which step to fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.actions import Step
from relay_desktop.perception import Element, ElementMap, diff_maps
from relay_desktop.perception.pixels import pixels_changed, region_changed

__all__ = ["StepOutcome", "describe_target", "effect_of", "no_visible_effect", "step_with_target"]

Status = Literal["done", "failed", "not_run"]
_EFFECT_LINES = 4


def describe_target(element: Element | None) -> str:
    """``e13 "Send SMS"``: the id with the label it had when acted on (ids alone mean other things later)."""
    if element is None:
        return ""
    name = element.name if len(element.name) <= 60 else element.name[:57] + "…"
    return f'{element.id} "{name}"' if name else element.id


def step_with_target(step: Step, element_map: ElementMap | None) -> str:
    """The step's one-line description with its element's label: ``tap e13 "Send SMS"``."""
    text = step.describe()
    if step.element and element_map is not None:
        element = element_map.get(step.element)
        if element is not None:
            text = text.replace(step.element, describe_target(element), 1)
    elif element_map is not None and step.action in ("tap", "long_press") and not step.params.get("in_screenshot"):
        # A point says nothing by itself: what was under it, so the result (and the verifier) can tell.
        x, y = step.params.get("x"), step.params.get("y")
        hit = element_map.element_at(x, y) if isinstance(x, int | float) and isinstance(y, int | float) else None
        if hit is not None and hit.name:
            text += f" on {describe_target(hit)}"
    return text


@dataclass
class StepOutcome:
    index: int                        # 0-based position in the plan
    step: Step
    described: str                    # the step with its target's label, as it was when acted on
    status: Status
    message: str                      # what the executor did, the error, or why it was not run
    before: Observation
    point: tuple[int, int] | None = None
    after: Observation | None = None  # the screen once the step had taken effect (known later)
    effect: str = ""
    effective: bool | None = None     # None: not known (not run, or no screen after it yet)
    verdict_ok: bool | None = None    # the deterministic step check (verifiers.verify_step)
    verdict: str = ""
    transcript_line: int | None = None  # where the run's transcript has this step, to add what it changed
    confirmed: bool = False           # a sensitive step the user allowed
    iteration: int = 0                # the run's step it was carried out in

    def settle(self, after: Observation, effect: str, effective: bool, verdict_ok: bool, verdict: str) -> None:
        self.after, self.effect, self.effective = after, effect, effective
        self.verdict_ok, self.verdict = verdict_ok, verdict

    def line(self) -> str:
        head = f"{self.index + 1}. {self.described}"
        if self.status == "failed":
            return f"{head} → FAILED: {self.message}"
        if self.status == "not_run":
            return f"{head} → NOT RUN: {self.message}"
        where = f" at ({self.point[0]},{self.point[1]})" if self.point and self.step.action in (
            "tap", "long_press") else ""
        result = f"{head}{where} → done" + (" (the user confirmed it)" if self.confirmed else "")
        if self.effect:
            result += f"; {self.effect}"
        if self.verdict_ok is False and self.verdict:
            result += f". CHECK FAILED: {self.verdict}"
        return result


_AROUND_POINT = 48     # screen pixels around a tapped point that count as "where it acted"


def acted_region(step: Step, before: Observation) -> tuple[float, float, float, float] | None:
    """Where on the screen a touch acted: its element's bounds, else around its point."""
    if step.action not in ("tap", "long_press"):
        return None
    element = before.element_map.get(step.element) if step.element else None
    if element is not None:
        return tuple(element.bounds)  # type: ignore[return-value]
    x, y = step.params.get("x"), step.params.get("y")
    if not (isinstance(x, int | float) and isinstance(y, int | float)):
        return None
    if step.params.get("in_screenshot"):
        try:
            x, y = before.screen_point(x, y)
        except ValueError:
            return None
    return (x - _AROUND_POINT, y - _AROUND_POINT, x + _AROUND_POINT, y + _AROUND_POINT)


def no_visible_effect(before: Observation, after: Observation, steps: Sequence[Step] = ()) -> bool:
    """Neither the element list nor the picture changed (a toast or canvas change shows in the picture), nor,
    for ``steps`` done in between, the picture where each acted (a control that only changes colour)."""
    if before.fingerprint != after.fingerprint:
        return False
    if pixels_changed(before.pixels, after.pixels) is True:
        return False
    return not _changed_where_acted(before, after, steps)


def _changed_where_acted(before: Observation, after: Observation, steps: Sequence[Step]) -> bool:
    """The picture changed, however little, where one of ``steps`` touched the screen."""
    for step in steps:
        region = acted_region(step, before)
        if region is not None and region_changed(before.pixels, after.pixels, region, before.display):
            return True
    return False


def effect_of(before: Observation, after: Observation, step: Step | None = None) -> tuple[str, bool]:
    """(what changed, in a few words; whether anything changed at all). ``step``: what was done, so that a
    small change where it acted (an icon's tint) counts."""
    if before.app and after.app and before.app != after.app:
        return f"now in {after.app}", True
    pictured = pixels_changed(before.pixels, after.pixels)
    if before.fingerprint == after.fingerprint:
        if pictured:
            return ("the picture changed but the element list did not (a toast, an animation or drawn "
                    "content: look at the screenshot)"), True
        if step is not None and _changed_where_acted(before, after, (step,)):
            return ("the picture changed where you acted, but the element list did not (a control that shows "
                    "its state only in colour or an icon: look at the screenshot)"), True
        return "no visible change", False
    diff = diff_maps(before.element_map, after.element_map)
    if diff.empty:
        return "the screen changed", True
    # Elements that only moved (a list re-laid out around a new message) are noise next to what changed.
    lines = [line for line in diff.to_text(max_lines=10_000).splitlines() if line.strip()]
    moved = [line for line in lines if line.endswith(": moved")]
    # What the step did to the controls (a switch turned, a choice selected, a value typed) comes first; things
    # that appeared or went follow.
    rank = {"~": 1, "+": 2, "-": 3}
    kept = sorted((line for line in lines if not line.endswith(": moved")), key=lambda line: rank.get(line[:1], 0)) \
        or moved[:1]
    # One change more is shown, not counted: "… and 1 more changes" is as long as the change it hides.
    shown = kept[:_EFFECT_LINES] if len(kept) > _EFFECT_LINES + 1 else kept
    if len(kept) > len(shown):
        shown.append(f"… and {len(kept) - len(shown)} more changes")
    if moved and kept is not moved[:1]:
        shown.append(f"{len(moved)} elements moved")
    return "; ".join(shown), True
