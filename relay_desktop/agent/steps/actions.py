"""Actions as tools: every action the agent can take has a name, a description and a parameter schema.

The fast agent answers with a :class:`SemanticActionPlan` — a short list of steps, each one of these actions.
Every step is validated against its action's own schema before anything reaches the phone, and element IDs
resolve to the element's visible tap point in the screen the plan was made for. A bad step (an unknown
action, a missing parameter, an element that is not on the screen) is a :class:`StepError` with a message
meant for the model: the orchestrator records it as a failed step and tells the model what went wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from relay_desktop.llm.types import OutputContract
from relay_desktop.perception import Bounds, Element, ElementMap

__all__ = ["ACTIONS", "MAX_STEPS_PER_PLAN", "OPTIONAL_ACTIONS", "PLAN_CONTRACT", "ActionSpec", "ResolvedStep",
           "SemanticActionPlan", "Step", "StepError", "available_actions", "finger_vector", "parse_plan",
           "plan_contract", "resolve_step", "screen_step"]

MAX_STEPS_PER_PLAN = 5
DIRECTIONS = ("up", "down", "left", "right")
EDGES = ("top", "bottom", "left", "right")
MAX_REMEMBER = 5
KEYS = ("enter", "search", "delete", "tab", "escape", "volume_up", "volume_down", "power", "camera")


@dataclass(frozen=True)
class ActionSpec:
    name: str
    description: str
    params: dict[str, Any]                 # JSON schema of each parameter
    required: tuple[str, ...] = ()
    targets_element: bool = False           # resolves an element id to a point
    ends_plan: bool = False                 # nothing after it in a plan runs (the screen is no longer known)

    @property
    def schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"action": {"const": self.name}, **self.params},
                "required": ["action", *self.required], "additionalProperties": False}

    def tool(self) -> dict[str, Any]:
        """The action as a tool definition (name, description, JSON-schema parameters)."""
        params = {"type": "object", "properties": self.params, "required": list(self.required)}
        return {"name": self.name, "description": self.description, "parameters": params}


_ELEMENT = {"type": "string", "description": "an element id from the screen's element list, e.g. \"e12\""}
_POINT = {"type": "integer", "minimum": 0, "description": "screen pixel; only when no element fits"}
# A point read off the picture: the agent maps it to the phone's pixel (the picture may be scaled), exactly.
_IN_SCREENSHOT = {"type": "boolean", "description": "x, y are pixels of the screenshot, not of the screen"}

ACTIONS: dict[str, ActionSpec] = {spec.name: spec for spec in (
    ActionSpec("tap", "Tap an element (or, only when no element fits, a point x, y: on the screen, or on the "
               "screenshot with in_screenshot=true).",
               {"element": _ELEMENT, "x": _POINT, "y": _POINT, "in_screenshot": _IN_SCREENSHOT}, targets_element=True),
    ActionSpec("long_press", "Press and hold an element (opens context menus, starts selection).",
               {"element": _ELEMENT, "x": _POINT, "y": _POINT, "in_screenshot": _IN_SCREENSHOT},
               targets_element=True),
    ActionSpec("type", "Type text into a field (or secret=NAME: a secret the user saved, typed without you "
               "ever seeing it): taps the field first when an element is given. Typed text goes in at the field's "
               "cursor, which a tap puts wherever it lands (taps do not place the cursor reliably), so in a field "
               "that has text use clear=true to replace all of it, or replace=\"old words\" with text=\"new words\" "
               "to change part of it (the rest of the field, line breaks included, is kept). A line break in text "
               "(\\n) presses Enter: a new line in a field of several lines.",
               {"element": _ELEMENT, "text": {"type": "string"},
                "secret": {"type": "string", "description": "the name of a saved secret to type instead of text"},
                "clear": {"type": "boolean", "description": "delete the field's current text first"},
                "replace": {"type": "string", "description": "words in the field, exactly as it shows them and "
                                                             "found once, that text replaces"},
                "submit": {"type": "boolean", "description": "press Enter after typing"}},
               targets_element=True),
    ActionSpec("swipe", "Drag a finger in a direction (content moves with it), from an element, from a screen "
               "edge (from_edge=top, down: notifications, again: Quick Settings) or across the middle.",
               {"direction": {"enum": list(DIRECTIONS)}, "element": _ELEMENT,
                "from_edge": {"enum": list(EDGES), "description": "start at this edge of the screen"}},
               required=("direction",), targets_element=True),
    ActionSpec("scroll", "Scroll to reveal more content in a direction: 'down' shows what is below.",
               {"direction": {"enum": list(DIRECTIONS)}, "element": _ELEMENT}, required=("direction",),
               targets_element=True),
    ActionSpec("set_value", "Set a slider: a value in its listed range, else a percentage 0-100.",
               {"element": _ELEMENT, "value": {"type": "number"}}, required=("element", "value"),
               targets_element=True),
    ActionSpec("press_key", "Press a key: enter, search, delete, tab, escape, volume or power keys.",
               {"key": {"enum": list(KEYS)}}, required=("key",)),
    ActionSpec("back", "Press the Back button (also hides the keyboard).", {}),
    ActionSpec("home", "Go to the home screen.", {}, ends_plan=True),
    ActionSpec("recent_apps", "Show the recent apps.", {}, ends_plan=True),
    ActionSpec("launch_app", "Open an installed app by its name or package.",
               {"app": {"type": "string", "minLength": 1}}, required=("app",), ends_plan=True),
    ActionSpec("wait", "Wait for something to load.",
               {"seconds": {"type": "number", "minimum": 0.1, "maximum": 10}}, required=("seconds",)),
    ActionSpec("ask_user", "Ask the user a question and wait for the answer (missing details, sign-in).",
               {"question": {"type": "string", "minLength": 1}}, required=("question",), ends_plan=True),
    ActionSpec("complete", "The task is done; say what was achieved. When the task asks a question (how many, "
               "when, what, is it…), give answer: the value asked for, short, as read on the screen (\"7:30\", "
               "\"3\", \"yes\"); the user sees it on its own.",
               {"summary": {"type": "string"},
                "answer": {"type": "string", "description": "only when the task asks a question: the value, "
                                                            "short"}},
               required=("summary",), ends_plan=True),
    ActionSpec("fail", "The task cannot be done; say why.",
               {"reason": {"type": "string"}}, required=("reason",), ends_plan=True),
)}

# Off unless the user allows it (with a list of allowed command prefixes); every call is confirmed.
SHELL = ActionSpec("shell", "Run an adb shell command; only commands starting with an allowed prefix run.",
                   {"command": {"type": "string", "minLength": 1}}, required=("command",))
OPTIONAL_ACTIONS: dict[str, ActionSpec] = {SHELL.name: SHELL}


def available_actions(*, shell: bool = False) -> dict[str, ActionSpec]:
    return {**ACTIONS, **({SHELL.name: SHELL} if shell else {})}


def _plan_schema(specs: dict[str, ActionSpec]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for spec in specs.values():
        for name, schema in spec.params.items():
            params.setdefault(name, schema)
    # One flat step object (the action name plus every parameter) rather than a oneOf per action: every
    # provider's structured-output mode accepts it, and each step is then checked against its own schema.
    step = {"type": "object", "properties": {"action": {"enum": list(specs)}, **params}, "required": ["action"]}
    return {
        "type": "object",
        "properties": {
            "thinking": {"type": "string", "description": "what the screen shows and why these steps"},
            "reflection": {"type": "string",
                           "description": "one critical line: did the last action do what you wanted?"},
            "steps": {"type": "array", "items": step, "minItems": 1, "maxItems": MAX_STEPS_PER_PLAN},
            "remember": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_REMEMBER,
                         "description": "facts read on this screen that later steps need (a phone number, a "
                                        "code, a name, a price): kept for the whole run. \"F2: …\" replaces "
                                        "fact F2; \"forget F2\" retires it"},
        },
        "required": ["thinking", "steps"],
    }


def plan_contract(*, shell: bool = False) -> OutputContract:
    return OutputContract("act", "The next steps to carry out on the phone, from the current screen.",
                          _plan_schema(available_actions(shell=shell)))


PLAN_CONTRACT = plan_contract()
PLAN_SCHEMA = PLAN_CONTRACT.schema
STEP_SCHEMA = PLAN_SCHEMA["properties"]["steps"]["items"]


DIRECTION_VECTORS: dict[str, tuple[int, int]] = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def finger_vector(action: str, direction: str) -> tuple[int, int]:
    """Which way the finger moves: a swipe goes the way it names, a scroll the other way (scrolling down reveals
    what is below, so the finger moves up)."""
    dx, dy = DIRECTION_VECTORS[direction]
    return (-dx, -dy) if action == "scroll" else (dx, dy)


class StepError(Exception):
    """A step that cannot run: told to the model as a failed step, never a crash."""


@dataclass(frozen=True)
class Step:
    action: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def element(self) -> str | None:
        value = self.params.get("element")
        return str(value).strip().lower() if value else None

    @property
    def spec(self) -> ActionSpec:
        return ACTIONS.get(self.action) or OPTIONAL_ACTIONS[self.action]

    def describe(self) -> str:
        """One line for logs and history: ``tap e12``, ``type e3 "milk"``, ``launch_app Clock``."""
        p = self.params
        parts = [self.action]
        if self.element:
            parts.append(self.element)
        elif "x" in p and "y" in p:
            parts.append(f"({p['x']},{p['y']})")
            if p.get("in_screenshot"):
                parts.append("on the screenshot")
            elif "from_screenshot" in p:
                parts.append("(the screenshot's ({},{}))".format(*p["from_screenshot"]))
        if "from_edge" in p:
            parts.append(f"from {p['from_edge']} edge")
        for key in ("direction", "key", "app", "value"):
            if key in p:
                parts.append(str(p[key]))
        if "secret" in p:
            parts.append(f"secret:{p['secret']}")
        for key in ("text", "question", "summary", "reason", "command"):
            if key in p:
                text = str(p[key])
                parts.append('"' + (text if len(text) <= 60 else text[:57] + "…") + '"')
        if "answer" in p:
            parts.append(f'answer "{p["answer"]}"')
        if p.get("clear"):
            parts.append("clear")
        if p.get("submit"):
            parts.append("submit")
        if "seconds" in p:
            parts.append(f"{p['seconds']}s")
        return " ".join(parts)

    def key(self) -> str:
        """What makes two steps 'the same action' for loop detection (text included, thinking not)."""
        return self.describe()

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, **self.params}

    @classmethod
    def of(cls, action: str, **params: Any) -> Step:
        return cls(action, dict(params))


@dataclass(frozen=True)
class SemanticActionPlan:
    steps: tuple[Step, ...]
    thinking: str = ""
    reflection: str = ""
    source: str = "model"                    # "model" or "fallback" (the rule-based planner)
    remember: tuple[str, ...] = ()           # facts the model wants kept for the rest of the run
    dropped: tuple[Step, ...] = ()           # steps planned after one that leaves the screen: never run

    def to_json(self) -> dict[str, Any]:
        """The plan as the model sent it, dropped steps included (its history must show what it asked for)."""
        data: dict[str, Any] = {"thinking": self.thinking, "reflection": self.reflection,
                                "steps": [s.to_json() for s in (*self.steps, *self.dropped)]}
        if self.remember:
            data["remember"] = list(self.remember)
        return data


def _check_step(raw: Any, index: int, specs: dict[str, ActionSpec]) -> Step:
    if not isinstance(raw, dict):
        raise StepError(f"step {index + 1} is not an object")
    name = raw.get("action")
    if name not in specs:
        known = ", ".join(specs)
        hint = " (the shell is turned off)" if name in OPTIONAL_ACTIONS else ""
        raise StepError(f"step {index + 1}: unknown action {name!r}{hint}; use one of {known}")
    spec = specs[name]
    # Models often add empty or null parameters another action would use; they mean "not given" — except an
    # empty required value, which is meant (type text="" with clear=true empties a field).
    params = {k: v for k, v in raw.items()
              if k != "action" and v is not None and (v != "" or k in spec.required or (name, k) == ("type", "text"))}
    extra = sorted(set(params) - set(spec.params))
    for key in extra:
        del params[key]
    try:
        jsonschema.validate({"action": name, **params}, spec.schema)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "step"
        raise StepError(f"step {index + 1} ({name}): {where}: {exc.message}") from None
    if spec.targets_element and name in ("tap", "long_press") and "element" not in params \
            and not ("x" in params and "y" in params):
        raise StepError(f"step {index + 1} ({name}): give an element id")
    if name == "type" and ("text" in params) == ("secret" in params):
        raise StepError(f"step {index + 1} (type): give either text or the name of a saved secret")
    return Step(name, params)


def parse_plan(data: dict[str, Any], source: str = "model", *, shell: bool = False) -> SemanticActionPlan:
    """A plan from the model's validated answer; raises :class:`StepError` for the first bad step."""
    raw_steps = data.get("steps") or []
    if not raw_steps:
        raise StepError("the plan has no steps")
    specs = available_actions(shell=shell)
    steps = tuple(_check_step(raw, i, specs) for i, raw in enumerate(raw_steps[:MAX_STEPS_PER_PLAN]))
    # Steps after one that changes the whole screen were planned for a screen that will be gone: they are
    # kept aside, and the step results say they did not run.
    dropped: tuple[Step, ...] = ()
    for i, step in enumerate(steps):
        if step.spec.ends_plan:
            steps, dropped = steps[:i + 1], steps[i + 1:]
            break
    remember = tuple(str(fact) for fact in (data.get("remember") or ())[:MAX_REMEMBER] if str(fact).strip())
    return SemanticActionPlan(steps, str(data.get("thinking") or ""), str(data.get("reflection") or ""), source,
                              remember, dropped)


def screen_step(step: Step, to_screen: Callable[[float, float], tuple[int, int]]) -> Step:
    """The step with a point read off the screenshot (``in_screenshot``) moved to the phone's pixel, by
    ``to_screen`` (:meth:`Observation.screen_point`); any other step as it is. Everything after this — the
    guards, the history, a routine learnt from the run — then sees screen pixels only, like the element list's
    @x,y. ``from_screenshot`` keeps the picture's point so the step still reads as the model gave it."""
    p = step.params
    if not p.get("in_screenshot"):
        return step
    if step.element or "x" not in p or "y" not in p:
        # An element's tap point is already the screen's; the flag means nothing without a point.
        return Step(step.action, {k: v for k, v in p.items() if k != "in_screenshot"})
    try:
        x, y = to_screen(p["x"], p["y"])
    except ValueError as exc:
        raise StepError(f"{exc}; give an element id or a point on the screenshot") from None
    params = {k: v for k, v in p.items() if k != "in_screenshot"}
    params.update(x=x, y=y, from_screenshot=[p["x"], p["y"]])
    return Step(step.action, params)


@dataclass(frozen=True)
class ResolvedStep:
    """A step with its element found on the current screen: where to touch and what it looked like."""

    step: Step
    target: Element | None
    point: tuple[int, int] | None
    bounds: Bounds | None


def resolve_step(step: Step, element_map: ElementMap) -> ResolvedStep:
    """Find the step's element on this screen; an unknown id is a :class:`StepError` naming what is there."""
    if step.element:
        target = element_map.get(step.element)
        if target is None:
            ids = [e.id for e in element_map.interactive()]
            shown = ", ".join(ids[:12]) + (" …" if len(ids) > 12 else "")
            raise StepError(f"element {step.element} is not on the current screen "
                            f"(interactive elements: {shown or 'none'})")
        return ResolvedStep(step, target, target.tap, target.visible)
    p = step.params
    if "x" in p and "y" in p:
        screen = element_map.screen
        x, y = int(p["x"]), int(p["y"])
        if screen.width and not screen.contains_point(x, y):
            raise StepError(f"point ({x},{y}) is off the screen ({screen.width}x{screen.height})")
        return ResolvedStep(step, element_map.element_at(x, y), (x, y), None)
    return ResolvedStep(step, None, None, None)
