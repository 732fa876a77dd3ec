"""Does more of a list follow past its edge? A dump holds only what is on screen, so a list cut by its edge
must say so, or a model takes "no Priya among these contacts" for "no Priya".

Rows that run into the list's edge are the plain sign. But many lists stop their rows short of the edge: a list
that keeps room for a floating button clips its rows at its padding (an alarm list cut 336 px above its edge), a
staggered grid of notes wraps its columns in one container, a web page keeps a margin. So the rows are found
through wrappers and columns, and the list says more may follow when the room left below its last row is less
than a row of its own. A list that ends mid-screen, with room for another row, says nothing.
"""

from __future__ import annotations

import statistics

from relay_desktop.perception.tree import UINode

__all__ = ["runs_past_its_edge"]

_SLACK_PX = 2


def _shown(node: UINode) -> list[UINode]:
    # Rows, not the spacer or padding view a list ends with (it reaches the edge at the very end, too).
    return [c for c in node.children if not c.bounds.empty and (c.children or c.text or c.desc)]


def _rows(node: UINode, vertical: bool, depth: int = 0) -> list[UINode]:
    """The list's rows: through a wrapper with one child, and, for columns side by side (a staggered grid),
    the rows of every column."""
    children = _shown(node)
    if len(children) == 1 and children[0].children and depth < 4:
        return _rows(children[0], vertical, depth + 1)
    if vertical and len(children) >= 2 and depth < 4:
        lefts = {c.bounds.left for c in children}
        tops = {c.bounds.top for c in children}
        if len(lefts) == len(children) and len(tops) == 1 and all(_shown(c) for c in children):
            return [row for column in children for row in _rows(column, vertical, depth + 1)]
    return children


def runs_past_its_edge(node: UINode, direction: str) -> bool:
    """Whether a scrollable container's content may go on past its far edge (bottom, or right)."""
    vertical = direction == "vertical"
    rows = _rows(node, vertical)
    if not rows:
        return False

    def end(n: UINode) -> int:
        return n.bounds.bottom if vertical else n.bounds.right

    def size(n: UINode) -> int:
        return n.bounds.height if vertical else n.bounds.width

    edge = end(node)
    far = max(end(r) for r in rows)
    if far >= edge - _SLACK_PX:
        return True
    last = max(rows, key=end)
    others = [size(r) for r in rows if r is not last]
    if not others:
        return False
    # Less room below the last row than a row of its own takes: the list clips its rows there (its padding),
    # so another row may well be waiting; with room for one more, the list has ended.
    return edge - far < statistics.median(others)
