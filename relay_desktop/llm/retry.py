"""How long to wait before trying a failed model call again.

Exponential backoff with full jitter (so several runs hitting one rate limit do not retry in lockstep), a
provider's `retry-after` honoured when it sends one, and two bounds: a number of attempts and a total time.
A wait that would end past the total budget is not started: the caller fails over to another key or provider.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4  # calls per model, the first one included
    base_delay: float = 0.5  # seconds before the first retry, doubled for each next one
    max_delay: float = 20.0  # no single backoff wait is longer (a longer retry-after is still honoured)
    max_total: float = 90.0  # seconds from the first call after which no new wait is started
    max_retry_after: float = 60.0  # a longer retry-after means "try elsewhere", not "wait"

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if min(self.base_delay, self.max_delay, self.max_total, self.max_retry_after) < 0:
            raise ValueError("retry delays cannot be negative")


def backoff_delay(policy: RetryPolicy, retry_number: int, retry_after: float | None = None,
                  rng: random.Random | None = None) -> float:
    """Seconds to wait before retry number `retry_number` (1 for the first retry).

    Full jitter: uniform in [0, base * 2^(n-1)] capped at max_delay. A provider's retry-after is a floor: waiting
    less is sure to fail again; a little jitter on top keeps concurrent callers apart.
    """
    rng = rng or random
    ceiling = min(policy.max_delay, policy.base_delay * 2 ** (retry_number - 1))
    delay = rng.uniform(0, ceiling)
    if retry_after is not None and retry_after > 0:
        delay = retry_after + rng.uniform(0, min(1.0, retry_after * 0.1))
    return delay


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a `retry-after` (seconds, or an HTTP date) or `retry-after-ms` header value."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return max(0.0, seconds) if seconds == seconds else None  # NaN guard
