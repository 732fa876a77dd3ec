"""API keys from a real keyring (gnome-keyring over D-Bus) and the environment; rotation; never shown."""

from __future__ import annotations

import copy
import json
import pickle

import keyring.backends.fail
import keyring.errors
import pytest

from relay_desktop.llm.keys import SERVICE, ApiKey, KeyPool, KeyStore
from relay_desktop.llm.redaction import redact

SECRET_A = "sk-ant-api03-AAAAaaaaBBBBbbbbCCCCcccc"
SECRET_B = "sk-ant-api03-DDDDddddEEEEeeeeFFFFffff"


async def test_keyring_round_trip(secret_service: object) -> None:
    store = KeyStore(secret_service, environ={})  # type: ignore[arg-type]
    status = await store.astatus()
    assert status.available and "SecretService" in status.backend
    await store.asave("anthropic", [SECRET_A, f"  {SECRET_B}  ", ""])
    keys = await store.akeys("anthropic")
    assert [k.reveal() for k in keys] == [SECRET_A, SECRET_B]
    assert {k.source for k in keys} == {"keyring"}
    # One entry per provider, one key per line, under our service name: what `keyring get` shows too.
    assert secret_service.get_password(SERVICE, "anthropic") == f"{SECRET_A}\n{SECRET_B}"  # type: ignore[attr-defined]
    assert await store.akeys("openai") == []
    await store.adelete("anthropic")
    await store.adelete("anthropic")  # deleting what is not there is fine
    assert await store.akeys("anthropic") == []


def test_environment_and_session_keys() -> None:
    env = {"GOOGLE_API_KEY": "AIza-google-key-000000", "GEMINI_API_KEY": "AIza-gemini-key-00000",
           "OPENAI_API_KEY": "sk-openai-env-key-000000"}
    store = KeyStore(keyring.backends.fail.Keyring(), environ=env)
    assert [(k.source, k.reveal()) for k in store.keys("gemini")] == [
        ("GEMINI_API_KEY", "AIza-gemini-key-00000"), ("GOOGLE_API_KEY", "AIza-google-key-000000")]
    store.set_session_keys("openai", ["sk-session-key-00000000", "sk-openai-env-key-000000"])
    assert [(k.source, k.reveal()) for k in store.keys("openai")] == [
        ("session", "sk-session-key-00000000"), ("session", "sk-openai-env-key-000000")]  # no duplicate from env
    assert store.keys("ollama") == []  # custom providers have no environment variable


async def test_keyring_keys_come_before_environment(secret_service: object) -> None:
    store = KeyStore(secret_service, environ={"ANTHROPIC_API_KEY": SECRET_B})  # type: ignore[arg-type]
    await store.asave("anthropic", [SECRET_A])
    assert [k.source for k in await store.akeys("anthropic")] == ["keyring", "ANTHROPIC_API_KEY"]


def test_no_backend_is_said_plainly_and_env_still_works() -> None:
    store = KeyStore(keyring.backends.fail.Keyring(), environ={"ANTHROPIC_API_KEY": SECRET_A})
    status = store.status()
    assert not status.available
    assert status.message.startswith("No keyring backend is available")
    assert "environment variables or keys for this session only" in status.message
    assert [k.reveal() for k in store.keys("anthropic")] == [SECRET_A]
    with pytest.raises(keyring.errors.KeyringError, match="No keyring backend"):
        store.save("anthropic", [SECRET_B])


def test_plaintext_backend_counts_as_none() -> None:
    class PlaintextKeyring(keyring.backends.fail.Keyring):  # stands in for keyrings.alt's file backend
        priority = 1  # type: ignore[assignment]

    store = KeyStore(PlaintextKeyring(), environ={})
    assert not store.status().available
    with pytest.raises(keyring.errors.KeyringError):
        store.save("openai", ["sk-never-written-to-a-file-000"])


async def test_locked_keyring(locked_secret_service: object) -> None:
    store = KeyStore(locked_secret_service, environ={"OPENAI_API_KEY": "sk-env-fallback-key-00000"})  # type: ignore[arg-type]
    status = await store.astatus()
    assert not status.available and "cannot be read" in status.message and "Unlock it" in status.message
    assert [k.source for k in await store.akeys("openai")] == ["OPENAI_API_KEY"]


def test_a_key_never_shows() -> None:
    key = ApiKey("anthropic", SECRET_A, "keyring")
    shown = [repr(key), str(key), f"{key}", f"{key!r}", f"{key:>40}", repr([key]), str({"k": key})]
    assert all(SECRET_A not in text and "AAAA" not in text for text in shown)
    assert repr(key).startswith("ApiKey(anthropic, keyring, #")
    with pytest.raises(TypeError):
        pickle.dumps(key)
    with pytest.raises(TypeError):
        json.dumps(key)
    with pytest.raises(TypeError):
        copy.deepcopy(key)
    assert redact(f"using {SECRET_A} now") == "using [REDACTED] now"  # loading a key registers it


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_pool_rotates_and_cools_down() -> None:
    clock = Clock()
    a, b, c = (ApiKey("openai", f"sk-pool-key-{n}-0000000000", "session") for n in "abc")
    pool = KeyPool([a, b, c, a], clock=clock)
    assert pool.size == 3
    assert [pool.acquire() for _ in range(4)] == [a, b, c, a]  # round robin
    pool.report_rate_limited(b, retry_after=10)
    assert [pool.acquire() for _ in range(3)] == [c, a, c]  # b rests
    clock.now += 10
    assert pool.acquire() == a and pool.acquire() == b  # rested long enough
    pool.report_invalid(c)
    assert pool.size == 2 and [pool.acquire() for _ in range(3)] == [a, b, a]


def test_pool_when_every_key_rests_or_is_refused() -> None:
    clock = Clock()
    a, b = (ApiKey("gemini", f"AIza-pool-{n}-000000000000", "session") for n in "ab")
    pool = KeyPool([a, b], clock=clock)
    pool.report_rate_limited(a, retry_after=5)
    pool.report_rate_limited(b)  # no retry-after: the default cool-down
    assert pool.acquire() is None
    assert pool.next_ready_in() == 5
    pool.report_rate_limited(a, retry_after=10_000)  # capped: a bad header cannot bench a key for hours
    assert pool.next_ready_in() == 30  # b, after the default cool-down
    clock.now += 30
    assert pool.next_ready_in() == 0 and pool.acquire() == b
    pool.report_invalid(b)
    assert pool.next_ready_in() == 270  # a: 300 s, the cap
    pool.report_invalid(a)
    assert pool.acquire() is None and pool.next_ready_in() is None and pool.size == 0
