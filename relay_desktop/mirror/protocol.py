"""The scrcpy 3.x wire format: control messages we send, device messages we read, and stream framing.

Byte layouts are scrcpy server 3.3.4's (``ControlMessage.java``, ``DeviceMessage.java``, ``Streamer.java``),
checked against scrcpy's own serializer test vectors in ``tests/test_mirror_protocol.py``. Everything is
big-endian. Positional messages carry the size of the video frame they refer to; the server silently drops
an event whose size is not the current frame size, so callers always pass the latest decoded size.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

__all__ = [
    "CODEC_IDS", "CONFIG_FLAG", "FRAME_HEADER", "KEY_FRAME_FLAG", "MAX_TEXT_BYTES", "ClipboardAck", "ClipboardText",
    "ControlType", "DeviceMessage", "FrameHeader", "KeyAction", "MotionAction", "ProtocolError", "UhidOutput",
    "back_or_screen_on", "device_name", "fixed_u16", "get_clipboard", "inject_keycode", "inject_scroll",
    "inject_text", "inject_touch", "parse_codec_meta", "parse_device_message", "parse_frame_header",
    "set_clipboard", "set_display_power", "simple", "split_nal_units", "start_app", "truncate_utf8",
    "uhid_create",
]

CONFIG_FLAG = 1 << 63
KEY_FRAME_FLAG = 1 << 62
PTS_MASK = KEY_FRAME_FLAG - 1
FRAME_HEADER = struct.Struct(">QI")
CODEC_META = struct.Struct(">III")
DEVICE_NAME_BYTES = 64
MAX_TEXT_BYTES = 300                 # INJECT_TEXT: the client truncates here (at a UTF-8 boundary)
MAX_CLIPBOARD_BYTES = 262_130        # SET_CLIPBOARD: 256 KiB message minus its header
CODEC_IDS = {0x68323634: "h264", 0x68323635: "h265", 0x00617631: "av1"}

POINTER_MOUSE = 2**64 - 1
POINTER_FINGER = 2**64 - 2
POINTER_VIRTUAL_FINGER = 2**64 - 3


class ProtocolError(Exception):
    """Bytes that are not what the scrcpy protocol says (a wrong server, a corrupt stream)."""


class ControlType(IntEnum):
    INJECT_KEYCODE = 0
    INJECT_TEXT = 1
    INJECT_TOUCH_EVENT = 2
    INJECT_SCROLL_EVENT = 3
    BACK_OR_SCREEN_ON = 4
    EXPAND_NOTIFICATION_PANEL = 5
    EXPAND_SETTINGS_PANEL = 6
    COLLAPSE_PANELS = 7
    GET_CLIPBOARD = 8
    SET_CLIPBOARD = 9
    SET_DISPLAY_POWER = 10
    ROTATE_DEVICE = 11
    UHID_CREATE = 12
    UHID_INPUT = 13
    UHID_DESTROY = 14
    OPEN_HARD_KEYBOARD_SETTINGS = 15
    START_APP = 16
    RESET_VIDEO = 17


class KeyAction(IntEnum):
    DOWN = 0
    UP = 1


class MotionAction(IntEnum):
    DOWN = 0
    UP = 1
    MOVE = 2


def truncate_utf8(text: str, limit: int) -> bytes:
    """``text`` as UTF-8, cut to at most ``limit`` bytes without splitting a character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return data
    return data[:limit].decode("utf-8", errors="ignore").encode("utf-8")


def fixed_u16(value: float) -> int:
    """Pressure as scrcpy sends it: 16-bit fixed point, 1.0 → 0xffff."""
    return 0xFFFF if value >= 1.0 else max(0, int(value * 65536))


def _fixed_i16(value: float) -> int:
    # 3.3.1+: scroll amounts in [-16, 16], scaled to [-1, 1], then signed 16-bit fixed point.
    x = max(-1.0, min(1.0, value / 16))
    i = int(x * 32768)
    return 0x7FFF if i >= 0x7FFF else i


def _position(x: int, y: int, width: int, height: int) -> bytes:
    if not (0 < width < 65536 and 0 < height < 65536):
        raise ValueError(f"frame size {width}x{height} does not fit the protocol")
    return struct.pack(">iiHH", x, y, width, height)


def inject_keycode(action: KeyAction, keycode: int, repeat: int = 0, metastate: int = 0) -> bytes:
    return struct.pack(">BBiII", ControlType.INJECT_KEYCODE, action, keycode, repeat, metastate)


def inject_text(text: str) -> bytes:
    data = truncate_utf8(text, MAX_TEXT_BYTES)
    return struct.pack(">BI", ControlType.INJECT_TEXT, len(data)) + data


def inject_touch(action: MotionAction, x: int, y: int, width: int, height: int, *,
                 pointer_id: int = POINTER_FINGER, pressure: float | None = None, action_button: int = 0,
                 buttons: int = 0) -> bytes:
    if pressure is None:
        pressure = 0.0 if action == MotionAction.UP else 1.0
    return (struct.pack(">BBQ", ControlType.INJECT_TOUCH_EVENT, action, pointer_id)
            + _position(x, y, width, height) + struct.pack(">HII", fixed_u16(pressure), action_button, buttons))


def inject_scroll(x: int, y: int, width: int, height: int, hscroll: float, vscroll: float,
                  buttons: int = 0) -> bytes:
    return (struct.pack(">B", ControlType.INJECT_SCROLL_EVENT) + _position(x, y, width, height)
            + struct.pack(">hhI", _fixed_i16(hscroll), _fixed_i16(vscroll), buttons))


def back_or_screen_on(action: KeyAction) -> bytes:
    return struct.pack(">BB", ControlType.BACK_OR_SCREEN_ON, action)


def get_clipboard(copy_key: int = 0) -> bytes:
    """copy_key: 0 none, 1 copy, 2 cut (press it on the device first)."""
    return struct.pack(">BB", ControlType.GET_CLIPBOARD, copy_key)


def set_clipboard(text: str, *, paste: bool = False, sequence: int = 0) -> bytes:
    """Sequence 0 asks for no acknowledgement; any other is echoed back in an ACK_CLIPBOARD."""
    data = truncate_utf8(text, MAX_CLIPBOARD_BYTES)
    return struct.pack(">BQBI", ControlType.SET_CLIPBOARD, sequence, int(paste), len(data)) + data


def set_display_power(on: bool) -> bytes:
    return struct.pack(">BB", ControlType.SET_DISPLAY_POWER, int(on))


def simple(kind: ControlType) -> bytes:
    """The messages that are just their type: panels, rotate, keyboard settings, reset video."""
    if kind not in (ControlType.EXPAND_NOTIFICATION_PANEL, ControlType.EXPAND_SETTINGS_PANEL,
                    ControlType.COLLAPSE_PANELS, ControlType.ROTATE_DEVICE,
                    ControlType.OPEN_HARD_KEYBOARD_SETTINGS, ControlType.RESET_VIDEO):
        raise ValueError(f"{kind.name} carries data; use its own function")
    return bytes([kind])


def uhid_create(uhid_id: int, vendor_id: int, product_id: int, name: str, descriptor: bytes) -> bytes:
    encoded = truncate_utf8(name, 127)
    return (struct.pack(">BHHHB", ControlType.UHID_CREATE, uhid_id, vendor_id, product_id, len(encoded)) + encoded
            + struct.pack(">H", len(descriptor)) + descriptor)


def start_app(name: str) -> bytes:
    encoded = truncate_utf8(name, 255)
    return struct.pack(">BB", ControlType.START_APP, len(encoded)) + encoded


# ---------------------------------------------------------------- device → client

@dataclass(frozen=True)
class ClipboardText:
    text: str


@dataclass(frozen=True)
class ClipboardAck:
    sequence: int


@dataclass(frozen=True)
class UhidOutput:
    uhid_id: int
    data: bytes


DeviceMessage = ClipboardText | ClipboardAck | UhidOutput


def parse_device_message(buffer: bytes | bytearray) -> tuple[DeviceMessage, int] | None:
    """The first whole message in ``buffer`` and its length, or None while more bytes are needed."""
    if not buffer:
        return None
    kind = buffer[0]
    if kind == 0:
        if len(buffer) < 5:
            return None
        (size,) = struct.unpack_from(">I", buffer, 1)
        if len(buffer) < 5 + size:
            return None
        return ClipboardText(bytes(buffer[5:5 + size]).decode("utf-8", errors="replace")), 5 + size
    if kind == 1:
        if len(buffer) < 9:
            return None
        return ClipboardAck(struct.unpack_from(">Q", buffer, 1)[0]), 9
    if kind == 2:
        if len(buffer) < 5:
            return None
        uhid_id, size = struct.unpack_from(">HH", buffer, 1)
        if len(buffer) < 5 + size:
            return None
        return UhidOutput(uhid_id, bytes(buffer[5:5 + size])), 5 + size
    raise ProtocolError(f"unknown device message type {kind}")


# ---------------------------------------------------------------- stream framing

@dataclass(frozen=True)
class FrameHeader:
    config: bool
    key_frame: bool
    pts_us: int | None        # None for config packets
    size: int


def parse_frame_header(data: bytes) -> FrameHeader:
    pts_flags, size = FRAME_HEADER.unpack(data)
    if pts_flags & CONFIG_FLAG:
        return FrameHeader(True, False, None, size)
    return FrameHeader(False, bool(pts_flags & KEY_FRAME_FLAG), pts_flags & PTS_MASK, size)


def frame_header(size: int, *, pts_us: int = 0, config: bool = False, key_frame: bool = False) -> bytes:
    flags = CONFIG_FLAG if config else (pts_us & PTS_MASK) | (KEY_FRAME_FLAG if key_frame else 0)
    return FRAME_HEADER.pack(flags, size)


def parse_codec_meta(data: bytes) -> tuple[str, int, int]:
    """(codec, width, height) from the 12-byte video codec meta."""
    codec_id, width, height = CODEC_META.unpack(data)
    if codec_id not in CODEC_IDS:
        raise ProtocolError(f"unknown video codec id 0x{codec_id:08x}: is this a scrcpy 3.x server?")
    return CODEC_IDS[codec_id], width, height


def codec_meta(codec: str, width: int, height: int) -> bytes:
    ids = {name: number for number, name in CODEC_IDS.items()}
    return CODEC_META.pack(ids[codec], width, height)


def device_name(data: bytes) -> str:
    """The 64-byte, zero-padded device name sent first on the first socket."""
    return data[:DEVICE_NAME_BYTES - 1].split(b"\0", 1)[0].decode("utf-8", errors="replace")


def encode_device_name(name: str) -> bytes:
    return truncate_utf8(name, DEVICE_NAME_BYTES - 1).ljust(DEVICE_NAME_BYTES, b"\0")


_START = b"\x00\x00\x00\x01"


def split_nal_units(data: bytes) -> list[bytes]:
    """Annex-B NAL units (each with its 4-byte start code), in order."""
    units, start = [], data.find(b"\x00\x00\x01")
    while start != -1:
        body = start + 3
        nxt = data.find(b"\x00\x00\x01", body)
        end = len(data) if nxt == -1 else (nxt - 1 if data[nxt - 1] == 0 else nxt)
        units.append(_START + data[body:end])
        start = nxt
    return units
