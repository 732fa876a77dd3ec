"""A phone screenshot made ready for an LLM prompt: a JPEG small enough to be cheap, sharp enough to read.

Every image in a prompt is paid for in tokens and upload time on every step of the agent's loop, yet a
screenshot the model cannot read is worse than none. So the image is first scaled down to a size models
handle well (``max_side``), then encoded at the *highest* JPEG quality in a low band (15–50 by default)
that still fits a byte budget: text stays legible for as long as the budget allows. Only when even the
lowest quality is too big is the image shrunk further — fewer, cleaner pixels read better than blocky ones.

The model answers in coordinates of the image it was sent; :class:`PreparedScreenshot` keeps the sizes so
those map back to device pixels for taps (:meth:`PreparedScreenshot.to_device`).
"""

from __future__ import annotations

import asyncio
import base64
import io
import math
from dataclasses import dataclass
from typing import Any

from PIL import Image, UnidentifiedImageError

__all__ = ["PreparedScreenshot", "integer_side", "prepare_screenshot", "prepare_screenshot_async"]

# Below this the picture is useless to the model anyway; stop shrinking and send what we have.
_TINY_SIDE = 64
# Each extra shrink must make real progress, or a budget just above the JPEG's fixed overhead would loop long.
_MAX_SHRINK = 0.9


@dataclass(frozen=True, repr=False)
class PreparedScreenshot:
    """An encoded screenshot plus what is needed to map its coordinates back to the device."""

    jpeg: bytes
    width: int
    height: int
    source_width: int
    source_height: int
    quality: int
    scale: float  # sent pixels per device pixel (<= 1.0); nominal — the mappings use exact per-axis ratios

    def to_device(self, x: float, y: float) -> tuple[int, int]:
        """Sent-image coordinates → device pixel, clamped inside the screen (models do answer off-image)."""
        return (_map(x, self.width, self.source_width), _map(y, self.height, self.source_height))

    def to_image(self, x: float, y: float) -> tuple[int, int]:
        """Device pixel → sent-image coordinates, clamped inside the sent image."""
        return (_map(x, self.source_width, self.width), _map(y, self.source_height, self.height))

    def to_screen(self, x: float, y: float, screen: tuple[int, int]) -> tuple[int, int]:
        """A point of the sent image → the pixel of a display ``screen`` (width, height) it shows.

        Not :meth:`to_device`: the picture's source is not always the display. A mirror's frame is the whole
        display scaled down (536x1200 of a 1080x2400 phone), so its pixels are not the phone's. Raises ValueError
        for a point off the picture, which a model reading the picture can only have guessed."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"({x:g},{y:g}) is off the {self.width}x{self.height} screenshot")
        return (_map(x, self.width, screen[0]), _map(y, self.height, screen[1]))

    def base64(self) -> str:
        return base64.b64encode(self.jpeg).decode("ascii")

    @property
    def media_type(self) -> str:
        return "image/jpeg"

    def __repr__(self) -> str:
        # The bytes would flood logs and tracebacks; the sizes are what one wants to see.
        return (f"PreparedScreenshot({self.width}x{self.height} from {self.source_width}x{self.source_height}, "
                f"quality={self.quality}, scale={self.scale:.3f}, {len(self.jpeg)} bytes)")


def _map(value: float, from_size: int, to_size: int) -> int:
    # Map pixel centres rather than edges, so a round trip lands on the same pixel, not drifting up-left.
    mapped = math.floor((value + 0.5) * to_size / from_size)
    return max(0, min(to_size - 1, mapped))


def prepare_screenshot(image: Image.Image | bytes, *, max_bytes: int = 150_000, max_side: int | None = 1280,
                       min_quality: int = 15, max_quality: int = 50) -> PreparedScreenshot:
    """Encode ``image`` (a PIL image or PNG/JPEG/WebP bytes) as the best JPEG that fits ``max_bytes``.

    Raises ValueError for undecodable bytes, an empty image or inconsistent arguments. If the budget cannot
    be met even by a tiny image, the smallest attempt is returned anyway: a screenshot over budget beats none.
    """
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    if not (1 <= min_quality <= 95 and 1 <= max_quality <= 95):
        raise ValueError(f"JPEG quality bounds must be within 1..95, got {min_quality}..{max_quality}")
    if min_quality > max_quality:
        raise ValueError(f"min_quality {min_quality} is above max_quality {max_quality}")
    if max_side is not None and max_side < 1:
        raise ValueError(f"max_side must be at least 1 or None, got {max_side}")

    source = _to_rgb(_load(image))
    src_w, src_h = source.size
    scale = 1.0 if max_side is None else min(1.0, max_side / max(src_w, src_h))
    while True:
        size = (max(1, round(src_w * scale)), max(1, round(src_h * scale)))
        # Always resample from the source: shrinking an already-shrunk image compounds the blur.
        frame = source if size == source.size else _shrink(source, size)
        quality, jpeg = _best_quality(frame, max_bytes, min_quality, max_quality)
        if len(jpeg) <= max_bytes or max(size) < _TINY_SIDE:
            return PreparedScreenshot(jpeg=jpeg, width=size[0], height=size[1], source_width=src_w,
                                      source_height=src_h, quality=quality, scale=scale)
        # Bytes grow roughly with pixel count, i.e. with the square of the linear scale.
        scale *= min(_MAX_SHRINK, math.sqrt(max_bytes / len(jpeg)) * 0.9)


def _shrink(source: Image.Image, size: tuple[int, int]) -> Image.Image:
    factor = source.width / size[0]
    if factor >= 2 and factor.is_integer() and source.height == size[1] * factor:
        # An exact integer step: a box average of each n×n block is the correct downsample, and ~8× faster
        # than Lanczos (see integer_side()).
        return source.reduce(int(factor))
    return source.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def integer_side(width: int, height: int, max_side: int = 1280) -> int:
    """The largest long side ≤ ``max_side`` that divides the screen by a whole number (2400 → 1200 for 1280),
    so the shrink is an exact, fast block average. Falls back to ``max_side`` when no whole factor fits."""
    long_side = max(width, height)
    if long_side <= max_side:
        return long_side
    factor = math.ceil(long_side / max_side)
    if long_side % factor == 0 and min(width, height) % factor == 0:
        return long_side // factor
    return max_side


async def prepare_screenshot_async(image: Image.Image | bytes, **kwargs: Any) -> PreparedScreenshot:
    """:func:`prepare_screenshot` off the event loop: encoding takes tens of milliseconds."""
    return await asyncio.to_thread(prepare_screenshot, image, **kwargs)


def _best_quality(frame: Image.Image, max_bytes: int, lo: int, hi: int) -> tuple[int, bytes]:
    """The highest quality in ``lo..hi`` whose JPEG fits; ``(lo, jpeg)`` over budget when none does."""
    top = _encode(frame, hi)
    if len(top) <= max_bytes:
        return hi, top  # the common case with a generous budget: one encode
    best = (lo, _encode(frame, lo))
    if lo == hi or len(best[1]) > max_bytes:
        return best
    # Invariant: lo fits, hi does not. Size is monotonic enough in quality for bisection, and every
    # candidate kept was actually encoded and measured, so the result fits even where it is not.
    while hi - lo > 1:
        mid = (lo + hi) // 2
        jpeg = _encode(frame, mid)
        if len(jpeg) <= max_bytes:
            lo, best = mid, (mid, jpeg)
        else:
            hi = mid
    return best


def _encode(frame: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    # No exif/icc_profile passed, so none is written: metadata only costs bytes here.
    # optimize=True: Huffman tables fitted to the image, a few % smaller for little time.
    frame.save(out, format="JPEG", quality=quality, optimize=True)
    return out.getvalue()


def _load(image: Image.Image | bytes | bytearray | memoryview) -> Image.Image:
    if isinstance(image, Image.Image):
        loaded = image
    elif isinstance(image, bytes | bytearray | memoryview):
        data = bytes(image)
        if not data:
            raise ValueError("not an image: empty bytes")
        try:
            loaded = Image.open(io.BytesIO(data))
            loaded.load()  # decode now, so truncated data fails here and not deep in resize
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
            raise ValueError(f"not an image: {len(data)} bytes Pillow cannot decode ({exc})") from exc
    else:
        raise TypeError(f"expected a PIL image or encoded bytes, got {type(image).__name__}")
    if loaded.width <= 0 or loaded.height <= 0:
        raise ValueError(f"empty image: {loaded.width}x{loaded.height}")
    return loaded


def _to_rgb(image: Image.Image) -> Image.Image:
    if image.mode == "RGB":
        return image
    if "A" in image.getbands() or "transparency" in image.info:
        # Plain convert("RGB") would keep whatever colour hides under transparent pixels; black is
        # predictable and matches how a phone draws an empty surface.
        rgba = image.convert("RGBA")
        return Image.alpha_composite(Image.new("RGBA", rgba.size, (0, 0, 0, 255)), rgba).convert("RGB")
    return image.convert("RGB")
