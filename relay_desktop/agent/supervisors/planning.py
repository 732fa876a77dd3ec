"""The planning agent: a slower, stronger model that decides how to go about the task, not what to tap.

It is asked at the start of a run (in the background: the fast agent does not wait for it) and again when the
run goes wrong: no progress, repeated step failures, a wrong "done", or the last few steps. It answers with two
or three approaches, each with a short list of steps and a confidence, and which one to try first. The fast
agent gets the recommended one as guidance text; the planner never acts on the phone itself.

Failures of the model call (`LLMError`) reach the caller: the orchestrator decides whether to go on without
guidance or keep the previous plan.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.loop.prompts import (
    UNTRUSTED_NOTICE,
    as_data,
    device_block,
    neutralise_delimiters,
    screen_block,
)
from relay_desktop.device.models import AppInfo
from relay_desktop.llm.errors import InvalidOutput
from relay_desktop.llm.types import ImagePart, LLMRequest, LLMResponse, Message, OutputContract

if TYPE_CHECKING:
    from relay_desktop.agent.ports import Models
    from relay_desktop.llm.costs import CostMeter

__all__ = ["PLANNING_CONTRACT", "Approach", "PlanningAgent", "PlanningResult", "SplitScreenRecommendation"]

log = logging.getLogger(__name__)

GUIDANCE_HEADER = "STRATEGIC GUIDANCE (from planning agent):"
MAX_STEPS_PER_APPROACH = 10  # the fast agent re-plans every turn; a longer list is noise in its prompt
MAX_FAILURES_SHOWN = 15      # the newest ones: older failures are usually already covered by the previous plan
MAX_FAILURE_CHARS = 400
MAX_APPS_SHOWN = 200         # the planner chooses the app, so it gets a longer list than the fast agent

# The planner writes guidance that lands outside the screen data section of the fast agent's prompt; a
# delimiter echoed from the screen must not open or close a section there (neutralise_delimiters).
_SPACE = re.compile(r"\s+")


def _line(text: Any) -> str:
    """One clean line: model text with newlines would break the numbered step list of the guidance."""
    return _SPACE.sub(" ", neutralise_delimiters(str(text))).strip()


@dataclass(frozen=True)
class Approach:
    name: str
    description: str
    steps: tuple[str, ...]
    confidence: float  # 0..1, the planner's own estimate that this approach gets the task done


@dataclass(frozen=True)
class SplitScreenRecommendation:
    """Two apps to run side by side, each with its part of the task (e.g. read in one, type into the other).
    The first goes in the top half (left in landscape), the second below it, where the keyboard rises. Consumed
    by the split-screen coordinator, never shown to the fast agent as guidance."""

    apps: tuple[str, str]
    goals: tuple[str, str] = ("", "")
    reason: str = ""


@dataclass(frozen=True)
class PlanningResult:
    approaches: tuple[Approach, ...]
    recommended_index: int
    diagnosis: str = ""  # recovery plans: why the run went wrong
    split_screen: SplitScreenRecommendation | None = None
    trigger: str = "initial"  # initial, stall, failures (or step_failures), wrong_task, last_resort
    response: LLMResponse | None = None  # kept for the run log: cost, latency, the model's thinking

    def __post_init__(self) -> None:
        if not self.approaches:
            raise ValueError("a plan needs at least one approach")

    @property
    def _index(self) -> int:
        # Clamped here too, so a result built by hand can never index out of range.
        return min(max(self.recommended_index, 0), len(self.approaches) - 1)

    @property
    def recommended(self) -> Approach:
        return self.approaches[self._index]

    @property
    def alternatives(self) -> tuple[Approach, ...]:
        return tuple(a for i, a in enumerate(self.approaches) if i != self._index)

    def to_guidance_text(self) -> str:
        """The guidance the fast agent gets, in the design's format (see the architecture document)."""
        best = self.recommended
        lines = [GUIDANCE_HEADER, f"Recommended approach: {best.name}", best.description]
        if best.steps:
            lines.append("Steps:")
            lines.extend(f"  {number}. {step}" for number, step in enumerate(best.steps, 1))
        alternatives = self.alternatives
        if alternatives:
            lines += ["", "Alternative approaches if this fails:"]
            lines.extend(f"- {a.name}: {a.description}" for a in alternatives)
        if self.diagnosis:
            # A diagnosis is the strategist's reading of the failures, not a fact the acting agent should act on.
            lines += ["", f"Diagnosis (the planning agent's guess, not checked on the phone): {self.diagnosis}"]
        return "\n".join(lines)

    def pinned_message(self, task: str) -> str:
        """The first message of the fast agent's conversation, which trimming never removes."""
        return f"TASK: {task}\n\n{self.to_guidance_text()}"

    @classmethod
    def from_data(cls, data: Mapping[str, Any], *, trigger: str = "initial",
                  response: LLMResponse | None = None) -> PlanningResult:
        """A result from the model's validated answer, tidied: one-line fields, bounded lists, index in range."""
        approaches = []
        for number, raw in enumerate(data.get("approaches") or (), 1):
            if not isinstance(raw, Mapping):
                continue
            steps = tuple(s for s in (_line(step) for step in raw.get("steps") or ()) if s)
            try:
                confidence = float(raw.get("confidence", 0.5))
            except (TypeError, ValueError):
                confidence = 0.5
            approaches.append(Approach(name=_line(raw.get("name", "")) or f"Approach {number}",
                                       description=_line(raw.get("description", "")),
                                       steps=steps[:MAX_STEPS_PER_APPROACH],
                                       confidence=min(max(confidence, 0.0), 1.0)))
        if not approaches:
            raise InvalidOutput("the planning model proposed no approach")
        try:
            index = int(data.get("recommended_index", 0))
        except (TypeError, ValueError):
            index = 0
        if not 0 <= index < len(approaches):
            log.warning("planning: recommended_index %s is out of range for %d approaches; clamped",
                        index, len(approaches))
            index = min(max(index, 0), len(approaches) - 1)
        return cls(tuple(approaches), index, diagnosis=_line(data.get("diagnosis") or ""),
                   split_screen=_split_screen(data.get("split_screen")), trigger=trigger, response=response)


def _split_screen(raw: Any) -> SplitScreenRecommendation | None:
    if not isinstance(raw, Mapping):
        return None
    apps = [_line(a) for a in raw.get("apps") or () if _line(a)]
    if len(apps) != 2 or apps[0].lower() == apps[1].lower():
        return None
    goals = [_line(g) for g in raw.get("goals") or ()][:2]
    goals += [""] * (2 - len(goals))
    return SplitScreenRecommendation((apps[0], apps[1]), (goals[0], goals[1]), _line(raw.get("reason") or ""))


_APPROACH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "a few words, e.g. 'Use the Clock app'"},
        "description": {"type": "string", "description": "one or two sentences: what to do and why it works"},
        "steps": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                  "description": "short high-level steps (screens and goals, not element ids)"},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "required": ["name", "description", "steps", "confidence"],
}

# recommended_index has no bounds in the schema: an out-of-range index is clamped on our side, which is
# cheaper than a repair round-trip to a slow model.
PLANNING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "diagnosis": {"type": "string",
                      "description": "recovery only: the root cause of the failures so far, in one or two sentences"},
        "approaches": {"type": "array", "items": _APPROACH_SCHEMA, "minItems": 1, "maxItems": 3},
        "recommended_index": {"type": "integer", "description": "0-based index of the approach to try first"},
        "split_screen": {
            "type": "object",
            "description": "only when the task needs two apps open side by side",
            "properties": {
                "apps": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2,
                         "description": "[the app read from (top half), the app typed into (bottom half)]"},
                "goals": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2,
                          "description": "what to get done in each app, in the same order"},
                "reason": {"type": "string"}},
            "required": ["apps", "goals"],
        },
    },
    "required": ["approaches", "recommended_index"],
}

PLANNING_CONTRACT = OutputContract(
    "plan_strategy", "Two or three ways to get the user's task done on this phone, and which to try first.",
    PLANNING_SCHEMA)

_SYSTEM = f"""You are the strategist for an agent that operates an Android phone for a user.
Another, faster agent does the tapping and typing, one screen at a time; it follows your guidance. You never \
act on the phone: you decide HOW the task is best done.

You get the user's task, the phone (device, installed apps and what they can do), the current screen as an \
element list and usually a screenshot. Answer with 2 or 3 distinct approaches (1 only when there is truly one \
way), each with:
- name: a few words;
- description: one or two sentences, what to do and why it works;
- steps: 2 to 8 short, high-level steps in terms of apps, screens and goals (e.g. "Open the Clock app", \
"Go to the Alarm tab", "Add an alarm for 7:00"), never element ids, which change from screen to screen;
- confidence: 0 to 1, how likely the approach gets the task done.
Set recommended_index to the approach to try first: usually the most direct, reliable one.

Guidelines:
- Prefer a dedicated installed app over a web search; prefer opening an app directly over hunting for it \
on the home screen; prefer the app's own search, shortcuts and deep settings pages over long navigation.
- Use only apps that are installed; say if the task needs one that is not.
- Think about what is already on screen: if the task is half done, plan from where the phone is now.
- Anticipate obstacles: sign-in walls, permission dialogs, pop-ups, the keyboard covering fields.
- Plan a send, payment, deletion or install only when the task (or what it points to, such as a message to \
answer) asks for it; then plan it plainly, the user confirms it when it runs. Until the agent has read what the \
task points to, plan reading it first, not what it might say.
- Plan nothing the task did not ask for: no switch turned on or setting changed to see what happens.
- Never plan to type a password or code the user did not give (a saved secret, when listed, counts as given).
- Set split_screen only when the task truly needs two apps side by side: much of what one shows is copied \
piece by piece into the other (a list, a recipe, several fields), or the user asks for split screen. A value \
or two read in one app and typed in another needs none: the agent remembers them and switches apps, which is \
simpler. Both apps must be installed. Then the phone is put in split screen and two agents work at once, one \
per app: apps lists the app read from first (it goes in the top half) and the app typed into second (the \
bottom half, above the keyboard); goals says what each agent gets done in its app, e.g. ["Open the recipe and \
note each ingredient", "Write the ingredients into a new note"]. They share what they note, so the second can \
use what the first found.

{UNTRUSTED_NOTICE}"""

_RECOVERY_ASK = """The phone agent has been working on this task and it is NOT going well. Above are the \
failures so far and the plan it was following.
1. Diagnose the ROOT CAUSE: why did the plan fail or stall? Look at the current screen: where is the phone \
now, is it in the wrong app or screen, is something blocking, was the approach wrong for this phone? Put it in \
"diagnosis", in one or two sentences.
2. Consider stopping first: recommend stopping with fail and the reason when the evidence shows the task \
cannot be done on this phone: the app lacks the control or option the task needs, or what it asks for does not \
exist here (no such item, contact, app or setting). Say so in "diagnosis"; never a substitute the user did not \
ask for. Stopping is a right answer, not a defeat.
3. Otherwise recommend a way that avoids the cause you found: a different app, path or way of doing it, or the \
same approach when the diagnosis shows exactly what to change (then say so in its description).
4. Start the steps from the CURRENT screen. Plan what the task asks for, never an experiment that changes \
something the task did not ask for (turning an alarm on "to see if the card changes"); if the agent changed \
such a thing, the first step is to undo it, also before stopping."""

_TRIGGER_NOTES = {
    "stall": "Why you are asked now: a progress check found the agent is not making progress.",
    "step_failures": "Why you are asked now: several of the agent's steps failed.",
    "failures": "Why you are asked now: several of the agent's steps failed.",
    "wrong_task": "Why you are asked now: the agent said the task was done, but a check found it did the wrong "
                  "thing or something different from what was asked.",
    "last_resort": "Why you are asked now: the step budget is nearly used up. Recommend the most direct and "
                   "reliable way to finish from the current screen; no exploration.",
}


def _budget_line(budget: tuple[int, int] | None) -> str:
    if budget is None:
        return ""
    step, limit = budget
    return (f"Step budget: this is step {step} of {limit}; {max(0, limit - step)} steps are left for your plan. "
            "Keep it within that.")


def _context(task: str, observation: Observation, apps: Sequence[AppInfo], knowledge: str,
             secret_names: Sequence[str] = ()) -> list[str]:
    parts = [f"TASK: {task}", device_block(observation, apps, max_apps=MAX_APPS_SHOWN)]
    if secret_names:
        parts.append(f"Saved secrets: {', '.join(secret_names)}. They count as given by the user: the agent types "
                     "one by its name (its value is never shown), so a plan may use one where it is what is asked.")
    if knowledge.strip():
        parts.append(f"What the installed apps can do:\n{knowledge.strip()}")
    return parts


def _failure_lines(failures: Sequence[str]) -> str:
    shown = list(failures)[-MAX_FAILURES_SHOWN:]
    lines = []
    if len(failures) > len(shown):
        lines.append(f"({len(failures) - len(shown)} earlier failures not shown)")
    for number, failure in enumerate(shown, 1):
        text = _line(failure)
        if len(text) > MAX_FAILURE_CHARS:
            text = text[:MAX_FAILURE_CHARS - 1] + "…"
        lines.append(f"{number}. {text}")
    return "\n".join(lines) or "(no failure details recorded)"


class PlanningAgent:
    """Asks the planning model for a strategy; one instance per run (it keeps the run's cost meter)."""

    def __init__(self, models: Models, *, meter: CostMeter | None = None, max_tokens: int = 2048) -> None:
        self.models = models
        self.meter = meter
        self.max_tokens = max_tokens
        self.secret_names: Sequence[str] = ()      # the user's saved secrets, by name (set when the run starts)

    @staticmethod
    def system_prompt() -> str:
        return _SYSTEM

    async def plan_initial(self, task: str, observation: Observation, apps: Sequence[AppInfo],
                           knowledge: str = "") -> PlanningResult:
        """Asked before the agent acts (PlanningCoordinator.start_initial): the screen is the phone as it is, with
        nothing done before it, so no step list can sit beside a screen older than it."""
        parts = _context(task, observation, apps, knowledge, self.secret_names)
        parts.append("The current screen:\n" + screen_block(observation))
        parts.append("Plan how to do the task, starting from this screen. The agent starts on it while you plan, "
                     "and follows your plan from wherever it has got to.")
        return await self._ask("\n\n".join(parts), observation, trigger="initial")

    async def plan_recovery(self, task: str, observation: Observation, apps: Sequence[AppInfo],
                            failure_context: Sequence[str], previous: PlanningResult | None,
                            knowledge: str = "", trigger: str = "stall", budget: tuple[int, int] | None = None,
                            facts: str = "") -> PlanningResult:
        parts = _context(task, observation, apps, knowledge, self.secret_names)
        if facts:
            parts.append(as_data(facts))   # the agent's notes quote the screen
        # The failures quote screen labels: data, not instructions.
        parts.append(as_data("WHAT HAS GONE WRONG SO FAR (oldest first):\n" + _failure_lines(failure_context)))
        if previous is not None:
            parts.append("THE PLAN THE AGENT WAS FOLLOWING (it has not worked):\n" + previous.to_guidance_text())
        else:
            parts.append("The agent had no plan from you yet: it was acting on the task alone.")
        if trigger in _TRIGGER_NOTES:
            parts.append(_TRIGGER_NOTES[trigger])
        if budget is not None:
            parts.append(_budget_line(budget))
        parts.append("The current screen:\n" + screen_block(observation))
        parts.append(_RECOVERY_ASK)
        return await self._ask("\n\n".join(parts), observation, trigger=trigger)

    async def _ask(self, text: str, observation: Observation, *, trigger: str) -> PlanningResult:
        shot = observation.screenshot
        images = (ImagePart(shot.jpeg, shot.media_type),) if shot is not None else ()
        request = LLMRequest(_SYSTEM, (Message.user(text, *images),), PLANNING_CONTRACT, max_tokens=self.max_tokens)
        response = await self.models.generate("planning", request, meter=self.meter)
        if response.data is None:
            raise InvalidOutput("the planning model gave no structured plan", provider=response.provider,
                                model=response.model, text=response.text)
        result = PlanningResult.from_data(response.data, trigger=trigger, response=response)
        log.info("planning (%s): %r recommended of %d approaches, %.1fs", trigger, result.recommended.name,
                 len(result.approaches), response.latency_s)
        return result
