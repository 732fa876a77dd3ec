"""The virtual phone's scrcpy server (3.3.4), started the way the real one is:

``CLASSPATH=/data/local/tmp/X.jar app_process / com.genymobile.scrcpy.Server 3.3.4 scid=… tunnel_forward=true …``

It checks the version exactly (a mismatch prints the real server's error and exits), deletes its jar as the
real cleanup process does, and opens its sockets as ``DesktopConnection.open`` does: with ``tunnel_forward=true``
it listens on ``localabstract:scrcpy_<scid>`` and accepts video, audio, control in that order, the dummy byte
on the first; otherwise it connects to that socket (an ``adb reverse`` tunnel to the client) in the same
order, without a dummy byte. Then the device name and the codec meta, then H.264 — a frame on every screen change
and a repeat after 100 ms of stillness — with writes deliberately cut into uneven pieces, as TCP delivers
them. The control socket's messages act on the phone: touches become taps, long presses and swipes; keys,
text, and clipboard paste (so any Unicode text types) work as on a phone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import struct
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PIL import Image

from relay_desktop.mirror.protocol import (
    ControlType,
    MotionAction,
    codec_meta,
    encode_device_name,
    frame_header,
)
from relay_desktop.sim.streams import DuplexStream
from relay_desktop.sim.video_encoder import EncodedPacket, H264Encoder

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone
    from relay_desktop.sim.shell.base import CommandContext

__all__ = ["CLASS_NAME", "SERVER_VERSION", "ScrcpyServer", "install"]

log = logging.getLogger(__name__)

CLASS_NAME = "com.genymobile.scrcpy.Server"
SERVER_VERSION = "3.3.4"
REPEAT_AFTER_S = 0.1         # MediaCodec's KEY_REPEAT_PREVIOUS_FRAME_AFTER
TAP_SLOP_PX = 24
LONG_PRESS_S = 0.5
KEY_COPY, KEY_CUT, KEY_PASTE = 278, 277, 279
CLIPBOARD_MESSAGE = 0        # device message types (DeviceMessage.java)
ACK_CLIPBOARD_MESSAGE = 1
_CONTROL_SIZES = {  # bytes after the type byte, for fixed-size messages
    ControlType.INJECT_KEYCODE: 13, ControlType.INJECT_TOUCH_EVENT: 31, ControlType.INJECT_SCROLL_EVENT: 20,
    ControlType.BACK_OR_SCREEN_ON: 1, ControlType.GET_CLIPBOARD: 1, ControlType.SET_DISPLAY_POWER: 1,
    ControlType.EXPAND_NOTIFICATION_PANEL: 0, ControlType.EXPAND_SETTINGS_PANEL: 0, ControlType.COLLAPSE_PANELS: 0,
    ControlType.ROTATE_DEVICE: 0, ControlType.OPEN_HARD_KEYBOARD_SETTINGS: 0, ControlType.RESET_VIDEO: 0,
    ControlType.UHID_DESTROY: 2,
}


def install(phone: VirtualPhone) -> None:
    phone.java_mains[CLASS_NAME] = lambda ctx, args: ScrcpyServer(phone, ctx).main(args)


@dataclass
class _Touch:
    x: float
    y: float
    started: float
    last: tuple[float, float] = (0.0, 0.0)


@dataclass
class ScrcpyServer:
    phone: VirtualPhone
    ctx: CommandContext
    options: dict[str, str] = field(default_factory=dict)
    rng: random.Random = field(default_factory=lambda: random.Random(0x5C))
    frame_size: tuple[int, int] = (0, 0)
    _touches: dict[int, _Touch] = field(default_factory=dict)
    _encoder: H264Encoder | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    # Controller.isSettingClipboard: the change SET_CLIPBOARD makes is not sent back to the computer.
    _setting_clipboard: bool = False
    _clipboard_changes: asyncio.Queue[str] = field(default_factory=asyncio.Queue)

    @property
    def clipboard_autosync(self) -> bool:
        return self.options.get("clipboard_autosync", "true") == "true"

    async def _log(self, level: str, message: str) -> None:
        await self.ctx.out(f"[server] {level}: {message}\n".encode())

    async def _exception(self, message: str) -> None:
        # Server.main() catches everything: Ln.e(message, throwable), the stack trace on stderr, exit status 1.
        await self.ctx.err(f"[server] ERROR: {message}\njava.io.IOException: {message}\n".encode())

    # ------------------------------------------------------------ start-up

    async def main(self, args: list[str]) -> int:
        version = args[0] if args else ""
        if version != SERVER_VERSION:
            await self.ctx.err(
                f"[server] ERROR: Exception on thread Thread[main,5,main]\njava.lang.IllegalArgumentException: "
                f"The server version ({SERVER_VERSION}) does not match the client ({version})\n".encode())
            return 1
        self.options = dict(a.split("=", 1) for a in args[1:] if "=" in a)
        jar = self.ctx.env.get("CLASSPATH", "")
        fs = self.phone.fs
        if not jar or not fs.exists(jar):
            await self.ctx.err(f'java.lang.ClassNotFoundException: Didn\'t find class "{CLASS_NAME}" on path: '
                               f'DexPathList[[zip file "{jar}"]]\n'.encode())
            return 1
        if self.options.get("cleanup", "true") == "true":
            fs.remove(jar)  # the real server's cleanup process unlinks the jar right after start
        name = _socket_name(self.options.get("scid"))
        wanted = [kind for kind in ("video", "audio", "control") if self.options.get(kind, "true") == "true"]
        if not wanted:
            await self._log("ERROR", "video, audio and control are all disabled")
            return 1
        # Printed before any socket exists, as the real server does: this line never means "ready".
        config = self.phone.config
        await self._log("INFO", f"Device: [{config.manufacturer}] {self.phone.props.get('ro.product.brand', '')} "
                                f"{config.model} (Android {config.android_release})")
        finished = asyncio.Event()   # the forward-mode accept handlers hold their streams until this is set
        try:
            if self.options.get("tunnel_forward") == "true":
                sockets = await self._accept_all(name, len(wanted), finished)
            else:
                sockets = self._connect_all(name, len(wanted))
        except OSError as exc:
            finished.set()
            await self._exception(exc.strerror or str(exc).rsplit(": ", 1)[-1])
            return 1
        except BaseException:
            finished.set()
            raise
        by_kind = dict(zip(wanted, sockets, strict=True))
        killed = asyncio.Event()  # VirtualPhone.kill_scrcpy_servers(): the process dies, its sockets close
        self.phone.scrcpy_killers.add(killed.set)
        tasks: list[asyncio.Future[None]] = [asyncio.ensure_future(killed.wait())]
        try:
            try:
                await sockets[0].write(encode_device_name(self.phone.config.model))
                if "audio" in by_kind:
                    await by_kind["audio"].write(struct.pack(">I", 0))  # audio explicitly disabled
            except (BrokenPipeError, ConnectionError):
                await self._exception("Broken pipe")    # the client went away (or a reverse led nowhere)
                return 1
            if "video" in by_kind:
                tasks.append(asyncio.ensure_future(self._video(by_kind["video"])))
            if "control" in by_kind:
                tasks.append(asyncio.ensure_future(self._control(by_kind["control"])))
                if self.clipboard_autosync:     # the server's clipboard listener, as Controller registers it
                    self.phone.clipboard_listeners.append(self._clipboard_changed)
                    tasks.append(asyncio.ensure_future(self._send_clipboard_changes(by_kind["control"])))
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            # Collected so a socket that broke while being cancelled is not reported as an unhandled error.
            await asyncio.gather(*pending, return_exceptions=True)
            for task in done:
                if task.exception() is not None and not isinstance(task.exception(), ConnectionError):
                    log.debug("scrcpy server task ended: %r", task.exception())
        finally:
            self.phone.scrcpy_killers.discard(killed.set)
            if self._clipboard_changed in self.phone.clipboard_listeners:
                self.phone.clipboard_listeners.remove(self._clipboard_changed)
            for task in tasks:      # the phone stopping (this coroutine cancelled) ends the streams too
                task.cancel()
            finished.set()
            for stream in sockets:
                stream.close()
        return 137 if killed.is_set() else 0  # 128 + SIGKILL, as the shell reports a killed process

    async def _accept_all(self, name: str, count: int, finished: asyncio.Event) -> list[DuplexStream]:
        """Forward mode: a LocalServerSocket accepting ``count`` clients, then closed (no time limit: the real
        server blocks in accept() until its client connects or kills it). Before it listens, an OPEN to the
        name is refused by the phone, which a client sees as a connection closed before the dummy byte."""
        sockets: list[DuplexStream] = []
        connected = asyncio.Event()

        async def accept(stream: DuplexStream) -> None:
            if len(sockets) >= count:
                stream.close()     # the listening socket is closing: a late connection is reset
                return
            if not sockets:
                await stream.write(b"\x00")  # the dummy byte, first socket only
            sockets.append(stream)
            if len(sockets) == count:
                connected.set()
            await finished.wait()  # the stream stays ours until the server ends

        unregister = self.phone.sockets.register(f"localabstract:{name}", accept)
        try:
            await connected.wait()
        finally:
            unregister()
        return sockets

    def _connect_all(self, name: str, count: int) -> list[DuplexStream]:
        """Reverse mode: LocalSocket.connect() once per socket, in order. With ``adb reverse`` set up the phone's
        adbd accepts at once (whether the client's port answers shows later); without it: Connection refused."""
        sockets: list[DuplexStream] = []
        try:
            for _ in range(count):
                sockets.append(self.phone.sockets.connect(f"localabstract:{name}"))
        except OSError:
            for stream in sockets:
                stream.close()
            raise
        return sockets

    # ------------------------------------------------------------ video

    def _encoded_size(self) -> tuple[int, int]:
        width, height = self.phone.display_size
        limit = int(self.options.get("max_size", "0")) & ~7
        if limit and max(width, height) > limit:
            scale = limit / max(width, height)
            width, height = round(width * scale), round(height * scale)
        return width - width % 8, height - height % 8

    async def _fragmented(self, stream: DuplexStream, data: bytes) -> None:
        position = 0
        while position < len(data):
            size = self.rng.randint(1, 4096)
            await stream.write(data[position:position + size])
            position += size

    async def _video(self, stream: DuplexStream) -> None:
        changed = self._changed
        changed.set()
        remove = self.phone.add_listener(changed.set)
        encoder: H264Encoder | None = None
        started = time.monotonic()
        try:
            while True:
                size = self._encoded_size()
                if encoder is None or (encoder.width, encoder.height) != size:
                    if encoder is None:
                        await stream.write(codec_meta("h264", *size))
                    encoder = H264Encoder(*size)  # a new size (rotation): new config and key frame, no new meta
                    self._encoder = encoder
                    self.frame_size = (encoder.width, encoder.height)
                changed.clear()
                # Stamped when the screen is read, like a display capture: the time the picture shows.
                pts = int((time.monotonic() - started) * 1_000_000)
                image = await self.phone.screenshot()
                # Scaling and encoding off the loop: the virtual phone often shares it with the window.
                packets = await asyncio.to_thread(_scale_and_encode, encoder, image, size, pts)
                for packet in packets:
                    header = frame_header(len(packet.data), pts_us=packet.pts_us, config=packet.config,
                                          key_frame=packet.key_frame)
                    await self._fragmented(stream, header + packet.data)
                with contextlib.suppress(TimeoutError):  # still screen: repeat the picture, as MediaCodec does
                    await asyncio.wait_for(changed.wait(), REPEAT_AFTER_S)
        except (BrokenPipeError, ConnectionError):
            return      # the client closed the socket: the real server's encoder stops the same way
        finally:
            remove()

    # ------------------------------------------------------------ control

    async def _control(self, stream: DuplexStream) -> None:
        while True:
            try:
                kind = (await stream.read_exactly(1))[0]
            except asyncio.IncompleteReadError:
                return
            handler: Callable[[DuplexStream], Awaitable[None]] | None = {
                ControlType.INJECT_TEXT: self._text, ControlType.SET_CLIPBOARD: self._set_clipboard,
                ControlType.START_APP: self._start_app,
            }.get(kind)  # type: ignore[call-overload]
            if handler is not None:
                await handler(stream)
                continue
            if kind not in _CONTROL_SIZES:
                await self._log("ERROR", f"Unknown message type: {kind}")
                return  # as the real server: the connection dies
            body = await stream.read_exactly(_CONTROL_SIZES[ControlType(kind)])
            await self._apply(ControlType(kind), body, stream)

    async def _text(self, stream: DuplexStream) -> None:
        (size,) = struct.unpack(">I", await stream.read_exactly(4))
        await self.phone.input_text((await stream.read_exactly(size)).decode("utf-8", errors="replace"))

    async def _set_clipboard(self, stream: DuplexStream) -> None:
        sequence, paste, size = struct.unpack(">QBI", await stream.read_exactly(13))
        text = (await stream.read_exactly(size)).decode("utf-8", errors="replace")
        self._setting_clipboard = True
        try:
            self.phone.clipboard = text
        finally:
            self._setting_clipboard = False
        if paste:
            await self.phone.press_key(KEY_PASTE)
        if sequence:
            await stream.write(struct.pack(">BQ", ACK_CLIPBOARD_MESSAGE, sequence))

    def _clipboard_changed(self, text: str) -> None:
        if not self._setting_clipboard:
            self._clipboard_changes.put_nowait(text)

    async def _send_clipboard_changes(self, stream: DuplexStream) -> None:
        """Each change of the phone's clipboard, as a CLIPBOARD device message (clipboard_autosync)."""
        while True:
            data = (await self._clipboard_changes.get()).encode("utf-8")
            await stream.write(struct.pack(">BI", CLIPBOARD_MESSAGE, len(data)) + data)

    async def _start_app(self, stream: DuplexStream) -> None:
        size = (await stream.read_exactly(1))[0]
        name = (await stream.read_exactly(size)).decode("utf-8", errors="replace")
        try:
            self.phone.launch(name.lstrip("?+"))
        except LookupError as exc:
            await self._log("WARN", f"Could not start {name}: {exc}")

    def _to_screen(self, x: int, y: int, width: int, height: int) -> tuple[float, float] | None:
        # The real server drops events whose frame size is not the current one (PositionMapper.map → null).
        if (width, height) != self.frame_size:
            return None
        screen_w, screen_h = self.phone.display_size
        return x * screen_w / width, y * screen_h / height

    async def _apply(self, kind: ControlType, body: bytes, stream: DuplexStream) -> None:
        if kind == ControlType.INJECT_TOUCH_EVENT:
            action, pointer, x, y, width, height, _pressure, _button, _buttons = struct.unpack(">BQiiHHHII", body)
            point = self._to_screen(x, y, width, height)
            if point is not None:
                await self._touch(action, pointer, point)
        elif kind == ControlType.INJECT_KEYCODE:
            action, keycode, _repeat, _meta = struct.unpack(">BiII", body)
            if action == 1:  # the key goes to the phone when released, once
                await self.phone.press_key(keycode)
        elif kind == ControlType.BACK_OR_SCREEN_ON:
            if body[0] == 0:
                await self.phone.press_key(4)
        elif kind == ControlType.GET_CLIPBOARD:
            if body[0] in (1, 2):     # COPY_KEY_COPY / COPY_KEY_CUT: pressed first, the clipboard read after
                await self.phone.press_key(KEY_COPY if body[0] == 1 else KEY_CUT)
            if not self.clipboard_autosync:   # with autosync the listener has sent any change already
                data = self.phone.clipboard.encode("utf-8")
                await stream.write(struct.pack(">BI", CLIPBOARD_MESSAGE, len(data)) + data)
        elif kind == ControlType.RESET_VIDEO:
            if self._encoder is not None:
                self._encoder.request_key_frame()
                self._changed.set()
        elif kind == ControlType.INJECT_SCROLL_EVENT:
            x, y, width, height, _h, vscroll, _buttons = struct.unpack(">iiHHhhI", body)
            point = self._to_screen(x, y, width, height)
            if point is not None and vscroll:
                px, py = point
                distance = self.phone.display_size[1] * 0.2 * (1 if vscroll > 0 else -1)
                await self.phone.swipe(px, py, px, py + distance, 200)

    async def _touch(self, action: int, pointer: int, point: tuple[float, float]) -> None:
        now = time.monotonic()
        if action == MotionAction.DOWN:
            self._touches[pointer] = _Touch(point[0], point[1], now, point)
        elif action == MotionAction.MOVE and pointer in self._touches:
            self._touches[pointer].last = point
        elif action == MotionAction.UP and pointer in self._touches:
            touch = self._touches.pop(pointer)
            end = point
            moved = max(abs(end[0] - touch.x), abs(end[1] - touch.y))
            held = now - touch.started
            if moved <= TAP_SLOP_PX and held < LONG_PRESS_S:
                await self.phone.tap(touch.x, touch.y)
            elif moved <= TAP_SLOP_PX:
                await self.phone.long_press(touch.x, touch.y, int(held * 1000))
            else:
                await self.phone.swipe(touch.x, touch.y, end[0], end[1], max(50, int(held * 1000)))


def _socket_name(scid: str | None) -> str:
    """DesktopConnection.getSocketName(): ``scrcpy_%08x``, or plain ``scrcpy`` without a scid (-1)."""
    value = -1 if scid is None else int(scid, 16)
    return "scrcpy" if value == -1 else f"scrcpy_{value & 0xFFFFFFFF:08x}"


def _scale_and_encode(encoder: H264Encoder, image: Image.Image, size: tuple[int, int],
                      pts: int) -> list[EncodedPacket]:
    if image.size != size:
        image = image.resize(size, Image.Resampling.BILINEAR)
    return encoder.encode(image, pts)
