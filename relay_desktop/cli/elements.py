"""`relay-desktop elements`: what the agent would be told about a saved UI dump."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

__all__ = ["register"]


def register(commands: Any) -> None:
    elements = commands.add_parser(
        "elements", help="print the element map of a saved UI dump",
        description="Print what the agent would be told about a screen: the element map of a uiautomator, "
                    "uiautomator2 or Appium XML dump, as prompt text or JSON; with a screenshot, also draw "
                    "the element IDs on it (set-of-marks).")
    elements.add_argument("dump", help="the XML dump ('-' reads standard input)")
    elements.add_argument("--json", action="store_true", help="print JSON with every attribute and bounds")
    elements.add_argument("--screenshot", metavar="PNG", help="the screenshot taken with the dump")
    elements.add_argument("--marks", metavar="OUT.png", help="write the screenshot with element IDs drawn on it")
    elements.set_defaults(command="elements", handler=run)


async def run(args: argparse.Namespace) -> int:
    from relay_desktop.perception import HierarchyParseError, build_element_map, to_json_text, to_prompt_text

    if args.marks and not args.screenshot:
        print("relay-desktop elements: --marks needs --screenshot (the picture to draw on)", file=sys.stderr)
        return 2
    try:
        data = sys.stdin.buffer.read() if args.dump == "-" else Path(args.dump).read_bytes()
    except OSError as exc:
        print(f"relay-desktop elements: cannot read {args.dump}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        element_map = build_element_map(data)
    except HierarchyParseError as exc:
        source = "standard input" if args.dump == "-" else args.dump
        print(f"relay-desktop elements: {source}: {exc}", file=sys.stderr)
        return 1
    for warning in element_map.tree.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(to_json_text(element_map) if args.json else to_prompt_text(element_map))
    if args.marks:
        return await asyncio.to_thread(_write_marks, element_map, args.screenshot, args.marks)
    return 0


def _write_marks(element_map: object, screenshot: str, out: str) -> int:
    from PIL import Image, UnidentifiedImageError

    from relay_desktop.perception import ElementMap
    from relay_desktop.perception.marks import draw_marks

    assert isinstance(element_map, ElementMap)
    try:
        with Image.open(screenshot) as image:
            marked = draw_marks(image, element_map)
    except (OSError, UnidentifiedImageError) as exc:
        print(f"relay-desktop elements: cannot read the screenshot {screenshot}: {exc}", file=sys.stderr)
        return 2
    try:
        marked.save(out)
    except (OSError, ValueError) as exc:
        print(f"relay-desktop elements: cannot write {out}: {exc}", file=sys.stderr)
        return 2
    print(f"marks written to {out}", file=sys.stderr)
    return 0
