"""API keys: from the OS keyring or the environment, rotated with a cool-down, and never shown.

The keyring holds one entry per provider (service `relay-desktop`, user = provider name) with one key per
line, so several keys of one account can share the load. `keyring` blocks (D-Bus, Keychain, Credential
Manager, and an unlock prompt the user may leave open), so the app calls the `a…` methods, which run it on a
thread. Whatever the keyring does — missing, locked, plaintext, broken — reading keys never raises: the
environment and this session's keys still work, and `status()` says in plain words what is wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, Protocol

import keyring
import keyring.backends.fail
import keyring.backends.null
import keyring.errors

from relay_desktop.llm.errors import NoApiKey
from relay_desktop.llm.redaction import redact_exception, register_secret

log = logging.getLogger(__name__)

SERVICE = "relay-desktop"
BUILTIN_PROVIDERS = ("anthropic", "openai", "gemini")
ENV_VARS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),  # the order the google-genai SDK itself prefers
}
DEFAULT_COOL_DOWN = 30.0  # seconds a rate-limited key rests when the provider did not say how long
MAX_COOL_DOWN = 300.0  # a bad Retry-After header must not bench a key for hours
_FALLBACK = "use environment variables or keys for this session only."


def check_provider(provider: str) -> str:
    """The provider name as the keyring entry's user name; the same rule as ProviderSettings' names."""
    if not provider or provider != provider.strip().lower() or "/" in provider or any(c.isspace() for c in provider):
        raise ValueError(f"provider name {provider!r} must be lowercase, without spaces or '/'")
    return provider


def no_key_error(provider: str) -> NoApiKey:
    """What to tell a user whose provider has no key: where to add one, and which variable would do."""
    env = " or ".join(ENV_VARS.get(provider, ()))
    hint = f", or set {env}" if env else ""
    return NoApiKey(f"No API key for {provider}: add one in Settings{hint}.", provider=provider)


class ApiKey:
    """A key that shows only its provider, where it came from and a short fingerprint, whatever prints it.

    Immutable; equal by value. It refuses pickling (a pickle is a file waiting to happen); `reveal()` is the
    one way to the secret, so a reviewer can grep for every place a key leaves this object.
    """

    __slots__ = ("_secret", "provider", "source")
    _secret: str
    provider: str
    source: str  # "keyring", "session" or the environment variable's name

    def __init__(self, provider: str, secret: str, source: str) -> None:
        object.__setattr__(self, "_secret", secret)
        object.__setattr__(self, "provider", provider)
        object.__setattr__(self, "source", source)
        register_secret(secret)

    def reveal(self) -> str:
        return self._secret

    @property
    def fingerprint(self) -> str:
        """6 hex digits of the key's SHA-256: tells keys apart in logs, gives nothing of the key away."""
        return hashlib.sha256(self._secret.encode()).hexdigest()[:6]

    def __repr__(self) -> str:
        return f"ApiKey({self.provider}, {self.source}, #{self.fingerprint})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ApiKey) and other.provider == self.provider and other._secret == self._secret

    def __hash__(self) -> int:
        return hash((self.provider, self._secret))

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"ApiKey is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"ApiKey is immutable (cannot delete {name})")

    # Immutable, so a copy can be the object itself; that keeps deepcopy/dataclasses.asdict from going
    # through __reduce_ex__, which refuses.
    def __copy__(self) -> ApiKey:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ApiKey:
        return self

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise TypeError("API keys cannot be pickled: they are never written anywhere")

    def __reduce__(self) -> NoReturn:
        raise TypeError("API keys cannot be pickled: they are never written anywhere")

    def __getstate__(self) -> NoReturn:
        raise TypeError("API keys cannot be serialized")


class Backend(Protocol):
    """What KeyStore uses of a keyring backend (keyring.backend.KeyringBackend has it all)."""

    def get_password(self, service: str, username: str) -> str | None: ...

    def set_password(self, service: str, username: str, password: str) -> None: ...

    def delete_password(self, service: str, username: str) -> None: ...


@dataclass(frozen=True)
class KeyringStatus:
    available: bool
    backend: str  # the backend's dotted class name, e.g. keyring.backends.SecretService.Keyring
    message: str  # one or two plain sentences for the settings window


def _split(text: str | None) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _typed_keys(keys: Iterable[str]) -> list[str]:
    """Keys as the user gave them (one per item or per line), cleaned and deduplicated, and registered for
    redaction before anything can fail and print them."""
    values = list(dict.fromkeys(line for key in keys for line in _split(key)))
    for value in values:
        register_secret(value)
    return values


def _backend_name(backend: object) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


_KNOWN_KEYRINGS = (("secretservice", "the Secret Service (GNOME Keyring)"), ("kwallet", "KWallet"),
                   ("macos", "the macOS Keychain"), ("windows", "the Windows Credential Manager"))


def _keyring_title(backend: object) -> str:
    """The keyring as a user knows it ("KWallet"), not a Python class path."""
    name = _backend_name(backend).lower()
    return next((title for word, title in _KNOWN_KEYRINGS if word in name), _backend_name(backend))


def _is_file_backend(backend: object) -> bool:
    """keyrings.alt's file keyrings (plaintext, or "encrypted" next to its own key) and anything named like
    them: a key in a file in the home folder is exactly what the keyring is meant to avoid."""
    for cls in type(backend).__mro__:
        name = f"{cls.__module__}.{cls.__name__}".lower()
        if any(word in name for word in ("plaintext", "unencrypted", "filebacked", "keyrings.alt.file",
                                         "keyrings.alt.pyfs")) or "file_path" in vars(cls):
            return True
    return False


def _unusable_reason(backend: object) -> str | None:
    """Why `backend` cannot hold keys (a plain sentence), or None when it can."""
    name, title = _backend_name(backend), _keyring_title(backend)
    if isinstance(backend, keyring.backends.fail.Keyring | keyring.backends.null.Keyring):
        return f"No keyring backend is available (no system keyring was found); {_FALLBACK}"
    if _is_file_backend(backend):
        return f"The keyring backend {name} keeps keys in a plain file, so Relay Desktop does not use it; {_FALLBACK}"
    try:
        # SecretService's priority asks D-Bus whether the service runs; others check their platform.
        priority = type(backend).priority  # type: ignore[attr-defined]
    except Exception as error:
        return f"No keyring backend is available ({title}: {redact_exception(error)}); {_FALLBACK}"
    if isinstance(priority, int | float) and priority <= 0 and not hasattr(backend, "backends"):
        return f"No keyring backend is available ({title} is not running); {_FALLBACK}"
    return None


def usable_backend(backend: Any) -> tuple[Any, str | None]:
    """The keyring backend to use and why it cannot be used (None: it can); see ``_resolve``."""
    return _resolve(backend)


def _resolve(backend: Any) -> tuple[Any, str | None]:
    """The backend to use and why it cannot be used. keyring's chainer is replaced by its best usable member:
    the chainer would also read from (and write to) a plaintext member when the real one fails."""
    if hasattr(backend, "backends"):  # keyring.backends.chainer.ChainerBackend
        try:
            members = list(backend.backends)
        except Exception:  # a member's priority check failed while the chainer sorted them
            members = []
        for member in members:
            if _unusable_reason(member) is None:
                return member, None
        return backend, f"No keyring backend is available ({_backend_name(backend)} with no usable backend); " + \
            _FALLBACK
    return backend, _unusable_reason(backend)


class KeyStore:
    """Where keys come from: this session's keys, then the OS keyring, then the environment (built-ins only).

    Session keys come first because the user typed them into this run of the app on purpose. Sync methods
    block on the keyring; the event loop calls the `a…` wrappers.
    """

    def __init__(self, backend: Backend | None = None, *, environ: Mapping[str, str] | None = None) -> None:
        self._backend = backend  # None: keyring.get_keyring(), looked up at each call
        self._environ = environ  # None: the process environment, read at each call
        self._session: dict[str, list[str]] = {}

    @property
    def backend(self) -> Backend:
        if self._backend is not None:
            return self._backend
        try:
            return keyring.get_keyring()
        except Exception as error:  # a bad PYTHON_KEYRING_BACKEND or keyringrc must not stop the app
            log.warning("no keyring backend: %s", redact_exception(error))
            return keyring.backends.fail.Keyring()

    def status(self) -> KeyringStatus:
        backend, reason = _resolve(self.backend)
        name = _backend_name(backend)
        if reason is not None:
            return KeyringStatus(False, name, reason)
        try:
            backend.get_password(SERVICE, "__probe__")  # locked or broken keyrings only show when read
        except Exception as error:
            return KeyringStatus(False, name, _read_error(name, error))
        return KeyringStatus(True, name, f"Keys are stored in the OS keyring ({name}).")

    def keys(self, provider: str) -> list[ApiKey]:
        """Every key for `provider`, in order of preference, without duplicates or blank lines. Never raises
        for a keyring problem (it is logged; `status()` tells the user)."""
        check_provider(provider)
        found = [ApiKey(provider, secret, "session") for secret in self._session.get(provider, [])]
        found += [ApiKey(provider, secret, "keyring") for secret in self._keyring_keys(provider)]
        environ = self._environ if self._environ is not None else os.environ
        for var in ENV_VARS.get(provider, ()):
            found += [ApiKey(provider, secret, var) for secret in _split(environ.get(var))]
        return list(dict.fromkeys(found))  # first source wins for a key that is in two places

    def _keyring_keys(self, provider: str) -> list[str]:
        backend, reason = _resolve(self.backend)
        if reason is not None:
            return []
        try:
            return _split(backend.get_password(SERVICE, provider))
        except Exception as error:  # locked, D-Bus gone, prompt dismissed: the environment still works
            log.warning("cannot read %s keys from the keyring: %s", provider, redact_exception(error))
            return []

    def save(self, provider: str, keys: Iterable[str]) -> None:
        """Store `keys` in the keyring, replacing what was stored (none: delete the entry). Raises
        keyring.errors.KeyringError with a message for the user when the keyring cannot take them."""
        check_provider(provider)
        values = _typed_keys(keys)
        backend, reason = _resolve(self.backend)
        if reason is not None:
            raise keyring.errors.KeyringError(reason)
        try:
            if values:
                backend.set_password(SERVICE, provider, "\n".join(values))
            else:
                _delete_entry(backend, provider)
        except Exception as error:
            raise keyring.errors.KeyringError(
                f"The keyring ({_backend_name(backend)}) could not store the {provider} keys: "
                f"{redact_exception(error)}") from error

    def delete(self, provider: str) -> None:
        """Forget `provider`'s keys: the keyring entry and this session's keys. Environment variables are not
        ours to change. Deleting what is not there is fine."""
        check_provider(provider)
        self._session.pop(provider, None)
        backend, reason = _resolve(self.backend)
        if reason is not None:
            return  # nothing can have been stored there
        try:
            _delete_entry(backend, provider)
        except Exception as error:
            raise keyring.errors.KeyringError(
                f"The keyring ({_backend_name(backend)}) could not delete the {provider} keys: "
                f"{redact_exception(error)}") from error

    def set_session_keys(self, provider: str, keys: Iterable[str]) -> None:
        """Keys kept in memory only, until the app quits (when no keyring is available, or by choice)."""
        check_provider(provider)
        values = _typed_keys(keys)
        self._session[provider] = values

    def missing_key_error(self, provider: str) -> NoApiKey:
        """What to tell a user who has no key for `provider`, and why the keyring did not supply one when it
        cannot be used (locked, absent, a plain file): the keys they saved may be there, out of reach."""
        error = no_key_error(provider)
        status = self.status()
        if status.available:
            return error
        return NoApiKey(f"{error} {status.message}", provider=provider)

    async def amissing_key_error(self, provider: str) -> NoApiKey:
        return await asyncio.to_thread(self.missing_key_error, provider)

    async def akeys(self, provider: str) -> list[ApiKey]:
        return await asyncio.to_thread(self.keys, provider)

    async def asave(self, provider: str, keys: Iterable[str]) -> None:
        await asyncio.to_thread(self.save, provider, list(keys))

    async def adelete(self, provider: str) -> None:
        await asyncio.to_thread(self.delete, provider)

    async def astatus(self) -> KeyringStatus:
        return await asyncio.to_thread(self.status)


def _delete_entry(backend: Any, provider: str) -> None:
    with contextlib.suppress(keyring.errors.PasswordDeleteError):  # nothing stored: already as wanted
        backend.delete_password(SERVICE, provider)


def _read_error(name: str, error: BaseException) -> str:
    if isinstance(error, keyring.errors.KeyringLocked):
        return f"The keyring ({name}) is locked. Unlock it (log in again, or open the keyring app), or {_FALLBACK}"
    return f"The keyring ({name}) cannot be read ({redact_exception(error)}). Unlock or repair it, or {_FALLBACK}"


class KeyPool:
    """One provider's keys, taken in turn; a rate-limited key rests, a refused key is out for good.

    Lives on the event loop and never awaits, so concurrent tasks cannot interleave inside a method.
    """

    def __init__(self, keys: Iterable[ApiKey], *, clock: Callable[[], float] = time.monotonic) -> None:
        self._keys = list(dict.fromkeys(keys))
        self._clock = clock
        self._ready_at: dict[ApiKey, float] = {}
        self._strikes: dict[ApiKey, int] = {}  # rate limits in a row without a success, for the default rest
        self._refused: set[ApiKey] = set()
        self._next = 0

    @property
    def size(self) -> int:
        """Keys still usable (now or after a cool-down)."""
        return sum(1 for k in self._keys if k not in self._refused)

    def acquire(self) -> ApiKey | None:
        """The next key in turn that is not resting or refused; None when there is none right now."""
        now = self._clock()
        for offset in range(len(self._keys)):
            index = (self._next + offset) % len(self._keys)
            key = self._keys[index]
            if key in self._refused or self._ready_at.get(key, -math.inf) > now:
                continue
            self._next = index + 1  # round robin: the next call starts after this key
            return key
        return None

    def report_rate_limited(self, key: ApiKey, retry_after: float | None = None) -> None:
        """Rest `key` for `retry_after` seconds (capped), or the default rest when the provider gave none —
        doubled for each rate limit in a row, since the account is evidently still over its limit."""
        strikes = self._strikes.get(key, 0) + 1
        self._strikes[key] = strikes
        if retry_after is None or not math.isfinite(retry_after):
            rest = DEFAULT_COOL_DOWN * 2 ** min(strikes - 1, 10)
        else:
            rest = max(retry_after, 0.0)
        # Never shorten a rest that is already running: a concurrent request may have been told to wait longer.
        ready_at = self._clock() + min(rest, MAX_COOL_DOWN)
        self._ready_at[key] = max(ready_at, self._ready_at.get(key, -math.inf))

    def report_invalid(self, key: ApiKey) -> None:
        """The provider refused `key` (invalid, revoked, no credit): this pool never hands it out again."""
        self._refused.add(key)

    def report_ok(self, key: ApiKey) -> None:
        """A call with `key` succeeded: its next rate limit starts again from the default rest. A running rest
        stays: the success may come from a request sent before the rate limit."""
        self._strikes.pop(key, None)

    def next_ready_in(self) -> float | None:
        """Seconds until some key can be used (0 if one can now); None when every key was refused."""
        live = [k for k in self._keys if k not in self._refused]
        if not live:
            return None
        now = self._clock()
        return max(0.0, min(self._ready_at.get(k, -math.inf) - now for k in live))
