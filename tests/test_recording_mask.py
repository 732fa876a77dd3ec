"""Password fields painted over in a finished recording (mirror/recording_mask.py): on a small H.264 MP4 made
here as the Record button makes them (frames only when the screen changes, microsecond times), a bright "password
field" is grey inside its span and region only, the video keeps its frames and times, and a recording that
cannot be masked is not kept."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from relay_desktop.mirror import recording_mask
from relay_desktop.mirror.recording_mask import (
    LEAD_S,
    TRAIL_S,
    MaskingFailed,
    MaskSpan,
    PasswordTimeline,
    mask_recording,
    unmasked_name,
)
from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.privacy import MASK_COLOUR

WIDTH, HEIGHT = 320, 640                 # the video: a mirror frame, smaller than the phone
SCREEN = (640, 1280)                     # the phone's display, in whose pixels the dump gives bounds
FIELD = Bounds(100, 200, 500, 300)       # the password field on the phone: (50, 100)–(250, 150) in the video
BACKGROUND = (30, 60, 120)
BRIGHT = (255, 255, 255)
TIMES = [0.0, 0.4, 0.9, 1.2, 1.5, 1.9, 2.3, 3.0, 3.6]     # uneven, as the mirror sends them


def _make_video(path: Path) -> None:
    """A frame at each of TIMES: a dark background with a bright rectangle where the field is."""
    picture = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    picture[:] = BACKGROUND
    picture[100:150, 50:250] = BRIGHT
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", options={"crf": "10"})
        stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        stream.time_base = stream.codec_context.time_base = Fraction(1, 1_000_000)
        for t in TIMES:
            frame = av.VideoFrame.from_ndarray(picture, format="rgb24")
            frame.pts, frame.time_base = round(t * 1_000_000), Fraction(1, 1_000_000)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def _frames(path: Path) -> tuple[str, list[tuple[float, np.ndarray]]]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return stream.codec_context.name, [(float(f.time), f.to_ndarray(format="rgb24"))
                                           for f in container.decode(stream)]


def _near(pixel: np.ndarray, colour: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(int(a) - b) <= tolerance for a, b in zip(pixel, colour, strict=True))


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "recording.mp4"
    _make_video(path)
    return path


def test_the_field_is_grey_inside_its_span_and_region_only(video: Path) -> None:
    shares: list[float] = []
    masked = mask_recording(video, [MaskSpan(1.0, 2.0, (FIELD,), SCREEN)], shares.append)
    assert masked == 3                                                  # 1.2, 1.5 and 1.9 s
    codec, frames = _frames(video)
    assert codec == "h264"                                              # libx264 is there: H.264 as before
    assert [round(t, 3) for t, _ in frames] == TIMES                    # every frame, at its own moment
    for t, picture in frames:
        inside = picture[125, 150]                                      # the field's middle
        edges = picture[101, 51], picture[148, 248]                     # its corners, the margin in
        outside = picture[125, 20], picture[170, 150], picture[90, 150]  # beside, under, above it
        if 1.0 <= t <= 2.0:
            assert _near(inside, MASK_COLOUR) and all(_near(p, MASK_COLOUR) for p in edges), (t, inside)
        else:
            assert _near(inside, BRIGHT) and all(_near(p, BRIGHT) for p in edges), (t, inside)
        assert all(_near(p, BACKGROUND) for p in outside), (t, outside)
    assert shares and shares[-1] == 1.0 and shares == sorted(shares)
    assert sorted(p.name for p in video.parent.iterdir()) == ["recording.mp4"]     # nothing left beside it


def test_a_span_open_to_the_end_and_an_encoder_missing_here(video: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No H.264 encoder (some FFmpeg builds have none, and a hardware one may not open): MPEG-4 part 2 it is.
    monkeypatch.setattr(recording_mask, "_ENCODERS", (("no-such-encoder", {}), ("h264_v4l2m2m", {}),
                                                      ("mpeg4", {"b": "8M"})))
    assert mask_recording(video, [MaskSpan(3.0, math.inf, (FIELD,), SCREEN)]) == 2
    codec, frames = _frames(video)
    assert codec == "mpeg4"
    assert [round(t, 3) for t, _ in frames] == TIMES
    for t, picture in frames:
        assert _near(picture[125, 150], MASK_COLOUR if t >= 3.0 else BRIGHT, tolerance=16), t


def test_a_recording_that_cannot_be_masked_is_deleted_and_said_so(tmp_path: Path) -> None:
    broken = tmp_path / "recording.mp4"
    broken.write_bytes(b"\x00\x00\x00\x18ftypmp42 not a video after all" * 20)
    with pytest.raises(MaskingFailed, match="Recording deleted: its password fields could not be masked"):
        mask_recording(broken, [MaskSpan(0.0, math.inf, (FIELD,), SCREEN)])
    assert list(tmp_path.iterdir()) == []                 # neither the file, nor an unmasked or half-masked copy
    assert unmasked_name(broken).name == "recording.unmasked.mp4"


def test_the_timeline_masks_from_a_little_before_a_field_is_seen_until_it_is_seen_gone() -> None:
    timeline = PasswordTimeline(origin=1000.0)
    assert not timeline and timeline.spans() == []
    timeline.saw(1002.0, 1002.5, [], SCREEN)                           # no password field: nothing to mask
    assert not timeline
    timeline.saw(1005.0, 1005.6, [FIELD], SCREEN)                      # one appears
    timeline.saw(1008.0, 1008.4, [FIELD], SCREEN)                      # still there: the same span goes on
    assert timeline.spans() == [MaskSpan(5.0 - LEAD_S, math.inf, (FIELD,), SCREEN)]   # to the end, if need be
    moved = Bounds(100, 400, 500, 500)
    timeline.saw(1010.0, 1010.5, [moved], SCREEN)                      # scrolled: the old place until seen moved
    timeline.saw(1012.0, 1012.3, [], SCREEN)                           # gone
    first, second = timeline.spans()
    assert (first.regions, first.start_s, first.end_s) == ((FIELD,), 5.0 - LEAD_S, pytest.approx(10.5 + TRAIL_S))
    assert (second.regions, second.start_s, second.end_s) == ((moved,), 10.0 - LEAD_S,
                                                              pytest.approx(12.3 + TRAIL_S))
    early = PasswordTimeline(origin=1000.0)
    early.saw(999.0, 1000.2, [FIELD], SCREEN)                          # read as the recording began
    assert early.spans()[0].start_s == 0.0
