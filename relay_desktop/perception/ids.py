"""Short element IDs that keep meaning the same element from one step to the next.

The model answers "tap e12" about the map it was shown; by the time the next map is built an unrelated
part of the screen may have changed (a clock ticked, a list row arrived, a field got a letter). An element
keeps its ID when the next map holds the same element, matched in this order:

1. same window package, class, resource id, label and bounds — nothing changed;
2. same package, class, resource id and label, nearest position — it moved (a list scrolled a little);
3. same package, class, resource id and bounds, for elements whose content is *expected* to change
   (fields being typed into, switches and check boxes, elements with no label of their own) — and for any
   element whose new label is a variant of the old one ("Follow" → "Following", "Cart" → "Cart · 1") when at
   least 80% of the screen matched by 1 or 2; a list row that now shows another contact is another element,
   so its ID is new and a change list never says "Julia Rossi" became "555-0139 · Mobile".

Everything else gets a fresh number above every ID used so far, so an old ID is never reused for a different
element. ``previous`` holds the last map's elements and then those of the few screens before it that it lacks,
so the screen under a dialog gets its IDs back when the dialog closes.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from relay_desktop.perception.geometry import Bounds


@dataclass(frozen=True, slots=True)
class Identity:
    """What an element is, for matching across steps."""

    package: str
    cls: str
    resource_id: str
    label: str
    bounds: Bounds
    volatile: bool   # content expected to change: match by place as well
    row: str = ""    # inside a list: the first text of its row ("7:30"), so a repeated "Today" stays with its row


_SETTLED_SHARE = 0.8


_STEM = 4


def _stem(label: str) -> str:
    """What a label and its variants share: its first few characters, case and spaces aside ("Follow",
    "Following"; "Cart", "Cart · 1"; "温州弘质箱包有限公司", "温州弘质箱包")."""
    return "".join(label.casefold().split())[:_STEM]


def _distance(a: Bounds, b: Bounds) -> int:
    return abs(a.left - b.left) + abs(a.top - b.top) + abs(a.right - b.right) + abs(a.bottom - b.bottom)


def assign_ids(current: Sequence[Identity], previous: Sequence[tuple[str, Identity]] = (),
               next_number: int = 1) -> tuple[list[str], int]:
    """IDs for ``current`` (in order) and the next free number. ``previous``: (id, identity) of the last map."""
    ids: list[str | None] = [None] * len(current)
    free = {i for i in range(len(previous))}

    def match(key_of, candidates_filter=None) -> None:  # type: ignore[no-untyped-def]
        buckets: dict[Hashable, list[int]] = {}
        for i in free:
            identity = previous[i][1]
            if candidates_filter is None or candidates_filter(identity):
                buckets.setdefault(key_of(identity), []).append(i)
        for k, identity in enumerate(current):
            if ids[k] is not None or (candidates_filter is not None and not candidates_filter(identity)):
                continue
            options = [i for i in buckets.get(key_of(identity), ()) if i in free]
            if not options:
                continue
            best = min(options, key=lambda i: _distance(previous[i][1].bounds, identity.bounds))
            ids[k] = previous[best][0]
            free.discard(best)

    if previous:
        match(lambda e: (e.package, e.cls, e.resource_id, e.label, e.bounds, e.row))
        # Moved: within its row when in a list (a row's "Today" is not the next row's), anywhere when not.
        match(lambda e: (e.package, e.cls, e.resource_id, e.label, e.row))
        match(lambda e: (e.package, e.cls, e.resource_id, e.label), lambda e: not e.row)
        settled = sum(i is not None for i in ids) >= _SETTLED_SHARE * len(current)
        match(lambda e: (e.package, e.cls, e.resource_id, e.bounds), lambda e: e.volatile or not e.label)
        if settled:
            # Same place and label in a row whose first text changed (a ticking timer's row).
            match(lambda e: (e.package, e.cls, e.resource_id, e.label, e.bounds))
            match(lambda e: (e.package, e.cls, e.resource_id, e.bounds, _stem(e.label)))
    # Numbers only ever go up: a result may name elements of several screens (a dialog's, then the screen
    # under it), and one id must never stand for two of them.
    for k in range(len(current)):
        if ids[k] is None:
            ids[k] = f"e{next_number}"
            next_number += 1
    return [i for i in ids if i is not None], next_number
