"""API keys: from the OS keyring or the environment, rotated with a cool-down, and never shown.

The keyring holds one entry per provider (service `relay-desktop`, user = provider name) with one key per
line, so several keys of one account can share the load. `keyring` blocks (D-Bus, Keychain, Credential
Manager), so the app calls the `a…` methods, which run it on a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NoReturn

import keyring
import keyring.backend
import keyring.errors

from relay_desktop.llm.redaction import redact, register_secret

log = logging.getLogger(__name__)

SERVICE = "relay-desktop"
ENV_VARS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}
DEFAULT_COOL_DOWN = 30.0  # seconds a rate-limited key rests when the provider did not say how long
MAX_COOL_DOWN = 300.0


class ApiKey:
    """A key that shows only where it came from and a short fingerprint, whatever prints it."""

    __slots__ = ("_secret", "provider", "source")

    def __init__(self, provider: str, secret: str, source: str) -> None:
        self._secret = secret
        self.provider = provider
        self.source = source  # "keyring", "session" or the environment variable's name
        register_secret(secret)

    def reveal(self) -> str:
        return self._secret

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(self._secret.encode()).hexdigest()[:6]

    def __repr__(self) -> str:
        return f"ApiKey({self.provider}, {self.source}, #{self.fingerprint})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ApiKey) and other._secret == self._secret and other.provider == self.provider

    def __hash__(self) -> int:
        return hash((self.provider, self._secret))

    def __reduce__(self) -> NoReturn:
        raise TypeError("API keys cannot be pickled: they are never written anywhere")

    def __getstate__(self) -> NoReturn:
        raise TypeError("API keys cannot be serialized")


@dataclass(frozen=True)
class KeyringStatus:
    available: bool
    backend: str
    message: str  # one sentence for the settings window


def _split(text: str | None) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _backend_name(backend: Any) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _usable(backend: Any) -> bool:
    """False for the fail/null backends and for plaintext files, which would put keys on disk unencrypted."""
    name = _backend_name(backend).lower()
    if any(word in name for word in ("fail", "null", "plaintext", "unencrypted")):
        return False
    if hasattr(backend, "backends"):  # keyring's ChainerBackend: usable if one of its members is
        return any(_usable(b) for b in backend.backends)
    priority = getattr(type(backend), "priority", 1)
    return not (isinstance(priority, int | float) and priority <= 0)


class KeyStore:
    def __init__(self, backend: keyring.backend.KeyringBackend | None = None, *,
                 environ: dict[str, str] | None = None) -> None:
        self._backend = backend
        self._environ = environ  # None: the process environment, read at each call
        self._session: dict[str, list[str]] = {}

    @property
    def backend(self) -> keyring.backend.KeyringBackend:
        return self._backend if self._backend is not None else keyring.get_keyring()

    def status(self) -> KeyringStatus:
        backend = self.backend
        name = _backend_name(backend)
        if not _usable(backend):
            return KeyringStatus(False, name, f"No keyring backend is available ({name}); use environment variables "
                                              "or keys for this session only.")
        try:
            backend.get_password(SERVICE, "__probe__")
        except keyring.errors.KeyringError as error:
            return KeyringStatus(False, name, f"The keyring ({name}) cannot be read: {redact(str(error)) or 'locked'}"
                                              ". Unlock it, or use environment variables or keys for this session "
                                              "only.")
        return KeyringStatus(True, name, f"Keys are stored in the OS keyring ({name}).")

    def keys(self, provider: str) -> list[ApiKey]:
        """Every key for `provider`: session keys, then the keyring entry, then the environment; no duplicates."""
        found: list[ApiKey] = [ApiKey(provider, k, "session") for k in self._session.get(provider, [])]
        for secret in self._keyring_keys(provider):
            found.append(ApiKey(provider, secret, "keyring"))
        environ = self._environ if self._environ is not None else os.environ
        for var in ENV_VARS.get(provider, ()):
            for secret in _split(environ.get(var)):
                found.append(ApiKey(provider, secret, var))
        unique: list[ApiKey] = []
        for key in found:
            if key not in unique:
                unique.append(key)
        return unique

    def _keyring_keys(self, provider: str) -> list[str]:
        backend = self.backend
        if not _usable(backend):
            return []
        try:
            return _split(backend.get_password(SERVICE, provider))
        except keyring.errors.KeyringError as error:  # locked, D-Bus gone, user said no: env keys still work
            log.warning("cannot read %s keys from the keyring: %s", provider, redact(str(error)))
            return []

    def save(self, provider: str, keys: Iterable[str]) -> None:
        """Store `keys` (replacing what was stored). Raises keyring.errors.KeyringError with a plain message."""
        values = [k.strip() for k in keys if k.strip()]
        for value in values:
            register_secret(value)
        backend = self.backend
        if not _usable(backend):
            raise keyring.errors.KeyringError(self.status().message)
        if not values:
            self.delete(provider)
            return
        backend.set_password(SERVICE, provider, "\n".join(values))

    def delete(self, provider: str) -> None:
        with contextlib.suppress(keyring.errors.PasswordDeleteError):  # nothing stored: already as wanted
            self.backend.delete_password(SERVICE, provider)

    def set_session_keys(self, provider: str, keys: Iterable[str]) -> None:
        """Keys kept in memory only, until the app quits (when no keyring is available, or by choice)."""
        values = [k.strip() for k in keys if k.strip()]
        for value in values:
            register_secret(value)
        self._session[provider] = values

    async def akeys(self, provider: str) -> list[ApiKey]:
        return await asyncio.to_thread(self.keys, provider)

    async def asave(self, provider: str, keys: Iterable[str]) -> None:
        await asyncio.to_thread(self.save, provider, list(keys))

    async def adelete(self, provider: str) -> None:
        await asyncio.to_thread(self.delete, provider)

    async def astatus(self) -> KeyringStatus:
        return await asyncio.to_thread(self.status)


class KeyPool:
    """One provider's keys, taken in turn; a rate-limited key rests, a refused key is out for good.

    Lives on the event loop and never awaits, so concurrent calls cannot interleave inside it.
    """

    def __init__(self, keys: Iterable[ApiKey], *, clock: Callable[[], float] = time.monotonic) -> None:
        self._keys = list(dict.fromkeys(keys))
        self._clock = clock
        self._ready_at: dict[ApiKey, float] = {}
        self._refused: set[ApiKey] = set()
        self._next = 0

    @property
    def size(self) -> int:
        """Keys still usable (now or after a cool-down)."""
        return sum(1 for k in self._keys if k not in self._refused)

    def acquire(self) -> ApiKey | None:
        now = self._clock()
        for offset in range(len(self._keys)):
            index = (self._next + offset) % len(self._keys)
            key = self._keys[index]
            if key in self._refused or self._ready_at.get(key, 0.0) > now:
                continue
            self._next = index + 1  # round robin: the next call starts after this key
            return key
        return None

    def report_rate_limited(self, key: ApiKey, retry_after: float | None = None) -> None:
        rest = DEFAULT_COOL_DOWN if retry_after is None else min(max(retry_after, 0.0), MAX_COOL_DOWN)
        self._ready_at[key] = self._clock() + rest

    def report_invalid(self, key: ApiKey) -> None:
        self._refused.add(key)

    def report_ok(self, key: ApiKey) -> None:
        self._ready_at.pop(key, None)

    def next_ready_in(self) -> float | None:
        """Seconds until some key can be used (0 if one can now); None when every key was refused."""
        live = [k for k in self._keys if k not in self._refused]
        if not live:
            return None
        now = self._clock()
        return max(0.0, min(self._ready_at.get(k, 0.0) - now for k in live))
