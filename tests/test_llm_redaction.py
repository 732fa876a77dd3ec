"""The redacting log filter: registered keys and key-shaped strings never reach a handler."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from relay_desktop.llm.redaction import MASK, RedactingFilter, install_redaction, redact, register_secret

KEY = "plain-registered-secret-value-1234"


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    install_redaction()
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


@pytest.mark.parametrize("text, expected", [
    ("key sk-ant-api03-abcdefghijklmnopqrstuvwx end", f"key {MASK} end"),
    ("sk-proj-abcdefghijklmnopqrstuvwxyz0123", MASK),
    ("or sk-or-v1-0123456789abcdef0123456789abcdef", f"or {MASK}"),
    ("AIzaSyA-abcdefghijklmnopqrstuvwxyz0123456 in url", f"{MASK} in url"),
    ("Authorization: Bearer abc.def-ghi_jkl", f"Authorization: Bearer {MASK}"),
    ("{'x-api-key': 'k-1234567890abcdef'}", f"{{'x-api-key': '{MASK}'}}"),
    ("x-goog-api-key: abcdefgh12345678", f"x-goog-api-key: {MASK}"),
    ("GET /v1beta/models?key=abcdefgh12345678&alt=json", f"GET /v1beta/models?key={MASK}&alt=json"),
])
def test_key_shaped_strings_are_masked(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "tap e12 then type 'hello' into e3",
    "/home/user/.config/relay-desktop/prices.json",
    '{"steps": [{"action": "tap", "element": "e4"}], "reason": "Wi-Fi"}',
    "task-0123456789abcdefghijklmnop finished",  # "sk-" inside a word is not a key
    "the API key was rejected (invalid, revoked or for another provider)",
    "retrying in 1.2 s (retry 1 of 3)",
])
def test_ordinary_text_is_untouched(text: str) -> None:
    assert redact(text) == text


def test_messages_args_exceptions_and_stacks(captured: io.StringIO) -> None:
    register_secret(KEY)
    log = logging.getLogger("relay_desktop.llm.test")
    log.info("using %s for %s", KEY, "anthropic")
    log.warning(f"key={KEY}")
    log.debug("dict %r", {"api_key": KEY})
    try:
        raise RuntimeError(f"server said: Incorrect API key provided: {KEY}")
    except RuntimeError:
        log.exception("call failed")
    log.info("where am I", stack_info=True)
    output = captured.getvalue()
    assert KEY not in output
    assert output.count(MASK) == 4
    assert "RuntimeError: server said: Incorrect API key provided: [REDACTED]" in output  # traceback kept
    assert "Traceback (most recent call last)" in output and "Stack (most recent call last)" in output


@pytest.mark.parametrize("name", ["anthropic._base_client", "openai", "httpx2", "google_genai.models", "root"])
def test_third_party_loggers_are_covered(captured: io.StringIO, name: str) -> None:
    register_secret(KEY)
    logging.getLogger(name).debug("Request options: {'headers': {'X-Api-Key': '%s'}}", KEY)
    assert KEY not in captured.getvalue()
    assert MASK in captured.getvalue()


def test_install_is_idempotent(captured: io.StringIO) -> None:
    handler = logging.getLogger().handlers[-1]
    install_redaction()
    install_redaction()
    assert sum(isinstance(f, RedactingFilter) for f in handler.filters) == 1
