"""Device-side sockets that simulated processes listen on (``localabstract:NAME``, ``tcp:PORT``).

A simulated on-device server (the scrcpy server, say) registers a handler; when the host opens an ADB
stream to that socket spec, the transport calls the handler with the stream. A simulated on-device *client*
(the scrcpy server in reverse mode, connecting to a socket that ``adb reverse`` listens on) calls
:meth:`SocketRegistry.connect` and gets the other end of a fresh stream, as ``connect()`` gives a process a
connected fd.
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Callable

from relay_desktop.sim.streams import DuplexStream, SocketHandler


def normalize_spec(spec: str) -> str:
    """``tcp:HOST:PORT`` and ``tcp:PORT`` name the same device socket; other specs are kept as given."""
    kind, _, rest = spec.partition(":")
    if kind == "tcp":
        port = rest.rsplit(":", 1)[-1]
        if not port.isdigit():
            raise ValueError(f"bad tcp socket spec {spec!r}")
        return f"tcp:{int(port)}"
    if kind in ("localabstract", "localreserved", "localfilesystem", "local") and rest:
        return spec
    raise ValueError(f"unsupported socket spec {spec!r}")


class SocketRegistry:
    def __init__(self) -> None:
        self._handlers: dict[str, SocketHandler] = {}
        self._serving: set[asyncio.Task[None]] = set()

    def register(self, spec: str, handler: SocketHandler) -> Callable[[], None]:
        """Listen on ``spec``; returns a function that stops listening."""
        key = normalize_spec(spec)
        if key in self._handlers:
            raise OSError(f"{spec}: Address already in use")
        self._handlers[key] = handler

        def unregister() -> None:
            if self._handlers.get(key) is handler:
                del self._handlers[key]

        return unregister

    def lookup(self, spec: str) -> SocketHandler | None:
        try:
            return self._handlers.get(normalize_spec(spec))
        except ValueError:
            return None

    def __contains__(self, spec: str) -> bool:
        return self.lookup(spec) is not None

    def connect(self, spec: str) -> DuplexStream:
        """Connect an on-device client to ``spec``: the client's end of the stream, its server's end handed to the
        listener's handler. Nothing listening raises :class:`ConnectionRefusedError`, as ``connect()`` does."""
        handler = self.lookup(spec)
        if handler is None:
            raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
        server_end = DuplexStream()
        task = asyncio.create_task(self._serve(handler, server_end))
        self._serving.add(task)
        task.add_done_callback(self._serving.discard)
        return server_end.other_end()   # what the client writes is what the server reads, and back

    @staticmethod
    async def _serve(handler: SocketHandler, stream: DuplexStream) -> None:
        try:
            await handler(stream)
        finally:
            # The server side is closed both ways: the client reads EOF and its writes fail (EPIPE).
            stream.outgoing.close()
            stream.incoming.close()
