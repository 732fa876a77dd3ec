"""``adb reverse`` on the virtual phone: adbd's ``reverse:`` services and the listeners they install.

``adb reverse DEVICE-SPEC HOST-SPEC`` reaches the phone as the stream ``reverse:forward:DEVICE;HOST``. As adbd's
``handle_forward_request()`` (AOSP packages/modules/adb ``adb.cpp``, ``adb_listeners.cpp``), the phone then
listens on the device spec; every on-device connection to it becomes an ADB stream that the *phone* opens
towards the host (``OPEN(id, 0, "tcp:PORT")``), and the host's adb server connects that to its port. The
replies are adbd's to the byte, because Google's adb prints them as they come: one ``OKAY`` (plus the port
when ``tcp:0`` was resolved), ``FAIL`` and a 4-hex-digit length with adbd's message, or for ``list-forward``
the length-prefixed list alone.

Listeners die with the ADB connection that installed them (adbd registers them as a disconnect callback of
the transport), so a reconnecting host never inherits a tunnel to a port nobody serves. The host's adb server
keeps its own copy of the list it has seen go by and aborts on an OPEN to a host spec it does not know, which is
why the phone only ever opens the exact HOST-SPEC the host gave.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from relay_desktop.sim.streams import DuplexStream

if TYPE_CHECKING:
    from relay_desktop.sim.sockets import SocketRegistry

__all__ = ["HostLink", "ReverseForwards", "reverse_service"]

# The shell user may create socket files only where it may create files (adbd runs as `shell`).
_WRITABLE_PREFIXES = ("/storage/emulated/0/", "/sdcard/", "/data/local/tmp/")
# Where the kernel starts handing out ports for bind(0) (ip_local_port_range on Android).
_EPHEMERAL_FIRST, _EPHEMERAL_LAST = 32768, 60999


class HostLink(Protocol):
    """The ADB connection a reverse belongs to, as the listeners need it."""

    serial: str                      # how adbd names its transport in `reverse --list`: "host-<fd>" over TCP
    reverses: ReverseForwards        # the device's listener list

    async def open_to_host(self, destination: str, stream: DuplexStream) -> None:
        """OPEN ``destination`` on the host and carry ``stream`` (the device-side end: ``outgoing`` goes to the
        host) over it until either side closes."""
        ...


@dataclass
class _Listener:
    local_name: str                  # the device spec as given, or tcp:<port> once tcp:0 is resolved
    connect_to: str                  # the host spec sent in OPEN; a rebind changes it in place
    link: HostLink
    unregister: Callable[[], None]


class ReverseForwards:
    """adbd's listener list: one per device (all connections share it), in the order they were installed."""

    def __init__(self, sockets: SocketRegistry) -> None:
        self.sockets = sockets
        self._listeners: list[_Listener] = []

    def listing(self) -> str:
        """``list-forward``: ``<transport serial> <device spec> <host spec>`` per line."""
        return "".join(f"{item.link.serial} {item.local_name} {item.connect_to}\n" for item in self._listeners)

    def install(self, local: str, connect_to: str, link: HostLink, no_rebind: bool) -> tuple[str | None, int]:
        """Listen on ``local`` for ``link``; returns (adbd's error message or None, the port bound for tcp:0)."""
        for item in self._listeners:
            if item.local_name == local:   # adbd compares the text, not the socket it names
                if no_rebind:
                    return "cannot rebind existing socket", 0
                item.connect_to, item.link = connect_to, link
                return None, 0
        error = _bind_error(local)
        if error is not None:
            return f"cannot bind listener: {error}", 0
        resolved = 0
        if local.startswith("tcp:") and int(local[4:]) == 0:
            resolved = self._free_port()
            local = f"tcp:{resolved}"
        listener = _Listener(local, connect_to, link, lambda: None)
        try:
            listener.unregister = self.sockets.register(local, self._accept_for(listener))
        except OSError:
            return "cannot bind listener: Address already in use", 0
        except ValueError:
            return f"cannot bind listener: unknown socket specification:{local}", 0
        self._listeners.append(listener)
        return None, resolved

    def remove(self, local: str) -> bool:
        for item in self._listeners:
            if item.local_name == local:
                self._drop(item)
                return True
        return False

    def remove_all(self) -> None:
        for item in list(self._listeners):
            self._drop(item)

    def forget(self, link: HostLink) -> None:
        """The connection is gone: its listeners stop listening (connections already made end with it too)."""
        for item in [item for item in self._listeners if item.link is link]:
            self._drop(item)

    def _drop(self, item: _Listener) -> None:
        # Only the listening socket closes: streams it already carried stay up, as in adbd.
        item.unregister()
        self._listeners.remove(item)

    def _accept_for(self, listener: _Listener) -> Callable[[DuplexStream], Awaitable[None]]:
        async def accept(stream: DuplexStream) -> None:
            # Read at connect time: a rebind since the listener was made points new connections elsewhere.
            # The ADB stream carries the on-device client's side: what it writes goes to the host.
            await listener.link.open_to_host(listener.connect_to, stream.other_end())
        return accept

    def _free_port(self) -> int:
        for port in range(_EPHEMERAL_FIRST, _EPHEMERAL_LAST + 1):
            if f"tcp:{port}" not in self.sockets:
                return port
        raise OSError("no free port")


def _bind_error(spec: str) -> str | None:
    """Why adbd's ``socket_spec_listen()`` would fail for ``spec`` on a phone, or None."""
    kind, _, rest = spec.partition(":")
    if kind == "tcp":
        if not re.fullmatch(r"[+-]?\d+", rest):
            return "listening on specified hostname currently unsupported"
        if not 0 <= int(rest) <= 65535:
            return f"bad port number '{int(rest)}'"
        return None
    if kind in ("local", "localreserved"):
        return "Permission denied"       # /dev/socket belongs to root; adbd runs as shell
    if kind == "localfilesystem":
        return None if rest.startswith(_WRITABLE_PREFIXES) else "Permission denied"
    if kind == "localabstract":
        return None
    return f"unknown socket specification:{spec}"


# ---------------------------------------------------------------- the service


def _okay() -> bytes:
    return b"OKAY"


def _fail(message: str) -> bytes:
    raw = message.encode()
    return b"FAIL" + f"{len(raw):04x}".encode() + raw


def _protocol_string(text: str) -> bytes:
    raw = text.encode()
    return f"{len(raw):04x}".encode() + raw


def handle_request(link: HostLink, command: str) -> bytes:
    """The bytes adbd writes for ``reverse:<command>`` (the service name without its ``reverse:``)."""
    reverses = link.reverses
    if command == "list-forward":
        return _protocol_string(reverses.listing())
    if command == "killforward-all":
        reverses.remove_all()
        return _okay()
    if command.startswith("killforward:"):
        spec = command[len("killforward:"):]
        if not spec or ";" in spec:
            return _fail(f"bad killforward: {spec}")
        return _okay() if reverses.remove(spec) else _fail(f"listener '{spec}' not found")
    if command.startswith("forward:"):
        rest = command[len("forward:"):]
        no_rebind = rest.startswith("norebind:")
        if no_rebind:
            rest = rest[len("norebind:"):]
        pieces = rest.split(";")
        if len(pieces) != 2 or not pieces[0] or not pieces[1] or pieces[1].startswith("*"):
            return _fail(f"bad forward: {rest}")
        error, port = reverses.install(pieces[0], pieces[1], link, no_rebind)
        if error is not None:
            return _fail(error)
        return _okay() + (_protocol_string(str(port)) if port else b"")
    return _fail("not a reverse forwarding command")


def reverse_service(link: HostLink, command: str) -> Callable[[DuplexStream], Awaitable[None]]:
    """The ``reverse:`` stream: one reply, then the phone closes it (adbd closes its end of the socketpair)."""
    async def serve(stream: DuplexStream) -> None:
        try:
            await stream.write(handle_request(link, command))
        finally:
            stream.close()
    return serve
