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

A_VERSION = 0x01000001
MAX_PAYLOAD = 1024 * 1024
AUTH_TOKEN, AUTH_SIGNATURE, AUTH_RSAPUBLICKEY = 1, 2, 3

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
    return ("device::" + ";".join(fields)).encode()


# ---------------------------------------------------------------- shell protocol v2
#
#   +----+-------------+---------------+
#   | id | length u32  | data (length) |     id: 0 stdin 1 stdout 2 stderr 3 exit 4 close-stdin 5 winsize
#   +----+-------------+---------------+

SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT, SHELL_CLOSE_STDIN, SHELL_WINDOW_SIZE = range(6)
_SHELL = struct.Struct("<BI")


def pack_shell(packet_id: int, data: bytes) -> bytes:
    return _SHELL.pack(packet_id, len(data)) + data


class ShellPacketReader:
    """Incremental parser: packets may be split across WRTEs, and one WRTE may hold several."""

    def __init__(self) -> None:
        self._buffer = bytearray()

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
#   STAT   -> "STAT" mode u32 | size u32 | mtime u32
#   STA2/LST2 -> id[4] error u32 | dev u64 | ino u64 | mode u32 | nlink u32 | uid u32 | gid u32 |
#                size u64 | atime i64 | mtime i64 | ctime i64                         (72 bytes)
#   LIST   -> ("DENT" mode size mtime namelen name)* "DONE" + 16 zero bytes
#   LIS2   -> ("DNT2" <stat_v2 fields after id> namelen name)* "DONE" + 72 zero bytes
#   SEND "path,mode" -> ("DATA" len data)* "DONE" mtime  => "OKAY" 0 | "FAIL" len msg
#   RECV path        -> ("DATA" len data)* "DONE" 0      | "FAIL" len msg

SYNC_REQUEST = struct.Struct("<4sI")
SYNC_DATA_MAX = 64 * 1024
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


def pack_sync_status(tag: bytes, value: int) -> bytes:
    return SYNC_REQUEST.pack(tag, value)


def pack_sync_data(data: bytes) -> bytes:
    return SYNC_REQUEST.pack(b"DATA", len(data)) + data


def pack_sync_fail(message: str) -> bytes:
    raw = message.encode()
    return SYNC_REQUEST.pack(b"FAIL", len(raw)) + raw


def pack_stat_v1(st: SyncStat) -> bytes:
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
