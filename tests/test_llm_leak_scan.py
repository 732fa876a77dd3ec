"""The key-leak scan: after calls that succeed, fail, retry, get cancelled and get checked, with every
logger at DEBUG (the SDKs' own included), no byte of any key is in anything the app wrote or showed."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from relay_desktop.llm.check import check_provider
from relay_desktop.llm.costs import PriceTable
from relay_desktop.llm.errors import LLMError
from relay_desktop.llm.redaction import install_redaction
from relay_desktop.llm.types import LLMRequest, Message
from tests.fake_llm import FakeLLMServer, Reply
from tests.llm_fixtures import GOOD_PLAN, PLAN, TARGETS, make_router, memory_keys, provider_settings

# Distinct, realistic-looking keys: each provider's shape, and one that looks like nothing in particular.
KEYS = {
    "anthropic": "sk-ant-api03-LEAKcanaryAAAA1111bbbb2222CCCC3333dddd",
    "openai": "sk-proj-LEAKcanaryEEEE4444ffff5555GGGG6666",
    "gemini": "AIzaSyLEAKcanaryHHHH7777iiii8888JJJJ99",
    "compatible": "plain-LEAKcanary-0000-key",
}
REQUEST = LLMRequest("You operate a phone.", (Message.user("Turn on Wi-Fi."),), contract=PLAN)


def forms(key: str) -> list[bytes]:
    """The key as it could be written: as is, URL-quoted, JSON-escaped, base64'd, and its distinctive middle."""
    return [key.encode(), quote(key).encode(), json.dumps(key).encode(), base64.b64encode(key.encode()),
            key[6:-6].encode()]


@pytest.fixture
def debug_logs(tmp_path: Path) -> Iterator[tuple[Path, io.StringIO]]:
    """What a user running with -v would get: every logger at DEBUG into a file and a console stream."""
    root = logging.getLogger()
    stream = io.StringIO()
    handlers = [logging.FileHandler(tmp_path / "relay.log", encoding="utf-8"), logging.StreamHandler(stream)]
    for handler in handlers:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.DEBUG)
    install_redaction()
    try:
        yield tmp_path / "relay.log", stream
    finally:
        for handler in handlers:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(old_level)


async def exercise(server: FakeLLMServer, target: str, shown: list[str]) -> None:
    """Everything that can put a key in a message: success, an echoed key in an error, retries, repair,
    a timeout, a cancelled request, fallbacks and "test connection"."""
    key = KEYS[target]
    harness = make_router(server, target, keys=[key] if target != "compatible" else None, timeout=0.3)
    if target == "compatible":
        harness.router.keys.set_session_keys("local", [key])
        harness.router.forget_keys()
    server.script(
        Reply.tool_call("submit_plan", GOOD_PLAN),
        Reply.error(429, retry_after=1), Reply.error(500, message=f"upstream failed for key {key}"),
        Reply.malformed(), Reply.tool_call("submit_plan", {"steps": []}), Reply.tool_call("submit_plan", GOOD_PLAN),
        Reply.error(401, message=f"Incorrect API key provided: {key}. You can find your API key at ..."),
        Reply.hang(),
    )
    for _ in range(3):
        try:
            response = await harness.router.generate("fast", REQUEST)
            shown += [repr(response), str(response.data), response.text]
        except LLMError as error:
            logging.getLogger("relay_desktop.test").exception("the call failed")
            shown += [str(error), repr(error)]
    task = asyncio.create_task(harness.router.generate("fast", REQUEST))
    await server.await_requests(len(server.requests) + 1, timeout=5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=5)
    shown += [repr(e) for e in harness.events] + [harness.router.meter.summary(), repr(harness.router.meter)]
    settings = provider_settings(server, target)
    server.default = Reply.error(401, message=f"bad key {key}")
    for result in await check_provider(settings, None, memory_keys({settings.name: [key]})):
        shown += [repr(result), result.message]
    shown.append(json.dumps(harness.router.settings.to_dict()))
    await harness.router.aclose()


async def test_no_key_in_anything_written(fake_llm: FakeLLMServer, debug_logs: tuple[Path, io.StringIO],
                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path / "home"))
    for name in ("anthropic", "openai", "httpx2", "httpcore2", "google_genai", "asyncio"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    shown: list[str] = []
    sent: set[str | None] = set()
    for target in TARGETS:
        fake_llm.reset()
        await exercise(fake_llm, target, shown)
        sent |= {r.key() for r in fake_llm.requests}
    PriceTable.defaults().write_user_copy()
    (tmp_path / "home" / "config" / "shown.txt").write_text("\n".join(shown), "utf-8")  # as an export would

    log_file, stream = debug_logs
    captured = capsys.readouterr()
    written = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    written["console"] = stream.getvalue().encode()
    written["stdout+stderr"] = (captured.out + captured.err).encode()
    assert len(log_file.read_bytes()) > 20_000, "the SDKs' debug logging should have written plenty"
    assert any(b"[REDACTED]" in data for data in written.values())  # keys were there to catch
    leaks = [(str(where), form) for where, data in written.items() for key in KEYS.values()
             for form in forms(key) if form in data]
    assert leaks == []
    # The requests did carry the keys, so the scan above had something to find.
    assert sent >= set(KEYS.values())


def test_cli_check_provider_with_a_key_in_the_environment(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    """The command line at -v, with the key in the environment and echoed back by the server."""
    key = KEYS["openai"]
    fake_llm.default = Reply.error(401, message=f"Incorrect API key provided: {key}")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "RELAY_DESKTOP_HOME": str(tmp_path),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", "OPENAI_API_KEY": key}
    result = subprocess.run([sys.executable, "-m", "relay_desktop", "-v", "check-provider", "openai", "--base-url",
                             fake_llm.base_url_for("openai")], capture_output=True, timeout=60, env=env,
                            stdin=subprocess.DEVNULL)
    output = result.stdout + result.stderr
    assert result.returncode == 1 and b"invalid key" in result.stdout
    assert b"DEBUG" in result.stderr  # the SDK's debug lines were written, redacted
    assert [form for form in forms(key) if form in output] == []
