"""What the agent sees of the screen: UI dumps parsed into element maps, their renderings, diffs and hashes.

Plain Python (Pillow for pictures); no Qt, no device access — callers pass in dumps and screenshots. OCR
(ocr.py) needs the optional ``ocr`` extra and is imported only when used.
"""

from relay_desktop.perception.diff import ElementChange, ElementDiff, diff_maps
from relay_desktop.perception.element_map import MAX_ELEMENTS, Element, ElementMap, build_element_map
from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.hashes import layout_hash, screen_signature, semantic_fingerprint
from relay_desktop.perception.ocr import (
    OCR_MISSING_NOTICE,
    OCR_STATE,
    OcrEngine,
    OcrText,
    OcrUnavailableError,
    is_ocr,
    scale_to_screen,
)
from relay_desktop.perception.parse import HierarchyParseError, parse_hierarchy
from relay_desktop.perception.render import to_json, to_json_text, to_prompt_text
from relay_desktop.perception.screen import Dialog, current_dialog, focused_field, keyboard_region, sign_in_screen
from relay_desktop.perception.screenshot import PreparedScreenshot, prepare_screenshot, prepare_screenshot_async
from relay_desktop.perception.tree import UINode, UITree, UIWindow, WindowKind

__all__ = [
    "MAX_ELEMENTS",
    "OCR_MISSING_NOTICE",
    "OCR_STATE",
    "Bounds",
    "Dialog",
    "Element",
    "ElementChange",
    "ElementDiff",
    "ElementMap",
    "HierarchyParseError",
    "OcrEngine",
    "OcrText",
    "OcrUnavailableError",
    "PreparedScreenshot",
    "UINode",
    "UITree",
    "UIWindow",
    "WindowKind",
    "build_element_map",
    "current_dialog",
    "diff_maps",
    "focused_field",
    "is_ocr",
    "keyboard_region",
    "layout_hash",
    "parse_hierarchy",
    "prepare_screenshot",
    "prepare_screenshot_async",
    "scale_to_screen",
    "screen_signature",
    "semantic_fingerprint",
    "sign_in_screen",
    "to_json",
    "to_json_text",
    "to_prompt_text",
]
