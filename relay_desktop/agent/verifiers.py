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

from relay_desktop.agent.actions import Step
from relay_desktop.agent.observation import Observation
from relay_desktop.agent.ports import Models
from relay_desktop.agent.prompts import UNTRUSTED_NOTICE, screen_block
from relay_desktop.llm.costs import CostMeter
from relay_desktop.llm.types import ImagePart, LLMRequest, LLMResponse, Message, OutputContract

__all__ = ["CompletionVerifier", "ProgressChecker", "Verdict", "verify_step"]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str
    response: LLMResponse | None = None


def _texts(observation: Observation) -> list[str]:
    return [f"{e.label}\n{e.value}" for e in observation.element_map.elements]


def verify_step(step: Step, before: Observation, after: Observation, package: str | None = None) -> Verdict:
    """Whether ``step`` had the effect it should have had, judged from the screens before and after it."""
    changed = before.fingerprint != after.fingerprint
    action = step.action
    if action == "type":
        text = str(step.params.get("text", "")).strip()
        if text and any(text in t for t in _texts(after)):
            return Verdict(True, f'the screen shows "{text}"')
        if step.params.get("submit") and changed:
            return Verdict(True, "the text was submitted and the screen changed")
        return Verdict(False, f'"{text}" does not appear on the screen after typing: the field may not have had '
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
        return Verdict(False, f"scrolling {step.params.get('direction')} changed nothing: the end of the list "
                              "may have been reached")
    return Verdict(False, f"'{step.describe()}' changed nothing on the screen")


_PROGRESS = OutputContract("progress", "Whether the agent is making meaningful progress.", {
    "type": "object", "properties": {"progressing": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["progressing", "reason"]})
_COMPLETION = OutputContract("completion", "Whether the task is really done.", {
    "type": "object", "properties": {"done": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["done", "reason"]})


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

    async def check(self, task: str, observation: Observation, recent: Sequence[str]) -> Verdict:
        actions = "\n".join(f"- {line}" for line in recent[-5:]) or "- (none yet)"
        text = f"TASK: {task}\n\nLast actions and results:\n{actions}\n\n{screen_block(observation)}"
        request = LLMRequest(self.SYSTEM, (Message.user(text, *_image(observation)),), _PROGRESS, max_tokens=300)
        response = await self.models.generate("fast", request, meter=self.meter)
        data = response.data or {}
        return Verdict(bool(data.get("progressing")), str(data.get("reason", "")), response)


class CompletionVerifier:
    """Checks the fast agent's "complete" against the screen before the run may end as a success."""

    SYSTEM = ("You verify whether an Android task is really finished, from the phone's current screen and the "
              "actions taken. Say done only when the screen shows the task's result. If the agent did a different "
              "or wrong thing (another item, another contact, the wrong setting), say so with the words 'wrong' "
              "or 'instead of' and what it did instead.\n\n" + UNTRUSTED_NOTICE)

    def __init__(self, models: Models, meter: CostMeter | None = None) -> None:
        self.models = models
        self.meter = meter

    async def verify(self, task: str, observation: Observation, summary: str, recent: Sequence[str]) -> Verdict:
        actions = "\n".join(f"- {line}" for line in recent[-8:]) or "- (none)"
        text = (f"TASK: {task}\n\nThe agent says it is done: {summary}\n\nActions taken:\n{actions}\n\n"
                f"{screen_block(observation)}")
        request = LLMRequest(self.SYSTEM, (Message.user(text, *_image(observation)),), _COMPLETION, max_tokens=300)
        response = await self.models.generate("verifier", request, meter=self.meter)
        data = response.data or {}
        return Verdict(bool(data.get("done")), str(data.get("reason", "")), response)


WRONG_TASK_WORDS = ("wrong", "different", "instead of")


def wrong_task(reason: str) -> bool:
    """The spec's wrong-task detection: the completion check says the agent did something else."""
    lowered = reason.lower()
    return any(word in lowered for word in WRONG_TASK_WORDS)
