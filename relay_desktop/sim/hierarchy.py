"""The ``uiautomator dump`` XML of the virtual phone, byte-compatible with what Android 13+ writes.

Three dialects:

* :func:`dump_xml`: the on-device tool (``adb shell uiautomator dump``): one line, attributes in AOSP's
  ``AccessibilityNodeInfoDumper`` order, ``drawing-order`` and ``hint`` after ``bounds`` (API 33+), and
  ``NAF="true"`` first on clickable nodes that have no text or description anywhere in their subtree.
* :func:`dump_xml_pretty`: uiautomator2's ``dump_hierarchy()``: 2-space indentation, every window
  (system UI included) as a top-level node, plus ``visible-to-user`` and ``display-id``.
* :func:`dump_xml_u2`: the same tree exactly as u2.jar's ``dumpWindowHierarchy`` sends it over JSON-RPC
  (CRLF line breaks, a depth limit, optionally the focused window only); see ``u2_server.py``.

Escaping follows KXmlSerializer in UTF-8 mode, as observed in real dumps: ``& < > "`` become entities,
newline/CR/tab become ``&#10;``/``&#13;``/``&#9;``, characters outside the BMP (emoji) become numeric
references (Java writes each surrogate pair as one ``&#128293;``), other non-ASCII text is written as-is.
Characters XML cannot carry are replaced by ``.`` first, as uiautomator's ``stripInvalidXMLChars`` does.
"""

from __future__ import annotations

import re

from relay_desktop.sim.views import View, Window

HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"

# Ranges that uiautomator replaces before serialising (AccessibilityNodeInfoDumper.stripInvalidXMLChars).
_INVALID = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufdd0-\ufddf]")
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;",
            "\t": "&#9;"}
_NEEDS_ESCAPE = re.compile('[&<>"\n\r\t\U00010000-\U0010ffff]')
# Layouts uiautomator never flags as "not accessibility friendly" (nafExcludedClass).
_NAF_EXCLUDED = ("android.widget.GridView", "android.widget.GridLayout", "android.widget.ListView",
                 "android.widget.TableLayout")


def escape(value: str) -> str:
    """An attribute value as Android's serializer writes it (see the module docstring)."""
    value = _INVALID.sub(".", value)
    if not _NEEDS_ESCAPE.search(value):
        return value
    return _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m.group(), f"&#{ord(m.group())};"), value)


def resource_id(view: View, package: str) -> str:
    if not view.id:
        return ""
    return view.id if ":" in view.id else f"{package}:id/{view.id}"


def reported_text(view: View) -> str:
    """What ``AccessibilityNodeInfo.getText()`` returns: password fields are masked, and an empty field
    reports its hint (TextView.getTextForAccessibility), which is how real dumps show placeholders."""
    if view.text:
        return "•" * len(view.text) if view.password else view.text
    return view.hint


def _has_label(view: View) -> bool:
    return any(v.text or v.desc or v.hint for v in view.walk() if not v.visible.empty)


def _is_naf(view: View) -> bool:
    if not view.clickable or not view.enabled or view.cls in _NAF_EXCLUDED:
        return False
    return not _has_label(view)


def _b(flag: bool) -> str:
    return "true" if flag else "false"


def _attributes(view: View, package: str, index: int, order: int, pretty: bool) -> str:
    text = escape(reported_text(view))
    parts = [
        'NAF="true" ' if _is_naf(view) else "",
        f'index="{index}" text="{text}" resource-id="{escape(resource_id(view, package))}" ',
        f'class="{escape(view.cls)}" package="{escape(package)}" content-desc="{escape(view.desc)}" ',
        f'checkable="{_b(view.checkable)}" checked="{_b(view.checked)}" clickable="{_b(view.clickable)}" ',
        f'enabled="{_b(view.enabled)}" focusable="{_b(view.focusable)}" focused="{_b(view.focused)}" ',
        f'scrollable="{_b(view.scrollable)}" long-clickable="{_b(view.long_clickable)}" ',
        f'password="{_b(view.password)}" selected="{_b(view.selected)}" ',
        'visible-to-user="true" ' if pretty else "",
        f'bounds="{view.visible.uiautomator()}" drawing-order="{order}" hint="{escape(view.hint)}"',
        ' display-id="0"' if pretty else "",
    ]
    return "".join(parts)


def _node(view: View, package: str, index: int, order: int, out: list[str], indent: str | None,
          levels: int | None = None) -> None:
    """One node and its subtree; ``levels`` is how many levels of children are still written (u2.jar's
    ``maxDepth``, counted down per level; None for no limit)."""
    pretty = indent is not None
    prefix = indent or ""
    attrs = _attributes(view, package, index, order, pretty)
    # uiautomator walks every child but writes only those the user can see; `index` keeps the child's
    # position among all of them, so gaps appear where scrolled-away siblings were skipped.
    shown = [(i, c) for i, c in enumerate(view.children) if not c.visible.empty]
    if not shown or (levels is not None and levels <= 0):
        out.append(f"{prefix}<node {attrs} />")
        return
    out.append(f"{prefix}<node {attrs}>")
    child_indent = None if indent is None else indent + "  "
    for i, child in shown:
        _node(child, package, i, i + 1, out, child_indent, None if levels is None else levels - 1)
    out.append(f"{prefix}</node>")


def dump_xml(windows: list[Window], rotation: int = 0) -> str:
    """The single-line on-device dump of the app, dialog and IME windows, in z-order."""
    out = [f'{HEADER}<hierarchy rotation="{rotation}">']
    for window in windows:
        if window.dumped:
            _node(window.root, window.package, 0, 0, out, None)
    out.append("</hierarchy>")
    return "".join(out)


def dump_xml_pretty(windows: list[Window], rotation: int = 0, include_system: bool = True) -> str:
    """uiautomator2's multi-window dump: every window (status and navigation bars too, unless
    ``include_system`` is false), indented, with the extra u2 attributes."""
    out = [HEADER, f'<hierarchy rotation="{rotation}">']
    for window in windows:
        if window.dumped or (include_system and window.kind in ("status_bar", "nav_bar")):
            _node(window.root, window.package, 0, 0, out, "  ")
    out.append("</hierarchy>")
    return "\n".join(out) + "\n"


def dump_xml_u2(windows: list[Window], rotation: int = 0, max_depth: int = 50, active_only: bool = False) -> str:
    """The string u2.jar's ``dumpWindowHierarchy(compressed, maxDepth, rootInActive)`` returns, as the real
    uiautomator2 client receives it: the windows of :func:`dump_xml_pretty`, but laid out by Android's
    KXmlSerializer with indent-output on — every tag on a new line after CRLF, two spaces a level, no newline
    at the end, and ``<hierarchy rotation="0" />`` when there is nothing to dump (the client itself compares
    against that string). ``active_only`` keeps only the root of the window that has focus
    (``getRootInActiveWindow``): the topmost app, dialog or notification shade, never the keyboard.
    """
    roots = [w for w in windows if w.dumped or w.kind in ("status_bar", "nav_bar")]
    if active_only:
        focused = [w for w in roots if w.kind in ("app", "dialog", "notification")]
        roots = focused[-1:]
    out = [HEADER]
    for window in roots:
        _node(window.root, window.package, 0, 0, out, "  ", max_depth)
    if len(out) == 1:
        return f'{HEADER}\r\n<hierarchy rotation="{rotation}" />'
    return "\r\n".join([HEADER, f'<hierarchy rotation="{rotation}">', *out[1:], "</hierarchy>"])
