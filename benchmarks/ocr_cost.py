"""What the optional OCR pass (relay_desktop/perception/ocr.py) costs per step, and whether it adds wall time.

Run: .venv/bin/python benchmarks/ocr_cost.py [--rounds 5]   (needs the extra: pip install -e ".[ocr]")

1. OCR time per step on a few virtual-phone screens (the full 1080x2400 screenshot every time), for each
   variant: the text detector at 2000 px (RapidOCR's own default), at 960 px (``OcrEngine()``'s default; lines
   are still recognised from full-size crops), and the screenshot halved to 540x1200 before OCR (bounds scaled
   back with ``scale_to_screen``). Median and p90 of wall and CPU time, and the best round (ONNX Runtime uses
   both cores; under load from other processes the wall time grows, the CPU time much less). Each variant's
   lines are compared with the 2000 px ones: "same lines" counts the lines that pass the merge's junk filter
   and read the same, "added" the elements the merge adds to the element maps (the toast, on the toast screen).
2. Against the capture: ratio of the OCR time to a ``uiautomator dump`` on the realistic profile (1.5 s), and
   the capture's wall time with OCR run on the screenshot as soon as it arrives, while the dump is still
   running (what the orchestrator does), next to the capture without OCR.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relay_desktop.perception import build_element_map
from relay_desktop.perception.ocr import DEFAULT_MAX_SIDE, OcrEngine, OcrText, is_ocr, readable, scale_to_screen
from relay_desktop.sim.config import REALISTIC, PhoneConfig
from relay_desktop.sim.phone import VirtualPhone

CONTACTS, MESSAGES, SETTINGS, CHROME = ("com.google.android.contacts", "com.google.android.apps.messaging",
                                        "com.android.settings", "com.android.chrome")


async def tap_text(phone: VirtualPhone, text: str) -> None:
    """Tap the control that shows ``text`` (or has it as its resource id), scrolling down to it if need be."""
    for _ in range(6):
        element_map = build_element_map(await phone.dump_hierarchy())
        found = [e for e in element_map if e.interactive and any(
            text in (n.text, n.desc) or n.resource_id.endswith("/" + text) for n in e.sources)]
        if found:
            await phone.tap(*found[0].tap)
            return
        await phone.swipe(540, 1600, 540, 900, 400)
    raise LookupError(f"nothing labelled {text!r} on the screen")


async def screens() -> dict[str, tuple[Image.Image, str]]:
    """Screenshot and dump of home, Settings, a contact with the "Calling …" toast, a web page, the Messages
    list and a thread with the keyboard up."""
    phone = VirtualPhone()
    shots: dict[str, tuple[Image.Image, str]] = {}

    async def shoot(name: str) -> None:
        shots[name] = (await phone.screenshot(), await phone.dump_hierarchy())

    await shoot("home")
    phone.launch(SETTINGS)
    await shoot("settings")
    phone.launch(CONTACTS)
    await tap_text(phone, "Grace Liu")
    await tap_text(phone, "Call")
    assert phone.toast is not None
    phone.show_toast(phone.toast[0], seconds=60)
    await shoot("toast")
    phone.toast = None
    phone.launch(CHROME)
    phone.apps[CHROME].navigate("https://relayweather.com/forecast")  # type: ignore[attr-defined]
    await shoot("web")
    phone.launch(MESSAGES)
    await shoot("messages")
    await tap_text(phone, "Grace Liu")
    await tap_text(phone, "compose_message_text")
    assert phone.keyboard_shown
    await shoot("keyboard")
    return shots


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def kept(lines: list[OcrText]) -> set[str]:
    """The lines that pass the merge's junk filter, as read."""
    return {line.text for line in lines if readable(line)}


def added(lines: list[OcrText], xml: str) -> list[str]:
    return [e.label for e in build_element_map(xml, ocr=lines) if is_ocr(e)]


def measure(name: str, read: Callable[[Image.Image], list[OcrText]], shots: dict[str, tuple[Image.Image, str]],
            rounds: int, reference: dict[str, list[OcrText]] | None) -> tuple[dict[str, list[OcrText]], float]:
    """Times ``read`` on every screen; returns what it read and its median wall time."""
    read(shots["home"][0])   # loads the models
    walls, cpus, results = [], [], {}
    per_screen: dict[str, list[float]] = {screen: [] for screen in shots}
    for _ in range(rounds):
        for screen, (image, _xml) in shots.items():
            wall, cpu = time.perf_counter(), time.process_time()
            results[screen] = read(image)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            per_screen[screen].append(walls[-1])
    same = total = 0
    adds, differ = [], []
    for screen, (_image, xml) in shots.items():
        mine = kept(results[screen])
        if reference is not None:
            theirs = kept(reference[screen])
            same += len(mine & theirs)
            total += len(theirs)
            differ += [f"{screen}: {text!r}" for text in sorted(theirs - mine)]
        adds += [f"{screen}: {label}" for label in added(results[screen], xml)]
    quality = f"same lines {same}/{total}" if reference is not None else f"{sum(map(len, results.values()))} lines"
    best = statistics.mean(min(w) for w in per_screen.values())
    print(f"{name}\n    wall median {statistics.median(walls):.2f} s, p90 {percentile(walls, 0.9):.2f} s, best "
          f"{best:.2f} s (each screen's fastest round, averaged: the least disturbed by other processes); cpu median "
          f"{statistics.median(cpus):.2f} s, p90 {percentile(cpus, 0.9):.2f} s; {quality}")
    print(f"    added to the element maps: {adds}")
    if differ:
        print(f"    read differently or missed: {differ}")
    return results, statistics.median(walls)


async def capture_wall(phone: VirtualPhone, engine: OcrEngine | None, rounds: int) -> list[float]:
    """The orchestrator's capture: dump and screenshot at once, OCR on the screenshot as soon as it arrives."""

    async def picture() -> list[OcrText]:
        image = await phone.screenshot()
        return await engine.read(image) if engine is not None else []

    walls = []
    for _ in range(rounds):
        started = time.perf_counter()
        xml, lines = await asyncio.gather(phone.dump_hierarchy(), picture())
        await asyncio.to_thread(build_element_map, xml, None, ocr=lines)
        walls.append(time.perf_counter() - started)
    return walls


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="passes over the screens per variant")
    args = parser.parse_args()
    engine = OcrEngine.load()
    if engine is None:
        sys.exit("the ocr extra is not installed: pip install -e '.[ocr]'")
    shots = await screens()
    size = shots["home"][0].size
    print(f"{len(shots)} screens ({', '.join(shots)}), {args.rounds} rounds, {size[0]}x{size[1]}\n")

    full, _ = measure("full resolution, detector 2000 px", OcrEngine(max_side=2000).read_sync, shots, args.rounds,
                      None)
    _, default_median = measure(f"full resolution, detector {DEFAULT_MAX_SIDE} px (default)", engine.read_sync,
                                shots, args.rounds, full)
    half_engine = OcrEngine()
    half = (size[0] // 2, size[1] // 2)

    def read_half(image: Image.Image) -> list[OcrText]:
        return scale_to_screen(half_engine.read_sync(image.resize(half, Image.Resampling.BOX)), half, image.size)

    measure(f"halved image ({half[0]}x{half[1]})", read_half, shots, args.rounds, full)

    phone = VirtualPhone(PhoneConfig(realism=REALISTIC))
    phone.launch(SETTINGS)
    dump = REALISTIC.dump_seconds
    without = await capture_wall(phone, None, args.rounds)
    with_ocr = await capture_wall(phone, engine, args.rounds)
    print(f"\nOCR (default) / uiautomator dump on the realistic profile ({dump} s): {default_median / dump:.2f}")
    print(f"capture wall time, realistic profile: without OCR median {statistics.median(without):.2f} s, "
          f"with OCR concurrent median {statistics.median(with_ocr):.2f} s p90 {percentile(with_ocr, 0.9):.2f} s "
          f"(screencap {REALISTIC.screencap_seconds} s + OCR runs under the {dump} s dump)")


if __name__ == "__main__":
    asyncio.run(main())
