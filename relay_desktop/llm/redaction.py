"""Keeping API keys out of everything the app writes: log lines, tracebacks, error messages.

Two nets: every key the app loads is registered and replaced wherever it appears, and strings shaped like a
provider key or an auth header are masked even when nobody registered them (a key pasted into a task, an SDK
debug line echoing a header). The shapes are kept narrow so element ids, paths and JSON pass untouched.

Logging is covered twice by `install_redaction()`: a filter on every handler that exists (a handler's filters
see records propagated up from child loggers such as `anthropic._base_client` or `httpx2`; a logger's filters
do not), and a log-record factory that redacts each record as it is made, for handlers added later — by the
GUI's log view, by an SDK's `*_LOG=debug` set-up, by pytest.
"""

from __future__ import annotations

import logging
import re
import threading
import traceback
from collections.abc import Callable
from typing import Any

MASK = "[REDACTED]"
MIN_SECRET_LENGTH = 8  # shorter values ("ollama", "none") would mask ordinary words
MIN_WORD_SECRET_LENGTH = 4  # a saved secret as short as a PIN is masked as a whole word

_lock = threading.Lock()
# Longest first, so a key that contains another is replaced whole. Replaced as a new tuple, never mutated, so
# redact() in another thread iterates a consistent snapshot and cannot skip a key.
_secrets: tuple[str, ...] = ()
_words: tuple[str, ...] = ()     # short secrets, masked only where they stand as a word

# A header or parameter value: stops at quotes, separators, brackets and escapes (so "[REDACTED]" is left as is).
_VALUE = r"[^\s\"'`,;(){}\[\]<>&\\]"
_QUOTE = r"\\?[\"']?"  # an optional quote, JSON-escaped or not
_PATTERNS = [
    re.compile(r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_\-]{16,}"),  # Anthropic (api03, admin01)
    re.compile(r"(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_\-]{20,}"),  # OpenAI, OpenRouter
    re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35,}"),  # Google API keys: AIza + 35
    # A header holding the key, in any notation: "X-Api-Key: …", {'api_key': '…'}, OPENAI_API_KEY=…, JSON.
    re.compile(rf"(?i)((?:x-goog-api-key|x-api-key|api[-_]?key|access[-_]?token|authorization){_QUOTE}\s*[:=]\s*"
               rf"{_QUOTE}(?:(?:bearer|basic|token)\s+)?){_VALUE}{{8,}}"),
    # "Bearer <token>" on its own. The token must look like one (a digit, or long), not "Bearer authentication".
    re.compile(r"(?i)(\bbearer\s+)(?:(?=[A-Za-z0-9._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{8,}|[A-Za-z0-9._~+/=\-]{16,})"),
    re.compile(r"(?i)([?&](?:key|api_?key|access_token)=)[^&\s\"'#\[\]]{8,}"),  # Gemini's ?key=…
]


def register_secret(value: str, *, short: bool = False) -> None:
    """Mask `value` wherever it appears from now on (process-wide). Values under 8 characters are ignored,
    unless ``short``: a secret the user saved on purpose (a 4-digit PIN) is masked as a whole word from 4
    characters on — "4711" in "PIN 4711", not in "14711"."""
    global _secrets, _words
    value = value.strip()
    if len(value) < MIN_SECRET_LENGTH:
        if short and len(value) >= MIN_WORD_SECRET_LENGTH:
            with _lock:
                if value not in _words:
                    _words = tuple(sorted((*_words, value), key=len, reverse=True))
        return
    with _lock:
        if value not in _secrets:
            _secrets = tuple(sorted((*_secrets, value), key=len, reverse=True))


def _mask(match: re.Match[str]) -> str:
    prefix = (match.group(1) or "") if match.re.groups else ""  # the header name kept, the value masked
    return prefix + MASK


def redact(text: str) -> str:
    """`text` with every registered secret and every key-shaped string replaced by [REDACTED]."""
    if not text:
        return text
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    for word in _words:
        if word in text:
            text = re.sub(r"(?<![\w])" + re.escape(word) + r"(?![\w])", MASK, text)
    for pattern in _PATTERNS:
        text = pattern.sub(_mask, text)
    return text


def redact_exception(error: BaseException) -> str:
    """'TypeName: message', redacted: for error messages built from an exception a provider raised."""
    try:
        text = str(error)
    except Exception:  # a broken __str__ must not replace the error being reported
        text = ""
    name = type(error).__name__
    return redact(f"{name}: {text}" if text else name)


# Attributes every LogRecord has; anything else came in through `extra=` and may be formatted by a handler.
_RECORD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


def redact_record(record: logging.LogRecord) -> None:
    """Rewrite `record` in place so that no formatter can get a secret out of it: the message is formatted
    now and redacted (args cleared), the exception becomes redacted exc_text (exc_info dropped, or the handler
    would format the raw one again), and stack_info and string `extra` fields are redacted."""
    try:
        message = record.getMessage()
    except Exception:  # a broken format string: keep what can be shown
        message = f"{record.msg!r} % {record.args!r}"
    record.msg = redact(message)
    record.args = None
    if record.exc_info:
        record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        record.exc_info = None
    elif record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    for name, value in list(vars(record).items()):
        if isinstance(value, str) and (name not in _RECORD_FIELDS or name == "message"):
            setattr(record, name, redact(value))


class RedactingFilter(logging.Filter):
    """Redacts every record it sees (see redact_record) and lets it through. Belongs on handlers."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


_FILTER = RedactingFilter()


class _RedactingFactory:
    """Wraps the log-record factory: records are redacted as they are made, whatever handler gets them."""

    def __init__(self, base: Callable[..., logging.LogRecord]) -> None:
        self.base = base

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.base(*args, **kwargs)
        redact_record(record)
        return record


def install_redaction(logger: logging.Logger | None = None) -> RedactingFilter:
    """Redact what reaches any log handler. Idempotent; safe to call again after adding handlers.

    With no `logger`: the filter goes on the root logger, on the handlers of the root and of every other
    logger that exists, and on logging's last-resort handler; and the record factory is wrapped (see the module
    doc). With a `logger`: the filter goes on it and its handlers, and the factory is wrapped all the same.
    """
    target = logger if logger is not None else logging.getLogger()
    loggers = [target]
    if logger is None:
        loggers += [item for item in list(logging.Logger.manager.loggerDict.values())
                    if isinstance(item, logging.Logger)]
    filterers: list[logging.Filterer] = [target]  # on other loggers it would only see their own records
    for item in loggers:
        filterers += item.handlers
    if logger is None and logging.lastResort is not None:
        filterers.append(logging.lastResort)
    for filterer in filterers:
        if _FILTER not in filterer.filters:
            filterer.addFilter(_FILTER)
    with _lock:
        factory = logging.getLogRecordFactory()
        if not isinstance(factory, _RedactingFactory):
            logging.setLogRecordFactory(_RedactingFactory(factory))
    return _FILTER
