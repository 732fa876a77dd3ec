"""Redaction: registered keys and key-shaped strings never reach a log handler, a traceback or a message."""

from __future__ import annotations

import io
import logging
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from relay_desktop.llm.redaction import (
    MASK,
    RedactingFilter,
    install_redaction,
    redact,
    redact_exception,
    register_secret,
)

KEY = "plain-registered-secret-value-1234"  # looks like nothing in particular: only registration can catch it
FORMAT = "%(name)s %(levelname)s %(message)s"


@pytest.fixture
def root_debug() -> Iterator[logging.Logger]:
    root = logging.getLogger()
    old_level = root.level
    root.setLevel(logging.DEBUG)
    try:
        yield root
    finally:
        root.setLevel(old_level)


@pytest.fixture
def captured(root_debug: logging.Logger) -> Iterator[io.StringIO]:
    """A stream handler on the root logger, added before install_redaction (as the CLI does)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    root_debug.addHandler(handler)
    install_redaction()
    try:
        yield stream
    finally:
        root_debug.removeHandler(handler)


# -- the patterns ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("key sk-ant-api03-abcdefghijklmnopqrstuvwx end", f"key {MASK} end"),
    ("sk-ant-admin01-abcdefghijklmnopqrstuvwx", MASK),
    ("sk-proj-abcdefghijklmnopqrstuvwxyz0123", MASK),
    ("(sk-abcdefghijklmnopqrstuvwxyz0123456789)", f"({MASK})"),
    ("or sk-or-v1-0123456789abcdef0123456789abcdef", f"or {MASK}"),
    ("AIzaSyA-abcdefghijklmnopqrstuvwxyz0123456 in url", f"{MASK} in url"),
    ("Authorization: Bearer abc.def-ghi_jkl", f"Authorization: Bearer {MASK}"),
    ("authorization: Basic dXNlcjpwYXNzd29yZA==", f"authorization: Basic {MASK}"),
    ("sent Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", f"sent Bearer {MASK}"),
    ("{'x-api-key': 'k-1234567890abcdef'}", f"{{'x-api-key': '{MASK}'}}"),
    ("{'X-Api-Key': 'k-1234567890abcdef', 'x-stainless-os': 'Linux'}",
     f"{{'X-Api-Key': '{MASK}', 'x-stainless-os': 'Linux'}}"),
    ("x-goog-api-key: abcdefgh12345678", f"x-goog-api-key: {MASK}"),
    ('{"api_key": "abcdefgh12345678"}', f'{{"api_key": "{MASK}"}}'),
    ('"{\\"apiKey\\": \\"abcdefgh12345678\\"}"', f'"{{\\"apiKey\\": \\"{MASK}\\"}}"'),  # JSON in JSON
    ("OPENAI_API_KEY=abcdefgh12345678 python", f"OPENAI_API_KEY={MASK} python"),
    ("GET /v1beta/models?key=abcdefgh12345678&alt=json", f"GET /v1beta/models?key={MASK}&alt=json"),
    ("https://h/x?alt=sse&api_key=abcdefgh12345678", f"https://h/x?alt=sse&api_key={MASK}"),
])
def test_key_shaped_strings_are_masked(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert redact(expected) == expected  # idempotent: a record filtered twice stays the same


@pytest.mark.parametrize("text", [
    "tap e12 then type 'hello' into e3",
    "element e12 (button 'OK') at [120,480][360,560]",
    "/home/user/.config/relay-desktop/prices.json",
    "C:\\Users\\me\\AppData\\Local\\relay-desktop\\logs\\relay.log",
    '{"steps": [{"action": "tap", "element": "e4"}], "reason": "Wi-Fi"}',
    '{"key": "value", "monkey": "banana", "keyboard": "gboard"}',
    "task-0123456789abcdefghijklmnop finished",  # "sk-" inside a word is not a key
    "the API key was rejected (invalid, revoked or for another provider)",
    "api_key: None",
    "No API key for gemini: add one in Settings, or set GEMINI_API_KEY or GOOGLE_API_KEY.",
    "the server needs Bearer authentication",
    "Authorization header missing",
    "retrying in 1.2 s (retry 1 of 3)",
    "https://example.com/search?q=keys&page=2&monkey=12345678901",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "request 123e4567-e89b-12d3-a456-426614174000 took 812 ms",
    "2026-11-23 03:12:15,123 DEBUG httpx2: HTTP Request: POST http://127.0.0.1:4010/v1/messages \"200 OK\"",
])
def test_ordinary_text_is_untouched(text: str) -> None:
    assert redact(text) == text


def test_registered_secrets_longest_first_and_short_ones_ignored() -> None:
    register_secret("  reg-secret-abcdefgh  ")
    register_secret("reg-secret-abcdefgh-longer-1")
    register_secret("short")  # would mask ordinary words
    text = "a=reg-secret-abcdefgh-longer-1 b=reg-secret-abcdefgh c=short"
    assert redact(text) == f"a={MASK} b={MASK} c=short"
    assert redact("") == ""


def test_redact_exception() -> None:
    register_secret(KEY)
    assert redact_exception(ValueError(f"bad key {KEY}")) == f"ValueError: bad key {MASK}"
    assert redact_exception(TimeoutError()) == "TimeoutError"

    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert redact_exception(Unprintable()) == "Unprintable"


# -- the log filter ----------------------------------------------------------------------------------------------

def test_filter_alone_on_a_raw_record() -> None:
    """RedactingFilter by itself (a record made without the factory), formatted by a plain Formatter."""
    register_secret(KEY)
    try:
        raise RuntimeError(f"server echoed {KEY}")
    except RuntimeError:
        exc_info = sys.exc_info()
    record = logging.makeLogRecord({"name": "anthropic._base_client", "levelno": logging.ERROR,
                                    "levelname": "ERROR", "msg": "options %r", "args": ({"api_key": KEY},),
                                    "exc_info": exc_info, "stack_info": f"Stack:\n  line with {KEY}",
                                    "headers": f"x-api-key: {KEY}"})
    assert RedactingFilter().filter(record) is True
    assert record.args is None and record.exc_info is None
    text = logging.Formatter(FORMAT + " %(headers)s").format(record)
    assert KEY not in text
    assert f"options {{'api_key': '{MASK}'}}" in text
    assert f"RuntimeError: server echoed {MASK}" in text and "Traceback (most recent call last)" in text
    assert f"line with {MASK}" in text and f"x-api-key: {MASK}" in text


def test_messages_args_exceptions_and_stacks(captured: io.StringIO) -> None:
    register_secret(KEY)
    log = logging.getLogger("relay_desktop.llm.test")
    log.info("using %s for %s", KEY, "anthropic")
    log.warning(f"key={KEY}")
    log.debug("dict %r", {"token": KEY})
    try:
        try:
            raise ConnectionError(f"cause with {KEY}")
        except ConnectionError as cause:
            raise RuntimeError(f"server said: Incorrect API key provided: {KEY}") from cause
    except RuntimeError:
        log.exception("call failed")
    log.info("where am I %s", KEY, stack_info=True)
    log.error("broken format %d", KEY)  # a bad format string: the key is still masked
    output = captured.getvalue()
    assert KEY not in output
    assert output.count(MASK) == 7
    assert "RuntimeError: server said: Incorrect API key provided: [REDACTED]" in output  # traceback kept
    assert f"ConnectionError: cause with {MASK}" in output  # and its cause
    assert "Traceback (most recent call last)" in output and "Stack (most recent call last)" in output


@pytest.mark.parametrize("name", ["relay_desktop.llm.anthropic", "anthropic._base_client", "openai._base_client",
                                  "httpx2", "httpcore2.http11", "google_genai.models", "root"])
def test_child_and_third_party_loggers_are_covered(captured: io.StringIO, name: str) -> None:
    register_secret(KEY)
    logging.getLogger(name).debug("Request options: {'headers': {'X-Trace': '%s'}}", KEY)
    assert KEY not in captured.getvalue()
    assert MASK in captured.getvalue()


def test_handlers_on_child_loggers_and_handlers_added_later(root_debug: logging.Logger) -> None:
    """A handler an SDK put on its own logger before install, and one the GUI adds after it, with no filter."""
    register_secret(KEY)
    early, late = io.StringIO(), io.StringIO()
    sdk_logger = logging.getLogger("openai.test_handler")
    early_handler = logging.StreamHandler(early)
    sdk_logger.addHandler(early_handler)
    install_redaction()
    # On a child logger, so it gets each record before any (filtered) root handler could redact it in place.
    gui_logger = logging.getLogger("relay_desktop.gui_test")
    late_handler = logging.StreamHandler(late)
    gui_logger.addHandler(late_handler)
    try:
        assert any(isinstance(f, RedactingFilter) for f in early_handler.filters)
        assert late_handler.filters == []  # only the record factory protects it
        sdk_logger.debug("Authorization: %s", KEY)
        try:
            raise ValueError(KEY)
        except ValueError:
            gui_logger.exception("failed")
    finally:
        sdk_logger.removeHandler(early_handler)
        gui_logger.removeHandler(late_handler)
    assert early.getvalue() == f"Authorization: {MASK}\n"
    assert KEY not in late.getvalue() and f"ValueError: {MASK}" in late.getvalue()


def test_install_is_idempotent(captured: io.StringIO) -> None:
    handler = logging.getLogger().handlers[-1]
    factory = logging.getLogRecordFactory()
    install_redaction()
    install_redaction()
    assert sum(isinstance(f, RedactingFilter) for f in handler.filters) == 1
    assert sum(isinstance(f, RedactingFilter) for f in logging.getLogger().filters) == 1
    assert logging.getLogRecordFactory() is factory  # wrapped once, not once per call


def test_nothing_written_to_a_file_or_stream_holds_a_key(tmp_path: Path, root_debug: logging.Logger,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Log a bit of everything with a registered key and an unregistered Anthropic-shaped key to a file and a
    console stream, then scan every byte written for either."""
    registered = "zz-registered-canary-5f1e3c9a7b"
    unregistered = "sk-ant-api03-UNREGcanary0000aaaa1111BBBB2222"  # only the pattern can catch this one
    register_secret(registered)
    log_file = tmp_path / "relay.log"
    stream = io.StringIO()
    handlers: list[logging.Handler] = [logging.FileHandler(log_file, encoding="utf-8"),
                                       logging.StreamHandler(stream), logging.StreamHandler(sys.stderr)]
    for handler in handlers:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root_debug.addHandler(handler)
    install_redaction()
    try:
        for key in (registered, unregistered):
            for name in ("relay_desktop.llm.router", "anthropic._base_client", "openai", "httpx2", "google_genai"):
                log = logging.getLogger(name)
                log.debug("HTTP Request: POST https://api.example/v1?key=%s", key)
                log.info("headers: %r", {"x-api-key": key, "authorization": f"Bearer {key}"})
                log.warning("key %s rejected", key, extra={"detail": key})
                log.info("stack with %s", key, stack_info=True)
            try:
                raise PermissionError(f"Error code: 401 - {{'error': {{'message': 'Incorrect API key: {key}'}}}}")
            except PermissionError:
                logging.getLogger("relay_desktop.llm.providers.openai").exception("the call failed")
                logging.getLogger("relay_desktop").error("failed", exc_info=True)
                logging.getLogger("relay_desktop").warning(redact(traceback.format_exc()))
    finally:
        for handler in handlers:
            root_debug.removeHandler(handler)
            handler.close()
    written = {"file": log_file.read_bytes(), "stream": stream.getvalue().encode(),
               "stderr": capsys.readouterr().err.encode()}
    assert all(len(data) > 5_000 for data in written.values()), {k: len(v) for k, v in written.items()}
    for key in (registered, unregistered):
        for where, data in written.items():
            assert key.encode() not in data, where
            assert key[8:-4].encode() not in data, where  # not even a piece of it
    assert written["file"].count(MASK.encode()) >= 40
