"""Telling subscribers, in words, what happened to the connection to a phone (lost and found, the mirror
stopped or restarting): the run's log and the window listen."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable


def tell(subscribers: Iterable[Callable[[str], None]], message: str, log: logging.Logger) -> None:
    """Log ``message`` and give it to each subscriber; one that fails is logged and the others still hear it."""
    log.warning("%s", message)
    for subscriber in list(subscribers):
        try:
            subscriber(message)
        except Exception:
            log.exception("notice subscriber %r failed", subscriber)
