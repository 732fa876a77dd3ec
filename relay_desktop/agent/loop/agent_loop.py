"""The agent loop: capture → element map → plan → check → act → verify, until the task is done.

One run is one asyncio task. Each iteration captures the screenshot, the UI dump and the app in front
concurrently, builds the element map (IDs carried over from the previous step), reviews what the last plan
did step by step, runs the loop guards and the planning triggers, asks the fast agent (or the rule-based
fallback planner) for a short plan, and carries it out step by step through the safety gates, each step on
the screen as it is when it runs (plan_runner.py). Whether the last step took effect is judged on the next
iteration's capture — the one the next plan needs anyway — so verification costs no extra round trip.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from relay_desktop.agent.claims import PhoneBusy, claim_phone
from relay_desktop.agent.control import RunControl, RunFinishedSignal, RunStopped
from relay_desktop.agent.events import (
    EventBus,
    LogLine,
    Outcome,
    PlanReceived,
    RunFinished,
    RunStarted,
    RunStateChanged,
    ScreenCaptured,
    StepStarted,
)
from relay_desktop.agent.loop.capture import ScreenCapture
from relay_desktop.agent.loop.context import DeviceContextCache
from relay_desktop.agent.loop.conversation import Conversation
from relay_desktop.agent.loop.guards import LoopGuards
from relay_desktop.agent.loop.observation import PROTECTED, Observation
from relay_desktop.agent.loop.plan_runner import PlanRunner
from relay_desktop.agent.loop.prompts import (
    STRATEGY_ON_ITS_WAY,
    SUPERVISOR_GUESS,
    as_data,
    fast_system_prompt,
    fast_user_prompt,
    pinned_context,
)
from relay_desktop.agent.loop.review import Reviewer
from relay_desktop.agent.loop.run_state import RunState
from relay_desktop.agent.memory.facts import NOTED_BY_THE_AGENT, Memory
from relay_desktop.agent.ports import Models, Phone
from relay_desktop.agent.settings import MAX_TASK_CHARS, AgentSettings, RunResult, task_problem
from relay_desktop.agent.steps.actions import SemanticActionPlan, StepError, parse_plan, plan_contract
from relay_desktop.agent.steps.executor import Executor
from relay_desktop.agent.steps.results import no_visible_effect
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.agent.supervisors.coordination import PlanningCoordinator
from relay_desktop.agent.supervisors.knowledge import AppKnowledgeCache
from relay_desktop.agent.supervisors.planning import PlanningAgent
from relay_desktop.agent.supervisors.verifiers import CompletionVerifier, ProgressChecker
from relay_desktop.device.errors import (
    DeviceDisconnectedError,
    DeviceError,
    DeviceUnauthorizedError,
    HierarchyDumpError,
)
from relay_desktop.llm.costs import CostMeter
from relay_desktop.llm.errors import AllProvidersFailed, InvalidOutput, LLMError
from relay_desktop.llm.router import LLMEvent, reporting_to
from relay_desktop.llm.types import ImagePart, LLMRequest, Message
from relay_desktop.perception import (
    ElementMap,
    diff_maps,
)
from relay_desktop.perception.ocr import OCR_MISSING_NOTICE, OcrEngine

__all__ = ["AgentLoop", "RunFinishedSignal"]

log = logging.getLogger(__name__)


class AgentLoop:
    def __init__(self, phone: Phone, models: Models | None, *, settings: AgentSettings | None = None,
                 bus: EventBus | None = None, handlers: Handlers | None = None,
                 knowledge: AppKnowledgeCache | None = None, control: RunControl | None = None,
                 run_id: str | None = None, describe_models: dict[str, Any] | None = None,
                 routine: Any = None, secrets: Any = None) -> None:
        self.phone = phone
        # The user's saved secrets (user_secrets.SecretStore): the model is told their names, the phone gets a
        # value when a step types one.
        self.secrets = secrets
        self.secret_names: list[str] = []
        # A routine (routines.model.BoundRoutine) to replay first; the agent takes over where it stops.
        self.routine = routine
        self.replay: Any = None                       # how the replay went (routines.replay.ReplayOutcome)
        self.routine_driver: Any = None               # the routine's replays and hand-overs (routines.handover)
        self.first_agent_step = 1                     # the run's first step the agent plans
        self._strategy_asked = False                  # the planning agent's initial strategy was asked for
        self.models = models
        self.settings = settings or AgentSettings()
        self.bus = bus or EventBus()
        self.handlers = handlers or Handlers()
        self.knowledge = knowledge
        self.control = control or RunControl()
        self.run_id = run_id or time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        self.describe_models = describe_models or {}
        self.meter = CostMeter()
        self.context = DeviceContextCache(phone)
        self.control.on_change = lambda state, reason: self.emit(
            RunStateChanged(run_id=self.run_id, state=state, reason=reason))
        self.fallback_mode = models is None
        self.models_failed: LLMError | None = None    # why the models stopped being asked, if they did
        self.iteration = 0
        self.memory = Memory()
        self.state: RunState | None = None
        self.looker = ScreenCapture(phone, self.context, self.settings, self.log)
        # Held while this loop looks at or acts on the phone: a split screen's two loops take turns on it.
        self.device_turn: Callable[[], AbstractAsyncContextManager[Any]] = contextlib.nullcontext
        self.split_screen_tried = False

    def emit(self, event: Any) -> None:
        self.bus.emit(event)

    def log(self, message: str, level: str = "info") -> None:
        self.emit(LogLine(run_id=self.run_id, message=message, level=level, step=self.iteration or None))

    # ------------------------------------------------------------ lifecycle

    async def run(self, task: str) -> RunResult:
        task = task.strip()
        started = time.monotonic()
        current = asyncio.current_task()
        if current is not None:
            self.control.bind(current)  # type: ignore[arg-type]
        settings: dict[str, Any] = {"agent": self.settings.to_json(), "models": self.describe_models}
        if self.routine is not None:
            settings["routine"] = {"name": self.routine.name, "version": self.routine.routine.version,
                                   "parameters": self.routine.values}
        self.emit(RunStarted(run_id=self.run_id, task=task[:MAX_TASK_CHARS], serial=self.phone.serial,
                             max_steps=self.settings.max_steps, settings=settings))
        self.task = task
        self.memory.task = task
        outcome: Outcome
        answer = ""
        # The phone's own notices (connection lost and found, the mirror gone) go into the run's log.
        subscribe = getattr(self.phone, "subscribe_notices", None)
        unsubscribe = subscribe(lambda message: self.log(message, "warning")) \
            if callable(subscribe) and not inspect.iscoroutinefunction(subscribe) else None
        try:
            # reporting_to: the run's own retries and fallbacks, in its log; claim_phone: one run per phone.
            with reporting_to(self._llm_event), claim_phone(self.phone.serial, self.run_id, task):
                outcome, reason = await self._run_checked(task)
        except PhoneBusy as exc:
            outcome, reason = "error", str(exc)
        except RunFinishedSignal as signal:
            outcome, reason, answer = signal.outcome, signal.reason, signal.answer  # type: ignore[assignment]
        except (RunStopped, asyncio.CancelledError):
            if not self.control.stop_requested:
                raise
            if current is not None and current.cancelling():
                current.uncancel()
            outcome, reason = "stopped", self.control.stop_reason
        except DeviceError as exc:
            outcome, reason = "error", _device_failure(exc)
        except Exception as exc:  # a bug must end the run visibly (and in history), not kill the app
            log.exception("run %s failed", self.run_id)
            outcome, reason = "error", f"internal error: {type(exc).__name__}: {exc}"
        finally:
            if unsubscribe is not None:
                unsubscribe()
            coordinator = getattr(self, "coordinator", None)
            if coordinator is not None:
                coordinator.cancel()
        usage = self.meter.usage
        result = RunResult(self.run_id, task, outcome, reason, self.iteration, time.monotonic() - started,
                           usage.input_tokens, usage.output_tokens, self.meter.cost_usd, answer)
        self.emit(RunFinished(run_id=self.run_id, outcome=outcome, reason=reason, answer=answer, steps=self.iteration,
                              elapsed_s=result.elapsed_s, input_tokens=usage.input_tokens,
                              output_tokens=usage.output_tokens, cost_usd=result.cost_usd))
        self.control.finished()
        return result

    def _llm_event(self, event: LLMEvent) -> None:
        self.log(event.message, "warning")

    async def _run_checked(self, task: str) -> tuple[Outcome, str]:
        problem = task_problem(task)
        if problem is not None:
            return "error", problem
        self._build(task)
        await self._announce()
        if self.routine is not None:
            finished = await self._replay()
            if finished is not None:
                return finished
        return await self._loop()

    async def _replay(self) -> tuple[Outcome, str] | None:
        """The routine first; (outcome, reason) when it settled the run, None when the agent takes over."""
        from relay_desktop.routines.handover import RoutineDriver

        self.routine_driver = driver = RoutineDriver(self, self.routine)
        finished = await driver.start()
        self.replay = driver.first
        self.first_agent_step = self.iteration + 1
        return finished  # type: ignore[return-value]

    def _build(self, task: str) -> None:
        """The run's parts: conversation, guards, executor, supervisors, the step runner."""
        self.conversation = Conversation(task)
        self.guards = LoopGuards()
        self.executor = Executor(self.phone, self.control, shell_allowed=self.settings.shell_allowed,
                                 secrets=self.secrets)
        planner = PlanningAgent(self.models, meter=self.meter) if self.models is not None else None
        checker = ProgressChecker(self.models, self.meter) if self.models is not None else None
        self.completion = CompletionVerifier(self.models, self.meter) if self.models is not None else None
        self.coordinator = PlanningCoordinator(task, self.run_id, planner, checker, self.settings,
                                               self.conversation, self.emit, self.context.installed_apps,
                                               self._knowledge_text)
        # Plain text: each supervisor puts it in its own data section (wrapped twice, the inner delimiters would
        # turn into stray "[screen_data]" markers).
        self.coordinator.facts = lambda: self.memory.text(NOTED_BY_THE_AGENT)
        self.state = RunState(self.run_id, task, self.settings, self.phone, self.control, self.handlers,
                              self.conversation, self.guards, self.coordinator, self.executor, self.emit,
                              self.capture, self.completion, self.memory, looker=self.looker)
        self._fallback: Any = None
        self.steps = PlanRunner(self.state)
        self.reviewer = Reviewer(self.state, self.steps, lambda: self.secret_names)

    async def _announce(self) -> None:
        """What the log says before the first step: who plans, how the screen is read."""
        if self.fallback_mode and self.routine is not None:
            self.log("No model is configured: the routine replays without one"
                     + ("; if the phone differs, the rule-based planner takes over." if self.settings.allow_fallback
                        else ", and the run ends if the phone differs from the recording."))
        elif self.fallback_mode:
            self.log("No model is configured: the rule-based fallback planner drives this run.", "warning")
        if self.ocr is None and self.settings.ocr and self.settings.screenshots:
            self.log(OCR_MISSING_NOTICE, "warning")
        describe = getattr(self.phone, "describe", None)
        if describe is not None:
            self.log(describe())
        if self.secrets is not None:
            self.secret_names = [s.name for s in await self.secrets.anames()]
            if self.coordinator.planner is not None:
                self.coordinator.planner.secret_names = self.secret_names
            if self.secret_names:
                self.log(f"Saved secrets the agent may type (by name; the model never sees a value): "
                         f"{', '.join(self.secret_names)}")
        start_reading = getattr(self.phone, "start_reading", None)
        if start_reading is not None:     # how the screen is read (the fast server, or uiautomator dump)
            self.log(await start_reading())

    async def _loop(self) -> tuple[Outcome, str]:
        previous: Observation | None = None
        step_started = time.monotonic()
        driver = self.routine_driver
        while self.iteration < self.settings.max_steps:
            if driver is not None and driver.may_resume:
                finished = await driver.resume()       # the agent cleared a pop-up: the routine may go on
                if finished is not None:
                    return finished  # type: ignore[return-value]
                if self.iteration >= self.settings.max_steps:
                    break
            iteration = self.iteration + 1
            self.iteration = self.state.iteration = iteration
            if iteration > self.first_agent_step and self.settings.pace_s:
                await asyncio.sleep(max(0.0, step_started + self.settings.pace_s - time.monotonic()))
            step_started = time.monotonic()
            await self.control.checkpoint()
            self.emit(StepStarted(run_id=self.run_id, step=iteration, max_steps=self.settings.max_steps))
            observation = await self._iteration(previous)
            previous = observation
        return "max_steps", (f"the task was not finished in {self.settings.max_steps} steps"
                             + (f"; last problem: {self.coordinator.failure_context[-1]}"
                                if self.coordinator.failure_context else ""))

    async def _knowledge_text(self) -> str:
        if self.knowledge is None:
            return ""
        apps = await self.context.installed_apps()
        notes = await self.knowledge.notes_for(apps)
        return self.knowledge.text(notes, apps)

    # ------------------------------------------------------------ one iteration

    async def _iteration(self, previous: Observation | None) -> Observation:
        iteration, coordinator, state = self.iteration, self.coordinator, self.state
        assert state is not None
        await coordinator.adopt(iteration)
        await self._split_screen_if_recommended()
        async with self.device_turn():
            if previous is None:
                await self._settle_before_first_look()
            observation = await self.capture(previous.element_map if previous else None)
        diff = diff_maps(previous.element_map, observation.element_map) if previous is not None else None
        acted = [o.step for o in self.steps.outcomes if o.status == "done"]
        still = previous is not None and no_visible_effect(previous, observation, acted)
        novel = self.guards.observe(observation, still, self.steps.acted or previous is None)
        self.emit(ScreenCaptured(run_id=self.run_id, step=iteration, element_map=observation.element_map,
                                 screenshot=observation.screenshot, app=observation.app,
                                 layout_hash=observation.layout_hash, fingerprint=observation.fingerprint,
                                 capture_ms=observation.capture_ms, diff_text=diff.to_text() if diff else "",
                                 display=(observation.context.screen_width, observation.context.screen_height),
                                 withheld=observation.withheld))
        self._say_withheld(previous, observation)
        # What the loop noticed (it quotes screen labels, so it goes to the model as data) ...
        observed = self.reviewer.review(previous, observation) if previous is not None else []
        if self.steps.target_app is None and not observation.on_launcher:
            self.steps.target_app = observation.app  # the app the task is being done in
        observed += self.reviewer.suggestions(observation)
        issues = coordinator.open_issues(iteration)
        if issues:
            observed.append("CONTEXT - Previous issues (still open):\n" + "\n".join(f"- {f}" for f in issues))
        guesses = coordinator.open_guesses()
        if guesses:
            observed.append(SUPERVISOR_GUESS + "\n" + "\n".join(f"- {g}" for g in guesses))
        driver = self.routine_driver
        coming: list[str] = []
        if driver is not None and driver.clearing_the_way:
            pass      # the routine goes on once a pop-up is closed: no strategy for one tap
        elif not self._strategy_asked:
            self._strategy_asked = True
            await coordinator.start_initial(observation, iteration)
            # The first steps are the riskiest: the agent knows a strategy is coming and does not guess ahead.
            # It is the program's own word, so it goes with the user's notes, not inside the screen's data.
            coming = [STRATEGY_ON_ITS_WAY] if coordinator.initial_pending else []
        else:
            await coordinator.check_progress(observation, iteration, self.steps.transcript, novel=novel)
            await coordinator.adopt(iteration)       # a recovery plan it called for, before the next plan
            await self._split_screen_if_recommended()
        await coordinator.last_resort(observation, iteration)
        # ... and what the user said, which is an instruction.
        notes = await self.reviewer.human_checks(observation) + coming
        await self._refresh_pinned(observation)
        plan = await self._plan(observation, diff.to_text() if diff else None, notes, observed)
        if plan is None:
            state.count_error("no usable plan")
            return observation
        # With their states: "alarm 07:15 is on" is backed by 'Turn off 07:15 alarm · on', not the bare label.
        screen_texts = [" · ".join(p for p in (e.label, e.value, *e.states) if p)
                        for e in observation.element_map.elements]
        if plan.remember:
            self.memory.add(plan.remember, iteration, observation.app, screen_texts)
            self.conversation.facts = as_data(self.memory.text())
        self.memory.saw(iteration, observation.app, screen_texts)
        # What the model's reasoning quotes from this screen (a message, a notice) is kept for the verifier.
        self.memory.read_lines(iteration, observation.app, screen_texts, f"{plan.thinking}\n{plan.reflection}",
                               controls={i for i, e in enumerate(observation.element_map.elements) if e.interactive})
        async with self.device_turn():
            await self.steps.execute(plan, observation)
            await self._settle()
        if self.routine_driver is not None:
            self.routine_driver.planned(self.steps.outcomes)
        return observation

    def _say_withheld(self, previous: Observation | None, observation: Observation) -> None:
        """The log says when the agent starts working blind on a screen (and why), once per stretch of them."""
        was = previous.withheld if previous is not None else ""
        if observation.withheld == was or not observation.withheld:
            return
        app = observation.app or "this app"
        self.log(f"Protected screen in {app} (the app forbids screenshots): no picture is sent to the model; the "
                 "agent works from the element list." if observation.withheld == PROTECTED else
                 f"{app} is a private app (Settings): no picture of it is sent to the model; the agent works from "
                 "the element list.")

    async def _split_screen_if_recommended(self) -> None:
        """A split-screen recommendation is taken up by the Orchestrator (orchestrator.py); a loop working in one
        half of the screen (split_screen/window_loop.py) never splits again."""

    async def _refresh_pinned(self, observation: Observation) -> None:
        """The pinned message's phone section: device and apps once, what the apps can do once it is known."""
        # Rebuilt when the notes arrive or the screen turns (the device line gives the screen's size).
        key = (self.coordinator.knowledge_text, observation.context.screen_width, observation.context.screen_height)
        if self.conversation.context and key == getattr(self, "_pinned_key", None):
            return
        self._pinned_key = key
        self.conversation.context = pinned_context(observation, await self.context.installed_apps(), key[0],
                                                   self.secret_names)

    async def _settle(self) -> None:
        """Let the screen finish reacting before the next capture: watch the mirror when there is one."""
        wait_settled = getattr(self.phone, "wait_settled", None)
        if wait_settled is not None and self.steps.acted and await wait_settled():
            return
        if self.settings.settle_s:
            await asyncio.sleep(self.settings.settle_s)

    async def _settle_before_first_look(self) -> None:
        """The run may start while the screen is changing (the user's last tap, an app opening): the first look
        waits until the mirror shows it still. A frame captured just before the change is dated late by the
        pipeline's latency and would otherwise pass for a current one, beside a current element list."""
        wait_settled = getattr(self.phone, "wait_settled", None)
        if wait_settled is not None:
            await wait_settled()

    # ------------------------------------------------------------ capture

    async def capture(self, previous: ElementMap | None, read_text: bool = True,
                      since: float | None = None) -> Observation:
        """Screenshot, UI dump and the app in front, all at once, with what may not leave the machine kept back
        (agent.capture.ScreenCapture.capture)."""
        return await self.looker.capture(previous, read_text, since)

    @property
    def ocr(self) -> OcrEngine | None:
        return self.looker.ocr

    @ocr.setter
    def ocr(self, engine: OcrEngine | None) -> None:
        self.looker.ocr = engine

    # ------------------------------------------------------------ planning a step

    async def _plan(self, observation: Observation, diff_text: str | None, notes: list[str],
                    observed: list[str] = ()) -> SemanticActionPlan | None:  # type: ignore[assignment]
        await self.control.checkpoint()
        if self.fallback_mode:
            if self._fallback is None:
                from relay_desktop.agent.fallback.planner import FallbackPlanner

                self._fallback = FallbackPlanner(self.task, await self.context.installed_apps())
            plan = self._fallback.plan(observation, self.steps.last_ok)
            self.emit(PlanReceived(run_id=self.run_id, step=self.iteration, plan=plan, source="fallback",
                                   response=json.dumps(plan.to_json(), ensure_ascii=False)))
            return plan
        assert self.models is not None
        # No "what changed" list here: the step-by-step result of the last plan says it, step by step.
        text = fast_user_prompt(observation, step=self.iteration, max_steps=self.settings.max_steps,
                                notes=notes, observations=observed)
        images = (ImagePart(observation.screenshot.jpeg),) if observation.screenshot is not None else ()
        shell = self.settings.shell_allowed
        request = LLMRequest(fast_system_prompt(shell), self.conversation.request(Message.user(text, *images)),
                             plan_contract(shell=bool(shell)), max_tokens=self.settings.fast_max_tokens)
        try:
            response = await self.models.generate("fast", request, meter=self.meter)
        except LLMError as exc:
            if _bad_output(exc):
                self.log(f"The model's answer could not be used: {exc}", "warning")
                self.conversation.add(Message.user(f"Your last answer could not be used: {exc}. Answer with "
                                                   "the act tool and valid steps."))
                return None
            self._without_models(exc)
            return await self._plan(observation, diff_text, notes, observed)
        try:
            plan = parse_plan(response.data or {}, shell=bool(shell))
        except StepError as exc:
            self.log(f"The plan was refused: {exc}", "warning")
            self.conversation.add(Message.assistant(response.text))
            self.conversation.add(Message.user(f"That plan could not run: {exc}"))
            return None
        self.emit(PlanReceived(run_id=self.run_id, step=self.iteration, plan=plan, source="model",
                               thinking=response.thinking or plan.thinking,
                               model=f"{response.provider}/{response.model}", latency_ms=response.latency_s * 1000,
                               input_tokens=response.usage.input_tokens, output_tokens=response.usage.output_tokens,
                               cost_usd=response.cost_usd,
                               prompt=f"{request.system}\n\n{self.conversation.pinned.text}\n\n{text}",
                               response=response.text))
        self.conversation.add(Message.assistant(json.dumps(plan.to_json(), ensure_ascii=False)))
        assert self.state is not None
        self.state.plan_latency_s = response.latency_s
        return plan

    def _without_models(self, exc: LLMError) -> None:
        """Every model failed. Unless the user allowed the rule-based planner to take over, the run ends here
        with an error naming the model. If allowed, the planner drives the rest of the run, and no model is asked
        anything more (planning, progress, completion): each question would wait out the same errors."""
        self.models_failed = exc
        if not self.settings.allow_fallback:
            raise RunFinishedSignal("error", f"{_model_names(exc)} could not be used: {exc}")
        self.fallback_mode = True
        self.completion = None
        if self.state is not None:
            self.state.completion = None
        self.coordinator.planner = self.coordinator.checker = None
        self.coordinator.cancel()
        self.log(f"Every model failed ({exc}); the rule-based fallback planner takes over for the rest of the run.",
                 "warning")


def _model_names(exc: LLMError) -> str:
    """Which model(s) an error is about, as the user named them: "the model openai/gpt-4.1"."""
    failures = getattr(exc, "failures", None) or [exc]
    names = list(dict.fromkeys(f"{f.provider}/{f.model}" for f in failures if f.provider and f.model))
    if not names:
        return "the model"
    return f"the model {names[0]}" if len(names) == 1 else f"the models {', '.join(names)}"


def _device_failure(exc: DeviceError) -> str:
    """Why a run ended on a device failure, in words that say what to do."""
    if isinstance(exc, DeviceDisconnectedError):
        return f"the phone was disconnected: {exc}"
    if isinstance(exc, DeviceUnauthorizedError):
        return f"the phone does not allow this computer yet: {exc}"
    if isinstance(exc, HierarchyDumpError):
        return (f"the phone's screen could not be read, because it never stopped animating ({exc}); pause any "
                "video or animation on it and start again")
    return f"the phone stopped responding: {exc}"


def _bad_output(exc: LLMError) -> bool:
    """The model answered, but not with anything usable (as opposed to: no model could be reached)."""
    if isinstance(exc, InvalidOutput):
        return True
    return isinstance(exc, AllProvidersFailed) and bool(exc.failures) and all(
        isinstance(f, InvalidOutput) for f in exc.failures)
