"""When the planning agent is consulted: the spec's five trigger points, and nothing else.

1. Initial planning, launched on iteration 1 before anything else — from the task and the first screen, before
   the apps are described and before the fast agent's first plan — without waiting for its answer; the fast
   agent begins with what is certain until the result arrives, and it is adopted at the top of the first
   iteration that finds it done.
2. Progress stall: after ``progress_every`` stale iterations — steps that reached no screen new to this run —
   the fast model is asked, before the next plan, whether the run is progressing; if not, recovery planning
   is launched. A run that reaches a new screen every step is not checked: supervision is spent where it pays.
3. Step failures: ``failure_replan`` failures since the last plan (and as many iterations since the last
   consultation) launch recovery planning in the background.
4. Wrong task: a completion check that says the agent did something else counts as three failures, so
   (3) fires at once.
5. Last resort: in the final iterations, with failures since the last plan, one *blocking* consultation.

Recovery plans (2–4) are asked in the background, but the fast agent waits for one in flight before its next
plan (up to ``recovery_wait_s``): a recovery plan that arrives after the steps it was meant for is wasted.
One planning request at a time, and never two consultations in a row without a step between them.

Adopting a result puts its guidance in the pinned first message of the fast agent's conversation, next to the
task (once: it is not repeated in the turn's own message).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from relay_desktop.agent.events import Event, GuidanceUpdated, LogLine, Verification
from relay_desktop.agent.loop.conversation import Conversation
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.agent.supervisors.planning import PlanningAgent, PlanningResult
from relay_desktop.agent.supervisors.verifiers import ProgressChecker
from relay_desktop.device.models import AppInfo
from relay_desktop.llm.errors import LLMError

__all__ = ["Issue", "PlanningCoordinator"]

log = logging.getLogger(__name__)

OPEN_ISSUES_SHOWN = 3
_ONE_OPEN = ("stagnation", "cycle", "stuck", "progress")   # kinds of which only the newest note stays open


@dataclass
class Issue:
    """Something that went wrong. The planning agent reads them all; the fast agent only those still open."""

    text: str
    kind: str = "other"          # "step", "guard", "stuck", "completion", "progress", "other"
    step: int = 0
    resolved: bool = False
    # A supervisor's diagnosis (the progress check's reason): its reading of the run, not something seen on the
    # phone. The fast agent gets it labelled as a guess, never among the open issues it reads as facts.
    guess: bool = False


class PlanningCoordinator:
    def __init__(self, task: str, run_id: str, planner: PlanningAgent | None, checker: ProgressChecker | None,
                 settings: AgentSettings, conversation: Conversation, emit: Callable[[Event], None],
                 apps: Callable[[], Awaitable[list[AppInfo]]], knowledge: Callable[[], Awaitable[str]]) -> None:
        self.task = task
        self.run_id = run_id
        self.planner = planner
        self.checker = checker
        self.settings = settings
        self.conversation = conversation
        self._emit = emit
        self._apps = apps
        self._knowledge = knowledge
        self.current: PlanningResult | None = None
        self.guidance = ""
        self.issues: list[Issue] = []
        self.knowledge_text = ""                 # what the installed apps can do, once it has been fetched
        self.failures_since_last_plan = 0
        self.stale_iterations = 0
        self.last_plan_consult = 0
        self.last_progress_check = 0
        self.last_resort_consulted = False
        self._pending: asyncio.Task[PlanningResult | None] | None = None
        self._pending_trigger = ""
        self._launched_at = 0
        self._adopted_at = -10
        self.facts: Callable[[], str] = lambda: ""     # the fast agent's noted facts, for the planner
        self._describing: asyncio.Task[str] | None = None   # the apps' notes being fetched (the app describer)

    @property
    def enabled(self) -> bool:
        return self.planner is not None and self.settings.planning

    @property
    def pending(self) -> bool:
        return self._pending is not None and not self._pending.done()

    @property
    def initial_pending(self) -> bool:
        """The first strategy was asked and has not reached the fast agent yet (it may have arrived: it is
        adopted at the top of the next iteration)."""
        return self._pending is not None and self._pending_trigger == "initial" and self.current is None

    @property
    def failure_context(self) -> list[str]:
        """Everything that went wrong in this run, oldest first (the planning agent's view)."""
        return [issue.text for issue in self.issues]

    def add_failure(self, description: str, *, kind: str = "other", step: int = 0, guess: bool = False) -> None:
        if any(not i.resolved and i.text == description for i in self.issues):
            return
        if kind in _ONE_OPEN:
            self.resolve(kind)          # a guard's newer note replaces its older one
        self.issues.append(Issue(description, kind, step, guess=guess))

    def resolve(self, *kinds: str) -> None:
        """The run made progress: earlier problems of these kinds no longer apply (the fast agent stops seeing
        them; the planner still does)."""
        for issue in self.issues:
            if issue.kind in kinds:
                issue.resolved = True

    def open_issues(self, iteration: int, limit: int = OPEN_ISSUES_SHOWN) -> list[str]:
        """Problems still open, for the fast agent; a step failure of the last plan is left out, because the
        plan's step-by-step result already says it."""
        return [i.text for i in self.issues if not i.resolved and not i.guess
                and not (i.kind == "step" and i.step >= iteration - 1)][-limit:]

    def open_guesses(self) -> list[str]:
        """Supervisors' diagnoses still standing (the newest of each kind), for the fast agent as guesses."""
        return [i.text for i in self.issues if not i.resolved and i.guess]

    def cancel(self) -> None:
        for task in (self._pending, self._describing):
            if task is not None and not task.done():
                task.cancel()

    # ------------------------------------------------------------ launching

    async def start_initial(self, observation: Observation, iteration: int) -> None:
        """Trigger 1: iteration 1, before anything else. The request goes out from the task and this first screen
        before the fast agent's first plan and before the apps are described (the describer takes many seconds:
        a request sent after it reached the agent steps late, beside a screen older than the steps it was told
        of). The fast agent does not wait for the answer; the apps' notes are fetched meanwhile."""
        if self.enabled and self._pending is None and self.current is None:
            self._launch("initial", observation, iteration)
            await asyncio.sleep(0)      # the planning request goes out now, ahead of the fast agent's
        self._describe_apps()

    def _describe_apps(self) -> None:
        if self._describing is None:
            self._describing = asyncio.get_running_loop().create_task(self._fetch_knowledge(),
                                                                      name="describe-apps")

    async def _fetch_knowledge(self) -> str:
        try:
            self.knowledge_text = await self._knowledge() or self.knowledge_text
        except LLMError as exc:     # the describer is a help: plans are still asked without its notes
            self._emit(LogLine(run_id=self.run_id, level="warning", message=f"Describing the apps failed: {exc}"))
        return self.knowledge_text

    async def _knowledge_now(self) -> str:
        """The apps' notes, waited for (recovery plans have the time; the first plan does not wait)."""
        self._describe_apps()
        assert self._describing is not None
        return await asyncio.shield(self._describing)

    def _launch(self, trigger: str, observation: Observation, iteration: int) -> None:
        assert self.planner is not None
        self.last_plan_consult = iteration
        self._launched_at = iteration
        self._pending_trigger = trigger
        self._pending = asyncio.get_running_loop().create_task(self._consult(trigger, observation),
                                                               name=f"planning-{trigger}")
        self._emit(LogLine(run_id=self.run_id, step=iteration, message=f"Planning agent consulted ({trigger})"))

    async def _consult(self, trigger: str, observation: Observation) -> PlanningResult | None:
        assert self.planner is not None
        try:
            if trigger == "initial":
                # From the task and the first screen, with nothing done yet: the request goes out before the
                # fast agent acts, so the screen it shows is the phone as it is.
                return await self.planner.plan_initial(self.task, observation, await self._apps(),
                                                       self.knowledge_text)
            apps, knowledge = await asyncio.gather(self._apps(), self._knowledge_now())
            return await self.planner.plan_recovery(self.task, observation, apps, list(self.failure_context),
                                                    self.current, knowledge, trigger=trigger,
                                                    budget=(self._launched_at, self.settings.max_steps),
                                                    facts=self.facts())
        except LLMError as exc:
            # Guidance is a help, not a requirement: the fast agent carries on without it.
            self._emit(LogLine(run_id=self.run_id, level="warning",
                               message=f"Planning agent unavailable ({trigger}): {exc}"))
            return None

    async def adopt(self, iteration: int) -> PlanningResult | None:
        """Top of every iteration: take a finished planning result, if one is waiting. A recovery plan in
        flight is waited for (bounded): the next steps should follow it, not the approach that failed."""
        task = self._pending
        if task is not None and not task.done() and self._pending_trigger != "initial":
            self._emit(LogLine(run_id=self.run_id, step=iteration,
                               message=f"Waiting for the planning agent's recovery plan ({self._pending_trigger})"))
            await asyncio.wait({task}, timeout=self.settings.recovery_wait_s)
        if task is None or not task.done():
            return None
        self._pending = None
        if task.cancelled() or task.exception() is not None:
            if not task.cancelled():
                log.warning("planning failed: %r", task.exception())
            return None
        result = task.result()
        if result is not None:
            self._apply(result, self._pending_trigger, iteration)
        return result

    def _apply(self, result: PlanningResult, trigger: str, iteration: int) -> None:
        self.current = result
        self.guidance = result.to_guidance_text()
        self.conversation.guidance = self.guidance
        self.failures_since_last_plan = 0
        self.stale_iterations = 0
        self._adopted_at = iteration
        self._emit(GuidanceUpdated(run_id=self.run_id, step=iteration, trigger=trigger, guidance=self.guidance,
                                   approach=result.recommended.name))

    # ------------------------------------------------------------ triggers 2-5

    async def check_progress(self, observation: Observation, iteration: int, recent: Sequence[str], *,
                             novel: bool) -> None:
        """Trigger 2, at the top of each step on the screen just captured: count steps that reached no screen new
        to this run, and once there are ``progress_every`` of them, ask whether the run is progressing. Asked
        before the fast agent's next plan, so the supervisor judges the screen that the actions led to, and a
        recovery plan it calls for reaches that very plan (see :meth:`adopt`)."""
        self.stale_iterations = 0 if novel else self.stale_iterations + 1
        if self.checker is None or not self.enabled or self.pending:
            return
        every = self.settings.progress_every
        if self.stale_iterations >= every and iteration - self.last_progress_check >= every:
            self.last_progress_check = iteration
            await self._check_progress(observation, iteration, list(recent))

    async def _check_progress(self, observation: Observation, iteration: int, recent: list[str]) -> None:
        assert self.checker is not None
        try:
            verdict = await self.checker.check(self.task, observation, recent, self.facts())
        except LLMError as exc:
            self._emit(LogLine(run_id=self.run_id, level="warning", message=f"Progress check failed: {exc}"))
            return
        self._emit(Verification(run_id=self.run_id, step=iteration, check="progress", ok=verdict.ok,
                                reason=verdict.reason))
        if verdict.ok:
            self.stale_iterations = 0
            return
        self.add_failure(f"Progress check (step {iteration}): {verdict.reason}", kind="progress", step=iteration,
                         guess=True)
        if not self.pending and self._may_consult(iteration):
            self._launch("stall", observation, iteration)

    def _may_consult(self, iteration: int) -> bool:
        """Never two consultations back to back: a step must pass after a plan arrives before another is asked."""
        return iteration > self._adopted_at and iteration > self.last_plan_consult

    def note_failures(self, count: int, observation: Observation, iteration: int, trigger: str = "failures") -> None:
        """Triggers 3 and 4: step failures (a wrong-task verdict counts 3) may launch recovery planning."""
        self.failures_since_last_plan += count
        if (self.enabled and not self.pending and self._may_consult(iteration)
                and self.failures_since_last_plan >= self.settings.failure_replan
                and iteration - self.last_plan_consult >= self.settings.failure_replan):
            self._launch(trigger, observation, iteration)

    async def last_resort(self, observation: Observation, iteration: int) -> None:
        """Trigger 5: the only blocking consultation, when few iterations are left and things went wrong."""
        if (not self.enabled or self.last_resort_consulted or self.failures_since_last_plan <= 0
                or iteration < self.settings.max_steps - self.settings.last_resort_window):
            return
        self.last_resort_consulted = True
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        self.last_plan_consult = self._launched_at = iteration
        self._emit(LogLine(run_id=self.run_id, step=iteration,
                           message="Planning agent consulted (last resort, waiting for it)"))
        result = await self._consult("last_resort", observation)
        if result is not None:
            self._apply(result, "last_resort", iteration)
