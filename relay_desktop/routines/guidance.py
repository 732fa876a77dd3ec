"""A routine's steps in words, for logs, the window and the agent taking over from a replay: what the replay did,
why it stopped, what is left, and which typed values the phone showed last time (to be read again)."""

from __future__ import annotations

import re

from relay_desktop.routines.identity import target_name
from relay_desktop.routines.model import BoundRoutine, BoundStep
from relay_desktop.routines.outcome import ReplayOutcome

__all__ = ["describe_step", "facts_in", "handover_guidance"]

_FACT = re.compile(r"[\w.@+$€£-]*\d[\w.@+$€£-]*")


def facts_in(text: str, task: str) -> list[str]:
    """The numbers and codes a text holds that the task does not give: read on the phone, so they may change
    ("bluebird2024", "555-0187", "$35.00")."""
    given = task.casefold()
    found = [m.group(0).strip(".-") for m in _FACT.finditer(text)]
    return list(dict.fromkeys(f for f in found if len(f) >= 4 and f.casefold() not in given))


def describe_step(step: BoundStep, short: bool = False) -> str:
    """One line for guidance and logs: ``tap button "Send SMS" in com.google.android.apps.messaging → …``;
    ``short``: the action and its target only."""
    action = dict(step.action)
    kind = str(action.pop("action", ""))
    words = [kind.replace("_", " ")]
    if step.target is not None and step.needs:
        # Its recorded label held a parameter: what it must show now, not the recorded label with a value in it.
        words.append(f'{step.target.get("role") or "element"} showing "{" ".join(step.needs)}"')
    elif step.target is not None:
        words.append(target_name(step.target))
    for key in ("app", "direction", "key", "value", "from_edge"):
        if key in action:
            words.append(str(action[key]))
    if "text" in action:
        words.append(f'"{" ⏎ ".join(str(action["text"]).splitlines())}"')
        if action.get("clear"):
            words.append("(replacing its text)")
        if action.get("submit"):
            words.append("and Enter")
    elif step.step.secret:
        words.append("(a password)")
    if short:
        return " ".join(words)
    if step.target is not None and step.target.get("package"):
        words.append(f"in {step.target['package']}")
    expect = step.expect or {}
    if expect.get("app"):
        then = f"opens {expect['app']}"
    elif expect.get("title"):
        shown = [need for need in step.expect_needs if need.casefold() in str(expect["title"]).casefold()]
        then = f"leads to a screen showing \"{' '.join(shown)}\"" if shown else f"leads to \"{expect['title']}\""
    elif expect.get("states"):
        then = f"turns it {' '.join(expect['states'])}"
    else:
        then = ""
    return " ".join(words) + (f" → {then}" if then else "")


def handover_guidance(routine: BoundRoutine, outcome: ReplayOutcome) -> str:
    """What the agent is told when it takes over from a routine: how far the replay got, why it stopped, and
    the routine's remaining steps as they went last time (a guide, not commands: the screen may differ)."""
    total = len(routine.steps)
    done = ("none of its steps was carried out" if outcome.replayed == 0 else
            "its first step was carried out without you (it is done: see the screen)" if outcome.replayed == 1 else
            f"its first {outcome.replayed} steps were carried out without you (they are done: see the screen)")
    head = (f"ROUTINE: a saved routine (\"{routine.name}\"), learnt from an earlier successful run of this task, has "
            f"{total} steps; {done}.")
    if not outcome.remaining:
        did = "\nWhat it did without you:\n" + "\n".join(outcome.done) if outcome.done else ""
        return (f"{head}{did}\nAll of them ran, but the end check failed: {outcome.reason}. Check the screen and "
                "finish the task.")
    lines = [head]
    if outcome.done:
        lines += ["What it did without you:", *outcome.done]
    stop = (outcome.stopped_at or 0) + 1
    lines.append(f"It stopped before its step {stop} because {outcome.reason}.")
    if outcome.interruption:
        # Said, so that the model closes the pop-up and nothing more: the replay does the rest without it.
        lines.append(f"Close that pop-up and do nothing else: once it is gone, the routine goes on by itself from "
                     f"its step {stop}. Only if it cannot, you finish the task, with these steps as a guide.")
    lines.append("Its remaining steps, as they went last time (the screen may differ now: a pop-up, another screen, "
                 "a moved list; use them as a guide, not as commands):")
    first = (outcome.stopped_at or 0) + 1
    for number, step in enumerate(outcome.remaining, first):
        line = f"{number}. {describe_step(step)}"
        facts = facts_in(str(step.action.get("text", "")), routine.task) if step.action.get("action") == "type" \
            else []
        if facts:
            # A model that trusts the routine would send last time's password without reading the note.
            line += f" — {', '.join(facts)} is what the phone showed last time: read it again before typing"
        lines.append(line)
    return "\n".join(lines)
