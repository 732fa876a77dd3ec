"""Password fields painted over in a finished screen recording.

The Record button writes the mirror's H.264 packets as they come (no re-encoding), so whatever a password field
showed — the last character typed, which Android echoes for a moment, or all of it with "show password" on —
is in the file. While recording, :class:`PasswordTimeline` remembers, from the screens the window reads anyway
(the agent's captures, the Inspect tab's dumps), when a password field was on screen and where; once the
recording stops, :func:`mask_recording` decodes the file, paints those regions on the frames of those moments
and encodes it again. A recording that never showed a password field is left as it was, at no cost.

No Qt here: the window runs :func:`mask_recording` in a worker thread and shows its progress.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.privacy import MASK_COLOUR, region_boxes

__all__ = ["LEAD_S", "TRAIL_S", "MaskSpan", "MaskingFailed", "PasswordTimeline", "mask_recording",
           "unmasked_name"]

# A screen is read a while after it changed (the agent acts, waits for the screen to settle, then dumps it), so
# a password field seen in a dump was on screen a little before it: its mask starts this much earlier.
LEAD_S = 1.0
# The video's clock and the host's agree only roughly (the first frame's own delay): a mask ends a little after
# the first reading that no longer shows the field, never before.
TRAIL_S = 0.5

# Encoders tried in order: H.264 as the mirror's own stream is (libx264, else whatever FFmpeg calls h264 —
# a hardware one may refuse to open), and MPEG-4 part 2, which every FFmpeg build has and every player plays.
_ENCODERS: tuple[tuple[str, dict[str, str]], ...] = (
    ("libx264", {"preset": "veryfast", "crf": "18"}),
    ("h264", {}),
    ("mpeg4", {"b": "8M"}),
)
# MPEG-4 part 2 cannot count time in units finer than 1/65535 s; H.264 keeps the recording's microseconds.
_MPEG4_TIME_BASE = Fraction(1, 1000)


@dataclass(frozen=True)
class MaskSpan:
    """Password fields at ``regions`` (pixels of a ``screen`` of that width and height) from ``start_s`` to
    ``end_s`` seconds into the video (``math.inf``: to its end)."""

    start_s: float
    end_s: float
    regions: tuple[Bounds, ...]
    screen: tuple[int, int]

    def covers(self, t: float) -> bool:
        return self.start_s <= t <= self.end_s


class PasswordTimeline:
    """When and where password fields were on screen during one recording, from the screens read while it ran.

    ``origin`` is the host's wall clock (``time.time()``) when the recording was asked for: its first frame
    comes a little later, so a moment measured from here is, if anything, late in the video — which errs on the
    side of masking for a span's end, and :data:`LEAD_S` covers for its start."""

    def __init__(self, origin: float) -> None:
        self.origin = origin
        self._spans: list[MaskSpan] = []
        self._open: tuple[float, tuple[Bounds, ...], tuple[int, int]] | None = None

    def saw(self, began: float, ended: float, regions: Sequence[Bounds], screen: tuple[int, int]) -> None:
        """A screen was read between ``began`` and ``ended`` (wall clock) and had password fields at ``regions``
        (none: it had none). The fields seen last are masked until this reading; new ones from a little before
        it until the next reading, or the end of the recording."""
        regions = tuple(regions)
        if self._open is not None:
            start, shown, size = self._open
            if regions == shown and screen == size:
                return                                  # the same fields, still there: one span goes on
            self._spans.append(MaskSpan(start, ended - self.origin + TRAIL_S, shown, size))
            self._open = None
        if regions and all(screen):
            self._open = (max(0.0, began - self.origin - LEAD_S), regions, screen)

    def spans(self) -> list[MaskSpan]:
        """Every span so far; one still open lasts to the end of the video."""
        spans = list(self._spans)
        if self._open is not None:
            start, regions, screen = self._open
            spans.append(MaskSpan(start, math.inf, regions, screen))
        return spans

    def __bool__(self) -> bool:
        return bool(self._spans) or self._open is not None


class MaskingFailed(Exception):
    """The recording could not be masked; the message says what became of the file."""


def unmasked_name(path: Path) -> Path:
    """Where the recording waits while it is masked: a name that says what it holds, should the app die
    before it is done."""
    return path.with_name(f"{path.stem}.unmasked{path.suffix}")


def mask_recording(path: Path, spans: Sequence[MaskSpan],
                   progress: Callable[[float], None] | None = None) -> int:
    """Paint ``spans`` over the recording at ``path``, in place: the number of frames masked. ``progress`` is
    called with the share done (0–1) now and then, on this thread.

    The masked video is written next to the recording and then takes its name in one step (``os.replace``), so
    ``path`` never holds half a video. If masking fails the recording is deleted and :class:`MaskingFailed`
    says so: the user asked for password fields never to be in a recording, and a file that still shows them —
    under any name — is one sync, backup or bug report away from leaving the machine, with nothing in it to say
    so. Losing a recording is the lesser harm; the message tells the user plainly that it happened and why."""
    source, target = unmasked_name(path), path.with_name(f"{path.stem}.masking{path.suffix}")
    try:
        os.replace(path, source)
        masked = _transcode(source, target, spans, progress)
        os.replace(target, path)
    except Exception as exc:
        try:                                     # whichever of them is there: none shows a masked video
            for leftover in (target, source, path):
                leftover.unlink(missing_ok=True)
        except OSError as stuck:
            raise MaskingFailed(f"The password fields in the recording could not be masked ({exc}), and the "
                                f"unmasked video could not be deleted ({stuck}): delete {stuck.filename} "
                                f"yourself") from exc
        raise MaskingFailed(f"Recording deleted: its password fields could not be masked ({exc}), and a "
                            f"recording showing them is not kept") from exc
    try:
        source.unlink(missing_ok=True)
    except OSError as stuck:
        raise MaskingFailed(f"The recording was masked ({path}), but its unmasked copy could not be deleted "
                            f"({stuck}): delete {source} yourself") from stuck
    return masked


def _transcode(source: Path, target: Path, spans: Sequence[MaskSpan],
               progress: Callable[[float], None] | None) -> int:
    masked = done = 0
    with av.open(str(source)) as inp:
        vin = inp.streams.video[0]
        vin.thread_type = "AUTO"
        total = vin.frames or 0
        with av.open(str(target), "w") as out:
            vout, time_base = _encoder(out, vin.codec_context.width, vin.codec_context.height)
            first: float | None = None
            last_pts = -1
            for frame in inp.decode(vin):
                if frame.time is None:
                    continue
                first = frame.time if first is None else first
                t = frame.time - first
                if frame.format.name != "yuv420p":
                    frame = frame.reformat(format="yuv420p")
                shown = [span for span in spans if span.covers(t)]
                if shown:                               # on the frame as decoded: it shows the whole display
                    frame = _paint(frame, shown)
                    masked += 1
                if frame.width != vout.width or frame.height != vout.height:   # turned mid-recording
                    frame = frame.reformat(width=vout.width, height=vout.height)
                # Frames come when the screen changes (a variable rate): each keeps its own moment.
                pts = max(last_pts + 1, round(t / time_base))
                frame.pts, frame.time_base, last_pts = pts, time_base, pts
                for packet in vout.encode(frame):
                    out.mux(packet)
                done += 1
                if progress is not None and total:
                    progress(min(1.0, done / total))
            for packet in vout.encode(None):
                out.mux(packet)
    if done == 0:
        raise ValueError("the recording holds no frame that decodes")
    return masked


def _encoder(out: av.container.OutputContainer, width: int, height: int
             ) -> tuple[av.video.stream.VideoStream, Fraction]:
    """The first encoder of :data:`_ENCODERS` this FFmpeg has and can open, as the output's stream. Each is
    tried on a loose codec context first: a stream added to the container cannot be taken back out."""
    errors = []
    for name, options in _ENCODERS:
        time_base = _MPEG4_TIME_BASE if name == "mpeg4" else Fraction(1, 1_000_000)
        try:
            trial = av.CodecContext.create(name, "w")
            trial.width, trial.height, trial.pix_fmt, trial.time_base = width, height, "yuv420p", time_base
            trial.options = dict(options)
            trial.open()
        except Exception as exc:     # missing from this build, or hardware that is not there
            errors.append(f"{name}: {exc}")
            continue
        stream = out.add_stream(name, options=dict(options))
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.time_base = stream.codec_context.time_base = time_base
        return stream, time_base
    raise RuntimeError("no video encoder could be opened (" + "; ".join(errors) + ")")


def _yuv(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """An RGB colour in the video's YUV (BT.601, limited range: what the phone's encoder and FFmpeg assume)."""
    r, g, b = colour
    y = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255
    u = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255
    v = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255
    return round(y), round(u), round(v)


_MASK_YUV = _yuv(MASK_COLOUR)


def _paint(frame: av.VideoFrame, spans: Sequence[MaskSpan]) -> av.VideoFrame:
    """A copy of a yuv420p ``frame`` with the spans' regions painted :data:`MASK_COLOUR`, straight in its planes
    (no trip through RGB, which would shift the colours of the whole frame a little)."""
    width, height = frame.width, frame.height
    data = frame.to_ndarray()                      # the Y plane, then U and V at half size, one under another
    luma = data[:height]
    chroma = data[height:].reshape(2, height // 2, width // 2)
    y, u, v = _MASK_YUV
    for span in spans:
        for left, top, right, bottom in region_boxes(span.regions, (width, height), span.screen):
            luma[top:bottom + 1, left:right + 1] = y
            # Every chroma sample a masked pixel uses is masked too, or a colour fringe would outline the field.
            chroma[0, top // 2:bottom // 2 + 1, left // 2:right // 2 + 1] = u
            chroma[1, top // 2:bottom // 2 + 1, left // 2:right // 2 + 1] = v
    painted = av.VideoFrame.from_ndarray(np.ascontiguousarray(data), format="yuv420p")
    painted.pts, painted.time_base = frame.pts, frame.time_base
    return painted
