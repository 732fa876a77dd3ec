"""Device-side sockets that simulated processes listen on (``localabstract:NAME``, ``tcp:PORT``).

A simulated on-device server (the scrcpy server, say) registers a handler; when the host opens an ADB
stream to that socket spec, the transport calls the handler with the stream.
"""

from __future__ import annotations

from collections.abc import Callable

from relay_desktop.sim.streams import SocketHandler


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
