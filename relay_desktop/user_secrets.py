"""Secrets the agent may type but never see: a banking PIN, a Wi-Fi password, a door code.

The user saves each under a name (``bank_pin``) in the OS keyring (service ``relay-desktop-secrets``), or gives
it in the environment as ``RELAY_SECRET_<NAME>`` (the name upper-cased: ``RELAY_SECRET_BANK_PIN``), which wins
for this process. The model is told only the names and types one with ``type(secret=NAME)``; its value goes to
the phone alone. Every value read is registered with the redaction filter, so wherever it might still show up —
a field that displays it, a log line, the history, a prompt — it is masked.

A keyring cannot list its entries, so the names saved here are kept in one more entry beside them. As with API
keys, the keyring is optional and never raises on reading: the environment still works, and ``status()`` says
what is wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import keyring
import keyring.errors

from relay_desktop.llm.keys import KeyStore, usable_backend
from relay_desktop.llm.redaction import redact_exception, register_secret

__all__ = ["ENV_PREFIX", "SERVICE", "Secret", "SecretError", "SecretStore", "check_name"]

log = logging.getLogger(__name__)

SERVICE = "relay-desktop-secrets"
ENV_PREFIX = "RELAY_SECRET_"
_INDEX = "__names__"
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


class SecretError(ValueError):
    """A secret that cannot be saved, read or deleted as asked; the message says why."""


def check_name(name: str) -> str:
    name = name.strip()
    if not _NAME.fullmatch(name):
        raise SecretError(f"{name!r} cannot be a secret's name: use lower-case letters, digits and _, starting "
                          "with a letter (bank_pin, wifi_guest)")
    return name


class Secret:
    """A saved secret: its name and where it came from show; its value only through ``reveal()``."""

    __slots__ = ("_value", "name", "source")
    _value: str
    name: str
    source: str        # "keyring" or the environment variable's name

    def __init__(self, name: str, value: str, source: str) -> None:
        object.__setattr__(self, "_value", value)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "source", source)
        register_secret(value, short=True)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret({self.name!r} from {self.source})"

    __str__ = __repr__

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("a Secret cannot be changed")

    def __reduce__(self) -> NoReturn:
        raise TypeError("a Secret cannot be pickled")


@dataclass(frozen=True)
class SecretName:
    name: str
    source: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "source": self.source}


class SecretStore:
    def __init__(self, backend: Any = None, *, environ: Mapping[str, str] | None = None) -> None:
        self._keys = KeyStore(backend)       # the same keyring, found and checked the same way as API keys
        self._environ = environ

    def __repr__(self) -> str:
        return "SecretStore()"

    @property
    def _env(self) -> Mapping[str, str]:
        return self._environ if self._environ is not None else os.environ

    def _backend(self) -> Any:
        backend, reason = usable_backend(self._keys.backend)
        return None if reason is not None else backend

    def status(self) -> str:
        """Where secrets are kept, in one sentence."""
        status = self._keys.status()
        return (f"Secrets are stored in the OS keyring ({status.backend})." if status.available else
                f"{status.message} Secrets can come from the environment instead ({ENV_PREFIX}NAME).")

    # ------------------------------------------------------------ reading

    def _saved_names(self) -> list[str]:
        backend = self._backend()
        if backend is None:
            return []
        try:
            text = backend.get_password(SERVICE, _INDEX) or ""
        except Exception as error:  # locked, D-Bus gone: the environment still works
            log.warning("cannot read the secrets' names from the keyring: %s", redact_exception(error))
            return []
        return [n for n in text.split() if _NAME.fullmatch(n)]

    def names(self) -> list[SecretName]:
        """Every secret's name (never a value), the environment's first."""
        found: dict[str, str] = {}
        for var in sorted(self._env):
            name = var[len(ENV_PREFIX):].lower() if var.startswith(ENV_PREFIX) else ""
            if _NAME.fullmatch(name) and self._env[var]:
                found.setdefault(name, var)
        for name in self._saved_names():
            found.setdefault(name, "keyring")
        return [SecretName(name, source) for name, source in sorted(found.items())]

    def get(self, name: str) -> Secret | None:
        name = check_name(name)
        var = ENV_PREFIX + name.upper()
        value = self._env.get(var)
        if value:
            return Secret(name, value, var)
        backend = self._backend()
        if backend is None:
            return None
        try:
            value = backend.get_password(SERVICE, name)
        except Exception as error:
            log.warning("cannot read the secret %s from the keyring: %s", name, redact_exception(error))
            return None
        return Secret(name, value, "keyring") if value else None

    # ------------------------------------------------------------ writing

    def set(self, name: str, value: str) -> None:
        name = check_name(name)
        if not value:
            raise SecretError(f"the secret {name} needs a value")
        backend = self._require()
        register_secret(value, short=True)
        try:
            backend.set_password(SERVICE, name, value)
            names = sorted({*self._saved_names(), name})
            backend.set_password(SERVICE, _INDEX, "\n".join(names))
        except Exception as error:
            raise SecretError(f"the keyring could not store the secret {name}: {redact_exception(error)}") from error

    def delete(self, name: str) -> None:
        name = check_name(name)
        backend = self._require()
        if name not in self._saved_names():
            raise SecretError(f"no secret called {name} is saved in the keyring (see `relay-desktop secrets list`)")
        try:
            with contextlib.suppress(keyring.errors.PasswordDeleteError):   # gone already: only the name is left
                backend.delete_password(SERVICE, name)
            names = [n for n in self._saved_names() if n != name]
            backend.set_password(SERVICE, _INDEX, "\n".join(names))
        except Exception as error:
            raise SecretError(f"the keyring could not delete the secret {name}: {redact_exception(error)}") from error

    def _require(self) -> Any:
        backend = self._backend()
        if backend is None:
            raise SecretError(f"{self._keys.status().message} Give the secret in the environment instead: "
                              f"{ENV_PREFIX}NAME=value")
        return backend

    # ------------------------------------------------------------ async twins (the keyring blocks)

    async def aget(self, name: str) -> Secret | None:
        return await asyncio.to_thread(self.get, name)

    async def anames(self) -> list[SecretName]:
        return await asyncio.to_thread(self.names)
