"""What a routine remembers of the element a step acted on and of the screen it acted on, and how that element
is found again on another day's screen: by what it is (app, class, resource id, label, the texts beside it,
its place in its list), never by where it was.

A list row's label folds in content that changes (a conversation's last message, its time), so labels are
also kept as their parts, each with the resource id of the view that showed it: "Bob Martinez" in
``conversation_name`` still names the row when the preview beside it is new. When two elements fit a target
equally well, nothing is chosen: the replay stops there rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from relay_desktop.perception import Element, ElementMap, is_ocr
from relay_desktop.perception.labels import own_words
from relay_desktop.perception.render import in_system_bar
from relay_desktop.perception.screen import current_dialog, screen_title
from relay_desktop.perception.tree import UINode, WindowKind

__all__ = ["CHOICE_STATES", "TargetMatch", "find_target", "identify_screen", "identify_target", "layout_similarity",
           "neighbour_texts", "short_text", "target_name"]

MAX_NEIGHBOURS = 6
MAX_TEXT = 80
MAX_VALUE = 500
MAX_LAYOUT = 40
# Two candidates whose scores are closer than this fit the target equally well.
_TIE = 0.05
# A label that shares less than this with the recorded one names something else.
_MIN_LABEL_LIKENESS = 0.5
_ROW_SHARE = 0.4          # a "row" bigger than this share of the screen is a page, not a row
# States that say what a control is set to (not focus or selection by the user's finger).
CHOICE_STATES = ("on", "off", "checked", "unchecked", "selected", "not selected")


def short_text(text: str) -> str:
    """One line of at most MAX_TEXT characters, as texts are kept in a routine."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def _rid(node: UINode) -> str:
    return node.id_name


def label_parts(element: Element) -> list[list[str]]:
    """The label's pieces with the view each came from: [["conversation_name", "Bob Martinez"], …]. A field's
    typed value is not a part (it is what changes)."""
    parts = []
    for node in element.sources:
        for words in own_words(node):
            if node.editable and words == node.text:
                continue
            parts.append([_rid(node), short_text(words)])
    return parts[:MAX_NEIGHBOURS]


def _row_of(node: UINode, screen_area: int) -> UINode | None:
    """The list row (a direct child of a scrolling container) or small card the node sits in."""
    current = node
    for _ in range(4):
        parent = current.parent
        if parent is None:
            return None
        if parent.scrollable:
            return current if current is not node else None
        if parent.bounds.area > _ROW_SHARE * screen_area:
            return current if current is not node else None
        current = parent
    return current


def _subtree(node: UINode) -> list[UINode]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(current.children))
    return out


def neighbour_texts(element: Element, element_map: ElementMap) -> list[str]:
    """Texts that sit with the element in its row or card but are not its own label (the product name beside
    an "Add to cart" button, the alarm time beside a switch)."""
    row = _row_of(element.node, element_map.screen.area or 1)
    if row is None:
        return []
    own = {id(n) for n in element.sources}
    texts: list[str] = []
    for node in _subtree(row):
        if id(node) in own or node.editable:
            continue
        for words in own_words(node):
            text = short_text(words)
            if text and text not in texts and text not in element.label:
                texts.append(text)
    return texts[:MAX_NEIGHBOURS]


def _list_place(node: UINode) -> dict[str, Any] | None:
    """Which list the node is in and its row's position there."""
    child = node
    parent = node.parent
    while parent is not None:
        if parent.scrollable:
            index = next((i for i, c in enumerate(parent.children) if c is child), 0)
            return {"list": _rid(parent), "row": index}
        child, parent = parent, parent.parent
    return None


def identify_target(element: Element, element_map: ElementMap) -> dict[str, Any]:
    """The element as a routine stores it (plain JSON)."""
    node = element.node
    target: dict[str, Any] = {"package": node.package, "class": node.cls, "id": node.resource_id,
                              "role": element.role, "label": short_text(element.label)}
    parts = label_parts(element)
    if len(parts) > 1:
        target["parts"] = parts
    neighbours = neighbour_texts(element, element_map)
    if neighbours:
        target["neighbours"] = neighbours
    place = _list_place(node)
    if place is not None:
        target["place"] = place
    target["bounds"] = list(element.bounds)
    if element.window is not WindowKind.APP:
        target["window"] = element.window.value
    if is_ocr(element):
        target["ocr"] = True
    if "password" in element.states or any(n.password for n in element.sources):
        target["password"] = True
    elif element.role == "field" and element.value:
        # What the field held before the step: typing over it later must not lose what was added since.
        target["value"] = " ".join(element.value.split())[:MAX_VALUE]
    return target


def _layout_tokens(element_map: ElementMap) -> list[str]:
    tokens: list[str] = []
    for element in element_map.elements:
        if element.window in (WindowKind.KEYBOARD, WindowKind.OVERLAY) or in_system_bar(element) or is_ocr(element):
            continue
        rid = _rid(element.node)
        if rid:
            token = f"{element.role}:{rid}"
            if token not in tokens:
                tokens.append(token)
    return sorted(tokens)[:MAX_LAYOUT]


def identify_screen(element_map: ElementMap, app: str, activity: str = "") -> dict[str, Any]:
    """The screen a step acted on: its app, what it is called, any dialog in front, and its layout (the kinds
    of views it has, by resource id)."""
    screen: dict[str, Any] = {"app": app}
    if activity:
        screen["activity"] = activity
    title = screen_title(element_map)
    if title:
        screen["title"] = short_text(title)
    dialog = current_dialog(element_map)
    if dialog is not None:
        screen["dialog"] = short_text(dialog.title or dialog.message or "untitled")
    if element_map.keyboard is not None:
        screen["keyboard"] = True
    screen["layout"] = _layout_tokens(element_map)
    return screen


def layout_similarity(recorded: Sequence[str], element_map: ElementMap) -> float:
    """How much of a recorded layout the screen still has (Jaccard of the tokens); 1.0 for two empty layouts."""
    now = set(_layout_tokens(element_map))
    then = set(recorded)
    if not now and not then:
        return 1.0
    return len(now & then) / len(now | then)


# ---------------------------------------------------------------- finding a target again

@dataclass(frozen=True)
class TargetMatch:
    element: Element | None
    problem: str = ""                          # why none was chosen
    candidates: tuple[Element, ...] = ()       # the tied ones, when ambiguous

    @property
    def found(self) -> bool:
        return self.element is not None


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.casefold()) if w}


def _likeness(recorded: str, label: str) -> float:
    if not recorded and not label:
        return 1.0
    a, b = _words(recorded), _words(label)
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _parts_likeness(parts: list[list[str]], element: Element) -> float:
    if not parts:
        return 0.0
    have = {(rid, text.casefold()) for rid, text in label_parts(element)}
    texts = {text for _, text in have}
    hits = sum(1 for rid, text in parts if (rid, text.casefold()) in have or (not rid and text.casefold() in texts))
    return hits / len(parts)


def _contains_all(text: str, needs: Sequence[str]) -> bool:
    folded = text.casefold()
    return all(need.casefold() in folded for need in needs)


def _shows(needs: Sequence[Sequence[str]], element: Element, element_map: ElementMap) -> bool:
    parts = label_parts(element)
    for rid, value in needs:
        if rid:
            if not any(r == rid and value.casefold() in text.casefold() for r, text in parts):
                return False
        elif not _contains_all(f"{element.label} {' '.join(neighbour_texts(element, element_map))}", [value]):
            return False
    return True


def _score(target: dict[str, Any], element: Element, element_map: ElementMap) -> float | None:
    """How well the element fits the target, or None when it cannot be it."""
    node = element.node
    if target.get("package") and node.package and node.package != target["package"]:
        return None
    if target.get("role") and element.role != target["role"]:
        return None
    if bool(target.get("ocr")) != is_ocr(element):
        return None
    if element.window is WindowKind.KEYBOARD:
        return None
    rid = target.get("id") or ""
    if rid and node.resource_id != rid:
        return None
    label = str(target.get("label") or "")
    score = 0.0
    needs = target.get("needs") or []
    if needs:
        # The label held a parameter: the new value must show where the old one did (the name in the row's name
        # view, not anywhere: Bob's row whose last message mentions Carol is not Carol's); the rest may differ
        # (Grace Liu, not Bob's surname after Grace).
        if not _shows(needs, element, element_map):
            return None
        score += 2.0 + (1.0 if element.label == label else 0.0)
    elif label:
        if element.label == label:
            score += 3.0
        else:
            likeness = max(_likeness(label, element.label), _parts_likeness(target.get("parts") or [], element))
            volatile = element.role == "field" or node.checkable
            if likeness < _MIN_LABEL_LIKENESS and not (volatile and rid):
                return None
            score += 3.0 * likeness
    elif element.label:
        score += 0.5 if rid else 0.0     # recorded without a label: a labelled element is a weaker fit
    neighbours = target.get("neighbours") or []
    if neighbours:
        around = {t.casefold() for t in neighbour_texts(element, element_map)}
        score += 2.0 * sum(1 for t in neighbours if t.casefold() in around) / len(neighbours)
    if node.cls == target.get("class"):
        score += 0.5
    if rid:
        score += 1.0
    return score


def _distance(a: Sequence[int], b: Sequence[int]) -> int:
    return sum(abs(x - y) for x, y in zip(a, b, strict=True))


def find_target(target: dict[str, Any], element_map: ElementMap) -> TargetMatch:
    """The one element of the map that is the recorded target (a bound routine's target says, under "needs",
    which parameter values its label must show and in which of its views)."""
    scored = [(s, e) for e in element_map.elements if (s := _score(target, e, element_map)) is not None]
    if not scored:
        return TargetMatch(None, f"{_name(target)} is not on the screen")
    scored.sort(key=lambda pair: -pair[0])
    best, element = scored[0]
    tied = [e for s, e in scored if best - s < _TIE]
    if len(tied) == 1:
        return TargetMatch(element)
    # Equal fits: a place in the same list decides only between otherwise identical rows; an element recorded
    # with nothing to know it by (no id, no label, no neighbours) is known by where it was.
    place = target.get("place")
    if place is not None:
        same_place = [e for e in tied if _list_place(e.node) == place]
        if len(same_place) == 1:
            return TargetMatch(same_place[0])
    bounds = target.get("bounds")
    if bounds and not target.get("id") and not target.get("label") and not target.get("neighbours"):
        nearest = sorted(tied, key=lambda e: _distance(e.bounds, bounds))
        if _distance(nearest[0].bounds, bounds) < _distance(nearest[1].bounds, bounds):
            return TargetMatch(nearest[0])
    names = ", ".join(f'{e.id} "{e.name}"' for e in tied[:4])
    return TargetMatch(None, f"{len(tied)} elements fit {_name(target)} equally well ({names}); the replay does "
                             "not guess", tuple(tied))


def _name(target: dict[str, Any]) -> str:
    label = target.get("label") or target.get("id", "").rsplit("/", 1)[-1] or "an unlabelled control"
    return f'{target.get("role") or "element"} "{label}"'


def target_name(target: dict[str, Any] | None) -> str:
    """``button "Send SMS"``: how logs and guidance name a recorded target."""
    return _name(target) if target else ""
