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
    assert len(signals) == 1                         # three frames, one signal: the newest wins
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


def test_thousands_of_frames_from_a_plain_thread_are_safe(qtbot: QtBot) -> None:
    # Emitting a PySide6 signal from a non-Qt thread corrupted reference counts and aborted the interpreter
    # after a few hundred frames; the sink must not touch Qt from the decoder thread at all.
    sink = ScreenSink()
    one = frame((10, 20, 30))
    thread = threading.Thread(target=lambda: [sink.on_frame(one) for _ in range(3000)])
    thread.start()
    thread.join(30)
    qtbot.waitUntil(lambda: sink.image() is not None, timeout=5000)
    sink.stop()


def test_signals_from_other_threads_are_safe(qtbot: QtBot) -> None:
    # qasync hands every worker thread's result to the loop by emitting a signal from that thread. PySide6 6.12.0
    # corrupted reference counts doing so and aborted the interpreter within a few thousand emits: this fails
    # (by crashing) on such a Qt binding, which is why pyproject.toml keeps PySide6 below 6.12.
    from PySide6.QtCore import QObject, Signal

    class Emitter(QObject):
        done = Signal(object, tuple)

    emitter = Emitter()
    received: list[int] = []
    emitter.done.connect(lambda value, _args: received.append(value))
    thread = threading.Thread(target=lambda: [emitter.done.emit(i, ()) for i in range(5000)])
    thread.start()
    thread.join(30)
    qtbot.waitUntil(lambda: len(received) == 5000, timeout=10000)
