"""Bad numbers in the command line's options (issue 26): one plain line each, never a traceback or a crash
report, and exit code 2 as argparse gives for any other bad option."""

from __future__ import annotations

import pytest

from tests.test_cli import run_cli

BAD = [
    (("sim", "--port", "99999", "--no-connect"), "--port"),
    (("sim", "--port", "-1", "--no-connect"), "--port"),
    (("sim", "--density", "0", "--no-connect"), "--density"),
    (("sim", "--density", "lots", "--no-connect"), "--density"),
    (("run", "--sim", "--max-steps", "abc", "x"), "--max-steps"),
    (("run", "--sim", "--max-steps", "0", "x"), "--max-steps"),
    (("run", "--sim", "--pace", "-2", "x"), "--pace"),
    (("run", "--sim", "--pace", "nan", "x"), "--pace"),
    (("run", "--sim", "--chaos", "x1", "x"), "--chaos"),
    (("bench", "--fallback", "--phones", "99"), "--phones"),
    (("bench", "--fallback", "--max-steps", "-5"), "--max-steps"),
    (("mcp", "--max-steps", "100000"), "--max-steps"),
    (("check-provider", "--timeout", "-1"), "--timeout"),
]


@pytest.mark.parametrize(("args", "option"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_number_gets_one_line(args: tuple[str, ...], option: str) -> None:
    result = run_cli(*args, timeout=60)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert len(lines) == 1, result.stderr
    assert option in lines[0] and "Traceback" not in result.stderr and "crash" not in result.stderr, lines[0]
    assert lines[0].startswith(f"relay-desktop {args[0]}: "), lines[0]


def test_a_mistyped_option_still_gets_one_line_with_the_way_to_help() -> None:
    result = run_cli("run", "--maxsteps", "3", "x")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert "--maxsteps" in lines[0] and "relay-desktop run --help" in lines[0], lines[0]
