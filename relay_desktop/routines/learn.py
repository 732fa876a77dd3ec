"""Learning a routine from a successful run: its carried-out actions, their targets, screens and effects, and the
values of the task it typed or picked, which become named parameters.

A value becomes a parameter when the task gave it: text the run typed that the task holds ("running late"), or
a name the task holds that the run picked from a list (the "Bob" of the row "Bob Martinez"). Everything else the
run typed is part of how the task is done and stays as it was. Text typed into a password field, or any text the
user gave as a secret during the run, is never kept: the step keeps only that it needs one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from relay_desktop.llm.redaction import redact
from relay_desktop.routines.model import PARAMETER_NAME, Parameter, Routine, RoutineError, RoutineStep, check_name

__all__ = ["ActionRecord", "detect_parameters", "learn_routine", "records_from_steps", "template"]

_MIN_VALUE = 2
# Words of a field that say which value it takes, by what it holds (checked in the resource id, then the label).
_FIELD_NAMES: tuple[tuple[str, str], ...] = (
    (r"recipient|\bto\b|contact|person|participant|conversation", "name"),
    (r"message|compose|reply|chat|sms", "message"),
    (r"search|query|find|url|address[_ ]?bar|omnibox", "query"),
    (r"title|subject", "title"),
    (r"phone|number|mobile|\btel", "number"),
    (r"e-?mail", "email"),
    (r"label", "label"),
    (r"promo|coupon|code", "code"),
    (r"hour|minute|time", "time"),
    (r"body|content|note|text", "text"),
    (r"first[_ ]?name", "first_name"),
    (r"last[_ ]?name|surname|family", "last_name"),
    (r"name", "name"),
)


@dataclass(frozen=True)
class ActionRecord:
    """One carried-out action of a run, as the history (or a live collector) keeps it."""

    step: int
    index: int
    source: str                         # "model", "fallback", "routine"
    action: dict[str, Any]              # the agent's step as JSON ({"action": "tap", "element": "e4"})
    ok: bool
    target: dict[str, Any] | None = None
    screen: dict[str, Any] | None = None
    effect: dict[str, Any] | None = None

    @property
    def kind(self) -> str:
        return str(self.action.get("action", ""))


def records_from_steps(steps: Iterable[Any]) -> list[ActionRecord]:
    """The actions of a run's step records (``runs.StepRecord``), in order."""
    out = []
    for step in steps:
        for action in step.actions:
            out.append(ActionRecord(step.step, int(action.get("index", 0)), step.source, action.get("action") or {},
                                    action.get("ok") is True, action.get("target"), action.get("screen"),
                                    action.get("effect")))
    return out


# ---------------------------------------------------------------- parameters

def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def _word_pattern(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", re.IGNORECASE)


def _in_task(value: str, task: str) -> bool:
    return bool(value.strip()) and bool(_word_pattern(" ".join(value.split())).search(" ".join(task.split())))


def _common_phrase(typed: str, task: str) -> str | None:
    """The text the task quotes that the typed text holds (the agent typed "I'm running late" for the task's
    'running late'). Only quoted text: a phrase of the task's own sentence inside what was typed ("the guest Wi-Fi
    network" in a message about it) describes the task, it is no value to change."""
    quoted = sorted((m.group(1).strip() for m in _QUOTED.finditer(task)), key=len, reverse=True)
    return next((q for q in quoted if len(q) >= 2 and _word_pattern(q).search(typed)), None)


_PROPER = re.compile(r"(?<![\w'])([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)")
_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{2,})[\"”'’]")


def _named_in_task(task: str) -> list[str]:
    """Names the task gives: capitalised words after its first word ("Text Bob …" → Bob), and quoted text."""
    names = [m.group(1) for m in _QUOTED.finditer(task)]
    first = task.split()[0] if task.split() else ""
    for match in _PROPER.finditer(task):
        phrase = match.group(1)
        if match.start() == task.find(first) and phrase.split()[0] == first:
            phrase = " ".join(phrase.split()[1:])      # the sentence's first word is capitalised anyway
        if phrase:
            names.append(phrase)
    return names


# A name shown in a list: two or more capitalised words ("Bob Martinez", "Yoga Mat"), not a setting's
# one-word title ("Wi-Fi") or a sentence ("Wi-Fi off, mobile data").
_NAME_LIKE = re.compile(r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)+")


def _picked(target: dict[str, Any], task: str) -> str | None:
    """The name the task gives that the run picked from a list: the task's "Bob" in the row "Bob Martinez"."""
    parts = [text for _, text in target.get("parts") or []] or str(target.get("label", "")).split(" · ")
    for name in _named_in_task(task):
        for part in parts:
            if _NAME_LIKE.fullmatch(part) and part.casefold().startswith(name.casefold()) and _in_task(name, task):
                return name
    return None


def _list_name(target: dict[str, Any]) -> str:
    """A picked value's parameter name, from the list it was picked from (a conversation list: "name")."""
    listed = str((target.get("place") or {}).get("list") or "").replace("_", " ")
    for pattern, name in _FIELD_NAMES:
        if listed and re.search(pattern, listed, re.IGNORECASE):
            return name
    return "item"


def _slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.casefold())[:3]
    slug = "_".join(words)
    if not slug or not slug[0].isalpha():
        slug = "value" + (f"_{slug}" if slug else "")
    return slug[:40]


def _field_name(target: dict[str, Any] | None) -> str:
    """A parameter's name from the field it was typed into (or the list it was picked from)."""
    if not target:
        return "text"
    rid = str(target.get("id") or "").rsplit("/", 1)[-1].replace("_", " ")
    place = target.get("place") or {}
    listed = str(place.get("list") or "").replace("_", " ")
    label = str(target.get("label") or "")
    for source in (rid, listed, label):
        for pattern, name in _FIELD_NAMES:
            if source and re.search(pattern, source, re.IGNORECASE):
                return name
    return _slug(label or rid or "text")


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f"{name}_{number}" in taken:
        number += 1
    return f"{name}_{number}"


def _secret(record: ActionRecord) -> bool:
    text = str(record.action.get("text", ""))
    return bool((record.target or {}).get("password")) or (bool(text) and redact(text) != text)


def detect_parameters(task: str, records: Sequence[ActionRecord],
                      known: Sequence[Parameter] = ()) -> list[Parameter]:
    """The task's values the run typed or picked, named after where they went; ``known``: names to keep for
    values seen before (a repaired routine keeps its parameters' names)."""
    found: list[Parameter] = []
    taken: set[str] = set()
    values: set[str] = set()

    def add(value: str, name: str) -> None:
        value = " ".join(value.split())
        if len(value) < _MIN_VALUE or _fold(value) in values:
            return
        if any(_fold(value) in v or v in _fold(value) for v in values):
            return        # part of a value already kept, or holding one: one parameter, not two overlapping
        same = next((p for p in known if _fold(p.default) == _fold(value)), None)
        name = same.name if same is not None else _unique(name, taken | {p.name for p in known})
        found.append(Parameter(name, value))
        taken.add(name)
        values.add(_fold(value))

    for record in records:
        if not record.ok or _secret(record):
            continue
        if record.kind == "type":
            typed = str(record.action.get("text", ""))
            value = typed if _in_task(typed, task) else _common_phrase(typed, task)
            if value:
                add(value, _field_name(record.target))
        elif record.kind in ("tap", "long_press") and record.target and record.target.get("place"):
            value = _picked(record.target, task)
            if value:
                add(value, _list_name(record.target))
    return found


def template(text: str, parameters: Sequence[Parameter]) -> str:
    """The text with each parameter's value written as ``{name}`` (longest values first, whole words only);
    ``{Name}`` where the text has it with a capital the value lacks ("Sunglasses" for "sunglasses")."""
    for parameter in sorted(parameters, key=lambda p: -len(p.default)):
        default, name = parameter.default, parameter.name

        def marker(match: re.Match[str], default: str = default, name: str = name) -> str:
            capital = match.group(0)[:1].isupper() and not default[:1].isupper()
            return "{" + (name.capitalize() if capital else name) + "}"
        text = _word_pattern(default).sub(marker, text)
    return text


def _template_leading(text: str, parameters: Sequence[Parameter]) -> str:
    """Only a value the text starts with ("Bob Martinez"): a value inside other words is content that happens
    to mention it (Bob's last message about "Carol's number" does not name Carol's row)."""
    return template(text, [p for p in parameters if text.casefold().startswith(p.default.casefold())])


# ---------------------------------------------------------------- the routine

_TEXT_KEYS = ("label", "title", "value", "text", "seen")


def _templated(value: Any, parameters: Sequence[Parameter], key: str = "") -> Any:
    """Parameter values written as placeholders in the texts a routine holds (not in ids, classes or layouts)."""
    if isinstance(value, str):
        return template(value, parameters) if key in _TEXT_KEYS else value
    if isinstance(value, list):
        if key == "parts":
            return [[rid, _template_leading(text, parameters)] for rid, text in value]
        if key == "neighbours":
            return [_template_leading(v, parameters) for v in value]
        if key == "appeared":
            return [template(v, parameters) for v in value]
        return value
    if isinstance(value, dict):
        return {k: _templated(v, parameters, k) for k, v in value.items()}
    return value


def _action(record: ActionRecord, parameters: Sequence[Parameter], secret: bool) -> dict[str, Any]:
    # A point the model read off a picture is kept as the screen's pixel the agent mapped it to.
    action = {k: v for k, v in record.action.items() if k not in ("element", "from_screenshot")}
    if record.target is None and "element" in record.action:
        action["element"] = record.action["element"]     # no identity was recorded: nothing else to go by
    bounds = (record.target or {}).get("bounds")
    if "x" in action and "y" in action and bounds and bounds[2] > bounds[0] and bounds[3] > bounds[1]:
        # A point on an element (a slider's track at 10%): kept as the same place on that element, wherever it is.
        x, y = int(action.pop("x")), int(action.pop("y"))
        action["at"] = [round((x - bounds[0]) / (bounds[2] - bounds[0]), 3),
                        round((y - bounds[1]) / (bounds[3] - bounds[1]), 3)]
    if secret:
        action.pop("text", None)
    elif "text" in action:
        action["text"] = template(str(action["text"]), parameters)
    return action


_DECLINE = re.compile(r"(?i)(not now|no,? thanks|no thank you|later|maybe later|remind me later|skip|dismiss|"
                      r"close|got it|never|don't ask again|cancel)")


def _answers_interruption(record: ActionRecord, interruptions: Sequence[str]) -> bool:
    """The step closed a dialog that interrupted the task: one another app put up (a system warning, a
    permission question), or one a replay found in its way. Such a step is done only when its dialog shows."""
    dialog = (record.screen or {}).get("dialog")
    if not dialog or (record.effect or {}).get("dialog") != "closed":
        return False
    app = (record.screen or {}).get("app")
    package = (record.target or {}).get("package")
    # Declining a prompt ("Not now" to a rating request, "Skip" to what's new) answers one the app shows once.
    declined = bool(_DECLINE.fullmatch(str((record.target or {}).get("label", "")).strip()))
    return dialog in interruptions or bool(app and package and package != app) or declined


_WIPED = "•••"


def _wipe(value: Any, secrets: Sequence[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, _WIPED)
        return value
    if isinstance(value, list):
        return [_wipe(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: _wipe(v, secrets) for k, v in value.items()}
    return value


def _wiped(step: RoutineStep, secrets: Sequence[str]) -> RoutineStep:
    return RoutineStep(_wipe(step.action, secrets), _wipe(step.target, secrets), _wipe(step.screen, secrets),
                       _wipe(step.expect, secrets), step.secret, step.optional)


def learn_routine(name: str, task: str, records: Sequence[ActionRecord], *, source_run: str = "",
                  parameters: Sequence[Parameter] | None = None, known: Sequence[Parameter] = (),
                  confirm: bool = True, note: str = "", interruptions: Sequence[str] = ()) -> Routine:
    """The routine a successful run's actions make. ``parameters``: the ones to use (the user's choice);
    None: detected from the run, keeping the names of ``known`` ones. ``interruptions``: dialogs known to have
    come in the way (a replay stopped for them); the steps that closed them become optional."""
    name = check_name(name)
    done = [r for r in records if r.ok]
    if not done:
        raise RoutineError("the run carried out no action on the phone: there is nothing to replay")
    if not any(r.screen for r in done):
        raise RoutineError("the run was recorded by an older Relay Desktop, without what a routine needs (the "
                           "screens and targets of its steps); run the task again and save that run")
    if parameters is None:
        parameters = detect_parameters(task, done, known)
    for parameter in parameters:
        if not PARAMETER_NAME.fullmatch(parameter.name):
            raise RoutineError(f"{parameter.name!r} cannot be a parameter's name")
        if not _in_task(parameter.default, task):
            raise RoutineError(f"the parameter {parameter.name}'s value {parameter.default!r} is not in the task "
                               f"{task!r}: a parameter is a value the task gives")
    # Whatever a password field or a secret received is wiped from every text of the routine (a field may show
    # it, a later screen may quote it), not only from the step that typed it.
    secrets = [str(r.action.get("text")) for r in done if r.kind == "type" and _secret(r) and r.action.get("text")]
    steps = []
    for record in done:
        secret = record.kind == "type" and _secret(record)
        effect = record.effect
        if secret and effect:
            effect = {k: v for k, v in effect.items() if k not in ("value", "appeared", "seen")}
        step = RoutineStep(_action(record, parameters, secret),
                           _templated(record.target, parameters) if record.target else None,
                           _templated(record.screen or {}, parameters),
                           _templated(effect, parameters) if effect else None, secret,
                           _answers_interruption(record, interruptions))
        steps.append(_wiped(step, secrets) if secrets else step)
    last = done[-1].effect or {}
    end = _wipe(_templated(dict(last.get("after") or {}), parameters), secrets)
    return Routine(name, template(" ".join(task.split()), parameters), tuple(steps), tuple(parameters),
                   {k: v for k, v in end.items() if v}, confirm, source_run=source_run, note=note)
