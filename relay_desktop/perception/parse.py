"""One parser for the UI dumps real tools produce.

* ``adb shell uiautomator dump``: one line of ``<node>`` elements under ``<hierarchy rotation=..>``;
  usually only the active window, Android 13+ adds ``drawing-order`` and ``hint``.
* uiautomator2's ``dump_hierarchy()``: indented, every window (system UI, keyboard, apps) as a top-level
  node, plus ``visible-to-user`` and ``display-id``.
* Appium UiAutomator2 page source: the tag is the class name, ``displayed`` instead of
  ``visible-to-user``, and a root that carries the screen's ``width`` and ``height``.

A slider's range (AccessibilityNodeInfo.RangeInfo) is in none of these; dumpers that read it may write
``range-min``, ``range-max`` and ``range-current`` attributes, which are read when present.

Real devices print around the XML ("UI hierchary dumped to: /dev/tty", a BOM, a truncated tail when the
pipe breaks), so the parser cuts the XML out of whatever it is given and, when the XML is broken, keeps
the nodes it read before the break and says so in ``UITree.warnings``. Only input with no hierarchy at
all is an error.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.tree import UINode, UITree, UIWindow, WindowKind, is_editable_class

__all__ = ["HierarchyParseError", "parse_hierarchy"]


class HierarchyParseError(ValueError):
    """The input holds no UI hierarchy at all."""


# Characters XML 1.0 forbids; some apps put them in text and some dumpers do not strip them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_KEYBOARD_PACKAGES = ("inputmethod", "keyboard", "honeyboard", "swiftkey", "com.baidu.input", "com.iflytek")
_DIALOG_IDS = frozenset({"android:id/alertTitle", "android:id/parentPanel", "android:id/buttonPanel",
                         "android:id/button1", "android:id/aerr_close", "android:id/aerr_wait"})
_TRUE = "true"


def parse_hierarchy(source: str | bytes) -> UITree:
    """Parse any of the three dump formats; see the module docstring for what is forgiven."""
    text = source.decode("utf-8", errors="replace") if isinstance(source, bytes) else source
    text = text.lstrip("\ufeff")
    xml, warnings = _extract_xml(text)
    builder = _TreeBuilder()
    error = builder.feed(xml)
    if error is not None and _INVALID_XML.search(xml):
        builder = _TreeBuilder()
        error = builder.feed(_INVALID_XML.sub(".", xml))
        warnings.append("replaced characters XML does not allow")
    if error is not None:
        if not builder.roots:
            raise HierarchyParseError(f"unreadable UI hierarchy: {error}")
        warnings.append(f"the dump is cut short or malformed ({error}); using the {len(builder.nodes)} nodes "
                        "read before that point")
    return builder.finish(warnings)


def _picture_kind(text: str) -> str | None:
    """Which kind of picture the (UTF-8 decoded, errors replaced) input is, if it is one."""
    head = text[:16]
    if head[1:4] == "PNG":
        return "a PNG image"
    if head[6:10] in ("JFIF", "Exif"):
        return "a JPEG image"
    if head.startswith("GIF8"):
        return "a GIF image"
    if head.startswith("RIFF") and head[8:12] == "WEBP":
        return "a WebP image"
    return None


def _not_a_dump(text: str) -> str:
    """Why the input is not a UI dump, without echoing binary bytes onto a terminal."""
    snippet = text.strip()[:60]
    if not snippet:
        return "the input is empty"
    picture = _picture_kind(text)
    if picture is not None:
        return (f"this is {picture}, not a UI dump: give the XML from `adb shell uiautomator dump` "
                "(a screenshot goes with --screenshot)")
    if any(not (ch.isprintable() or ch in "\r\n\t") for ch in snippet):
        return "no UI hierarchy in the input (it is binary data, not the XML of a UI dump)"
    return f"no UI hierarchy in the input (it starts with {snippet!r})"


def _extract_xml(text: str) -> tuple[str, list[str]]:
    warnings: list[str] = []
    start = text.find("<hierarchy")
    if start < 0:
        node = text.find("<node")
        if node < 0:
            raise HierarchyParseError(_not_a_dump(text))
        # A bare node dump (some tools strip the root): give it one so it parses.
        end = text.rfind(">")
        return f"<hierarchy>{text[node:end + 1]}</hierarchy>", ["the dump has no <hierarchy> root"]
    end = text.rfind("</hierarchy>")
    if end >= 0:
        end += len("</hierarchy>")
        if text[end:].strip():
            warnings.append("ignored text after the hierarchy")
        return text[start:end], warnings
    return text[start:], warnings


class _TreeBuilder:
    def __init__(self) -> None:
        self.roots: list[UINode] = []
        self.nodes: list[UINode] = []
        self.root_attrs: dict[str, str] = {}
        self.format = "uiautomator"
        self._stack: list[UINode] = []
        self._depth = 0

    def feed(self, xml: str) -> str | None:
        parser = ET.XMLPullParser(events=("start", "end"))
        try:
            parser.feed(xml)
            parser.close()
            self._drain(parser)
        except ET.ParseError as exc:
            self._drain(parser)
            return str(exc)
        return None

    def _drain(self, parser: ET.XMLPullParser) -> None:
        try:
            events = list(parser.read_events())
        except ET.ParseError:  # pragma: no cover - read_events only replays what feed accepted
            return
        for event, element in events:
            if event == "start":
                self._start(element)
            else:
                self._end()

    def _start(self, element: ET.Element) -> None:
        self._depth += 1
        attrs = element.attrib
        if self._depth == 1:
            self.root_attrs = dict(attrs)
            return
        if element.tag != "node":
            self.format = "appium"
        elif "visible-to-user" in attrs or "display-id" in attrs:
            self.format = "uiautomator2"
        node = _node_from(attrs, element.tag)
        parent = self._stack[-1] if self._stack else None
        node.parent = parent
        node.order = len(self.nodes)
        node.depth = len(self._stack)
        if parent is None:
            self.roots.append(node)
        else:
            parent.children.append(node)
        self.nodes.append(node)
        self._stack.append(node)

    def _end(self) -> None:
        self._depth -= 1
        if self._depth >= 1 and self._stack:
            node = self._stack.pop()
            node.end = len(self.nodes) - 1

    def finish(self, warnings: list[str]) -> UITree:
        for node in self._stack:  # a truncated dump leaves these open
            node.end = len(self.nodes) - 1
        _number_paint_order(self.roots)
        screen = _screen_of(self.root_attrs, self.roots)
        windows = []
        for i, root in enumerate(self.roots):
            for node in root.walk():
                node.window = i
            windows.append(UIWindow(i, root, _classify(root, screen, i, self.roots), root.package))
        rotation = _int(self.root_attrs.get("rotation"), 0)
        return UITree(windows, self.nodes, screen, rotation, self.format, warnings)


def _number_paint_order(roots: list[UINode]) -> None:
    # Views draw children by drawing-order, which differs from child index when a view is elevated or
    # reordered (a scrim declared last but drawn below the search bar); without the attribute, index order.
    counter = 0
    stack: list[tuple[UINode, bool]] = [(root, False) for root in reversed(roots)]
    while stack:
        node, done = stack.pop()
        if done:
            node.paint_end = counter - 1
            continue
        node.paint = counter
        counter += 1
        stack.append((node, True))
        children = node.children
        if any(c.drawing_order is not None for c in children):
            children = sorted(children, key=lambda c: (c.drawing_order if c.drawing_order is not None else 0, c.index))
        stack.extend((child, False) for child in reversed(children))


def _node_from(attrs: dict[str, str], tag: str) -> UINode:
    get = attrs.get
    cls = get("class") or (tag if tag != "node" else "")
    bounds = Bounds.parse(get("bounds", "")) or Bounds(0, 0, 0, 0)
    visible = get("visible-to-user", get("displayed", _TRUE)) == _TRUE
    order = get("drawing-order")
    return UINode(
        cls=cls, resource_id=get("resource-id", ""), text=get("text", ""), desc=get("content-desc", ""),
        hint=get("hint", ""), package=get("package", ""), bounds=bounds,
        clickable=get("clickable") == _TRUE, long_clickable=get("long-clickable") == _TRUE,
        checkable=get("checkable") == _TRUE, checked=get("checked") == _TRUE,
        editable=is_editable_class(cls) or get("editable") == _TRUE,
        scrollable=get("scrollable") == _TRUE, focusable=get("focusable") == _TRUE,
        focused=get("focused") == _TRUE, selected=get("selected") == _TRUE,
        enabled=get("enabled", _TRUE) == _TRUE, password=get("password") == _TRUE, visible=visible,
        index=_int(get("index"), 0), drawing_order=_int(order, 0) if order is not None else None,
        range_min=_float(get("range-min")), range_max=_float(get("range-max")),
        range_current=_float(get("range-current")),
    )


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _float(value: str | None) -> float | None:
    """A number attribute, None when absent or not a finite number."""
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) else None


def _screen_of(root_attrs: dict[str, str], roots: list[UINode]) -> Bounds:
    width, height = _int(root_attrs.get("width"), 0), _int(root_attrs.get("height"), 0)
    if width > 0 and height > 0:
        return Bounds(0, 0, width, height)
    right = max((r.bounds.right for r in roots), default=0)
    bottom = max((r.bounds.bottom for r in roots), default=0)
    return Bounds(0, 0, max(0, right), max(0, bottom))


def _classify(root: UINode, screen: Bounds, index: int, roots: list[UINode]) -> WindowKind:
    package = root.package.lower()
    if package == "gesture" or (not root.children and not root.interactive and not (root.text or root.desc)):
        return WindowKind.OVERLAY
    if any(marker in package for marker in _KEYBOARD_PACKAGES):
        return WindowKind.KEYBOARD
    if package == "com.android.systemui":
        return WindowKind.SYSTEM
    if any(node.resource_id in _DIALOG_IDS for node in root.walk()):
        return WindowKind.DIALOG
    others = [r for i, r in enumerate(roots) if i != index and r.package.lower() not in ("com.android.systemui",
                                                                                          "gesture")]
    small = root.bounds.area < 0.85 * screen.area
    # A window that does not fill the screen is a pop-up over whatever lies beneath: the only window of a
    # single-window dump (uiautomator dumps the active one) or one above a larger app window. Side by side
    # (split screen, the halves meet at the divider but do not overlap) each is an app of its own.
    over = [r for r in others if r.bounds.area >= root.bounds.area and r.bounds.intersect(root.bounds).area > 0]
    if small and (len(roots) == 1 or over):
        return WindowKind.DIALOG
    return WindowKind.APP
