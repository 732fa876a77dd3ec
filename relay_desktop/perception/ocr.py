"""Text read from the screenshot's pixels, for what the UI dump leaves out: toasts and snackbars, text drawn on
canvases, some web views.

The engine is RapidOCR (PaddleOCR's detection and recognition models run by ONNX Runtime), from the optional
``ocr`` extra; its models ship inside the ``rapidocr`` wheel and are loaded from there by path, so nothing is
ever downloaded. Without the extra :meth:`OcrEngine.load` returns None and the agent goes on without OCR.

:func:`ocr_elements` is the merge :func:`~relay_desktop.perception.element_map.build_element_map` calls: an OCR
line becomes a ``text`` element only when no node of the dump already shows that text in that place, and never
for the status bar, the navigation bar, the keyboard or junk (low confidence, single characters, icons).
"""

from __future__ import annotations

import asyncio
import difflib
import importlib
import importlib.util
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relay_desktop.perception.element import Element
from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.labels import clean
from relay_desktop.perception.tree import UINode, UITree, UIWindow, WindowKind

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["DEFAULT_MAX_SIDE", "OCR_CLASS", "OCR_MISSING_NOTICE", "OCR_STATE", "OcrEngine", "OcrText",
           "OcrUnavailableError", "is_ocr", "normalise", "ocr_elements", "readable", "reading_order",
           "scale_to_screen"]

OCR_MISSING_NOTICE = ("OCR is off: text that the UI dump leaves out (toasts, canvases, some web pages) is not read. "
                      "Install it with: pip install 'relay-desktop[ocr]'")
# How an OCR line reads in the prompt (``e41 text "Calling Grace Liu…" (read from pixels)``) and in the JSON.
OCR_STATE = "(read from pixels)"
OCR_CLASS = "ocr.Text"

# The engine's own floor is 0.5; below 0.7 its lines are mostly icons read as letters ("_I", "F!").
MIN_CONFIDENCE = 0.7
MIN_WORD_CHARACTERS = 2      # letters or digits: "G" in an avatar, "★", "O" for the home button are not text
# Two-character lines are mostly icons too, read just over the floor (a repeat icon as "11" at 0.70); real short
# words ("OK", "5G", "Go") are read with far more confidence.
MIN_SHORT_CONFIDENCE = 0.9
# One line is "in the same place" as a dump node when the boxes overlap this much, by IoU or, because a
# TextView is often much wider than its text (and a paragraph node holds many OCR lines), by the share of
# the smaller box that lies in the other.
SAME_PLACE_IOU = 0.5
SAME_PLACE_INSIDE = 0.5
# ...and "shows that text" when they read this alike (difflib ratio of the normalised texts): OCR misreads
# a letter here and there ("Relay Weather -7-day") and cuts long lines where the view wraps them.
SAME_TEXT_RATIO = 0.75
# Where the status bar is when the dump does not say. Status bars in the real dumps we have are 54 to 142 px
# tall (2.3 to 5.9 % of the screen), and a line is dropped by its centre: the top 4 % holds the centre of
# the clock and battery on all of them, and no app text on any of them.
_STATUS_BAR_SHARE = 0.04
_STATUS_BAR_MAX_SHARE = 0.08
DEFAULT_MAX_SIDE = 960       # the detector's picture; see OcrEngine
_NEVER_SHRINK = 8192
_TEXT_PRIORITY = 4           # as plain text from the dump, when the element cap has to choose
_MODEL_KINDS = ("det", "rec", "cls")
_WORD = re.compile(r"[^\W_]", re.UNICODE)
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_CURSOR_LOOKALIKES = ("l", "I", "|", "1", "!")


class OcrUnavailableError(RuntimeError):
    """The ``ocr`` extra is installed but its engine could not be started (a broken install)."""


@dataclass(frozen=True)
class OcrText:
    """One line of text read from a picture; ``bounds`` in that picture's pixels."""

    text: str
    bounds: Bounds
    confidence: float

    def scaled(self, sx: float, sy: float | None = None) -> OcrText:
        """The same line in a picture ``sx`` (and ``sy``) times as large: a downscaled screenshot's line in
        screen pixels is ``line.scaled(screen_width / image_width, screen_height / image_height)``."""
        sy = sx if sy is None else sy
        b = self.bounds
        return OcrText(self.text, Bounds(round(b.left * sx), round(b.top * sy), round(b.right * sx),
                                         round(b.bottom * sy)), self.confidence)


def scale_to_screen(texts: Sequence[OcrText], image_size: tuple[int, int],
                    screen_size: tuple[int, int]) -> list[OcrText]:
    """Lines read from a picture of ``image_size`` moved to a screen of ``screen_size`` (both width, height)."""
    if tuple(image_size) == tuple(screen_size):
        return list(texts)
    sx, sy = screen_size[0] / image_size[0], screen_size[1] / image_size[1]
    return [t.scaled(sx, sy) for t in texts]


class OcrEngine:
    """RapidOCR, loaded on first use (once, whichever thread gets there first) and run off the event loop.

    Pass the full-resolution screenshot. ``max_side``: the longest side of the copy the text *detector* sees;
    lines are recognised from crops of the picture as given, and their bounds are in its pixels. 960 finds the
    same lines as 2000 on phone screens at about half the detector's cost (benchmarks/ocr_cost.py).
    """

    def __init__(self, *, max_side: int = DEFAULT_MAX_SIDE) -> None:
        self.max_side = max_side
        self._engine: Any = None
        self._numpy: Any = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, **options: Any) -> OcrEngine | None:
        """An engine when the ``ocr`` extra is installed, else None (print :data:`OCR_MISSING_NOTICE` then).

        Cheap: it only looks for the packages. The models load on the first :meth:`read` or :meth:`warm_up`.
        """
        for module in ("rapidocr", "onnxruntime", "numpy"):
            try:
                if importlib.util.find_spec(module) is None:
                    return None
            except (ImportError, ValueError):
                return None
        return cls(**options)

    async def warm_up(self) -> None:
        """Load the models now (a second or two, in a worker thread) rather than during the first step."""
        await asyncio.to_thread(self._ensure_engine)

    async def read(self, image: Image.Image) -> list[OcrText]:
        """Every line of text in ``image``, top to bottom; raises OcrUnavailableError if the engine cannot start."""
        return await asyncio.to_thread(self.read_sync, image)

    def read_sync(self, image: Image.Image) -> list[OcrText]:
        """:meth:`read` for callers already off the event loop (benchmarks, worker threads)."""
        engine = self._ensure_engine()
        pixels = self._numpy.asarray(image.convert("RGB"))
        with self._lock:   # one inference at a time: ONNX Runtime already uses every core for one
            result = engine(pixels)
        texts = result.txts or ()
        lines = []
        for box, text, score in zip(result.boxes if texts else (), texts, result.scores or (), strict=True):
            xs, ys = [float(p[0]) for p in box], [float(p[1]) for p in box]
            bounds = Bounds(max(0, round(min(xs))), max(0, round(min(ys))),
                            min(image.width, round(max(xs))), min(image.height, round(max(ys))))
            if text.strip() and not bounds.empty:
                lines.append(OcrText(text.strip(), bounds, float(score)))
        lines.sort(key=lambda t: (t.bounds.top, t.bounds.left))
        return lines

    def _ensure_engine(self) -> Any:
        if self._engine is not None:
            return self._engine
        with self._lock:
            if self._engine is None:
                try:
                    self._engine = self._build()
                except Exception as error:
                    raise OcrUnavailableError(f"the OCR engine could not start: {error}") from error
        return self._engine

    def _build(self) -> Any:
        # import_module, not import statements: the app bundle's import scan must not pull the extra in.
        self._numpy = importlib.import_module("numpy")
        rapidocr = importlib.import_module("rapidocr")
        models = Path(rapidocr.__file__).parent / "models"
        # The wheel's own models, by path: with no path RapidOCR looks them up and downloads any it lacks.
        paths = {}
        for kind in _MODEL_KINDS:
            found = sorted(models.glob(f"*_{kind}_*.onnx"))
            if not found:
                raise OcrUnavailableError(f"no {kind} model in {models}")
            paths[kind] = str(found[0])
        return rapidocr.RapidOCR(params={
            "Global.log_level": "warning",
            # Phone screens are upright: the 180° classifier would only cost time.
            "Global.use_cls": False,
            # Only the detector sees the picture shrunk to max_side (it finds 14 sp text as well there, at half
            # the cost); lines are read from crops of the full-size picture, which no phone screen exceeds.
            "Global.max_side_len": _NEVER_SHRINK, "Det.limit_type": "max", "Det.limit_side_len": self.max_side,
            "Det.model_path": paths["det"], "Rec.model_path": paths["rec"], "Cls.model_path": paths["cls"],
        })


# ---------------------------------------------------------------------------------------------- the merge

def is_ocr(element: Element) -> bool:
    """Whether an element of the map was read from the screenshot rather than the dump."""
    return element.node.cls == OCR_CLASS


def readable(line: OcrText) -> bool:
    """Text rather than junk: confident enough, at least two letters or digits (very confident, if only two),
    and mostly real words and numbers."""
    words = len(_WORD.findall(line.text))
    floor = MIN_SHORT_CONFIDENCE if words <= MIN_WORD_CHARACTERS else MIN_CONFIDENCE
    return line.confidence >= floor and words >= MIN_WORD_CHARACTERS and real_text(line.text)


_TOKENS = re.compile(r"[^\W_]+(?:[.,:/'’-][^\W_]+)*", re.UNICODE)
_NUMBER = re.compile(r"^\d+(?:[.,:/-]\d+)*$")
_VOWELS = set("aeiouyäöüàáâãåèéêëìíîïòóôõùúûæøœ")
REAL_SHARE = 0.6     # of a line's letters and digits that must be in real words and numbers


def _real_token(token: str) -> bool:
    """A number ("4.8", "12:30", "555-0104"), or a word: two letters or more with a vowel ("UU", "ue" in "l ue ·
    u5.51" are not), in any script (a script without Latin vowels counts as words), never letters and digits
    mixed ("u5.51")."""
    if _NUMBER.match(token):
        return True
    if any(c.isdigit() for c in token):
        # Codes and prices mix them on purpose ("SH-10421", "$12", "5G", "WELCOME10"): upper case or a dash.
        return token.isupper() or "-" in token or token[:1].isupper()
    letters = [c for c in token.casefold() if c.isalpha()]
    if len(letters) < 2:
        return False
    if not all("a" <= c <= "z" or c in _VOWELS for c in letters):
        return True       # another script: no vowel test
    return any(c in _VOWELS for c in letters) and len(set(letters)) > 1


def real_text(text: str) -> bool:
    """Whether most of a line is real words and numbers, not noise read off icons and edges ("4.0 (0, 1 1 1 )",
    "l ue · u5.51", "UU")."""
    tokens = _TOKENS.findall(text)
    total = sum(len(t) for t in tokens)
    if not total:
        return False
    real = sum(len(t) for t in tokens if _real_token(t))
    # Lone letters, and lone 0s and 1s among several tokens, are what icons and edges read as; so is a run of
    # short bare numbers with no word and nothing after a decimal point ("0, 11 1" off a row of stars).
    singles = sum(1 for t in tokens if (len(t) == 1 and not t.isdigit()) or (t in ("0", "1") and len(tokens) > 2))
    wordless = not any(c.isalpha() for c in text)
    bare = sum(1 for t in tokens if t.isdigit() and len(t) <= 2)
    if wordless and len(tokens) > 3 and bare > len(tokens) / 2:
        return False
    return real / total >= REAL_SHARE and singles <= len(tokens) / 2


def ocr_elements(texts: Sequence[OcrText], tree: UITree, keyboard: Bounds | None = None) -> list[Element]:
    """Elements for the OCR lines that the dump does not already show (see the module docstring).

    Their node (class :data:`OCR_CLASS`) takes the window of the line and the reading position of the end of
    the deepest dump node under it, so the map lists them where they appear; IDs are assigned with the rest.
    """
    if not texts:
        return []
    keyboard_area = next((w.bounds for w in tree.windows if w.kind is WindowKind.KEYBOARD), keyboard)
    status_bottom = _status_bar_bottom(tree)
    nav_bar = _nav_bar(tree)
    shown = [n for n in tree.nodes if (n.text or n.desc or n.hint) and n.visible and not n.bounds.empty
             and not _title_only(n)]
    # Behind a dialog the app is dimmed and out of reach: text read there would be offered as if it were not.
    modal = any(w.kind is WindowKind.DIALOG for w in tree.windows)
    elements = []
    for line in reading_order(texts):
        if not readable(line):
            continue
        text = clean(line.text)
        box = tree.on_screen(line.bounds)
        if box.empty:
            continue
        x, y = box.center
        if y < status_bottom or (nav_bar is not None and nav_bar.contains_point(x, y)):
            continue
        if keyboard_area is not None and keyboard_area.contains_point(x, y):
            continue
        window = _window_at(tree, x, y)
        if window is None or window.kind in (WindowKind.SYSTEM, WindowKind.KEYBOARD):
            continue
        if modal and window.kind.layer < WindowKind.DIALOG.layer:
            continue
        if _already_shown(text, box, shown):
            continue
        anchor = _deepest_at(window, x, y)
        # Listed after everything in the view it is drawn over (a toast after the list under it), and
        # inside that view's subtree for is_ancestor_of.
        node = UINode(cls=OCR_CLASS, text=text, package=window.package, bounds=box, window=window.index,
                      order=anchor.end, end=anchor.end, paint=anchor.paint_end, paint_end=anchor.paint_end,
                      depth=anchor.depth + 1)
        elements.append(Element(id="", role="text", label=text, value="", hint="", states=(OCR_STATE,),
                                bounds=box, visible=box, tap=(x, y), node=node, sources=(node,),
                                window=window.kind, interactive=False, priority=_TEXT_PRIORITY))
    return elements


def reading_order(texts: Sequence[OcrText]) -> list[OcrText]:
    """Lines as a person reads them: rows top to bottom, each left to right. Words on one row are often read
    a pixel or two apart in height ("Menu" and "Order" in a site's header): sorting by top alone would list
    the right one first. A line joins the row above when their boxes share most of their height."""
    rows: list[list[OcrText]] = []
    for line in sorted(texts, key=lambda t: (t.bounds.top, t.bounds.left)):
        row = rows[-1] if rows else None
        if row is not None and _same_row(row[0].bounds, line.bounds):
            row.append(line)
        else:
            rows.append([line])
    return [line for row in rows for line in sorted(row, key=lambda t: t.bounds.left)]


def _same_row(a: Bounds, b: Bounds) -> bool:
    shared = min(a.bottom, b.bottom) - max(a.top, b.top)
    return shared > 0.5 * min(a.height, b.height)


def _title_only(node: UINode) -> bool:
    """A web view's own text is its page's title (Chrome's tab title), which the page does not draw: a line in
    the page that matches it ("Rosie's Bakery" in the site's header) is new text, not the title shown again."""
    return node.short_class.endswith("WebView") and not node.editable


def _status_bar_bottom(tree: UITree) -> int:
    """Where the status bar ends: the dump's status-bar background or the app content's top when it says,
    else a share of the screen."""
    tops = []
    for node in tree.nodes:
        if node.resource_id == "android:id/statusBarBackground" and not node.bounds.empty:
            return node.bounds.bottom
        if node.resource_id == "android:id/content" and tree.windows[node.window].kind is WindowKind.APP:
            tops.append(node.bounds.top)
    height = tree.screen.height
    plausible = [t for t in tops if 0 < t <= _STATUS_BAR_MAX_SHARE * height]
    return min(plausible) if plausible else round(_STATUS_BAR_SHARE * height)


def _nav_bar(tree: UITree) -> Bounds | None:
    for node in tree.nodes:
        if node.resource_id == "android:id/navigationBarBackground" and not node.bounds.empty:
            return node.bounds
    return None


def _window_at(tree: UITree, x: int, y: int) -> UIWindow | None:
    """The topmost window drawn at a point (gesture overlays draw nothing)."""
    for window in reversed(tree.windows_by_layer()):
        if window.kind is not WindowKind.OVERLAY and window.bounds.contains_point(x, y):
            return window
    return None


def _deepest_at(window: UIWindow, x: int, y: int) -> UINode:
    """The last node in pre-order whose bounds hold the point: the innermost view the line is drawn in."""
    deepest = window.root
    for node in window.root.walk():
        if node.order > deepest.order and node.bounds.contains_point(x, y):
            deepest = node
    return deepest


def _already_shown(text: str, box: Bounds, shown: list[UINode]) -> bool:
    """Whether dump nodes in the line's place say the same: one node, or several the line runs across
    ("Wi-Fi" and "Connected" side by side read as one line)."""
    here = [n for n in shown if _same_place(box, n.bounds)]
    # Nodes the line only runs into count for its words: a line from a label into a wide field ("To Omar",
    # the field's box far bigger than the line) says nothing new when its words are theirs.
    touched = [n for n in shown if box.intersect(n.bounds).area and n not in here]
    if not here and not touched:
        return False
    candidates = [w for n in here for w in (n.text, n.desc, n.hint) if w]
    here.sort(key=lambda n: (n.bounds.top, n.bounds.left))
    candidates.append(" ".join(n.text or n.desc or n.hint for n in here))
    # A text cursor right after the last letter is read as one more ("To Omarl" for "To Omar|").
    variants = {normalise(text)}
    if text[-1:] in _CURSOR_LOOKALIKES:
        variants.add(normalise(text[:-1]))
    said = [normalise(c) for c in candidates]
    words_said = set(" ".join(said + [normalise(w) for n in touched for w in (n.text, n.desc, n.hint) if w]).split())
    for wanted in variants:
        if any(_text_similarity(wanted, c) >= SAME_TEXT_RATIO for c in said):
            return True
        # Every word of the line is already in what the nodes there say: nothing new.
        if wanted and set(wanted.split()) <= words_said:
            return True
    return False


def _same_place(box: Bounds, other: Bounds) -> bool:
    inter = box.intersect(other).area
    if not inter:
        return _on_the_edge(box, other)
    union = box.area + other.area - inter
    return (inter / union >= SAME_PLACE_IOU or inter / min(box.area, other.area) >= SAME_PLACE_INSIDE
            or _on_the_edge(box, other))


def _on_the_edge(box: Bounds, other: Bounds) -> bool:
    """Whether the line lies within its own height of the node's box: a text field's floating label is drawn
    across its top border, mostly outside the field's bounds, and is the field's own hint, not new text."""
    margin = box.height
    grown = Bounds(other.left - margin, other.top - margin, other.right + margin, other.bottom + margin)
    return grown.contains(box)


def normalise(text: str) -> str:
    """The words of a text, lower case, one space apart."""
    # Punctuation is where OCR and the dump differ most ("…" read as "...", "—" as "-"): compare words only.
    return _NON_WORD.sub(" ", text.casefold()).strip()


def _text_similarity(line: str, shown: str) -> float:
    """How alike an OCR line and a dump text read. When the dump text is longer (a paragraph the line is one
    row of, a label the view cuts short), the line is compared with the best-matching stretch of it of the
    line's length; when the line is longer it carries words the dump lacks, and the plain ratio says so."""
    if not line or not shown:
        return 0.0
    if len(shown) <= len(line):
        return difflib.SequenceMatcher(None, line, shown, autojunk=False).ratio()
    matcher = difflib.SequenceMatcher(None, line, shown, autojunk=False)
    best = 0.0
    for block in matcher.get_matching_blocks():
        start = max(0, min(block.b - block.a, len(shown) - len(line)))
        window = shown[start:start + len(line)]
        best = max(best, difflib.SequenceMatcher(None, line, window, autojunk=False).ratio())
        if best == 1.0:
            break
    return best
