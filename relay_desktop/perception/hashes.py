"""Two hashes of a screen, for the agent's loop guards.

* :func:`layout_hash` — the spec's structure hash: CRC32 of the quantized layout (role and box of every
  element, boxes snapped to a grid). Text changes do not move it, so a stagnating agent is caught even
  when a clock or a counter ticks.
* :func:`semantic_fingerprint` — a hash of meaningful content (roles, labels, values, states), for
  ineffective-action detection: if it is the same before and after an action, the action did nothing.

The system bars are left out of both: their clock and icons change without the app changing.
"""

from __future__ import annotations

import hashlib
import zlib

from relay_desktop.perception.element_map import ElementMap
from relay_desktop.perception.tree import WindowKind

__all__ = ["layout_hash", "screen_signature", "semantic_fingerprint"]

_GRID_DIVISIONS = 36   # ~30 px cells on a 1080-wide screen: survives 1-2 px jitter, not a real move


def layout_hash(element_map: ElementMap) -> str:
    screen = element_map.screen
    cell = max(1, screen.width // _GRID_DIVISIONS) if screen.width else 30
    parts = []
    for element in element_map.elements:
        if element.window is WindowKind.SYSTEM:
            continue
        b = element.bounds
        parts.append(f"{element.role}:{round(b.left / cell)},{round(b.top / cell)},"
                     f"{round(b.right / cell)},{round(b.bottom / cell)}")
    return f"{zlib.crc32(';'.join(parts).encode()):08x}"


def semantic_fingerprint(element_map: ElementMap) -> str:
    digest = hashlib.blake2b(digest_size=8)
    digest.update("|".join(element_map.tree.packages).encode())
    for element in element_map.elements:
        if element.window is WindowKind.SYSTEM:
            continue
        digest.update(f"\n{element.role}\t{element.label}\t{element.value}\t{','.join(element.states)}".encode())
    return digest.hexdigest()


def screen_signature(element_map: ElementMap) -> str:
    """The native-loop design's quick stuck check: package, element count and the first labelled control."""
    first = next((e.label for e in element_map.elements if e.interactive and e.label
                  and e.window is not WindowKind.SYSTEM), "")
    packages = ",".join(element_map.tree.packages)
    return f"{packages}|{len(element_map.elements)}|{first}"
