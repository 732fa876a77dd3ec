"""An independent scrcpy client for the tunnel tests: what desktop scrcpy 3.3.x does, and nothing of ours.

It uses only Google's ``adb`` command line and plain sockets (no ``relay_desktop.mirror`` code), in the order of
scrcpy's ``app/src/server.c``: push the server jar, open the tunnel (``adb reverse localabstract:scrcpy_<scid>
tcp:PORT`` with the host listening, or ``adb forward tcp:PORT localabstract:scrcpy_<scid>``), start the server
with ``adb shell``, connect video then control, remove the tunnel, then read the device name, the codec meta
and the first packets. In forward mode it connects up to 100 times 100 ms apart and takes a connection that
closes before the dummy byte as "the server does not listen yet", exactly as ``connect_to_server()`` does.

Everything here blocks (it plays a separate process): async tests call it through ``asyncio.to_thread`` so the
virtual phone, on the test's event loop, keeps answering. Every socket operation has a timeout.
"""

from __future__ import annotations

import contextlib
import random
import socket
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import AdbTestServer

SERVER_VERSION = "3.3.4"
DEVICE_JAR = "/data/local/tmp/scrcpy-server.jar"
CONNECT_ATTEMPTS = 100
CONNECT_DELAY_S = 0.1
IO_TIMEOUT_S = 15.0
H264 = 0x68323634
CONFIG_FLAG = 1 << 63


class ClientError(Exception):
    """The client failed the way desktop scrcpy would report it."""


@dataclass
class Packet:
    pts_flags: int
    data: bytes

    @property
    def config(self) -> bool:
        return bool(self.pts_flags & CONFIG_FLAG)


@dataclass
class DesktopScrcpyClient:
    adb: AdbTestServer
    serial: str
    jar: Path
    tunnel_forward: bool
    port: int
    scid: int = field(default_factory=lambda: random.getrandbits(31))
    control: bool = True
    extra: tuple[str, ...] = ("max_size=720",)
    connect_delay_s: float = 0.0     # a client slow to start connecting (a loaded machine)
    # What happened, for the tests to inspect.
    attempts: int = 0
    device_name: str = ""
    codec: tuple[int, int, int] = (0, 0, 0)
    process: subprocess.Popen[bytes] | None = None
    video: socket.socket | None = None
    control_socket: socket.socket | None = None
    _listener: socket.socket | None = None

    @property
    def socket_name(self) -> str:
        return f"scrcpy_{self.scid:08x}"

    def _adb(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
        return self.adb.run("-s", self.serial, *args, timeout=timeout)

    def _adb_ok(self, *args: str) -> str:
        result = self._adb(*args)
        if result.returncode != 0:
            raise ClientError(f"adb {' '.join(args)}: {(result.stderr or result.stdout).decode().strip()}")
        return result.stdout.decode()

    # ------------------------------------------------------------ start-up, as sc_server_run()

    def start(self) -> None:
        self._adb_ok("push", str(self.jar), DEVICE_JAR)
        if self.tunnel_forward:
            self._adb_ok("forward", f"tcp:{self.port}", f"localabstract:{self.socket_name}")
        else:
            # As enable_tunnel_reverse_any_port(): the reverse first, then the host listens (backlog 1). The server
            # only connects once started, so there is no race here.
            self._adb_ok("reverse", f"localabstract:{self.socket_name}", f"tcp:{self.port}")
            self._listener = socket.create_server(("127.0.0.1", self.port), backlog=1)
            self._listener.settimeout(IO_TIMEOUT_S)
        self._execute()
        time.sleep(self.connect_delay_s)
        try:
            if self.tunnel_forward:
                self.video = self._connect_first()
                if self.control:
                    self.control_socket = self._connect_plain()
                self._adb_ok("forward", "--remove", f"tcp:{self.port}")
            else:
                assert self._listener is not None
                self.video = self._accept()
                if self.control:
                    self.control_socket = self._accept()
                self._listener.close()
                self._adb_ok("reverse", "--remove", f"localabstract:{self.socket_name}")
            if self.control_socket is not None:
                self.control_socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._read_metas()
        except BaseException:
            self.stop()
            raise

    def _execute(self) -> None:
        options = [f"scid={self.scid:08x}", "log_level=info", "audio=false", *self.extra]
        if not self.control:
            options.append("control=false")
        if self.tunnel_forward:
            options.append("tunnel_forward=true")
        self.process = subprocess.Popen(
            [self.adb.adb_path, "-P", str(self.adb.port), "-s", self.serial, "shell",
             f"CLASSPATH={DEVICE_JAR}", "app_process", "/", "com.genymobile.scrcpy.Server", SERVER_VERSION,
             *options], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def _accept(self) -> socket.socket:
        assert self._listener is not None
        try:
            conn, _ = self._listener.accept()
        except TimeoutError as exc:
            raise ClientError("the server never connected through the reverse tunnel") from exc
        conn.settimeout(IO_TIMEOUT_S)
        return conn

    def _connect_first(self) -> socket.socket:
        """connect_to_server(): a connection only counts once the dummy byte has come through."""
        for _ in range(CONNECT_ATTEMPTS):
            self.attempts += 1
            conn = socket.socket()
            conn.settimeout(IO_TIMEOUT_S)
            try:
                conn.connect(("127.0.0.1", self.port))
                if conn.recv(1) == b"\x00":
                    return conn
            except OSError:
                pass
            conn.close()
            time.sleep(CONNECT_DELAY_S)
        raise ClientError(f"could not connect to the server in {CONNECT_ATTEMPTS} attempts")

    def _connect_plain(self) -> socket.socket:
        conn = socket.create_connection(("127.0.0.1", self.port), timeout=IO_TIMEOUT_S)
        return conn

    def _read_metas(self) -> None:
        assert self.video is not None
        name = _read_exactly(self.video, 64)
        self.device_name = name[:63].split(b"\0", 1)[0].decode("utf-8", errors="replace")
        self.codec = struct.unpack(">III", _read_exactly(self.video, 12))

    # ------------------------------------------------------------ streams

    def read_packet(self) -> Packet:
        assert self.video is not None
        pts_flags, size = struct.unpack(">QI", _read_exactly(self.video, 12))
        return Packet(pts_flags, _read_exactly(self.video, size))

    def tap(self, x: int, y: int) -> None:
        """INJECT_TOUCH_EVENT down then up, at a position in video frame coordinates."""
        assert self.control_socket is not None
        _codec, width, height = self.codec
        for action in (0, 1):
            self.control_socket.sendall(struct.pack(">BBQiiHHHII", 2, action, 2**64 - 2, x, y, width, height,
                                                    0xFFFF if action == 0 else 0, 1, 1 if action == 0 else 0))

    def server_output(self) -> str:
        """What the server printed (only once it has ended)."""
        if self.process is None or self.process.stdout is None:
            return ""
        return self.process.stdout.read().decode(errors="replace")

    def stop(self) -> None:
        for conn in (self.video, self.control_socket, self._listener):
            if conn is not None:
                with contextlib.suppress(OSError):
                    conn.close()
        if self.process is not None:
            # As scrcpy: close the sockets, give the server a moment to end, then kill the adb shell.
            try:
                self.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def _read_exactly(conn: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ClientError(f"socket closed while reading ({len(data)} of {size} bytes)")
        data += chunk
    return bytes(data)
