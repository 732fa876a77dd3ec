"""Looking back at the last plan, on the screen the next plan needs anyway: what each step did, the loop
guards' notes, and suggestions when the phone seems stuck or the home screen came up unasked.

Suggestions only: the loop never acts against the model's plan. If the model pressed home on purpose, or its
tap closed the app, it is told what happened and what it could do, and it decides.
"""

from __future__ import annotations

from collections.abc import Callable

from relay_desktop.agent.events import ActionEffect, HumanInput
from relay_desktop.agent.loop.guards import SIGNATURE_WINDOW, Transition
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.loop.plan_runner import PlanRunner
from relay_desktop.agent.loop.prompts import as_data
from relay_desktop.agent.loop.run_state import RunState
from relay_desktop.agent.steps.effects import record_effect
from relay_desktop.agent.steps.results import StepOutcome, describe_target, effect_of
from relay_desktop.agent.supervisors.verifiers import verify_step
from relay_desktop.llm.redaction import register_secret
from relay_desktop.llm.types import Message
from relay_desktop.perception import sign_in_screen

__all__ = ["Reviewer"]

# Steps after which the home screen or another app in front is what the model asked for.
_LEAVES_APP = ("home", "recent_apps", "back", "launch_app")


class Reviewer:
    def __init__(self, run: RunState, runner: PlanRunner,
                 secret_names: Callable[[], list[str]] = lambda: []) -> None:
        self.run = run
        self.runner = runner
        self.secret_names = secret_names        # the saved secrets' names (known once the run has announced)
        self._asked_sign_in: set[str] = set()

    def review(self, before: Observation, after: Observation) -> list[str]:
        """Notes for this turn's prompt from what the previous plan did; the per-step results go into the
        conversation, so later turns still see them."""
        run, outcomes = self.run, self.runner.outcomes
        if not outcomes:
            return []
        done = [o for o in outcomes if o.status == "done"]
        if done and done[-1].after is None:
            done[-1].after = after
        for outcome in done:
            assert outcome.after is not None
            self._settle(outcome, outcome.after)
        lines = [f"RESULT of your plan from step {run.iteration - 1}, step by step:"]
        lines += [o.line() for o in outcomes]
        lines.append(f"Now in {after.app or 'an unknown app'}.")
        run.conversation.add(Message.user(as_data("\n".join(lines))))

        effective = any(o.effective for o in done)
        transition = Transition(before.fingerprint, after.fingerprint, tuple(o.step for o in done),
                                tuple(_target_label(o) for o in done), effective)
        notes: list[str] = []
        if done:
            cycle = run.guards.record(transition)
            if cycle:
                notes.append(cycle)
                run.coordinator.add_failure(cycle, kind="cycle", step=run.iteration)
        worked = effective and all(o.verdict_ok is not False for o in done) and \
            all(o.status == "done" for o in outcomes)
        self.runner.last_ok = worked if done else self.runner.last_ok
        if worked:
            run.coordinator.resolve("step", "cycle", "stagnation", "stuck")  # what went wrong before no longer applies
        if run.guards.ineffective() is not None and done:
            last = done[-1]
            if last.step.action in ("scroll", "swipe") and last.verdict_ok:
                # Not a failure: a list at its end (verify_step tells it from a gesture on something that does not
                # scroll), which tells the model everything there has been shown.
                notes.append(f"END REACHED: '{last.described}' moved nothing — the list is at its end that way, "
                             "so all of it has been shown. Do not scroll that way again.")
            else:
                notes.append(f"INEFFECTIVE: '{last.described}' changed nothing — neither the element list nor "
                             "the picture. Do not repeat it. Look at why: the wrong element, covered, disabled, or "
                             "not what this app offers? If the app lacks what the task needs, fail with the reason.")
        loop = run.guards.same_element_loop()
        if loop:
            notes.append(loop)
        stagnant = run.guards.stagnant()
        if stagnant:
            notes.append(f"NOTE: {stagnant}.")
            run.coordinator.add_failure(stagnant, kind="stagnation", step=run.iteration)
        return notes

    def _settle(self, outcome: StepOutcome, after: Observation) -> None:
        if outcome.effective is not None:
            return
        run = self.run
        effect, changed = effect_of(outcome.before, after, outcome.step)
        package = self.runner.launched if outcome.step.action == "launch_app" else None
        verdict = verify_step(outcome.step, outcome.before, after, package, changed=changed)
        outcome.settle(after, effect, changed, verdict.ok, verdict.reason)
        run.verification("step", verdict.ok, f"{outcome.described}: {verdict.reason}", changed=changed)
        run.emit(ActionEffect(run_id=run.run_id, step=outcome.iteration or run.iteration - 1, index=outcome.index,
                              effect=record_effect(outcome.before, after, outcome.step.element)))
        # The supervisors read what the step did to the screen, not only what was asked ("set to 20" reached 54).
        line = outcome.transcript_line
        if line is not None and line < len(self.runner.transcript):
            self.runner.transcript[line] += f"; then: {effect}" + ("" if verdict.ok is not False else
                                                                   f". CHECK FAILED: {verdict.reason}")

    # ------------------------------------------------------------ suggestions, never actions

    def suggestions(self, observation: Observation) -> list[str]:
        run, runner = self.run, self.runner
        notes = []
        done = [o for o in runner.outcomes if o.status == "done"]
        asked = bool(done) and done[-1].step.action in _LEAVES_APP
        if (observation.on_launcher and not observation.in_overview and runner.target_app and not asked
                and run.iteration > 1 and done):
            notes.append(f"NOTE: the home screen is in front, though your last step ('{done[-1].described}') did "
                         f"not ask for it: the app may have closed. To go on in {runner.target_app}, use launch_app.")
            run.log(f"The home screen came up unasked after '{done[-1].described}'", "warning")
        if run.guards.stuck() or run.guards.same_signature():
            scrollable = next((e for e in observation.element_map.elements
                               if "scrollable" in e.states or e.role == "scroll"), None)
            options = []
            if observation.keyboard_shown:
                options.append("hide the keyboard (back) if it covers what you need")
            if scrollable is not None:
                options.append(f"scroll {describe_target(scrollable)} to reveal more")
            options.append("go back and try another path")
            # Say what was seen: a screen that went back and forth between two states did change.
            what = (f"the screen has not changed for {run.guards.unchanged} steps" if run.guards.stuck() else
                    f"the screen only went back and forth between two states over the last {SIGNATURE_WINDOW} steps")
            note = f"STUCK: {what}. Consider: " + "; ".join(options) + "."
            notes.append(note)
            run.log(note, "warning")
            run.coordinator.add_failure(note, kind="stuck", step=run.iteration)
            run.coordinator.note_failures(1, observation, run.iteration, trigger="stall")
            run.guards.reset_stuck()
        return notes

    async def human_checks(self, observation: Observation) -> list[str]:
        """Messages the user typed during the run; a sign-in screen: ask the user once per screen instead of
        letting the model guess credentials."""
        run = self.run
        notes = [f"USER MESSAGE (sent during the run): {m}" for m in run.control.take_messages(run.reader)]
        for message in notes:
            run.log(message)
        if sign_in_screen(observation.element_map) and observation.layout_hash not in self._asked_sign_in:
            self._asked_sign_in.add(observation.layout_hash)
            secrets = self.secret_names()
            if secrets:
                # The user saved secrets for this: the model picks the one this sign-in needs (by its name) and
                # types it without seeing it; the user is asked only when none fits.
                notes.append(f"A password or PIN field is on screen. Saved secrets: {', '.join(secrets)}. If one "
                             f"of them is what it asks for, type it with type(element, secret=NAME) (e.g. "
                             f"type(element, secret={secrets[0]})); if none is, ask_user. Never guess a password.")
                return notes
            question = (f"The phone shows a sign-in screen in {observation.app}. Sign in on the phone yourself and "
                        "answer 'done', or give the details the agent should type (they are used for this run "
                        "only and never saved).")
            answer = await run.handlers.ask(question)
            run.emit(HumanInput(run_id=run.run_id, step=run.iteration, purpose="sign_in", prompt=question,
                                answer="(given)" if answer else ""))
            if answer:
                # Credentials go to the model for this run only: masked in logs, history and exports.
                register_secret(answer)
                self.runner.answers.append(answer)
                notes.append(f"The user answered about the sign-in screen: {answer}")
            else:
                notes.append("Sign-in screen and no answer from the user: do not type any password.")
        return notes


def _target_label(outcome: StepOutcome) -> str:
    if not outcome.step.element:
        return ""
    element = outcome.before.element_map.get(outcome.step.element)
    return describe_target(element) if element is not None else outcome.step.element
