"""Replaying a routine inside a run: each step's target found on the screen as it is now, acted on through the
agent's own step runner (same gates, same events, same history), and what it changed checked against the
recording — with no model at all.

Each step waits for the screen to settle (the mirror stream, as the agent does), then looks: the previous step's
effect must show, the screen must be the app the step expects with no pop-up in the way, and the target must
be found by its identity, uniquely. Slow screens get a few more looks; anything still off is where the replay
stops, and the run's agent takes over from that screen with the routine's remaining steps as guidance.
A clean replay ends with the recorded end screen checked, and success.
"""

from __future__ import annotations

import asyncio
import io
import time
from typing import Any

from relay_desktop.agent.control import RunFinishedSignal
from relay_desktop.agent.events import ActionEffect, HumanInput, PlanReceived, ScreenCaptured, StepStarted
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.actions import ResolvedStep, SemanticActionPlan, Step, StepError, resolve_step
from relay_desktop.agent.steps.effects import record_effect
from relay_desktop.agent.steps.safety import sensitive_reason
from relay_desktop.llm.redaction import register_secret
from relay_desktop.perception import current_dialog, diff_maps
from relay_desktop.perception.screen import screen_title
from relay_desktop.routines.effects import already_done, check_effect, check_end, title_matches
from relay_desktop.routines.guidance import describe_step, facts_in, handover_guidance
from relay_desktop.routines.identity import find_target, layout_similarity, short_text, target_name
from relay_desktop.routines.model import BoundRoutine, BoundStep
from relay_desktop.routines.outcome import Look, ReplayOutcome
from relay_desktop.routines.wayfinding import ANYWHERE, SAME_LAYOUT, WayFinding

__all__ = ["Look", "ReplayOutcome", "RoutineReplayer", "describe_step", "facts_in", "handover_guidance"]

LOOK_AGAIN_FOR_S = 5.0       # how long a step waits for its screen (an animation, a slow app) before handing over
_PAUSES = (0.15, 0.3, 0.5, 0.8)
_STILL_S = 0.1              # how long the mirror must show no change before a replayed step looks
_PICTURES_KEPT = 12
_TOGGLES = ("tap", "long_press", "set_value")     # steps that only set a state, skipped when it is already so


def _decoded(jpeg: bytes) -> Any:
    from PIL import Image

    with Image.open(io.BytesIO(jpeg)) as image:
        return image.convert("RGB")


def _texts_of(observation: Observation) -> str:
    return "\n".join(f"{e.label}\n{e.value}" for e in observation.element_map.elements).casefold()


class RoutineReplayer(WayFinding):
    """One replay of a bound routine, on the orchestrator's phone, in its run (``agent``: the Orchestrator)."""

    def __init__(self, agent: Any, routine: BoundRoutine, *, wait_s: float = LOOK_AGAIN_FOR_S,
                 seen: list[str] | None = None, pictures: list[bytes] | None = None) -> None:
        self.agent = agent
        self.routine = routine
        self.wait_s = wait_s
        self.replayed = 0
        self._actions = 0                # actions carried out in the current run step
        self.interruption: str | None = None
        self.done: list[str] = []        # what it did, in words (for the agent, should it take over)
        # The texts of every screen it saw (facts it types must be among them), and their pictures, read only if
        # a fact is not in the texts; shared with the run's other replays (seen, pictures).
        self._seen: list[str] = seen if seen is not None else []
        self._pictures: list[bytes] = pictures if pictures is not None else []

    async def _unseen(self, facts: list[str]) -> list[str]:
        """The facts no screen of this replay showed: in its element lists, else in the text of its pictures
        (a web page's text is in the pixels only). The pictures are read only now, when a fact is missing: OCR
        costs seconds a screen on a slow machine."""
        missing = [f for f in facts if not any(f.casefold() in text for text in self._seen)]
        ocr = self.agent.ocr
        while missing and ocr is not None and self._pictures:
            picture = self._pictures.pop()
            try:
                lines = await ocr.read(await asyncio.to_thread(_decoded, picture))
            except Exception:  # no OCR after all: the facts stay unseen, and the agent takes over
                return missing
            text = "\n".join(line.text for line in lines).casefold()
            missing = [f for f in missing if f.casefold() not in text]
        return missing

    def _log(self, message: str, level: str = "info") -> None:
        self.agent.log(message, level)

    async def run(self, start: int = 0, probe: bool = False) -> ReplayOutcome | None:
        """Replay from routine step ``start``. ``probe``: only if that step fits the screen at the first look
        (None when it does not: nothing was done or said)."""
        agent, routine = self.agent, self.routine
        total = len(routine.steps)
        if not probe:
            self._log(f"Replaying the routine \"{routine.name}\" (version {routine.routine.version}, {total} steps"
                      + (f"; {routine.describe_values()}" if routine.values else "") + "): no model is asked while "
                      "its steps go as recorded.")
        previous: Observation | None = None
        before: BoundStep | None = None
        acted_id: str | None = None
        acted_in = acted_index = 0        # where the previous routine step was carried out (run step, index)
        lenient = False                   # the previous step's effect included a dialog that may not show
        opened = False                    # a run step is open (a skipped optional step leaves it open)
        effect_told = True                # the previous step's effect was reported
        for index in range(start, total):
            step = routine.steps[index]
            await agent.control.checkpoint()
            lenient = lenient or step.step.optional
            probing = probe and index == start
            look = await self._look(step, previous, before, lenient, patient=not probing)
            if probing:
                if look.problem is not None:
                    return None
                agent.steps.record_effects(look.observation)    # what the agent's last steps did, for a repair
                agent.steps.outcomes = []
                self._log(f"The way is clear again: the routine goes on from its step {index + 1}, without a "
                          "model.")
            if not effect_told and previous is not None:
                self._effect(acted_in, acted_index, previous, look.observation, acted_id)
                effect_told = True
            if look.problem is not None and not step.step.optional and self._recoverable(step, look):
                if not opened:
                    if not self._open(look, previous):
                        return self._stop(index, self._limit(), previous)
                    opened = True
                look = await self._recover(step, look) or look
            if step.step.optional and (look.problem is not None or current_dialog(look.observation.element_map)
                                       is None):
                self._log(f"Skipped routine step {index + 1}: it answers a dialog that did not show "
                          f"({describe_step(step)})")
                self.done.append(f"{index + 1}. skipped: {describe_step(step)} (no such dialog this time)")
                continue
            if look.problem is not None:
                # Nothing of this step was done: the agent takes over at this very step, on this screen.
                return self._stop(index, look.problem, look.observation)
            if not opened and not self._open(look, previous):
                return self._stop(index, self._limit(), previous)
            opened = True
            done = already_done(step.expect, look.element) if str(step.action.get("action")) in _TOGGLES else None
            if done is not None:
                self._log(f"Skipped routine step {index + 1}: {describe_step(step)}: {done}")
                self.done.append(f"{index + 1}. skipped: {describe_step(step)} ({done})")
                self.replayed += 1
                continue
            try:
                acted_id = await self._act(index, step, look.element, look.observation)
            except StepError as exc:
                return self._stop(index, f"its step {index + 1} could not be done: {exc}", look.observation)
            self.replayed += 1
            previous, before, acted_in, acted_index = look.observation, step, agent.iteration, self._actions - 1
            lenient, opened, effect_told = False, False, False
        # The last step's effect and the end screen, without a model.
        look = await self._look(None, previous, before, lenient)
        final, problem = look.observation, look.problem
        if not effect_told and previous is not None:
            self._effect(acted_in, acted_index, previous, final, acted_id)
        if problem is None:
            problem = check_end(routine.end, routine.end_needs, final)
            if problem is not None:
                problem = f"the end check failed: {problem}"
        agent.state.verification("completion", problem is None,
                                 problem or f"the routine's end screen checked: "
                                            f"{screen_title(final.element_map) or final.app}")
        if problem is not None:
            return self._stop(total, problem, final)
        self._log(f"The routine \"{routine.name}\" replayed all {total} steps and its end checked out.")
        return ReplayOutcome(True, self.replayed, last=final, done=list(self.done))

    def _open(self, look: Look, previous: Observation | None) -> bool:
        """Start the run's next step on this look at the screen; False when the step limit is reached."""
        agent = self.agent
        if agent.iteration >= agent.settings.max_steps:
            return False
        agent.iteration = agent.state.iteration = agent.iteration + 1
        agent.emit(StepStarted(run_id=agent.run_id, step=agent.iteration, max_steps=agent.settings.max_steps))
        self._actions = 0
        self._captured(look.observation, previous)
        return True

    def _limit(self) -> str:
        return f"the step limit ({self.agent.settings.max_steps}) was reached"

    def _stop(self, index: int, reason: str, last: Observation | None) -> ReplayOutcome:
        step = f"step {index + 1} of {len(self.routine.steps)}" if index < len(self.routine.steps) else "the end"
        self._log(f"The replay stopped at {step}: {reason}", "warning")
        self.agent.steps.outcomes = []
        popup = self.interruption if reason.startswith("a pop-up") else None
        return ReplayOutcome(False, self.replayed, reason, index, list(self.routine.steps[index:]), last, popup,
                             done=list(self.done))

    # ------------------------------------------------------------ looking

    async def _look(self, step: BoundStep | None, previous: Observation | None, before: BoundStep | None,
                    lenient: bool = False, patient: bool = True) -> Look:
        """The screen once it is ready for ``step`` (the previous step's effect seen, the target found), or the
        last look with what is wrong with it when the wait ran out. ``lenient``: of the previous step's effect,
        only the app it brought up counts (it opened a dialog that may not show this time)."""
        agent = self.agent
        deadline = time.monotonic() + (self.wait_s if patient else 0.0)
        attempt = 0
        settled = await self._settle(first=previous is None)
        while True:
            # Text read from pixels only when the step's target was such text: OCR costs seconds on a slow machine.
            ocr = step is not None and step.target is not None and bool(step.target.get("ocr"))
            observation = await agent.capture(previous.element_map if previous is not None else None,
                                              ocr, since=settled)
            self._seen.append(_texts_of(observation))
            if observation.screenshot is not None:
                self._pictures.append(observation.screenshot.jpeg)
                del self._pictures[:-_PICTURES_KEPT]
            # A pop-up nobody asked for is said as such (under it, the previous step's effect cannot be seen).
            problem = self._in_the_way(step, observation) if step is not None else None
            if problem is None and before is not None and previous is not None:
                expect = before.expect
                if lenient and expect:
                    expect = {k: v for k, v in expect.items() if k in ("changed", "app")}
                effect = check_effect(expect, before.expect_needs, previous, observation, before.target,
                                      str(before.action.get("action")))
                if effect is not None:
                    # Said so that nobody takes it for a step not done: a call or a send must not be made twice.
                    problem = (f"its previous step ({describe_step(before)}) was carried out, but what it did last "
                               f"time does not show now: {effect}. Check the screen before doing "
                               f"\"{describe_step(before, short=True)}\" again")
            element = None
            if problem is None and step is not None:
                problem, element = self._ready(step, observation)
            if problem is None or time.monotonic() >= deadline:
                return Look(observation, problem, element)
            await asyncio.sleep(_PAUSES[min(attempt, len(_PAUSES) - 1)])
            attempt += 1
            settled = await self._settle(first=False)

    # ------------------------------------------------------------ finding the way back, without a model

    async def _move(self, move: Step, observation: Observation) -> None:
        resolved = resolve_step(move, observation.element_map)
        await self.agent.steps.act(resolved, observation, self._actions)
        self._actions += 1
        self.done.append(f"   (to find its way: {move.describe()})")

    async def _settle(self, first: bool) -> float | None:
        """Wait for a still screen; returns when the wait began if the mirror saw the screen settle after it (its
        latest frame then shows the screen as it is: no need to wait for another), else None."""
        wait_settled = getattr(self.agent.phone, "wait_settled", None)
        began = time.monotonic()
        if wait_settled is not None:
            # A shorter still spell than the agent's: a screen taken for settled too early fails the effect
            # check, and is simply looked at again.
            return began if await wait_settled(still_s=_STILL_S) else None
        if not first and self.agent.settings.settle_s:
            await asyncio.sleep(self.agent.settings.settle_s)
        return None

    def _in_the_way(self, step: BoundStep, observation: Observation) -> str | None:
        """A dialog the recording did not have (or another one than it had) over the screen the step acts on."""
        if str(step.action.get("action")) in ANYWHERE or step.step.optional:
            return None
        dialog = current_dialog(observation.element_map)
        if dialog is None:
            return None
        name = short_text(dialog.title or dialog.message or "untitled")
        expected = step.screen.get("dialog")
        if expected is not None and (name == expected or title_matches(expected, name, step.screen_needs)):
            return None      # the dialog the step answered when it was recorded
        if expected is None and step.target is not None and step.target.get("window") == "dialog":
            return None
        self.interruption = name
        over = f" (over \"{expected}\", which the step answers)" if expected else ""
        return f"a pop-up is in the way: \"{name}\"{over}"

    def _ready(self, step: BoundStep, observation: Observation) -> tuple[str | None, Any]:
        kind = str(step.action.get("action"))
        screen = step.screen
        if kind not in ANYWHERE:
            app = screen.get("app")
            if app and observation.app and observation.app != app:
                return f"{observation.app} is in front, where the step expects {app}", None
        if step.target is None:
            if "element" in step.action:
                return "the routine has no identity for this step's element (it was learnt without one)", None
            return None, None
        match = find_target(step.target, observation.element_map)
        if match.element is None:
            problem = match.problem
            similar = layout_similarity(screen.get("layout") or [], observation.element_map)
            if similar < SAME_LAYOUT and not match.candidates:
                now, expected = screen_title(observation.element_map), screen.get("title")
                if now and expected and now != expected:
                    problem += f", and the screen is another one (\"{now}\", where the step expects \"{expected}\")"
                else:
                    problem += ", and the screen is laid out unlike the one the step expects"
            return problem, None
        return None, match.element

    def _captured(self, observation: Observation, previous: Observation | None) -> None:
        agent = self.agent
        diff = diff_maps(previous.element_map, observation.element_map) if previous is not None else None
        agent.emit(ScreenCaptured(run_id=agent.run_id, step=agent.iteration, element_map=observation.element_map,
                                  screenshot=observation.screenshot, app=observation.app,
                                  layout_hash=observation.layout_hash, fingerprint=observation.fingerprint,
                                  capture_ms=observation.capture_ms, diff_text=diff.to_text() if diff else "",
                                  display=(observation.context.screen_width, observation.context.screen_height)))

    def _effect(self, acted_in: int, index: int, before: Observation, after: Observation,
                acted_id: str | None) -> None:
        """What the previous step did, for the history and for a repaired routine."""
        agent = self.agent
        agent.emit(ActionEffect(run_id=agent.run_id, step=acted_in, index=index,
                                effect=record_effect(before, after, acted_id)))

    # ------------------------------------------------------------ acting

    async def _act(self, index: int, step: BoundStep, element: Any, observation: Observation) -> str | None:
        agent, routine = self.agent, self.routine
        params = {k: v for k, v in step.action.items() if k not in ("action", "at")}
        at = step.action.get("at")
        if element is not None and at:     # the same place on the element as when recorded
            bounds = element.bounds
            params["x"] = bounds.left + round(float(at[0]) * bounds.width)
            params["y"] = bounds.top + round(float(at[1]) * bounds.height)
        elif element is not None:
            params["element"] = element.id
        kind = str(step.action["action"])
        if step.step.secret and kind == "type":
            params["text"] = await self._secret(step)
        elif kind == "type":
            if step.action.get("clear") and element is not None and step.target and "value" in step.target:
                # Replacing a field's text that changed since (a note with an item added) would lose the change.
                held, now = str(step.target["value"]), " ".join(element.value.split())
                if held.casefold() != now[:len(held) + 1].casefold():
                    raise StepError(f"it replaces the text of {target_name(step.target)}, which held \"{held[:80]}\" "
                                    f"when the routine was learnt and holds \"{now[:80]}\" now: replacing it could "
                                    "lose what changed")
            unseen = await self._unseen(facts_in(str(params.get("text", "")), routine.task))
            if unseen:
                # A number or a code the first run read somewhere on the phone: typed again only if this replay has
                # seen it too (the note may hold another password by now).
                raise StepError(f"the text it types holds {', '.join(repr(f) for f in unseen)}, which the first run "
                                "read on the phone and this replay has not seen: it may have changed")
        plan_step = Step(kind, params)
        resolved: ResolvedStep = resolve_step(plan_step, observation.element_map)
        agent.emit(PlanReceived(run_id=agent.run_id, step=agent.iteration,
                                plan=SemanticActionPlan((plan_step,), f"routine step {index + 1} of "
                                                        f"{len(routine.steps)}", source="routine"),
                                source="routine", model=f"routine {routine.name} v{routine.routine.version}",
                                thinking=describe_step(step)))
        reason = sensitive_reason(resolved, observation)
        if reason is not None:
            if routine.routine.confirm:
                if not await agent.steps.confirm(reason):
                    raise RunFinishedSignal("failed", f"the user did not allow it: {reason}")
            else:
                self._log(f"Not asked again (the routine \"{routine.name}\" was told not to ask): {reason}")
        await agent.steps.act(resolved, observation, self._actions)
        self._actions += 1
        self.done.append(f"{index + 1}. {describe_step(step)}")
        agent.steps.transcript[-1] = agent.steps.transcript[-1].replace(
            f"step {agent.iteration}:", f"step {agent.iteration} (replayed):", 1)
        return element.id if element is not None else None

    async def _secret(self, step: BoundStep) -> str:
        """A password the routine never kept: asked for now, used for this run only."""
        agent = self.agent
        where = target_name(step.target) or "the field in front"
        question = (f"The routine \"{self.routine.name}\" types a password into {where}. Enter it (it is used for "
                    "this run only and never saved).")
        answer = await agent.handlers.ask(question)
        agent.emit(HumanInput(run_id=agent.run_id, step=agent.iteration, purpose="sign_in", prompt=question,
                              answer="(given)" if answer else ""))
        if not answer:
            raise StepError("it types a password, and none was given")
        register_secret(answer)
        agent.steps.answers.append(answer)
        return answer
