"""Did it work? Three checks from the spec.

* :func:`verify_step` — did the screen change the way the action should have made it change (a typed
  field holds the text, the launched app is in front, a tap changed something)? Deterministic and free:
  it compares the screens before and after, so it runs on the capture the next step needs anyway.
* :class:`ProgressChecker` — the fast model judges whether the last few actions are getting anywhere.
* :class:`CompletionVerifier` — before a run ends as a success, a model checks the task is really done.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.loop.prompts import UNTRUSTED_NOTICE, as_data, neutralise_delimiters, screen_block
from relay_desktop.agent.ports import Models
from relay_desktop.agent.steps.actions import Step
from relay_desktop.llm.costs import CostMeter
from relay_desktop.llm.types import ImagePart, LLMRequest, LLMResponse, Message, OutputContract
from relay_desktop.perception import focused_field

__all__ = ["CompletionVerifier", "ProgressChecker", "Verdict", "verify_step"]


MAX_TRANSCRIPT = 40           # steps shown to the completion verifier: the first ones and the most recent


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str
    response: LLMResponse | None = None
    missing_evidence: bool = False    # not shown to be done, rather than shown to be wrong or unfinished


def _texts(observation: Observation) -> list[str]:
    return [f"{e.label}\n{e.value}" for e in observation.element_map.elements]


def _flat(text: str) -> str:
    """Text compared without regard to how lines were broken or spaced (dumps differ in that)."""
    return " ".join(text.split())


def _typed(step: Step, before: Observation, after: Observation) -> Verdict | None:
    """The typed text checked against the field's own value, line breaks and all."""
    text = str(step.params.get("text", ""))
    element_id = step.element
    field = after.element_map.get(element_id) if element_id else None
    if field is None or field.role != "field":
        field = next((e for e in after.element_map.elements if e.role == "field" and "focused" in e.states), None)
    if field is None:
        return None
    value = field.value
    cut = value.endswith("…") or "…(+" in value
    shown = value.split("…")[0] if cut else value
    wanted, have = _flat(text), _flat(shown)
    if text and (wanted in have or (cut and have and wanted.startswith(have))):
        return Verdict(True, f"{field.id} now holds the typed text")
    if not text and step.params.get("clear"):
        return Verdict(not value, f"{field.id} is empty" if not value else f'{field.id} still holds "{value}"')
    return None


def _typed_secret(step: Step, before: Observation, after: Observation, changed: bool) -> Verdict:
    """A secret's value is never known here (nor shown by a password field): the field must have taken text."""
    name = step.params.get("secret")
    old = before.element_map.get(step.element) if step.element else focused_field(before.element_map)
    new = after.element_map.get(step.element) if step.element else focused_field(after.element_map)
    if new is not None and new.value and (old is None or new.value != old.value):
        return Verdict(True, f"the field took the secret {name}")
    if step.params.get("submit") and changed:
        return Verdict(True, "the secret was typed and submitted, and the screen changed")
    if new is None and changed:
        return Verdict(True, "the screen changed after typing the secret")
    return Verdict(False, f"the field did not change after typing the secret {name}: it may not have had focus")


def verify_step(step: Step, before: Observation, after: Observation, package: str | None = None, *,
                changed: bool | None = None) -> Verdict:
    """Whether ``step`` had the effect it should have had, judged from the screens before and after it.
    ``changed``: whether anything changed at all, pictures included (default: the element list's fingerprint)."""
    if changed is None:
        changed = before.fingerprint != after.fingerprint
    action = step.action
    if action == "type" and step.params.get("secret"):
        return _typed_secret(step, before, after, changed)
    if action == "type":
        text = str(step.params.get("text", ""))
        verdict = _typed(step, before, after)
        if verdict is not None and verdict.ok:
            return verdict
        if text and any(_flat(text) in _flat(t) for t in _texts(after)):
            return Verdict(True, "the screen shows the typed text")
        if step.params.get("submit") and changed:
            return Verdict(True, "the text was submitted and the screen changed")
        if verdict is not None:
            return verdict
        field = after.element_map.get(step.element) if step.element else None
        holds = f' (the field holds "{field.value}")' if field is not None and field.role == "field" else ""
        return Verdict(False, f'"{text}" is not in the field after typing{holds}: the field may not have had '
                              "focus, or the keyboard typed elsewhere")
    if action == "launch_app":
        if package and after.app == package:
            return Verdict(True, f"{package} is in front")
        return Verdict(False, f"{package or step.params.get('app')} is not in front (showing {after.app})")
    if action in ("wait", "ask_user", "complete", "fail"):
        return Verdict(True, "nothing to check")
    if changed:
        return Verdict(True, "the screen changed")
    if action in ("scroll", "swipe"):
        return _gesture_without_effect(step, before)
    return Verdict(False, f"'{step.describe()}' changed nothing on the screen (neither the elements nor the picture)")


def _gesture_without_effect(step: Step, before: Observation) -> Verdict:
    """A scroll or swipe that moved nothing. Only in a scrollable container does that mean the end was reached,
    which is news, not a failure (a last "is this the end?" scroll); a pull at a screen edge (the notification
    shade) or a swipe on a page that does not scroll did nothing, and is not told as the end of a list."""
    direction = step.params.get("direction")
    edge = step.params.get("from_edge")
    if edge:
        return Verdict(False, f"the swipe {direction} from the {edge} edge changed nothing (nothing opened or "
                              "moved)")
    element = before.element_map.get(step.element) if step.element else None
    point = element.bounds.center if element is not None else before.element_map.screen.center
    in_list = any(("scrollable" in e.states or e.role == "scroll") and e.bounds.contains_point(*point)
                  for e in before.element_map.elements)
    if in_list:
        return Verdict(True, f"nothing moved: the list is at its end scrolling {direction}, so all of it that way has "
                             "been shown")
    return Verdict(False, f"the {step.action} {direction} changed nothing: nothing there scrolls (it is not a "
                          "list), so there is nothing more to reveal that way")


_PROGRESS = OutputContract("progress", "Whether the agent is making meaningful progress.", {
    "type": "object", "properties": {"progressing": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["progressing", "reason"]})
_COMPLETION = OutputContract("completion", "Whether the task is really done.", {
    "type": "object", "properties": {
        "reasoning": {"type": "string", "description": "each part of the task and the evidence for it, first"},
        "done": {"type": "boolean"},
        "missing_evidence": {"type": "boolean",
                             "description": "not done only because what you were shown does not prove a part"},
        "reason": {"type": "string"}},
    "required": ["done", "reason"]})
COMPLETION_MAX_TOKENS = 1200   # room to weigh every part of a multi-part task before the verdict


def _image(observation: Observation) -> tuple[ImagePart, ...]:
    shot = observation.screenshot
    return (ImagePart(shot.jpeg),) if shot is not None else ()


class ProgressChecker:
    """The fast model answers: given the task, the screen and the last 5 actions, is this getting anywhere?"""

    SYSTEM = ("You supervise an agent operating an Android phone. Judge strictly whether its recent actions are "
              "making meaningful progress toward the user's task (new screens closer to the goal, fields filled), "
              "or whether it is going in circles, repeating itself or working on the wrong thing.\n\n"
              + UNTRUSTED_NOTICE)

    def __init__(self, models: Models, meter: CostMeter | None = None) -> None:
        self.models = models
        self.meter = meter

    async def check(self, task: str, observation: Observation, recent: Sequence[str], facts: str = "") -> Verdict:
        actions = "\n".join(f"- {line}" for line in recent[-8:]) or "- (none yet)"
        evidence = as_data(f"{facts}\n\n" * bool(facts) + "Last actions (each with the label its element had when "
                           f"acted on) and results:\n{actions}")
        text = f"TASK: {task}\n\n{evidence}\n\n{screen_block(observation)}"
        request = LLMRequest(self.SYSTEM, (Message.user(text, *_image(observation)),), _PROGRESS, max_tokens=300)
        response = await self.models.generate("fast", request, meter=self.meter)
        data = response.data or {}
        return Verdict(bool(data.get("progressing")), str(data.get("reason", "")), response)


class CompletionVerifier:
    """Checks the fast agent's "complete" against the screen before the run may end as a success."""

    SYSTEM = ("You verify whether an Android task is really finished, from the phone's current screen, the "
              "transcript of every step the agent took (each with the label its element had when acted on, and "
              "what it did), and the facts it noted on the way. A fact is the agent's own words, not something "
              "seen: trust it only as far as the screen text quoted with it backs it. A task may span several "
              "apps: judge earlier parts from the transcript and the backed facts, the last part from the screen. "
              "Say done only when this evidence shows the task's result; do not ask to see "
              "again what the transcript already proves. Think first, in reasoning: list each part of the task "
              "and the evidence for it. For every message sent or text typed, check it says what was asked: "
              "nothing missing, and nothing the user did not ask for. If the agent did a different or wrong thing "
              "(another item, another contact, the wrong setting, a message that says something else), say so "
              "with the words 'wrong' or 'instead of' and what it did instead. If the work may well be done but "
              "nothing you were shown proves a part of it, set missing_evidence and say in reason exactly what "
              "is missing (the agent will show it); that is not 'wrong'.\n\n" + UNTRUSTED_NOTICE)

    def __init__(self, models: Models, meter: CostMeter | None = None) -> None:
        self.models = models
        self.meter = meter
        self.earlier: list[str] = []      # this run's previous verdicts, so a second check knows the first

    async def verify(self, task: str, observation: Observation, summary: str, transcript: Sequence[str],
                     facts: str = "", read: str = "") -> Verdict:
        """``read``: the screen lines the agent decided on (memory.read_text), so a fact can be checked here."""
        steps = list(transcript)
        if len(steps) > MAX_TRANSCRIPT:
            head = MAX_TRANSCRIPT // 4
            steps = [*steps[:head], f"… ({len(steps) - MAX_TRANSCRIPT} steps in between left out)",
                     *steps[-(MAX_TRANSCRIPT - head):]]
        actions = "\n".join(f"- {line}" for line in steps) or "- (none)"
        evidence = as_data(f"{facts}\n\n" * bool(facts) + f"{read}\n\n" * bool(read) +
                           f"Transcript of the run (every step, oldest first):\n{actions}")
        earlier = ("\n\nYour earlier verdicts in this run (the agent has acted since):\n"
                   + "\n".join(f"- {v}" for v in self.earlier)) if self.earlier else ""
        text = (f"TASK: {task}\n\nThe agent says it is done: {summary}{earlier}\n\n{evidence}\n\nThe phone's "
                f"screen now:\n{screen_block(observation)}")
        request = LLMRequest(self.SYSTEM, (Message.user(text, *_image(observation)),), _COMPLETION,
                             max_tokens=COMPLETION_MAX_TOKENS)
        response = await self.models.generate("verifier", request, meter=self.meter)
        data = response.data or {}
        done = bool(data.get("done"))
        reason = str(data.get("reason", ""))
        verdict = Verdict(done, reason, response,
                          missing_evidence=not done and bool(data.get("missing_evidence")) and not wrong_task(reason))
        said = "done" if done else ("evidence missing" if verdict.missing_evidence else "not done")
        self.earlier.append(f"{said}: {neutralise_delimiters(reason)}")
        return verdict


WRONG_TASK_WORDS = ("wrong", "different", "instead of")


def wrong_task(reason: str) -> bool:
    """The spec's wrong-task detection: the completion check says the agent did something else."""
    lowered = reason.lower()
    return any(word in lowered for word in WRONG_TASK_WORDS)
