"""ADB wire formats, device side: pure functions over bytes (no I/O), tested against literal bytes.

Sources: AOSP adb ``protocol.txt``, ``SYNC.TXT``, ``shell_protocol.h``, ``file_sync_protocol.h``; notes in
``shared/design/adb-device-protocol.md``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

# ---------------------------------------------------------------- transport messages
#
#   0       4       8       12      16      20      24
#   +-------+-------+-------+-------+-------+-------+----------------------+
#   |command| arg0  | arg1  |length | check | magic | payload (length)     |
#   +-------+-------+-------+-------+-------+-------+----------------------+
#   all little-endian uint32; magic = command ^ 0xFFFFFFFF; check = byte sum of the payload,
#   0 once both sides speak version >= 0x01000001 (and never verified by the host).

A_CNXN = 0x4E584E43
A_AUTH = 0x48545541
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_WRTE = 0x45545257
A_CLSE = 0x45534C43
COMMAND_NAMES = {A_CNXN: "CNXN", A_AUTH: "AUTH", A_OPEN: "OPEN", A_OKAY: "OKAY", A_WRTE: "WRTE", A_CLSE: "CLSE"}

A_VERSION_MIN = 0x01000000
A_VERSION_SKIP_CHECKSUM = 0x01000001
A_VERSION = 0x01000001
MAX_PAYLOAD_V1 = 4096
MAX_PAYLOAD = 1024 * 1024
# adbd refuses to send a longer banner; the host reads CNXN/AUTH into a 4 KiB buffer.
MAX_BANNER = 4096
AUTH_TOKEN, AUTH_SIGNATURE, AUTH_RSAPUBLICKEY = 1, 2, 3
AUTH_TOKEN_SIZE = 20

HEADER = struct.Struct("<6I")
FEATURES = ("shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir")


class ProtocolError(Exception):
    """The peer sent something that is not ADB."""


@dataclass(frozen=True)
class Header:
    command: int
    arg0: int
    arg1: int
    length: int

    @property
    def name(self) -> str:
        return COMMAND_NAMES.get(self.command, f"0x{self.command:08x}")


def pack_message(command: int, arg0: int, arg1: int, data: bytes = b"", checksum: bool = False) -> bytes:
    check = sum(data) & 0xFFFFFFFF if checksum else 0
    return HEADER.pack(command, arg0, arg1, len(data), check, command ^ 0xFFFFFFFF) + data


def parse_header(raw: bytes, max_payload: int = MAX_PAYLOAD) -> Header:
    if len(raw) != HEADER.size:
        raise ProtocolError(f"header is {len(raw)} bytes, not 24")
    command, arg0, arg1, length, _check, magic = HEADER.unpack(raw)
    if magic != command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic 0x{magic:08x} for command 0x{command:08x}")
    if length > max_payload:
        raise ProtocolError(f"payload of {length} bytes exceeds the maximum {max_payload}")
    return Header(command, arg0, arg1, length)


def banner(props: dict[str, str], features: tuple[str, ...] = FEATURES) -> bytes:
    """``device::ro.product.name=..;ro.product.model=..;ro.product.device=..;features=a,b``.

    The host splits on ':' and ';', so values must not contain them.
    """
    keys = ("ro.product.name", "ro.product.model", "ro.product.device")
    fields = [f"{key}={props[key]}" for key in keys if key in props]
    for value in fields:
        if ":" in value.split("=", 1)[1] or ";" in value:
            raise ValueError(f"banner property {value!r} contains ':' or ';'")
    fields.append("features=" + ",".join(features))
    raw = ("device::" + ";".join(fields)).encode()
    if len(raw) > MAX_BANNER:
        raise ValueError(f"banner of {len(raw)} bytes is longer than {MAX_BANNER}")
    return raw


# ---------------------------------------------------------------- shell service name
#
#   "shell" [ "," arg ]* ":" command        args: raw | pty | v2 | TERM=<name> (others ignored, as adbd does)


@dataclass(frozen=True)
class ShellRequest:
    command: str
    v2: bool
    tty: bool
    term: str | None = None


def parse_shell_service(name: str) -> ShellRequest | None:
    """``shell,v2,TERM=xterm,raw:ls`` → its options; None if ``name`` is not a shell service."""
    head, sep, command = name.partition(":")
    args = head.split(",")
    if not sep or args[0] != "shell":
        return None
    term = next((a[len("TERM="):] for a in args if a.startswith("TERM=")), None)
    # adbd's default: a pty for an interactive shell, raw for a command; the client may ask otherwise.
    tty = "pty" in args or ("raw" not in args and not command)
    return ShellRequest(command, "v2" in args, tty, term)


# ---------------------------------------------------------------- shell protocol v2
#
#   +----+-------------+---------------+
#   | id | length u32  | data (length) |     id: 0 stdin 1 stdout 2 stderr 3 exit 4 close-stdin 5 winsize
#   +----+-------------+---------------+     exit data = 1 byte (code & 0xFF); winsize data = "RxC,XxY"

SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT, SHELL_CLOSE_STDIN, SHELL_WINDOW_SIZE = range(6)
SHELL_INVALID = 255
_SHELL = struct.Struct("<BI")


def pack_shell(packet_id: int, data: bytes) -> bytes:
    return _SHELL.pack(packet_id, len(data)) + data


def pack_shell_exit(code: int) -> bytes:
    return pack_shell(SHELL_EXIT, bytes([code & 0xFF]))


def parse_window_size(data: bytes) -> tuple[int, int, int, int] | None:
    """``rows x cols , xpixels x ypixels`` as adbd's sscanf("%dx%d,%dx%d") reads it; None if malformed."""
    try:
        chars, pixels = data.rstrip(b"\0").decode().split(",")
        rows, cols = (int(v) for v in chars.split("x"))
        xpixels, ypixels = (int(v) for v in pixels.split("x"))
    except ValueError:
        return None
    return rows, cols, xpixels, ypixels


class ShellPacketReader:
    """Incremental parser: packets may be split across WRTEs, and one WRTE may hold several."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """Bytes of an incomplete packet still waiting for the rest."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self._buffer += data
        packets = []
        while len(self._buffer) >= _SHELL.size:
            packet_id, length = _SHELL.unpack_from(self._buffer)
            end = _SHELL.size + length
            if len(self._buffer) < end:
                break
            packets.append((packet_id, bytes(self._buffer[_SHELL.size:end])))
            del self._buffer[:end]
        return packets


# ---------------------------------------------------------------- sync protocol
#
#   request:  id[4] | length u32 | path (length <= 1024)
#   STAT   -> "STAT" mode u32 | size u32 | mtime u32                                      (16 bytes)
#   STA2/LST2 -> id[4] error u32 | dev u64 | ino u64 | mode u32 | nlink u32 | uid u32 | gid u32 |
#                size u64 | atime i64 | mtime i64 | ctime i64                              (72 bytes)
#   LIST   -> ("DENT" mode u32 | size u32 | mtime u32 | namelen u32 | name)*  "DONE" + 16 zero bytes
#   LIS2   -> ("DNT2" <the 68 stat_v2 bytes after id> | namelen u32 | name)*  "DONE" + 72 zero bytes
#   SEND "path,mode" -> ("DATA" len u32 | data)* "DONE" mtime u32  => "OKAY" 0 u32 | "FAIL" len u32 | msg
#   RECV path        -> ("DATA" len u32 | data)* "DONE" 0 u32      | "FAIL" len u32 | msg
#   QUIT             -> the device closes the stream

SYNC_REQUEST = struct.Struct("<4sI")
SYNC_DATA_MAX = 64 * 1024
# adbd fills each RECV packet (8-byte header + data) into one 64 KiB buffer.
SYNC_RECV_CHUNK = SYNC_DATA_MAX - SYNC_REQUEST.size
SYNC_PATH_MAX = 1024
_STAT_V1 = struct.Struct("<4sIII")
_STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
_DENT_V1 = struct.Struct("<4sIIII")
_DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")


@dataclass(frozen=True)
class SyncStat:
    mode: int = 0
    size: int = 0
    mtime: int = 0
    ino: int = 0
    nlink: int = 0
    uid: int = 0
    gid: int = 0
    error: int = 0


def parse_sync_request(raw: bytes) -> tuple[bytes, int]:
    """The 8-byte ``id | length`` header of a sync request (or of a DATA/DONE inside SEND)."""
    if len(raw) != SYNC_REQUEST.size:
        raise ProtocolError(f"sync header is {len(raw)} bytes, not 8")
    tag, length = SYNC_REQUEST.unpack(raw)
    return tag, length


def parse_send_spec(spec: str) -> tuple[str, int]:
    """``"/sdcard/a,33188"`` → path and mode; split at the last comma (paths may hold commas)."""
    path, comma, mode_text = spec.rpartition(",")
    if not comma:
        raise ValueError("missing , in ID_SEND")
    if not mode_text.isdigit():
        raise ValueError(f"bad mode {mode_text!r} in ID_SEND")
    return path, int(mode_text)


def pack_sync_status(tag: bytes, value: int) -> bytes:
    return SYNC_REQUEST.pack(tag, value)


def pack_sync_okay() -> bytes:
    return SYNC_REQUEST.pack(b"OKAY", 0)


def pack_sync_done(value: int = 0) -> bytes:
    return SYNC_REQUEST.pack(b"DONE", value)


def pack_sync_data(data: bytes) -> bytes:
    return SYNC_REQUEST.pack(b"DATA", len(data)) + data


def pack_sync_fail(message: str) -> bytes:
    raw = message.encode()
    return SYNC_REQUEST.pack(b"FAIL", len(raw)) + raw


def pack_stat_v1(st: SyncStat) -> bytes:
    # v1 fields are 32 bits wide; a file over 4 GiB reports its size modulo 2**32, as adbd does.
    return _STAT_V1.pack(b"STAT", st.mode, st.size & 0xFFFFFFFF, st.mtime & 0xFFFFFFFF)


def pack_stat_v2(tag: bytes, st: SyncStat) -> bytes:
    return _STAT_V2.pack(tag, st.error, 0, st.ino, st.mode, st.nlink, st.uid, st.gid, st.size,
                         st.mtime, st.mtime, st.mtime)


def pack_dent_v1(name: str, st: SyncStat) -> bytes:
    raw = name.encode()
    return _DENT_V1.pack(b"DENT", st.mode, st.size & 0xFFFFFFFF, st.mtime & 0xFFFFFFFF, len(raw)) + raw


def pack_dent_v2(name: str, st: SyncStat) -> bytes:
    raw = name.encode()
    return _DENT_V2.pack(b"DNT2", st.error, 0, st.ino, st.mode, st.nlink, st.uid, st.gid, st.size,
                         st.mtime, st.mtime, st.mtime, len(raw)) + raw


def pack_list_done(v2: bool) -> bytes:
    return b"DONE" + bytes(72 if v2 else 16)
