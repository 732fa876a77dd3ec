"""ADB wire formats against literal bytes (values from AOSP's protocol.txt / SYNC.TXT layouts)."""

from __future__ import annotations

import pytest

from relay_desktop.sim import adb_protocol as proto


def test_okay_message_bytes() -> None:
    assert proto.pack_message(proto.A_OKAY, 1, 2) == bytes.fromhex(
        "4f4b4159"   # "OKAY"
        "01000000"   # arg0: our stream id
        "02000000"   # arg1: the host's stream id
        "00000000"   # payload length
        "00000000"   # checksum (0 from version 0x01000001 on)
        "b0b4bea6")  # magic = ~"OKAY"


def test_checksum_is_the_byte_sum_not_crc32() -> None:
    raw = proto.pack_message(proto.A_CNXN, proto.A_VERSION, 4096, b"\x01\x02\xff", checksum=True)
    assert raw[16:20] == (0x102).to_bytes(4, "little")


def test_parse_header_checks_magic_and_payload_limit() -> None:
    raw = proto.pack_message(proto.A_WRTE, 7, 9, b"hello")
    header = proto.parse_header(raw[:24])
    assert (header.name, header.arg0, header.arg1, header.length) == ("WRTE", 7, 9, 5)
    with pytest.raises(proto.ProtocolError, match="magic"):
        proto.parse_header(raw[:20] + b"\0\0\0\0")
    with pytest.raises(proto.ProtocolError, match="exceeds"):
        proto.parse_header(raw[:24], max_payload=4)


def test_banner_format_and_forbidden_characters() -> None:
    props = {"ro.product.name": "relay_sim", "ro.product.model": "Relay Phone", "ro.product.device": "sim"}
    assert proto.banner(props, ("shell_v2", "cmd")) == (
        b"device::ro.product.name=relay_sim;ro.product.model=Relay Phone;ro.product.device=sim;features=shell_v2,cmd")
    with pytest.raises(ValueError, match="':'"):
        proto.banner({**props, "ro.product.model": "a:b"})


def test_shell_packets_split_across_and_packed_into_chunks() -> None:
    stream = proto.pack_shell(proto.SHELL_STDOUT, b"abc") + proto.pack_shell(proto.SHELL_EXIT, b"\x03")
    assert stream[:5] == b"\x01\x03\x00\x00\x00"
    reader = proto.ShellPacketReader()
    assert reader.feed(stream[:4]) == []
    assert reader.feed(stream[4:10]) == [(1, b"abc")]
    assert reader.feed(stream[10:]) == [(3, b"\x03")]
    assert proto.ShellPacketReader().feed(stream) == [(1, b"abc"), (3, b"\x03")]


def test_sync_replies_layouts() -> None:
    st = proto.SyncStat(mode=0o100644, size=5, mtime=1_700_000_000, ino=42, nlink=1, uid=2000, gid=2000)
    assert proto.pack_stat_v1(st) == b"STAT" + (0o100644).to_bytes(4, "little") + (5).to_bytes(4, "little") + \
        (1_700_000_000).to_bytes(4, "little")
    v2 = proto.pack_stat_v2(b"STA2", st)
    assert len(v2) == 72 and v2[:8] == b"STA2\0\0\0\0" and v2[16:24] == (42).to_bytes(8, "little")
    missing = proto.pack_stat_v2(b"STA2", proto.SyncStat(error=2))
    assert missing[4:8] == (2).to_bytes(4, "little")
    assert proto.pack_dent_v1("a.txt", st) == b"DENT" + v1_fields(st) + (5).to_bytes(4, "little") + b"a.txt"
    assert len(proto.pack_dent_v2("a.txt", st)) == 76 + 5
    assert proto.pack_list_done(False) == b"DONE" + bytes(16)
    assert proto.pack_list_done(True) == b"DONE" + bytes(72)
    assert proto.pack_sync_fail("nope") == b"FAIL\x04\x00\x00\x00nope"
    assert proto.pack_sync_status(b"OKAY", 0) == b"OKAY\0\0\0\0"


def v1_fields(st: proto.SyncStat) -> bytes:
    return b"".join(v.to_bytes(4, "little") for v in (st.mode, st.size, st.mtime))
