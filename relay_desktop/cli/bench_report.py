"""What ``relay-desktop bench`` measures on each task, how it scores a task, and how it prints the results.

Requests are counted where they leave for a model (:class:`CountingModels` wraps whatever answers the agent's
``generate``), so every kind is counted — the fast agent's plans, the strategist, the progress and completion
checks and the app-knowledge describer — with the tokens and cost each really took. Everything else comes
from the run's own events (:class:`TaskTally`). The user is played by :class:`ScriptedUser`: it answers the
agent's questions from the task's ``answers`` and approves every confirmation (the suite texts, buys and
deletes on purpose).
"""

from __future__ import annotations

import re
import statistics
import textwrap
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from relay_desktop.agent.events import ActionResult, Event, HumanInput, PlanReceived, Verification
from relay_desktop.agent.ports import Models
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.llm.costs import CostMeter
from relay_desktop.llm.types import LLMRequest, LLMResponse, Role

__all__ = ["REQUEST_KINDS", "BenchRow", "BenchSummary", "CountingModels", "ScriptedUser", "TaskTally",
           "format_row", "header", "judge", "request_kind"]

REQUEST_KINDS = ("act", "planning", "progress", "completion", "other")
# The output contract names the request: "act" is the fast agent's plan; the knowledge describer and
# anything new land in "other".
_KIND_OF_CONTRACT = {"act": "act", "plan_strategy": "planning", "progress": "progress", "completion": "completion"}
WIDTH = 116   # the table fits a 120-column terminal


def request_kind(role: Role, request: LLMRequest) -> str:
    name = request.contract.name if request.contract is not None else ""
    if name in _KIND_OF_CONTRACT:
        return _KIND_OF_CONTRACT[name]
    return "planning" if role == "planning" else "other"


@dataclass
class TaskTally:
    """One task's requests (counted at the model boundary) and what its events say."""

    requests: Counter[str] = field(default_factory=Counter)
    meter: CostMeter = field(default_factory=CostMeter)   # tokens and cost of every request, describer included
    actions: int = 0                   # ActionResult events: actions carried out on the phone
    no_effect_steps: int = 0           # steps that changed nothing, or not what their check wanted
    questions: int = 0                 # ask_user questions the agent put to the user
    act_input_tokens: list[int] = field(default_factory=list)   # prompt size of each of the fast agent's plans
    request_times: list[float] = field(default_factory=list)    # when each request left (monotonic seconds)

    def on_event(self, event: Event) -> None:
        if isinstance(event, ActionResult):
            self.actions += 1
        elif isinstance(event, Verification):
            self.no_effect_steps += event.check == "step" and (not event.ok or event.changed is False)
        elif isinstance(event, HumanInput):
            self.questions += event.purpose == "question"
        elif isinstance(event, PlanReceived) and event.source == "model":
            self.act_input_tokens.append(event.input_tokens)

    @property
    def total_requests(self) -> int:
        return sum(self.requests.values())

    @property
    def tokens(self) -> int:
        usage = self.meter.usage
        return usage.input_tokens + usage.output_tokens


class CountingModels:
    """The agent's models with every request counted for the task running now (``tally``; None: not counted).

    A request is counted when it is made, whether or not it succeeds; its tokens and cost when it returns, on
    the tally of the task that made it (an answer that arrives after its task ended does not move to the next).
    """

    def __init__(self, models: Models) -> None:
        self.models = models
        self.tally: TaskTally | None = None

    async def generate(self, role: Role, request: LLMRequest, *, meter: CostMeter | None = None) -> LLMResponse:
        tally = self.tally
        if tally is not None:
            tally.requests[request_kind(role, request)] += 1
            tally.request_times.append(time.monotonic())
        response = await self.models.generate(role, request, meter=meter)
        if tally is not None:
            tally.meter.add(response.provider, response.model, response.usage, response.cost_usd)
        return response


class ScriptedUser(Handlers):
    """The user, played from the task's script: its answers in order (then no answer), every action approved."""

    def __init__(self, answers: tuple[str, ...]) -> None:
        super().__init__(ask_user=self._answer, confirm=self._approve)
        self._answers = list(answers)
        self.asked: list[str] = []

    async def _answer(self, question: str) -> str | None:
        self.asked.append(question)
        return self._answers.pop(0) if self._answers else None

    async def _approve(self, description: str) -> bool:
        return True


def judge(task: Any, outcome: str, check_ok: bool, check_detail: str, questions: int,
          agent_reason: str, answer: str = "") -> tuple[bool, str]:
    """(solved, why): the task's checker decides, and an infeasible task must end "failed", an ambiguous one
    (``must_ask``) only counts when the agent asked, a question (``expected_answer``) only with the right answer
    (the given and the expected one are in the detail either way)."""
    problems = []
    expected = getattr(task, "expected_outcome", "success")
    if expected == "failed" and outcome != "failed":
        problems.append(f"expected the agent to fail (infeasible) but it ended with {outcome}")
    if getattr(task, "expected_answer", None) is not None:
        answered = task.check_answer(answer)
        if not answered.ok:
            problems.append(answered.detail)
        elif check_ok:
            check_detail = f"{answered.detail}; {check_detail}"
    if not check_ok:
        problems.append(check_detail)
    if getattr(task, "must_ask", False) and questions == 0:
        problems.append("never asked the user")
    if not problems:
        return True, check_detail
    return False, "; ".join(problems) + (f"; agent: {agent_reason}" if agent_reason else "")


@dataclass(frozen=True)
class BenchRow:
    task: str
    tags: str
    solved: bool
    outcome: str
    steps: int
    seconds: float
    requests: int
    requests_by_kind: dict[str, int]
    actions: int
    no_effect_steps: int
    prompt_tokens_per_step: int | None   # median input tokens of the fast agent's plan requests
    questions: int
    tokens: int
    cost_usd: float
    mirrored: bool                       # the mirror served the whole task
    run_id: str
    detail: str
    phone: str = ""                      # which phone ran it (with --phones N)
    # With --replay: the task saved as a routine and run again on a fresh phone (bench_replay.replay_fields);
    # with --perturb also on a changed phone, with the repaired routine run once more.
    replay: dict[str, Any] | None = None
    perturbed: dict[str, Any] | None = None
    answer: str = ""                     # complete's answer ("" when the agent gave none)
    expected_answer: str | None = None   # a question task's expected answer; None when the task asks none

    @classmethod
    def of(cls, task: Any, result: Any, tally: TaskTally, *, seconds: float, check_ok: bool, check_detail: str,
           mirrored: bool) -> BenchRow:
        answer = getattr(result, "answer", "")
        solved, detail = judge(task, result.outcome, check_ok, check_detail, tally.questions, result.reason,
                               answer)
        per_step = tally.act_input_tokens
        return cls(task.id, ",".join(task.tags), solved, result.outcome, result.steps, round(seconds, 3),
                   tally.total_requests, {kind: tally.requests[kind] for kind in REQUEST_KINDS}, tally.actions,
                   tally.no_effect_steps, round(statistics.median(per_step)) if per_step else None,
                   tally.questions, tally.tokens, round(tally.meter.cost_usd, 6), mirrored, result.run_id, detail,
                   answer=answer, expected_answer=getattr(task, "expected_answer", None))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)        # "replay" and "perturbed" are null without --replay / --perturb


@dataclass(frozen=True)
class BenchSummary:
    tasks: int
    solved: int
    median_steps: float
    median_seconds: float
    median_requests: float
    median_tokens: float
    requests: int
    actions: int
    requests_per_action: float | None    # None when no action was carried out
    tokens: int
    cost_usd: float
    mirror: bool
    interrupted: bool = False
    replay: dict[str, Any] | None = None        # with --replay: see replay_summary
    perturbed: dict[str, Any] | None = None

    @classmethod
    def of(cls, rows: list[BenchRow], *, mirror: bool, interrupted: bool = False) -> BenchSummary:
        def median(values: list[float]) -> float:
            return statistics.median(values) if values else 0

        requests, actions = sum(r.requests for r in rows), sum(r.actions for r in rows)
        return cls(len(rows), sum(r.solved for r in rows), median([r.steps for r in rows]),
                   round(median([r.seconds for r in rows]), 3), median([r.requests for r in rows]),
                   median([r.tokens for r in rows]), requests, actions,
                   round(requests / actions, 3) if actions else None, sum(r.tokens for r in rows),
                   round(sum(r.cost_usd for r in rows), 6), mirror, interrupted, replay_summary(rows),
                   perturbed_summary(rows))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if data["replay"] is None:
            del data["replay"]
        if data["perturbed"] is None:
            del data["perturbed"]
        return {"summary": data}

    def text(self) -> str:
        share = 100 * self.solved / self.tasks if self.tasks else 0
        per_action = f"{self.requests_per_action:.2f}" if self.requests_per_action is not None else "–"
        lines = ["─" * WIDTH + f"\nSolved {self.solved}/{self.tasks} ({share:.0f}%) · median {self.median_steps:g} "
                 f"steps, {self.median_requests:g} requests, {self.median_tokens:,.0f} tokens, "
                 f"{self.median_seconds:.1f} s per task · {per_action} requests per action · ${self.cost_usd:.4f}"]
        if self.replay is not None:
            r = self.replay
            ratio = f"{r['median_time_ratio']:.2f}×" if r["median_time_ratio"] is not None else "–"
            lines.append(f"replay: {r['solved']} of {r['tasks']} solved, {r['zero_requests']} with 0 model requests, "
                         f"median time {ratio} the first run")
        if self.perturbed is not None:
            p = self.perturbed
            lines.append(f"perturbed: {p['solved']} of {p['tasks']} solved, {p['clean_until_differed']} with no model "
                         f"request before the step that differed; repaired routines: {p['repaired_solved']} of "
                         f"{p['repaired']} solved, {p['repaired_zero_requests']} with 0 model requests")
        return "\n".join(lines)


def replay_summary(rows: list[BenchRow]) -> dict[str, Any] | None:
    """The replay line's figures: of the solved tasks replayed, how many solved, with no request, and the
    median of replay time over first-run time."""
    replayed = [r for r in rows if r.replay is not None]
    if not replayed:
        return None
    ratios = [r.replay["seconds"] / r.seconds for r in replayed if r.seconds > 0 and r.replay["seconds"] > 0]
    return {"tasks": len(replayed), "solved": sum(bool(r.replay["solved"]) for r in replayed),
            "zero_requests": sum(r.replay["solved"] and r.replay["requests"] == 0 for r in replayed),
            "median_time_ratio": round(statistics.median(ratios), 3) if ratios else None}


def perturbed_summary(rows: list[BenchRow]) -> dict[str, Any] | None:
    runs = [r.perturbed for r in rows if r.perturbed is not None]
    if not runs:
        return None
    repaired = [p["repaired"] for p in runs if p.get("repaired")]
    return {"tasks": len(runs), "solved": sum(bool(p["solved"]) for p in runs),
            "clean_until_differed": sum(p["replay_requests"] == 0 for p in runs),
            "repaired": len(repaired), "repaired_solved": sum(bool(r["solved"]) for r in repaired),
            "repaired_zero_requests": sum(r["solved"] and r["requests"] == 0 for r in repaired)}


_REPLAY_HEAD = f" {'replay':6} {'r-reqs':>6} {'r-time':>6}"


def header(mirror: bool, phones: bool = False, replay: bool = False) -> str:
    where = "through the live mirror" if mirror else "over adb only (--no-mirror)"
    who = "virtual phones (the phone column says which)" if phones else "the virtual phone"
    extra = " · replay: the routine saved from the run, on a fresh phone" if replay else ""
    return (f"Phone: {who}, {where}\nreqs: model requests · no-eff: steps that changed nothing · "
            f"tok/step: median prompt tokens of a plan{extra}\n\n"
            + (f"{'phone':16} " if phones else "")
            + f"{'task':28} {'tags':18} {'result':6} {'agent':9} {'steps':>5} {'reqs':>4} {'no-eff':>6} "
            f"{'tok/step':>8} {'tokens':>8} {'time':>6} {'cost':>8}" + (_REPLAY_HEAD if replay else "") + "\n"
            + "─" * (WIDTH + 17 * phones + len(_REPLAY_HEAD) * replay))


def _replay_cells(row: BenchRow) -> str:
    replay = row.replay
    if replay is None:
        return f" {'–':6} {'–':>6} {'–':>6}"
    mark = "✔" if replay["solved"] else "✘"
    return f" {mark:6} {replay['requests']:6d} {replay['seconds']:5.1f}s"


def format_row(row: BenchRow, phones: bool = False, replay: bool = False) -> str:
    """One line per task (led by its phone with several); a failed task gets a second line saying why."""
    mark = "✔ pass" if row.solved else "✘ fail"
    per_step = f"{row.prompt_tokens_per_step:,d}" if row.prompt_tokens_per_step is not None else "–"
    line = ((f"{row.phone[:16]:16} " if phones else "")
            + f"{row.task[:28]:28} {row.tags[:18]:18} {mark:6} {row.outcome[:9]:9} {row.steps:5d} {row.requests:4d} "
            f"{row.no_effect_steps:6d} {per_step:>8} {row.tokens:8,d} {row.seconds:5.1f}s {f'${row.cost_usd:.4f}':>8}")
    if replay:
        line += _replay_cells(row)
    if row.perturbed is not None:
        p = row.perturbed
        repaired = p.get("repaired")
        again = f"; repaired v{repaired['version']}: {'✔' if repaired['solved'] else '✘'} " \
                f"{repaired['requests']} reqs" if repaired else ""
        line += (f"\n  ↳ perturbed ({p['kind']}: {p['what']}): {'✔' if p['solved'] else '✘'} {p['requests']} reqs "
                 f"({p['replay_requests']} before the hand-over), {p['replayed_steps']} replayed + "
                 f"{p['agent_steps']} agent steps{again}")
    if row.solved:
        return line
    return line + "\n" + "\n".join(why_lines(row.detail))


WHY_LINES = 3     # a failed task's reason takes at most this many lines under its row


def why_lines(detail: str, width: int = WIDTH, most: int = WHY_LINES) -> list[str]:
    """A failed task's reason under its row: wrapped whole when it fits in ``most`` lines, else ended at the last
    sentence or clause end that does (or between words) with "…" — never cut mid-word or mid-sentence."""
    wrap = textwrap.TextWrapper(width=width, initial_indent="  ↳ ", subsequent_indent="    ",
                                break_long_words=False, break_on_hyphens=False)
    lines = wrap.wrap(" ".join(detail.split()))
    if len(lines) <= most:
        return lines
    room = width * most - 4 * most - 2                 # what the first lines hold, less the indents and " …"
    text = " ".join(detail.split())[:room]
    ends = [m.end() for m in re.finditer(r"[.;:!?](?=\s)|,(?=\s)", text)]
    cut = ends[-1] if ends and ends[-1] > room // 2 else text.rfind(" ")
    return _fit(wrap, text[:cut].rstrip(" ,;:") + " …", most)


def _fit(wrap: textwrap.TextWrapper, text: str, most: int) -> list[str]:
    """Wrapping can take a line more than the characters suggest: drop words until ``most`` lines hold it."""
    lines = wrap.wrap(text)
    while len(lines) > most:
        text = text[:-2].rstrip()
        text = text[:text.rfind(" ")].rstrip(" ,;:") + " …"
        lines = wrap.wrap(text)
    return lines
