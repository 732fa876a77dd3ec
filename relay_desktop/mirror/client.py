"""A live mirror of one phone: push the scrcpy server, start it, connect, decode, control, tear down.

The pipeline is wired here and only here: a thread reads the video socket (exact reads), merges config
packets, decodes with PyAV, and hands each packet to the packet sinks (recorder) and each frame to the frame
sinks (latest frame for the screen and the agent, settle detector). The server's output is drained on a
second thread so a full pipe can never stall it. Control messages are written from the event loop through
the control socket; positions are always scaled to the current frame size, because the server silently
drops events that carry another size.

A server that dies mid-run (the low-memory killer, a crash, a stray ``pkill app_process``) is started again a
few times, with a notice each way; only when that fails does the mirror end and adb take over. While it
restarts, :attr:`MirrorClient.live` is False, so nobody takes the last frame of the dead stream for the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from relay_desktop.device.device import Device
from relay_desktop.device.errors import DeviceError
from relay_desktop.device.notices import tell
from relay_desktop.keycodes import keycode
from relay_desktop.mirror import protocol as p
from relay_desktop.mirror.decoder import DecodeError, VideoDecoder
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.mirror.sinks import FrameSink, LatestFrame, Mp4Recorder, PacketSink, SettleDetector
from relay_desktop.mirror.stream import StreamClosed, VideoStream, read_exactly

__all__ = ["MirrorClient", "MirrorError"]

log = logging.getLogger(__name__)

CLASS_NAME = "com.genymobile.scrcpy.Server"
CONNECT_ATTEMPTS = 100       # as scrcpy: the server needs a moment before it listens
CONNECT_INTERVAL_S = 0.1
SWIPE_STEPS = 12
RESTART_DELAYS_S = (0.5, 1.0, 2.0)   # one restart attempt after each pause; then the mirror gives up


class MirrorError(Exception):
    """The mirror could not start or stopped: the message says why, in words for the status bar."""


class MirrorClient:
    def __init__(self, device: Device, server: ServerFile, *, max_size: int = 0, max_fps: int = 60,
                 video_bit_rate: int = 8_000_000, clipboard_autosync: bool = False) -> None:
        self.device = device
        self.server = server
        self.max_size, self.max_fps, self.video_bit_rate = max_size, max_fps, video_bit_rate
        self.scid = random.getrandbits(31)
        self.latest = LatestFrame()
        self.settle = SettleDetector()
        self.frame_sinks: list[FrameSink] = [self.latest, self.settle]
        self.packet_sinks: list[PacketSink] = []
        self.device_name = ""
        self.error: str | None = None            # why the stream ended, when it ended by itself
        self.on_end: Callable[[str | None], None] | None = None
        self.server_output: list[str] = []
        self._process: Any = None
        self._video: Any = None
        self._control: Any = None
        self._threads: list[threading.Thread] = []
        self._stopping = False
        self._control_lock = asyncio.Lock()
        self._clipboard_sequence = 0
        self._acks: set[int] = set()
        self._acked = threading.Condition()
        self.device_clipboard: str | None = None
        # With autosync the server sends the phone's clipboard each time it changes (scrcpy's default); each
        # listener is called with the text on the event loop. Without it, only GET_CLIPBOARD answers.
        self.clipboard_autosync = clipboard_autosync
        self.clipboard_listeners: list[Callable[[str], None]] = []
        self.restarting = False
        self.restarts = 0                         # how often the server was started again after dying
        self.notices: list[Callable[[str], None]] = []   # told, in words, when it restarts (the run's log)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._restart_task: asyncio.Task[None] | None = None

    @property
    def remote_path(self) -> str:
        return f"/data/local/tmp/relay-scrcpy-{self.scid:08x}.jar"   # per session: the server deletes its jar

    @property
    def frame_size(self) -> tuple[int, int] | None:
        return self.latest.size

    @property
    def live(self) -> bool:
        """Frames are coming from a running server (not ended, not restarting)."""
        return self.error is None and not self.restarting

    # ------------------------------------------------------------ start and stop

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self.device.push(str(self.server.path), self.remote_path)
        options = [f"scid={self.scid:08x}", "log_level=info", "audio=false", "tunnel_forward=true",
                   f"max_fps={self.max_fps}", f"video_bit_rate={self.video_bit_rate}"]
        if not self.clipboard_autosync:      # the server's default is on; scrcpy sends only the change
            options.append("clipboard_autosync=false")
        if self.max_size:
            options.append(f"max_size={self.max_size}")
        command = (f"CLASSPATH={self.remote_path} app_process / {CLASS_NAME} {self.server.version} "
                   + " ".join(options))
        self._process = await self.device.start_process(command)
        self._spawn(self._drain_output, "scrcpy-server-output")
        try:
            self._video = await self._connect(first=True)
            self._control = await self._connect(first=False)
            stream = await asyncio.to_thread(VideoStream, self._video)
        except (DeviceError, StreamClosed, p.ProtocolError) as exc:
            await self._close_connections()
            raise MirrorError(self._explain(exc)) from exc
        self.device_name = stream.device_name
        self._spawn(lambda: self._pump(stream), "scrcpy-video")
        self._spawn(self._read_device_messages, "scrcpy-control")

    async def first_frame(self, timeout: float = 3.0) -> bool:
        """Wait (up to ``timeout``) for the first decoded frame, so the first screenshot can come from the stream."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.latest.take()[0] is None:
            if loop.time() >= deadline or self.error is not None:
                return False
            await asyncio.sleep(0.02)
        return True

    async def _connect(self, first: bool) -> Any:
        name = f"scrcpy_{self.scid:08x}"
        last: Exception | None = None
        for _ in range(CONNECT_ATTEMPTS):
            if self._process_ended():
                break
            try:
                conn = await self.device.open_socket(name)
            except DeviceError as exc:
                last = exc
                await asyncio.sleep(CONNECT_INTERVAL_S)
                continue
            if first:
                await asyncio.to_thread(read_exactly, conn, 1)  # the dummy byte: the server is really there
            return conn
        raise DeviceError(f"the scrcpy server did not open its socket ({last or 'it exited'})")

    def _process_ended(self) -> bool:
        return any("ERROR" in line or "Exception" in line for line in self.server_output)

    def _explain(self, exc: Exception) -> str:
        for line in self.server_output:
            if "does not match the client" in line:
                return (f"the scrcpy server on the phone is another version: {line.split(': ', 2)[-1].strip()}. "
                        "Relay Desktop will push its own server next time; check SCRCPY_SERVER_PATH")
        details = " ".join(line for line in self.server_output if "ERROR" in line or "Exception" in line)
        return f"the mirror could not start: {exc}" + (f" (server: {details})" if details else "")

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _drain_output(self) -> None:
        buffer = b""
        try:
            while chunk := self._process.conn.recv(4096):
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    text = line.decode("utf-8", errors="replace")
                    self.server_output.append(text)
                    log.debug("scrcpy server: %s", text)
        except OSError:
            pass

    def _pump(self, stream: VideoStream) -> None:
        decoder = VideoDecoder(stream.codec)
        reason: str | None = None
        try:
            for packet in stream.packets():
                for packet_sink in list(self.packet_sinks):
                    packet_sink.on_packet(packet)
                try:
                    frames = decoder.decode(packet)
                except DecodeError as exc:
                    log.warning("%s", exc)
                    continue
                for frame in frames:
                    for sink in self.frame_sinks:
                        sink.on_frame(frame)
        except (StreamClosed, OSError, p.ProtocolError) as exc:
            reason = None if self._stopping else f"the mirror stream ended: {exc}"
        if reason is not None and RESTART_DELAYS_S and self._loop is not None and not self._loop.is_closed():
            self.restarting = True      # at once, on this thread: the last frame is no longer the screen
            self._loop.call_soon_threadsafe(self._begin_restart, reason)
            return
        self._end(reason)

    def _end(self, reason: str | None) -> None:
        self.error = reason
        if self.on_end is not None:
            self.on_end(reason)

    # ------------------------------------------------------------ restart after the server died

    def _begin_restart(self, reason: str) -> None:
        if self._stopping:
            self.restarting = False
            return
        self._restart_task = asyncio.ensure_future(self._restart(reason))

    async def _restart(self, reason: str) -> None:
        self._tell(f"The live mirror stopped ({reason}); restarting it…")
        last: Exception | None = None
        for attempt, delay in enumerate(RESTART_DELAYS_S, 1):
            await asyncio.sleep(delay)
            if self._stopping:
                return
            await self._close_connections()
            self.latest.forget()                  # a new stream: its timestamps start again from zero
            self.scid = random.getrandbits(31)    # a new socket name, as a fresh scrcpy session uses
            self.server_output = []
            try:
                await self.start()
                if not await self.first_frame(5.0):
                    raise MirrorError("no picture came from the restarted server")
            except (MirrorError, DeviceError) as exc:
                last = exc
                log.info("mirror restart %d of %d failed: %s", attempt, len(RESTART_DELAYS_S), exc)
                continue
            self.restarts += 1
            self.restarting = False
            self._tell(f"The live mirror is running again (restarted after {attempt} "
                       f"{'try' if attempt == 1 else 'tries'}).")
            return
        self.restarting = False
        await self._close_connections()
        self._end(f"{reason}, and it could not be restarted ({last})")

    def _tell(self, message: str) -> None:
        tell(self.notices, message, log)

    def _read_device_messages(self) -> None:
        buffer = bytearray()
        try:
            while chunk := self._control.recv(65536):
                buffer += chunk
                while (parsed := p.parse_device_message(buffer)) is not None:
                    message, used = parsed
                    del buffer[:used]
                    if isinstance(message, p.ClipboardAck):
                        with self._acked:
                            self._acks.add(message.sequence)
                            self._acked.notify_all()
                    elif isinstance(message, p.ClipboardText):
                        self.device_clipboard = message.text
                        loop = self._loop
                        if self.clipboard_autosync and loop is not None and not loop.is_closed():
                            loop.call_soon_threadsafe(self._tell_clipboard, message.text)
        except (OSError, p.ProtocolError) as exc:
            log.debug("control socket closed: %s", exc)

    def _tell_clipboard(self, text: str) -> None:
        for listener in list(self.clipboard_listeners):
            try:
                listener(text)
            except Exception:   # one listener's fault must not stop the others (nor this loop callback)
                log.exception("a clipboard listener failed")

    def _wait_ack(self, sequence: int, timeout: float) -> bool:
        with self._acked:
            return self._acked.wait_for(lambda: sequence in self._acks, timeout)

    async def stop(self) -> None:
        """Close the sockets and the server (and any restart under way); waits briefly for the threads."""
        self._stopping = True
        restart = self._restart_task
        if restart is not None and not restart.done() and restart is not asyncio.current_task():
            restart.cancel()
            await asyncio.gather(restart, return_exceptions=True)
        await self._close_connections()

    async def _close_connections(self) -> None:
        for conn in (self._video, self._control, self._process):
            if conn is not None:
                with contextlib.suppress(OSError):
                    conn.close()
        self._video = self._control = self._process = None
        for thread in self._threads:
            await asyncio.to_thread(thread.join, 2.0)
        self._threads.clear()

    # ------------------------------------------------------------ control

    async def _send(self, message: bytes) -> None:
        if self._control is None:
            raise MirrorError("the mirror is not running")
        async with self._control_lock:
            try:
                await asyncio.to_thread(self._control.send, message)
            except OSError as exc:
                raise MirrorError(f"the control connection to the phone was lost: {exc}") from exc

    def _frame_point(self, x: float, y: float, screen: tuple[int, int]) -> tuple[int, int, int, int]:
        size = self.frame_size
        if size is None:
            raise MirrorError("no frame has arrived yet, so touches cannot be placed")
        width, height = size
        return round(x * width / screen[0]), round(y * height / screen[1]), width, height

    async def touch(self, action: p.MotionAction, x: float, y: float, screen: tuple[int, int]) -> None:
        """One touch event at device pixel (x, y) of a screen of size ``screen``."""
        fx, fy, width, height = self._frame_point(x, y, screen)
        await self._send(p.inject_touch(action, fx, fy, width, height))

    async def tap(self, x: float, y: float, screen: tuple[int, int]) -> None:
        await self.touch(p.MotionAction.DOWN, x, y, screen)
        await self.touch(p.MotionAction.UP, x, y, screen)

    async def long_press(self, x: float, y: float, screen: tuple[int, int], duration_s: float = 0.8) -> None:
        await self.touch(p.MotionAction.DOWN, x, y, screen)
        await asyncio.sleep(duration_s)
        await self.touch(p.MotionAction.UP, x, y, screen)

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, screen: tuple[int, int],
                    duration_s: float = 0.3) -> None:
        await self.touch(p.MotionAction.DOWN, x1, y1, screen)
        for step in range(1, SWIPE_STEPS + 1):
            t = step / SWIPE_STEPS
            await asyncio.sleep(duration_s / SWIPE_STEPS)
            await self.touch(p.MotionAction.MOVE, x1 + (x2 - x1) * t, y1 + (y2 - y1) * t, screen)
        await self.touch(p.MotionAction.UP, x2, y2, screen)

    async def scroll(self, x: float, y: float, screen: tuple[int, int], steps: float) -> None:
        """Mouse-wheel steps at (x, y): positive scrolls up, as a wheel does."""
        fx, fy, width, height = self._frame_point(x, y, screen)
        await self._send(p.inject_scroll(fx, fy, width, height, 0.0, steps))

    async def press_key(self, key: int | str) -> None:
        code = keycode(key.strip().upper() if isinstance(key, str) else key)
        if code == 0:
            raise ValueError(f"unknown key {key!r}")
        await self._send(p.inject_keycode(p.KeyAction.DOWN, code))
        await self._send(p.inject_keycode(p.KeyAction.UP, code))

    async def back(self) -> None:
        await self._send(p.back_or_screen_on(p.KeyAction.DOWN))
        await self._send(p.back_or_screen_on(p.KeyAction.UP))

    async def start_recording(self, path: Path) -> Mp4Recorder:
        """Record the stream to an MP4 (no re-encoding) from a key frame asked for now, not up to 10 s later."""
        recorder = Mp4Recorder(path)
        self.packet_sinks.append(recorder)
        await self._send(p.simple(p.ControlType.RESET_VIDEO))
        return recorder

    def stop_recording(self, recorder: Mp4Recorder) -> None:
        if recorder in self.packet_sinks:
            self.packet_sinks.remove(recorder)
        recorder.close()

    async def finish_recording(self, recorder: Mp4Recorder, timeout: float = 1.5) -> Mp4Recorder:
        """Stop recording with a last frame stamped now: the phone sends frames only when its screen changes,
        so without one a still ending would be missing and the file shorter than the recording was."""
        before = recorder.packets
        if self._control is not None and self.error is None:
            with contextlib.suppress(MirrorError, OSError):
                await self._send(p.simple(p.ControlType.RESET_VIDEO))
            deadline = time.monotonic() + timeout
            while recorder.packets == before and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        self.stop_recording(recorder)
        return recorder

    async def inject_text(self, text: str) -> None:
        """ASCII text as key events (the server's INJECT_TEXT); other text goes through :meth:`type_text`."""
        if not text.isascii():
            raise MirrorError("only ASCII text can be injected as keys; use type_text for any language")
        await self._send(p.inject_text(text))

    async def clipboard(self, timeout: float = 3.0) -> str:
        """The phone's clipboard text (asked for with GET_CLIPBOARD: with autosync off, the server answers)."""
        if self.clipboard_autosync:
            raise MirrorError("with clipboard autosync the phone sends its clipboard only when it changes")
        self.device_clipboard = None
        await self._send(p.get_clipboard())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.device_clipboard is None:
            if loop.time() > deadline:
                raise MirrorError("the phone did not send its clipboard")
            await asyncio.sleep(0.01)
        return self.device_clipboard

    async def press_clipboard_key(self, key: str) -> None:
        """Press the phone's COPY or CUT key (GET_CLIPBOARD's copy key); with autosync the result comes back to
        the clipboard listeners as any change does."""
        await self._send(p.get_clipboard({"copy": 1, "cut": 2}[key]))

    async def set_clipboard(self, text: str, *, paste: bool = False) -> None:
        """Set the phone's clipboard (and paste it into the focused field); returns once the phone confirmed."""
        self._clipboard_sequence += 1
        sequence = self._clipboard_sequence
        await self._send(p.set_clipboard(text, paste=paste, sequence=sequence))
        # The acknowledgement comes after the paste: once it is here, the text is in the field.
        if not await asyncio.to_thread(self._wait_ack, sequence, 3.0):
            raise MirrorError("the phone did not confirm the clipboard text within 3 s")

    async def type_text(self, text: str) -> None:
        """Any text, any language: through the clipboard and a paste, with no keyboard app on the phone."""
        await self.set_clipboard(text, paste=True)
