"""API keys from a real keyring (gnome-keyring over D-Bus) and the environment; rotation; never shown."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle
import threading
from typing import Any, ClassVar

import keyring
import keyring.backend
import keyring.backends.chainer
import keyring.backends.fail
import keyring.backends.null
import keyring.backends.SecretService
import keyring.errors
import pytest
import secretstorage

from relay_desktop.llm.keys import DEFAULT_COOL_DOWN, MAX_COOL_DOWN, SERVICE, ApiKey, KeyPool, KeyStore
from relay_desktop.llm.redaction import redact

SECRET_A = "sk-ant-api03-AAAAaaaaBBBBbbbbCCCCcccc"
SECRET_B = "sk-ant-api03-DDDDddddEEEEeeeeFFFFffff"
NO_BACKEND = ("No keyring backend is available (no system keyring was found); use environment variables or keys "
              "for this session only.")


def entries(provider: str) -> list[str]:
    """What gnome-keyring itself holds for `provider`, read with secretstorage rather than keyring."""
    with secretstorage.dbus_init() as connection:
        collection = secretstorage.get_default_collection(connection)
        items = collection.search_items({"service": SERVICE, "username": provider})
        return [item.get_secret().decode() for item in items]


class MemoryBackend:
    """A dict-backed stand-in backend; subclasses rename it. Not a KeyringBackend subclass on purpose: those
    register themselves with keyring, which could then pick one as this process's default keyring."""

    priority = 1

    def __init__(self) -> None:
        self.stored: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.stored.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.stored[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.stored.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not there")


class PlaintextKeyring(MemoryBackend):  # named like keyrings.alt.file.PlaintextKeyring
    pass


class FileBacked(MemoryBackend):  # keyrings.alt's file keyrings all have a file_path
    file_path = "/home/user/.local/share/python_keyring/crypted_pass.cfg"


class RaisingBackend(MemoryBackend):
    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    def get_password(self, service: str, username: str) -> str | None:
        raise self.error

    def set_password(self, service: str, username: str, password: str) -> None:
        raise self.error


# -- the real keyring -------------------------------------------------------------------------------------------

async def test_keyring_round_trip(secret_service: keyring.backends.SecretService.Keyring) -> None:
    store = KeyStore(secret_service, environ={})
    status = await store.astatus()
    assert status.available, status.message
    assert status.backend == "keyring.backends.SecretService.Keyring"
    await store.asave("anthropic", [SECRET_A, f"  {SECRET_B}  ", "", SECRET_A])
    keys = await store.akeys("anthropic")
    assert [k.reveal() for k in keys] == [SECRET_A, SECRET_B]
    assert [k.source for k in keys] == ["keyring", "keyring"]
    # One entry per provider, one key per line, under our service name: what gnome-keyring holds.
    assert entries("anthropic") == [f"{SECRET_A}\n{SECRET_B}"]
    assert await store.akeys("openai") == []
    await store.adelete("anthropic")
    await store.adelete("anthropic")  # deleting what is not there is fine
    assert await store.akeys("anthropic") == [] and entries("anthropic") == []


def test_save_replaces_and_an_empty_save_deletes(secret_service: keyring.backends.SecretService.Keyring) -> None:
    store = KeyStore(secret_service, environ={})
    store.save("openrouter", ["sk-or-v1-first-000000000000", "sk-or-v1-second-00000000000"])
    store.save("openrouter", ["sk-or-v1-third-000000000000\nsk-or-v1-fourth-00000000000\n\n"])  # pasted block
    assert [k.reveal() for k in store.keys("openrouter")] == ["sk-or-v1-third-000000000000",
                                                              "sk-or-v1-fourth-00000000000"]
    store.save("openrouter", ["   "])
    assert entries("openrouter") == [] and store.keys("openrouter") == []


async def test_keyring_keys_come_before_environment(secret_service: keyring.backends.SecretService.Keyring,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", f"{SECRET_B}\n{SECRET_A}")
    store = KeyStore(secret_service)  # the real process environment
    await store.asave("anthropic", [SECRET_A])
    keys = await store.akeys("anthropic")
    assert [(k.source, k.reveal()) for k in keys] == [("keyring", SECRET_A), ("ANTHROPIC_API_KEY", SECRET_B)]


def test_session_keys_stay_in_memory(secret_service: keyring.backends.SecretService.Keyring) -> None:
    store = KeyStore(secret_service, environ={"OPENAI_API_KEY": "sk-openai-env-key-000000"})
    store.save("openai", ["sk-openai-stored-key-00000"])
    store.set_session_keys("openai", ["sk-session-key-00000000", "sk-openai-env-key-000000", ""])
    assert [(k.source, k.reveal()) for k in store.keys("openai")] == [
        ("session", "sk-session-key-00000000"), ("session", "sk-openai-env-key-000000"),  # no duplicate from env
        ("keyring", "sk-openai-stored-key-00000")]
    assert entries("openai") == ["sk-openai-stored-key-00000"]  # session keys never reach the keyring
    store.delete("openai")
    assert [k.source for k in store.keys("openai")] == ["OPENAI_API_KEY"]  # the environment is not ours to change


async def test_locked_keyring(locked_secret_service: keyring.backends.SecretService.Keyring) -> None:
    store = KeyStore(locked_secret_service, environ={"OPENAI_API_KEY": "sk-env-fallback-key-00000"})
    status = await store.astatus()
    assert not status.available
    assert status.message == ("The keyring (keyring.backends.SecretService.Keyring) is locked. Unlock it (log in "
                              "again, or open the keyring app), or use environment variables or keys for this "
                              "session only.")
    assert [k.source for k in await store.akeys("openai")] == ["OPENAI_API_KEY"]
    with pytest.raises(keyring.errors.KeyringError, match="could not store the openai keys: KeyringLocked"):
        await store.asave("openai", ["sk-not-stored-while-locked-0000"])


def test_secret_service_without_a_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon gone (or never started): a plain status, and the environment still works."""
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/relay-desktop-test-bus")
    store = KeyStore(keyring.backends.SecretService.Keyring(), environ={"GEMINI_API_KEY": "AIza-env-only-0000000"})
    status = store.status()
    assert not status.available
    assert status.message.startswith("No keyring backend is available (the Secret Service (GNOME Keyring): ")
    assert status.message.endswith("; use environment variables or keys for this session only.")
    assert [k.source for k in store.keys("gemini")] == ["GEMINI_API_KEY"]


def test_chainer_uses_its_real_member_and_never_a_plaintext_one(
        secret_service: keyring.backends.SecretService.Keyring) -> None:
    plaintext = PlaintextKeyring()

    class Chainer:  # keyring.backends.chainer.ChainerBackend's shape, without registering a backend class
        priority = 10
        backends: ClassVar[list[Any]] = [plaintext, secret_service]

    store = KeyStore(Chainer(), environ={})
    assert store.status().backend == "keyring.backends.SecretService.Keyring"
    store.save("gemini", ["AIza-chained-key-000000000"])
    assert entries("gemini") == ["AIza-chained-key-000000000"] and plaintext.stored == {}


# -- no keyring, a plaintext one, a failing one ------------------------------------------------------------------

def test_no_backend_is_said_plainly_and_env_still_works() -> None:
    store = KeyStore(keyring.backends.fail.Keyring(), environ={"ANTHROPIC_API_KEY": SECRET_A})
    status = store.status()
    assert status == type(status)(False, "keyring.backends.fail.Keyring", NO_BACKEND)
    assert [k.reveal() for k in store.keys("anthropic")] == [SECRET_A]
    with pytest.raises(keyring.errors.KeyringError) as raised:
        store.save("anthropic", [SECRET_B])
    assert str(raised.value) == NO_BACKEND
    store.delete("anthropic")  # nothing to delete: no error


class EmptyChainer:
    priority = -1  # what ChainerBackend reports with nothing to chain
    backends = ()


@pytest.mark.parametrize("backend", [keyring.backends.null.Keyring(), EmptyChainer()], ids=["null", "empty-chainer"])
def test_null_and_empty_chainer_are_no_backend(backend: Any) -> None:
    status = KeyStore(backend, environ={}).status()
    assert not status.available and status.message.startswith("No keyring backend is available (")


def test_keyrings_own_chainer_does_not_crash() -> None:
    status = KeyStore(keyring.backends.chainer.ChainerBackend(), environ={}).status()
    assert status.message


@pytest.mark.parametrize("cls", [PlaintextKeyring, FileBacked])
def test_plaintext_or_file_backend_counts_as_none(cls: type[MemoryBackend]) -> None:
    backend = cls()
    backend.stored[(SERVICE, "openai")] = "sk-read-from-a-plain-file-000"
    store = KeyStore(backend, environ={})
    status = store.status()
    assert not status.available
    assert "keeps keys in a plain file, so Relay Desktop does not use it" in status.message
    assert store.keys("openai") == []  # not even read
    with pytest.raises(keyring.errors.KeyringError, match="plain file"):
        store.save("openai", ["sk-never-written-to-a-file-000"])
    assert backend.stored == {(SERVICE, "openai"): "sk-read-from-a-plain-file-000"}


@pytest.mark.parametrize("error", [
    keyring.errors.InitError("Failed to create the collection: no such object."),
    keyring.errors.KeyringLocked("Failed to unlock the collection!"),
    keyring.errors.KeyringError("user said no"),
    secretstorage.exceptions.PromptDismissedException("Prompt dismissed."),
    RuntimeError("D-Bus connection lost"),
], ids=lambda e: type(e).__name__)
def test_a_failing_keyring_never_crashes_reading(error: Exception) -> None:
    store = KeyStore(RaisingBackend(error), environ={"OPENAI_API_KEY": "sk-env-fallback-key-00000"})
    status = store.status()
    assert not status.available and status.message.endswith("use environment variables or keys for this "
                                                             "session only.")
    assert type(error).__name__ in status.message or "is locked" in status.message
    assert [k.source for k in store.keys("openai")] == ["OPENAI_API_KEY"]
    with pytest.raises(keyring.errors.KeyringError, match="could not store"):
        store.save("openai", ["sk-not-stored-0000000000"])


# -- environment, names, defaults --------------------------------------------------------------------------------

def test_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    store = KeyStore(keyring.backends.fail.Keyring())
    monkeypatch.setenv("GOOGLE_API_KEY", "AIza-google-key-000000")
    assert [(k.source, k.reveal()) for k in store.keys("gemini")] == [("GOOGLE_API_KEY", "AIza-google-key-000000")]
    monkeypatch.setenv("GEMINI_API_KEY", "  AIza-gemini-key-00000 \n")
    assert [(k.source, k.reveal()) for k in store.keys("gemini")] == [
        ("GEMINI_API_KEY", "AIza-gemini-key-00000"), ("GOOGLE_API_KEY", "AIza-google-key-000000")]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-env-key-000000")
    assert [k.source for k in store.keys("openai")] == ["OPENAI_API_KEY"]
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-v1-not-read-00000000")
    assert store.keys("openrouter") == []  # custom providers have no environment variable
    monkeypatch.setenv("ANTHROPIC_API_KEY", "   ")
    assert store.keys("anthropic") == []


@pytest.mark.parametrize("name", ["OpenAI", "", " openai", "my server", "a/b"])
def test_provider_names_are_checked(name: str) -> None:
    store = KeyStore(keyring.backends.fail.Keyring(), environ={})
    with pytest.raises(ValueError, match="must be lowercase"):
        store.keys(name)
    with pytest.raises(ValueError, match="must be lowercase"):
        store.set_session_keys(name, ["sk-whatever-000000000000"])


def test_default_backend_is_keyrings_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = keyring.backends.fail.Keyring()
    monkeypatch.setattr(keyring, "get_keyring", lambda: chosen)
    assert KeyStore().backend is chosen


async def test_async_methods_leave_the_event_loop_thread() -> None:
    seen: list[int] = []

    class Recording(MemoryBackend):
        def get_password(self, service: str, username: str) -> str | None:
            seen.append(threading.get_ident())
            return None

    store = KeyStore(Recording(), environ={})
    await store.akeys("anthropic")
    await store.astatus()
    assert len(seen) == 2 and threading.get_ident() not in seen


# -- ApiKey -----------------------------------------------------------------------------------------------------

def test_a_key_never_shows() -> None:
    key = ApiKey("anthropic", SECRET_A, "keyring")
    shown = [repr(key), str(key), f"{key}", f"{key!r}", f"{key:>60}", repr([key]), str({"k": key}), "%s" % key]  # noqa: UP031
    pieces = {SECRET_A[i:i + 4] for i in range(len(SECRET_A) - 3)}
    for text in shown:
        assert not any(piece in text for piece in pieces), text
    assert repr(key) == f"ApiKey(anthropic, keyring, #{key.fingerprint})"
    assert len(key.fingerprint) == 6 and all(c in "0123456789abcdef" for c in key.fingerprint)
    for serialize in (pickle.dumps, json.dumps, lambda k: pickle.dumps(k, protocol=0), lambda k: k.__getstate__()):
        with pytest.raises(TypeError):
            serialize(key)
    assert copy.copy(key) is key and copy.deepcopy([key])[0] is key  # immutable: copies are the object itself

    @dataclasses.dataclass
    class Holder:
        key: ApiKey

    assert dataclasses.asdict(Holder(key)) == {"key": key}
    assert redact(f"using {SECRET_A} now") == "using [REDACTED] now"  # making a key registers it


def test_keys_are_immutable_values() -> None:
    key = ApiKey("openai", "sk-value-key-000000000000", "session")
    with pytest.raises(AttributeError):
        key._secret = "sk-other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        key.provider = "gemini"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del key.source
    same = ApiKey("openai", "sk-value-key-000000000000", "OPENAI_API_KEY")
    assert key == same and hash(key) == hash(same) and key.fingerprint == same.fingerprint
    assert key != ApiKey("openrouter", "sk-value-key-000000000000", "session")
    assert key.reveal() == "sk-value-key-000000000000"
    assert not hasattr(key, "__dict__")


# -- KeyPool ----------------------------------------------------------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def pool_keys(*names: str) -> list[ApiKey]:
    return [ApiKey("openai", f"sk-pool-key-{n}-0000000000", "session") for n in names]


def test_pool_rotates_and_cools_down() -> None:
    clock = Clock()
    a, b, c = pool_keys("a", "b", "c")
    pool = KeyPool([a, b, c, a], clock=clock)
    assert pool.size == 3
    assert [pool.acquire() for _ in range(4)] == [a, b, c, a]  # round robin
    pool.report_rate_limited(b, retry_after=10)
    assert [pool.acquire() for _ in range(3)] == [c, a, c]  # b rests
    clock.now += 9.9
    assert pool.acquire() == a
    clock.now += 0.1
    assert pool.acquire() == b  # rested exactly as long as the provider asked
    pool.report_invalid(c)
    assert pool.size == 2 and [pool.acquire() for _ in range(3)] == [a, b, a]


def test_pool_when_every_key_rests_or_is_refused() -> None:
    clock = Clock()
    a, b = pool_keys("a", "b")
    pool = KeyPool([a, b], clock=clock)
    pool.report_rate_limited(a, retry_after=5)
    pool.report_rate_limited(b)  # no retry-after: the default cool-down
    assert pool.acquire() is None
    assert pool.next_ready_in() == 5
    pool.report_rate_limited(a, retry_after=10_000)  # capped: a bad header cannot bench a key for hours
    assert pool.next_ready_in() == DEFAULT_COOL_DOWN  # b, after the default cool-down
    clock.now += DEFAULT_COOL_DOWN
    assert pool.next_ready_in() == 0 and pool.acquire() == b
    pool.report_invalid(b)
    assert pool.next_ready_in() == MAX_COOL_DOWN - DEFAULT_COOL_DOWN  # a: the cap
    assert pool.acquire() is None
    pool.report_invalid(a)
    assert pool.acquire() is None and pool.next_ready_in() is None and pool.size == 0
    assert KeyPool([], clock=clock).acquire() is None and KeyPool([], clock=clock).next_ready_in() is None


def test_default_rest_grows_until_a_success() -> None:
    clock = Clock()
    (a,) = pool_keys("a")
    pool = KeyPool([a], clock=clock)
    rests = []
    for _ in range(6):
        pool.report_rate_limited(a, retry_after=None)
        rests.append(pool.next_ready_in())
        clock.now += rests[-1] or 0
    assert rests == [30, 60, 120, 240, 300, 300]
    pool.report_ok(a)
    pool.report_rate_limited(a, retry_after=math.nan)  # an unreadable header counts as none
    assert pool.next_ready_in() == DEFAULT_COOL_DOWN


def test_a_rest_is_never_shortened_by_a_concurrent_answer() -> None:
    clock = Clock()
    a, b = pool_keys("a", "b")
    pool = KeyPool([a, b], clock=clock)
    assert pool.acquire() == a and pool.acquire() == b  # two requests in flight
    pool.report_rate_limited(a, retry_after=20)
    pool.report_rate_limited(a, retry_after=2)  # the other request's 429 said less
    pool.report_ok(a)  # and a request sent before the 429 came back fine
    assert [pool.acquire() for _ in range(2)] == [b, b]
    clock.now += 19
    assert pool.acquire() == b
    clock.now += 1
    assert pool.acquire() == a
    pool.report_rate_limited(b, retry_after=-3)  # nonsense: usable at once
    assert pool.acquire() == b
