"""Keeping API keys out of everything the app writes: log lines, tracebacks, error messages.

Two nets: every key the app loads is registered and replaced wherever it appears, and strings shaped like a
provider key or an auth header are masked even when nobody registered them (a key pasted into a task, an SDK
debug line echoing a header).
"""

from __future__ import annotations

import logging
import re
import threading
import traceback

MASK = "[REDACTED]"

_lock = threading.Lock()
_secrets: set[str] = set()
_ordered: list[str] = []  # longest first, so a key that contains another is replaced whole

_PATTERNS = [
    re.compile(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{16,}"),  # Anthropic
    re.compile(r"(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|or-v1-)?[A-Za-z0-9_\-]{20,}"),  # OpenAI, OpenRouter
    re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35,}"),  # Google API keys
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=\-]{8,}"),
    re.compile(r"(?i)((?:x-api-key|x-goog-api-key|api[-_]key|authorization)[\"']?\s*[:=]\s*[\"']?)"
               r"(?!bearer\s)[^\s\"',;}]{8,}"),
    re.compile(r"([?&]key=)[^&\s\"']{8,}"),
]


def register_secret(value: str) -> None:
    """Mask `value` wherever it appears from now on. Very short values are ignored: they would mangle text."""
    value = value.strip()
    if len(value) < 8:
        return
    with _lock:
        if value not in _secrets:
            _secrets.add(value)
            _ordered[:] = sorted(_secrets, key=len, reverse=True)


def redact(text: str) -> str:
    if not text:
        return text
    for secret in _ordered:
        if secret in text:
            text = text.replace(secret, MASK)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.re.groups else "") + MASK, text)
    return text


def redact_exception(error: BaseException) -> str:
    return redact(f"{type(error).__name__}: {error}")


class RedactingFilter(logging.Filter):
    """Rewrites a record so that no handler can format a secret out of it.

    Put on handlers, not loggers: a logger's filters do not see records propagated up from child loggers
    (`anthropic._base_client`, `httpx2`, `relay_desktop.llm.router`), but every handler's filters do.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: keep what can be shown
            message = f"{record.msg!r} {record.args!r}"
        record.msg = redact(message)
        record.args = None
        if record.exc_info:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
            record.exc_info = None  # the handler would format the raw exception again
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


_FILTER = RedactingFilter()


def install_redaction(logger: logging.Logger | None = None) -> RedactingFilter:
    """Add the filter to `logger` (the root logger by default) and to all of its handlers. Idempotent; call it
    again after adding handlers."""
    logger = logger or logging.getLogger()
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    for handler in logger.handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
    return _FILTER
