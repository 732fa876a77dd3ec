"""The command line's option checking: a bad value is told in one plain line, before anything starts.

argparse's own message is the usage block (nine lines for `run`) and then the error; a port out of range went
through to the socket and came back as a traceback with a crash report. Each numeric option here has a type
that knows its range, and the parser says what is wrong, and where help is, in one line.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

__all__ = ["OneLineParser", "number", "port", "whole"]


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: what is wrong, and the command that shows the usage."""

    def error(self, message: str) -> NoReturn:
        message = message.removeprefix("argument ")
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        # The innermost command parsed first: an unknown option is told with its help ("relay-desktop run").
        if not hasattr(parsed, _COMMAND_PROG):
            setattr(parsed, _COMMAND_PROG, self.prog)
        return parsed, extras

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        prog = getattr(parsed, _COMMAND_PROG, self.prog)
        delattr(parsed, _COMMAND_PROG)
        if extras:
            sys.stderr.write(f"{prog}: unrecognized arguments: {' '.join(extras)} (see {prog} --help)\n")
            raise SystemExit(2)
        return parsed


_COMMAND_PROG = "_innermost_command"


def whole(low: int, high: int | None = None, what: str = "a whole number") -> Callable[[str], int]:
    """A type for an integer option from ``low`` to ``high`` (no upper bound when None)."""
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}") from None
        if value < low or (high is not None and value > high):
            limits = f"from {low} to {high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"must be {limits}, not {value}")
        return value
    parse.__name__ = "whole number"
    return parse


def number(low: float, high: float | None = None) -> Callable[[str], float]:
    """A type for a decimal option from ``low`` to ``high`` (seconds, a timeout); never NaN or infinite."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            limits = f"from {low:g} to {high:g}" if high is not None else f"{low:g} or more"
            raise argparse.ArgumentTypeError(f"must be {limits}, not {text}")
        return value
    parse.__name__ = "number"
    return parse


port = whole(0, 65535, "a port number")
