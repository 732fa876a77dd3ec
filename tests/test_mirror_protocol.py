"""The scrcpy wire format, byte for byte against scrcpy's own test vectors (app/tests @v3.3.4)."""

from __future__ import annotations

import pytest

from relay_desktop.mirror.protocol import (
    ClipboardAck,
    ClipboardText,
    ControlType,
    KeyAction,
    MotionAction,
    ProtocolError,
    UhidOutput,
    back_or_screen_on,
    codec_meta,
    device_name,
    encode_device_name,
    fixed_u16,
    frame_header,
    get_clipboard,
    inject_keycode,
    inject_scroll,
    inject_text,
    inject_touch,
    parse_codec_meta,
    parse_device_message,
    parse_frame_header,
    set_clipboard,
    set_display_power,
    simple,
    start_app,
    uhid_create,
)


def test_control_messages_match_scrcpy_vectors() -> None:
    assert inject_keycode(KeyAction.UP, 66, 5, 0x41).hex() == "0001" "00000042" "00000005" "00000041"
    assert inject_text("hello, world!").hex() == "01" "0000000d" + b"hello, world!".hex()
    touch = inject_touch(MotionAction.DOWN, 100, 200, 1080, 1920, pointer_id=0x1234567887654321, pressure=1.0,
                         action_button=1, buttons=1)
    assert touch.hex() == "0200123456788765432100000064000000c804380780ffff0000000100000001"
    assert len(touch) == 32
    scroll = inject_scroll(260, 1026, 1080, 1920, 16, -16, buttons=1)
    assert scroll.hex() == "030000010400000402043807807fff800000000001"
    assert back_or_screen_on(KeyAction.UP).hex() == "0401"
    assert get_clipboard(1).hex() == "0801"
    clip = set_clipboard("hello, world!", paste=True, sequence=0x0102030405060708)
    assert clip.hex() == "09" "0102030405060708" "01" "0000000d" + b"hello, world!".hex() and len(clip) == 27
    assert set_display_power(True).hex() == "0a01"
    assert uhid_create(42, 0x1234, 0x5678, "ABC", bytes(range(1, 12))).hex() == \
        "0c002a1234567803414243000b" + bytes(range(1, 12)).hex()
    assert start_app("org.example").hex() == "100b" + b"org.example".hex()
    assert simple(ControlType.RESET_VIDEO) == b"\x11"
    with pytest.raises(ValueError):
        simple(ControlType.INJECT_TEXT)


def test_text_is_cut_at_a_character_boundary_and_unicode_survives() -> None:
    message = inject_text("é" * 200)                     # 400 bytes of UTF-8: cut to 300, never mid-character
    assert len(message) == 5 + 300 and message[5:].decode("utf-8") == "é" * 150
    clip = set_clipboard("Grüße, 你好")
    assert clip[14:].decode("utf-8") == "Grüße, 你好"


def test_pressure_and_positions() -> None:
    assert (fixed_u16(1.0), fixed_u16(0.0), fixed_u16(0.5)) == (0xFFFF, 0, 0x8000)
    assert inject_touch(MotionAction.UP, 1, 2, 720, 1600)[-10:-8] == b"\x00\x00"   # released: pressure 0
    with pytest.raises(ValueError, match="frame size 0x1600"):
        inject_touch(MotionAction.DOWN, 1, 2, 0, 1600)


def test_device_messages_match_scrcpy_vectors_and_wait_for_whole_messages() -> None:
    assert parse_device_message(bytes.fromhex("0000000003414243")) == (ClipboardText("ABC"), 8)
    assert parse_device_message(bytes.fromhex("010102030405060708")) == (ClipboardAck(0x0102030405060708), 9)
    assert parse_device_message(bytes.fromhex("02002a00050102030405")) == (UhidOutput(42, bytes([1, 2, 3, 4, 5])), 10)
    assert parse_device_message(bytes.fromhex("00000000034142")) is None      # one byte short
    assert parse_device_message(b"") is None
    with pytest.raises(ProtocolError, match="unknown device message type 9"):
        parse_device_message(b"\x09")


def test_stream_framing() -> None:
    config = parse_frame_header(frame_header(27, config=True))
    assert config.config and config.pts_us is None and config.size == 27
    assert frame_header(27, config=True)[:8] == bytes.fromhex("8000000000000000")
    key = parse_frame_header(frame_header(1000, pts_us=123_456, key_frame=True))
    assert (key.config, key.key_frame, key.pts_us, key.size) == (False, True, 123_456, 1000)
    assert parse_codec_meta(codec_meta("h264", 1080, 2400)) == ("h264", 1080, 2400)
    assert codec_meta("h264", 1, 1)[:4] == b"h264"
    with pytest.raises(ProtocolError, match="unknown video codec id"):
        parse_codec_meta(b"\x00\x00\x00\x07" + bytes(8))
    name = encode_device_name("Relay Virtual Phone")
    assert len(name) == 64 and device_name(name) == "Relay Virtual Phone"
    assert device_name(encode_device_name("Ω" * 40)) == "Ω" * 31          # 63 bytes max, whole characters
