"""ADB wire formats against literal bytes (layouts from AOSP's protocol.txt, SYNC.TXT, shell_protocol.h)."""

from __future__ import annotations

import pytest

from relay_desktop.sim import adb_protocol as proto

PROPS = {"ro.product.name": "p", "ro.product.model": "m", "ro.product.device": "d"}
BANNER = b"device::ro.product.name=p;ro.product.model=m;ro.product.device=d;features=" \
    b"shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir"


def le32(value: int) -> bytes:
    return value.to_bytes(4, "little")


def test_cnxn_reply_bytes_for_a_known_banner() -> None:
    assert proto.banner(PROPS) == BANNER
    raw = proto.pack_message(proto.A_CNXN, proto.A_VERSION, proto.MAX_PAYLOAD, BANNER)
    assert raw[:24] == bytes.fromhex(
        "434e584e"   # "CNXN"
        "01000001"   # version 0x01000001 (skip checksum)
        "00001000"   # maxdata 1 MiB
        "75000000"   # 117 bytes of banner
        "00000000"   # no checksum at this version
        "bcb1a7b1")  # magic = ~"CNXN"
    assert raw[24:] == BANNER
    header = proto.parse_header(raw[:24])
    assert (header.name, header.arg0, header.arg1, header.length) == ("CNXN", 0x01000001, 1 << 20, 117)


def test_the_hosts_first_cnxn_carries_a_byte_sum_we_accept_but_do_not_check() -> None:
    raw = proto.pack_message(proto.A_CNXN, proto.A_VERSION, 4096, b"host::", checksum=True)
    assert raw[16:20] == le32(sum(b"host::"))
    assert proto.parse_header(raw[:16] + le32(0xDEADBEEF) + raw[20:24]).length == 6


def test_header_rejects_bad_magic_short_input_and_oversized_payload() -> None:
    raw = proto.pack_message(proto.A_CLSE, 1, 2)
    with pytest.raises(proto.ProtocolError, match="magic"):
        proto.parse_header(raw[:20] + b"CLSE")
    with pytest.raises(proto.ProtocolError, match="not 24"):
        proto.parse_header(raw[:23])
    big = proto.pack_message(proto.A_WRTE, 1, 2, bytes(5000))[:24]
    with pytest.raises(proto.ProtocolError, match="exceeds"):
        proto.parse_header(big, max_payload=proto.MAX_PAYLOAD_V1)
    assert proto.parse_header(big).length == 5000


def test_banner_rejects_separators_and_oversize() -> None:
    with pytest.raises(ValueError, match="':'"):
        proto.banner({**PROPS, "ro.product.name": "a;b"})
    with pytest.raises(ValueError, match="longer"):
        proto.banner({**PROPS, "ro.product.model": "x" * 5000})


@pytest.mark.parametrize(("name", "expected"), [
    ("shell:ls -l", proto.ShellRequest("ls -l", v2=False, tty=False)),
    ("shell:", proto.ShellRequest("", v2=False, tty=True)),
    ("shell,v2,TERM=xterm-256color,raw:echo a:b", proto.ShellRequest("echo a:b", True, False, "xterm-256color")),
    ("shell,v2,TERM=xterm,pty:", proto.ShellRequest("", True, True, "xterm")),
    ("shell,v2,raw:", proto.ShellRequest("", True, False)),
    ("shell,v2,pty:top", proto.ShellRequest("top", True, True)),
    ("shell,v2,unknown-arg:id", proto.ShellRequest("id", True, False)),
])
def test_shell_service_names(name: str, expected: proto.ShellRequest) -> None:
    assert proto.parse_shell_service(name) == expected


@pytest.mark.parametrize("name", ["shell", "shellx:ls", "exec:ls", "sync:"])
def test_not_shell_services(name: str) -> None:
    assert proto.parse_shell_service(name) is None


def test_shell_v2_packet_layout() -> None:
    assert proto.pack_shell(proto.SHELL_STDERR, b"err") == b"\x02\x03\x00\x00\x00err"
    assert proto.pack_shell_exit(3) == b"\x03\x01\x00\x00\x00\x03"
    assert proto.pack_shell_exit(256 + 7) == b"\x03\x01\x00\x00\x00\x07"
    # What the adb client sends when its stdin is not a terminal.
    assert proto.ShellPacketReader().feed(b"\x04\x00\x00\x00\x00") == [(proto.SHELL_CLOSE_STDIN, b"")]


def test_shell_v2_reader_byte_by_byte_and_many_per_chunk() -> None:
    stream = (proto.pack_shell(proto.SHELL_STDIN, b"hello") + proto.pack_shell(proto.SHELL_WINDOW_SIZE, b"24x80,0x0")
              + proto.pack_shell(proto.SHELL_CLOSE_STDIN, b""))
    expected = [(0, b"hello"), (5, b"24x80,0x0"), (4, b"")]
    reader = proto.ShellPacketReader()
    packets = []
    for index in range(len(stream)):
        packets += reader.feed(stream[index:index + 1])
    assert packets == expected and reader.pending == 0
    assert proto.ShellPacketReader().feed(stream) == expected
    reader = proto.ShellPacketReader()
    assert reader.feed(stream[:12]) == [(0, b"hello")]
    assert reader.pending == 2
    assert reader.feed(stream[12:]) == expected[1:]


def test_window_size_text() -> None:
    assert proto.parse_window_size(b"24x80,1080x2400") == (24, 80, 1080, 2400)
    assert proto.parse_window_size(b"24x80,0x0\0") == (24, 80, 0, 0)
    assert proto.parse_window_size(b"garbage") is None


def test_sync_request_and_send_spec() -> None:
    assert proto.parse_sync_request(b"RECV\x0b\x00\x00\x00") == (b"RECV", 11)
    with pytest.raises(proto.ProtocolError):
        proto.parse_sync_request(b"RECV")
    assert proto.parse_send_spec("/sdcard/a,b.txt,33188") == ("/sdcard/a,b.txt", 0o100644)
    with pytest.raises(ValueError, match="missing ,"):
        proto.parse_send_spec("/sdcard/a.txt")


def test_sync_status_replies() -> None:
    assert proto.pack_sync_okay() == b"OKAY\x00\x00\x00\x00"
    assert proto.pack_sync_done() == b"DONE\x00\x00\x00\x00"
    assert proto.pack_sync_done(1_700_000_000) == b"DONE" + le32(1_700_000_000)
    assert proto.pack_sync_data(b"xyz") == b"DATA\x03\x00\x00\x00xyz"
    assert proto.pack_sync_fail("path too long") == b"FAIL\x0d\x00\x00\x00path too long"
    assert proto.SYNC_RECV_CHUNK == 65528


ST = proto.SyncStat(mode=0o100644, size=5, mtime=1_700_000_000, ino=42, nlink=1, uid=2000, gid=1015)


def test_stat_v1_and_dent_v1() -> None:
    fields = le32(0o100644) + le32(5) + le32(1_700_000_000)
    assert proto.pack_stat_v1(ST) == b"STAT" + fields
    assert proto.pack_stat_v1(proto.SyncStat()) == b"STAT" + bytes(12)
    assert proto.pack_dent_v1("a.txt", ST) == b"DENT" + fields + le32(5) + b"a.txt"
    assert proto.pack_list_done(v2=False) == b"DONE" + bytes(16)


def test_stat_v2_and_dent_v2() -> None:
    body = (le32(0)                                  # error
            + bytes(8)                               # dev
            + (42).to_bytes(8, "little")             # ino
            + le32(0o100644) + le32(1)               # mode, nlink
            + le32(2000) + le32(1015)                # uid, gid
            + (5).to_bytes(8, "little")              # size
            + (1_700_000_000).to_bytes(8, "little") * 3)  # atime, mtime, ctime
    assert proto.pack_stat_v2(b"STA2", ST) == b"STA2" + body
    assert len(b"STA2" + body) == 72
    assert proto.pack_stat_v2(b"LST2", proto.SyncStat(error=2)) == b"LST2" + le32(2) + bytes(64)
    assert proto.pack_dent_v2("a.txt", ST) == b"DNT2" + body + le32(5) + b"a.txt"
    assert proto.pack_list_done(v2=True) == b"DONE" + bytes(72)
