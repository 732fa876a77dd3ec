"""The virtual phone's uiautomator2 server (u2.jar 0.4.1, as uiautomator2 3.7.x ships it), started the way
the real client starts it::

    CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008

The jar must be there and be u2.jar (a zip whose dex defines ``com.wetest.uia2.Main``), else app_process
fails as on a phone. ``Main`` parses ``-p/--port`` and ``-h/--help`` with commons-cli, prints its start-up
log, and listens on device ``tcp:PORT`` with NanoHTTPD: ``/ping`` answers ``pong``, ``/jsonrpc/0`` is the
JSON-RPC endpoint (``u2_rpc.py``, methods in ``u2_service.py``), ``/stop`` ends the server, anything else is
``404 Not Found!!!``. Connections are HTTP/1.1 keep-alive until the client closes them, or until 5 s pass
without a request (NanoHTTPD's socket read timeout).

The server lives as long as its shell: when the client closes the ``adb shell`` stream (uiautomator2's
``stop_uiautomator``) the process dies with it, and :func:`kill_servers` kills it from the phone's side (the
low-memory killer, ``pkill``). Either way the port is closed at once, so ``/ping`` fails.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import time
import weakref
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from relay_desktop.sim.streams import DuplexStream
from relay_desktop.sim.u2_rpc import RpcServer
from relay_desktop.sim.u2_service import AutomatorService

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone
    from relay_desktop.sim.shell.base import CommandContext

__all__ = ["CLASS_NAME", "DEFAULT_PORT", "U2Server", "install", "kill_servers"]

CLASS_NAME = "com.wetest.uia2.Main"
DEFAULT_PORT = 9008
TMP_DIR = "/data/local/tmp/u2"
READ_TIMEOUT_S = 5.0       # NanoHTTPD.SOCKET_READ_TIMEOUT
MAX_HEADER = 8192          # NanoHTTPD's header buffer
CHUNK = 16384              # NanoHTTPD's ChunkedOutputStream writes in pieces of its buffer
_DEX_CLASS = b"Lcom/wetest/uia2/Main;"
# commons-cli's HelpFormatter: options sorted, padded to the longest, three spaces before the description.
HELP = ("usage: uiautomator2-server\n"
        " -h,--help         Print this help message\n"
        " -p,--port <arg>   Port to listen on (1-65535, default: 9008)\n")
_STATUS = {200: "200 OK", 400: "400 Bad Request", 404: "404 Not Found", 500: "500 Internal Server Error"}
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# Running servers per phone, for kill_servers(); weak so a discarded phone takes its entry with it.
_RUNNING: weakref.WeakKeyDictionary[VirtualPhone, set[Callable[[], None]]] = weakref.WeakKeyDictionary()
_JAR_CHECKS: dict[str, bool] = {}   # md5 of a jar -> whether it defines the class


def install(phone: VirtualPhone) -> None:
    phone.java_mains[CLASS_NAME] = lambda ctx, args: U2Server(phone, ctx).main(args)


def kill_servers(phone: VirtualPhone) -> int:
    """The u2 servers running on the phone die at once; returns how many there were."""
    killers = list(_RUNNING.get(phone, ()))
    for kill in killers:
        kill()
    return len(killers)


class _UsageError(Exception):
    pass


def parse_port(args: list[str]) -> int | None:
    """commons-cli's DefaultParser over ``-p/--port`` and ``-h/--help``; None means "print help, exit 0".
    Raises _UsageError with the message Main prints before its help, or ValueError for a bad port."""
    port: str | None = None
    wants_help = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg in ("-h", "--help"):
            wants_help = True
        elif arg in ("-p", "--port"):
            # The next word is the value unless it looks like an option (a negative number does not).
            if i >= len(args) or re.fullmatch(r"-\D.*|--.*", args[i]):
                raise _UsageError("Missing argument for option: p")
            port, i = args[i], i + 1
        elif arg.startswith("--port="):
            port = arg.partition("=")[2]
        elif arg.startswith("-p") and not arg.startswith("--"):
            port = arg[2:]
        elif arg.startswith("-") and arg != "-":
            raise _UsageError(f"Unrecognized option: {arg}")
        # Anything else is a leftover argument commons-cli collects and Main ignores.
    if wants_help:
        return None
    text = port if port is not None else str(DEFAULT_PORT)
    if not re.fullmatch(r"[+-]?\d+", text):
        raise ValueError(f"Invalid port: {text}. Must be an integer between 1 and 65535.")
    if not 1 <= int(text) <= 65535:
        raise ValueError(f"Invalid port: {text}. Must be between 1 and 65535.")
    return int(text)


def _defines_main(data: bytes) -> bool:
    """Whether a jar's dex defines com.wetest.uia2.Main (cached: the real jar holds 7 MB of dex)."""
    digest = hashlib.md5(data).hexdigest()
    if digest not in _JAR_CHECKS:
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as jar:
                _JAR_CHECKS[digest] = any(_DEX_CLASS in jar.read(name) for name in jar.namelist()
                                          if re.fullmatch(r"classes\d*\.dex", name))
        except (zipfile.BadZipFile, OSError, ValueError):
            _JAR_CHECKS[digest] = False
    return _JAR_CHECKS[digest]


def _http_date() -> str:
    t = time.gmtime()  # Java's "E, d MMM yyyy HH:mm:ss 'GMT'": no leading zero on the day
    return f"{_DAYS[t.tm_wday]}, {t.tm_mday} {_MONTHS[t.tm_mon - 1]} {t.tm_year} {t.tm_hour:02}:{t.tm_min:02}:" \
           f"{t.tm_sec:02} GMT"


@dataclass
class _Response:
    status: int
    mime: str
    body: bytes
    chunked: bool = False

    def encode(self, keep_alive: bool) -> bytes:
        # NanoHTTPD's Response.send: the status line ends in a space, headers in this order.
        head = [f"HTTP/1.1 {_STATUS[self.status]} ", f"Content-Type: {self.mime}", f"Date: {_http_date()}",
                f"Connection: {'keep-alive' if keep_alive else 'close'}"]
        if self.chunked:
            head.append("Transfer-Encoding: chunked")
            pieces = [b"%x\r\n%s\r\n" % (len(part), part)
                      for part in (self.body[i:i + CHUNK] for i in range(0, len(self.body), CHUNK))]
            body = b"".join(pieces) + b"0\r\n\r\n"
        else:
            head.append(f"Content-Length: {len(self.body)}")
            body = self.body
        return ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + body


def _text(status: int, mime: str, text: str) -> _Response:
    return _Response(status, mime, text.encode("utf-8"))


@dataclass
class U2Server:
    phone: VirtualPhone
    ctx: CommandContext
    _connections: set[asyncio.Task[None]] = field(default_factory=set)
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)
    _rpc: RpcServer | None = None

    async def _log(self, message: str) -> None:
        await self.ctx.out(f"[server] INFO: {message}\n".encode())

    async def main(self, args: list[str]) -> int:
        jar = self.ctx.env.get("CLASSPATH", "")
        if not await self._class_on_path(jar):
            # The class is looked up before main() runs: what app_process prints (see the shell's app_process).
            await self.ctx.err(f"Error: Could not find class '{CLASS_NAME}'\n"
                               f"java.lang.ClassNotFoundException: Didn't find class \"{CLASS_NAME}\" on path: "
                               f"DexPathList[[zip file \"{jar}\"],nativeLibraryDirectories=[/system/lib64, "
                               f"/system_ext/lib64]]\n".encode())
            return 1
        try:
            port = parse_port(args)
        except _UsageError as exc:
            await self.ctx.err(f"{exc}\n".encode())
            await self.ctx.out(HELP.encode())
            return 1
        except ValueError as exc:
            await self.ctx.err(f"{exc}\n".encode())
            return 1
        if port is None:
            await self.ctx.out(HELP.encode())
            return 0
        return await self._run(port)

    async def _class_on_path(self, classpath: str) -> bool:
        fs = self.phone.fs
        for entry in filter(None, classpath.split(":")):
            path = self.ctx.path(entry)
            if fs.exists(path) and not fs.is_dir(path) and await asyncio.to_thread(_defines_main, fs.read(path)):
                return True
        return False

    async def _run(self, port: int) -> int:
        await self._log("[UiAutomator2Server] Starting Server")
        # jsonrpc4j's first logger lookup, with no SLF4J binding in the jar.
        await self.ctx.err(b'SLF4J: Failed to load class "org.slf4j.impl.StaticLoggerBinder".\n'
                           b"SLF4J: Defaulting to no-operation (NOP) logger implementation\n"
                           b"SLF4J: See http://www.slf4j.org/codes.html#StaticLoggerBinder for further details.\n")
        await self._log("clipboardManager inited")  # AutomatorServiceImpl's constructor
        if not self.phone.fs.exists(TMP_DIR):
            self.phone.fs.mkdir(TMP_DIR, parents=True)
        await self._log(f"tmpdir is {TMP_DIR}")
        # From here on nothing awaits until the try below, so a cancellation cannot leak the service or port.
        service = AutomatorService(self.phone)
        self._rpc = RpcServer(service.methods())
        try:
            unregister = self.phone.sockets.register(f"tcp:{port}", self._accept)
        except OSError:
            service.close()
            await self.ctx.err(b"java.net.BindException: Address already in use\n"
                               b"\tat fi.iki.elonen.NanoHTTPD.start(NanoHTTPD.java)\n"
                               b"\tat com.wetest.uia2.Main.runServer(Main.java)\n"
                               b"\tat com.wetest.uia2.Main.main(Main.java)\n")
            return 1
        killed = asyncio.Event()

        def kill() -> None:
            unregister()  # a killed process's sockets close with it, before anyone runs again
            killed.set()

        running = _RUNNING.setdefault(self.phone, set())
        running.add(kill)
        try:
            await self._log(f"http server listening on *:{port}")
            waiters = [asyncio.ensure_future(killed.wait()), asyncio.ensure_future(self._stopped.wait())]
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
        finally:  # killed, stopped, or the shell stream closed (this coroutine cancelled): the port closes
            unregister()
            running.discard(kill)
            current = asyncio.current_task()
            for task in list(self._connections):
                if task is not current:
                    task.cancel()
            service.close()
        return 137 if killed.is_set() else 0

    # ------------------------------------------------------------ HTTP (NanoHTTPD's behaviour)

    async def _accept(self, stream: DuplexStream) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            await self._session(stream)
        finally:
            if task is not None:
                self._connections.discard(task)
            stream.close()

    async def _session(self, stream: DuplexStream) -> None:
        pending = b""
        while not self._stopped.is_set():
            try:
                while b"\r\n\r\n" not in pending:
                    chunk = await asyncio.wait_for(stream.read(), READ_TIMEOUT_S)
                    if not chunk:
                        return  # the client closed the connection
                    pending += chunk
                    if len(pending) > MAX_HEADER and b"\r\n\r\n" not in pending:
                        return
            except TimeoutError:
                return  # an idle keep-alive connection: NanoHTTPD's read times out and closes it
            head, _, pending = pending.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            request = lines[0].split()
            headers = {}
            for line in lines[1:]:
                name, sep, value = line.partition(":")
                if sep:
                    headers[name.strip().lower()] = value.strip()
            if len(request) < 2:
                message = "Syntax error" if not request else "Missing URI"
                await stream.write(_text(400, "text/plain", f"BAD REQUEST: {message}. Usage: GET /example/file.html")
                                   .encode(keep_alive=False))
                return
            length = int(headers.get("content-length", "0") or 0)
            while len(pending) < length:
                chunk = await stream.read()
                if not chunk:
                    return
                pending += chunk
            body, pending = pending[:length], pending[length:]
            method, target = request[0].upper(), request[1]
            version = request[2] if len(request) > 2 else "HTTP/1.0"
            keep_alive = version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
            response = await self._serve(method, target, body)
            await stream.write(response.encode(keep_alive))
            if not keep_alive:
                return

    async def _serve(self, method: str, target: str, body: bytes) -> _Response:
        path, _, query = target.partition("?")
        if path == "/stop":
            self._stopped.set()
            return _text(200, "text/html", "Server stopped!!!")
        if path == "/ping":
            return _text(200, "text/html", "pong")
        if path == "/screenshot/0":
            return _Response(200, "image/png", await self.phone.screencap_png(), chunked=True)
        if path == "/jsonrpc/0" and self._rpc is not None:
            # NanoHTTPD hands over the query string if there is one, else the POST body (trimmed).
            data = query.encode() if query else body.strip() if method == "POST" else b""
            if not data:
                return _text(500, "text/plain", "Invalid http post data!")
            return _Response(200, "application/json", await self._rpc.handle(data))
        return _text(404, "text/plain", "Not Found!!!")
