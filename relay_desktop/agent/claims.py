"""One run per phone: a run started on a phone another run is already driving is refused, naming that run,
instead of two agents tapping over each other.

Claims are per process and keyed by serial (the window and the command line each hold their own). The
orchestrator claims the phone for the whole of a run and lets go when the run ends, whatever ends it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Claim", "PhoneBusy", "claim_phone", "claimed"]


@dataclass(frozen=True)
class Claim:
    serial: str
    run_id: str
    task: str


class PhoneBusy(Exception):
    """The phone is being driven by another run."""

    def __init__(self, holder: Claim) -> None:
        task = holder.task if len(holder.task) <= 60 else holder.task[:59] + "…"
        super().__init__(f"{holder.serial} is busy: run {holder.run_id} (\"{task}\") is driving it. Stop that run "
                         "or wait for it to finish, then start this one again.")
        self.holder = holder


_claims: dict[str, Claim] = {}


def claimed(serial: str) -> Claim | None:
    """The run driving ``serial`` now, if any."""
    return _claims.get(serial)


@contextmanager
def claim_phone(serial: str, run_id: str, task: str) -> Iterator[Claim]:
    """Hold ``serial`` for the ``with`` block; raises :class:`PhoneBusy` when another run holds it."""
    holder = _claims.get(serial)
    if holder is not None:
        raise PhoneBusy(holder)
    claim = Claim(serial, run_id, task)
    _claims[serial] = claim
    try:
        yield claim
    finally:
        if _claims.get(serial) is claim:
            del _claims[serial]
