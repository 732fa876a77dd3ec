"""What the rule-based fallback planner looks for on a screen: the switch, field, button or list item a rule
acts on, which controls are safe to tap, and what makes two screens "the same". Words are compared as
:func:`~relay_desktop.agent.fallback.rules.tokens` normalises them. Nothing here touches the phone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from relay_desktop.agent.fallback.rules import REFUSED_VERBS, TaskIntent, tokens
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.perception import Element, ElementMap, WindowKind

__all__ = ["dismiss_button", "element_words", "eligible", "find_switch", "first_result", "is_title",
           "message_field", "on_top", "ordinal_pick", "overflow_button", "screen_key", "search_box", "sensitive",
           "shown_words", "switch_state"]

_SENSITIVE = re.compile(r"\b(pay|payment|purchase|buy|checkout|check out|place order|order now|transfer|donate|"
                        r"subscribe|install|uninstall|factory reset|reset|erase|sign out|log out|delete|remove|"
                        r"send|share|post|publish|submit|call)\b", re.I)
DISMISSIVE = ("no thanks", "not now", "cancel", "close", "dismiss", "maybe later", "later", "skip", "got it",
              "no", "ok")
_CONTAINERS = ("field", "scroll", "pager", "web", "switch", "toggle", "checkbox", "slider")


def element_words(element: Element) -> set[str]:
    return set(tokens(f"{element.label} {element.hint} {element.value}"))


# ---------------------------------------------------------------- elements

def on_top(element: Element) -> bool:
    return element.window not in (WindowKind.KEYBOARD, WindowKind.SYSTEM, WindowKind.OVERLAY)


def eligible(element: Element) -> bool:
    """A control the planner may tap to move on: not a field, list, switch or slider (other rules own those),
    not disabled and not a tab that is already selected."""
    return (element.interactive and on_top(element) and element.role not in _CONTAINERS
            and "disabled" not in element.states and "selected" not in element.states)


def sensitive(element: Element, intent: TaskIntent) -> bool:
    """Would tapping this do something the task did not literally ask for (delete, send, pay, ...)?"""
    match = _SENSITIVE.search(f"{element.label} {element.node.id_name.replace('_', ' ')}")
    if match is None:
        return False
    word = match.group(1).lower()
    if word in REFUSED_VERBS or word in ("place order", "order now", "check out", "factory reset"):
        return True
    return not (word in intent.verbs or (word == "send" and bool(intent.message)))


def shown_words(element_map: ElementMap) -> set[str]:
    """Every word on the screen (labels, field text, hints), the keyboard left out."""
    words: set[str] = set()
    for element in element_map.elements:
        if on_top(element):
            words |= element_words(element)
    return words


def is_title(element: Element, words: Sequence[str]) -> bool:
    """A non-interactive text that reads exactly the given words (a screen title such as "About phone")."""
    if element.interactive or not words or not on_top(element):
        return False
    return tokens(element.label.split(" · ")[0]) == list(words)


def dismiss_button(buttons: Sequence[Element]) -> Element | None:
    """The button that closes a pop-up without accepting anything; OK only when nothing else fits."""
    by_label = {" ".join(re.sub(r"[^a-z ]", "", b.label.casefold()).split()): b for b in buttons if b.label}
    for wanted in DISMISSIVE:
        if wanted in by_label:
            return by_label[wanted]
    return None


def search_box(element_map: ElementMap) -> tuple[Element | None, Element | None]:
    """The search field, else a search button or icon that opens one."""
    field = button = None
    for element in element_map.elements:
        if not on_top(element) or "disabled" in element.states:
            continue
        says_search = "search" in f"{element.label} {element.hint} {element.node.id_name}".casefold()
        if element.role == "field" and says_search and field is None:
            field = element
        elif eligible(element) and says_search and button is None:
            button = element
    if field is None:
        fields = [e for e in element_map.elements if e.role == "field" and on_top(e)]
        focused = [e for e in fields if "focused" in e.states]
        # A lone focused field after tapping a search icon is where the query goes.
        field = focused[0] if len(fields) == 1 and focused else None
    return field, button


def first_result(element_map: ElementMap, below: Element | None) -> Element | None:
    """The first item of the list under the search field. Only items inside a list or page count: a button
    that floats over an empty result list ("Create contact") is not a result."""
    edge = below.bounds.bottom if below is not None else element_map.screen.height * 0.15
    lists = [e.node for e in element_map.elements if e.role in ("scroll", "web", "pager") and on_top(e)]
    items = [e for e in element_map.elements if eligible(e) and e.bounds.top >= edge and e.label
             and any(container.is_ancestor_of(e.node) for container in lists)]
    return min(items, key=lambda e: (e.bounds.top, e.bounds.left), default=None)


def message_field(element_map: ElementMap) -> Element | None:
    for element in element_map.elements:
        words = set(tokens(f"{element.label} {element.hint}"))
        if element.role == "field" and on_top(element) and words & {"message", "reply", "chat", "compose"} \
                and "search" not in words:
            return element
    return None


def overflow_button(element_map: ElementMap) -> Element | None:
    for element in element_map.elements:
        if eligible(element) and element.label.casefold() in ("more options", "more", "menu", "⋮"):
            return element
    return None


def ordinal_pick(element_map: ElementMap, intent: TaskIntent) -> Element | None:
    """The Nth of a run of look-alike controls (same role and resource id), preferring those that name the
    task's verb: "add the third product" is the third "Add to cart" button."""
    controls = [e for e in element_map.elements if eligible(e) and e.node.resource_id]
    with_verb = [e for e in controls if element_words(e) & intent.verbs]
    pool = with_verb or controls
    groups = Counter((e.role, e.node.resource_id) for e in pool)
    runs = [key for key, count in groups.most_common() if count >= intent.ordinal]
    if not runs:
        return None
    run = sorted((e for e in pool if (e.role, e.node.resource_id) == runs[0]),
                 key=lambda e: (e.bounds.top, e.bounds.left))
    return run[intent.ordinal - 1]


def switch_state(element: Element) -> str:
    """"on" or "off" for a switch or check box, "" for anything that has no such state."""
    if "on" in element.states or "checked" in element.states:
        return "on"
    if "off" in element.states or "unchecked" in element.states:
        return "off"
    return ""


def find_switch(element_map: ElementMap, words: Sequence[str]) -> Element | None:
    """The switch whose label has all the words; the one with the fewest other words is the closest."""
    matches = [e for e in element_map.elements if on_top(e) and switch_state(e) and set(words) <= element_words(e)]
    return min(matches, key=lambda e: (len(element_words(e)), e.bounds.top), default=None)


def screen_key(obs: Observation) -> tuple[str, ...]:
    """What makes two looks at the phone "the same screen": app, activity and title — not the exact content,
    so a cart badge or a toggled switch does not make an already-tried button new again."""
    activity = obs.context.current_app.activity if obs.context.current_app is not None else ""
    top = obs.element_map.screen.height * 0.25
    title = next((e.label.split(" · ")[0] for e in obs.element_map.elements
                  if not e.interactive and e.label and on_top(e) and e.bounds.top < top), "")
    return obs.app, activity, title
