"""The window's side of the mirror: frames from another thread arrive as one signal, newest frame wins."""

from __future__ import annotations

import threading

import av
from PIL import Image
from pytestqt.qtbot import QtBot

from relay_desktop.ui.screen_sink import ScreenSink


def frame(colour: tuple[int, int, int]) -> av.VideoFrame:
    return av.VideoFrame.from_image(Image.new("RGB", (320, 640), colour)).reformat(format="yuv420p")


def test_frames_from_the_decoder_thread_coalesce_into_one_signal(qtbot: QtBot) -> None:
    sink = ScreenSink()
    signals: list[int] = []
    sink.frame_ready.connect(lambda: signals.append(1))
    colours = [(200, 30, 30), (30, 200, 30), (30, 30, 200)]
    thread = threading.Thread(target=lambda: [sink.on_frame(frame(c)) for c in colours])
    with qtbot.waitSignal(sink.frame_ready, timeout=5000):
        thread.start()
        thread.join(5)
    qtbot.wait(50)
    assert len(signals) == 1                         # three frames, one pending paint
    image = sink.image()
    assert image is not None and (image.width(), image.height()) == (320, 640)
    pixel = image.pixelColor(10, 10)
    assert pixel.blue() > 150 and pixel.red() < 90   # the newest frame won
    sink.on_frame(frame((200, 30, 30)))
    qtbot.waitUntil(lambda: len(signals) == 2, timeout=5000)


def test_no_frame_yet_is_no_image(qtbot: QtBot) -> None:
    assert ScreenSink().image() is None


def test_a_gpu_view_takes_the_planes_without_conversion(qtbot: QtBot) -> None:
    sink = ScreenSink()
    sink.on_frame(frame((30, 30, 200)))
    planes = sink.planes()
    assert planes is not None and (planes.width, planes.height) == (320, 640)
    assert planes.planes()[0][1] >= 320
