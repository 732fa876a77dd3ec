"""Does more of a list follow past its edge? A dump holds only what is on screen, so a list cut by its edge
must say so, or a model takes "no Priya among these contacts" for "no Priya".

Rows that run into the list's edge are the plain sign. But many lists stop their rows short of the edge: a list
that keeps room for a floating button clips its rows at its padding (an alarm list cut 336 px above its edge), a
staggered grid of notes wraps its columns in one container, a web page keeps a margin. So the rows are found
through wrappers and columns, and the list says more may follow when the room left below its last row is less
than a row of its own and its last row is cut there. A list that ends mid-screen, with room for another row, or whose
last row is whole above a little padding, says nothing.
"""

from __future__ import annotations

import statistics

from relay_desktop.perception.tree import UINode

__all__ = ["runs_past_its_edge"]

_SLACK_PX = 2
CUT_SHORT = 0.9       # a last row under this share of its siblings' size is cut by the edge


def _shown(node: UINode) -> list[UINode]:
    # Rows, not the spacer or padding view a list ends with (it reaches the edge at the very end, too).
    return [c for c in node.children if not c.bounds.empty and (c.children or c.text or c.desc)]


def _columns(node: UINode, vertical: bool, depth: int = 0) -> list[list[UINode]]:
    """The list's rows, column by column: through a wrapper with one child, and, for columns side by side (a
    staggered grid), the rows of each column."""
    children = _shown(node)
    if len(children) == 1 and children[0].children and depth < 4:
        return _columns(children[0], vertical, depth + 1)
    if vertical and len(children) >= 2 and depth < 4:
        lefts = {c.bounds.left for c in children}
        tops = {c.bounds.top for c in children}
        if len(lefts) == len(children) and len(tops) == 1 and all(_shown(c) for c in children):
            return [row for column in children for row in _columns(column, vertical, depth + 1)]
    return [children] if children else []


def runs_past_its_edge(node: UINode, direction: str) -> bool:
    """Whether a scrollable container's content may go on past its far edge (bottom, or right)."""
    vertical = direction == "vertical"
    columns = _columns(node, vertical)
    rows = [row for column in columns for row in column]
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
    typical = statistics.median(others)
    if edge - far >= typical:
        return False        # room for another row: the list has ended
    # Less room than a row, and the last row cut there: shorter than its siblings (a list clipping its rows at
    # its padding), or staggered columns all stopping on one line (they would end apart if they had ended). A
    # full last row with a little padding below is the end of the list (a model scrolled on and found it).
    cut_short = size(last) < CUT_SHORT * typical
    lasts = [max(end(r) for r in column) for column in columns if column]
    aligned = len(lasts) >= 2 and max(lasts) - min(lasts) <= _SLACK_PX
    return cut_short or aligned
