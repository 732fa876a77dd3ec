"""Shared fixtures: Google's adb server on a private port, and virtual phones connected to it."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import adbutils
import pytest

# Real Qt widgets, no display needed (CI has none); set before pytest-qt creates the application.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from relay_desktop.device.adb_server import AdbServer
from relay_desktop.sim.config import PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from tests.fake_llm import FakeLLMServer
from tests.keyring_fixtures import keyring_daemon, locked_secret_service, secret_service  # noqa: F401  (fixtures)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(autouse=True, scope="session")
def _private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The app's config and data folders (settings, history, knowledge, phone locks) in a folder of this test
    session's own: tests never write to the user's, and two test sessions never share a phone lock."""
    saved = os.environ.get("RELAY_DESKTOP_HOME")
    os.environ["RELAY_DESKTOP_HOME"] = str(tmp_path_factory.mktemp("relay-home"))
    yield
    if saved is None:
        os.environ.pop("RELAY_DESKTOP_HOME", None)
    else:
        os.environ["RELAY_DESKTOP_HOME"] = saved


@pytest.fixture(autouse=True)
def _ocr_only_where_asked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """OCR costs seconds a step on two cores: agent runs read text off screenshots only in the tests marked
    ``ocr`` (the OCR pass itself is tested in test_perception_ocr.py, the run with it in test_agent_ocr.py)."""
    if request.node.get_closest_marker("ocr") is None:
        monkeypatch.setenv("RELAY_DESKTOP_OCR", "off")


@dataclass
class AdbTestServer:
    port: int
    adb_path: str

    def run(self, *args: str, timeout: float = 20, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """The adb command line against this server (blocking: call through asyncio.to_thread in async tests)."""
        return subprocess.run([self.adb_path, "-P", str(self.port), *args], capture_output=True, timeout=timeout,
                              input=input, stdin=None if input is not None else subprocess.DEVNULL)

    def client(self) -> adbutils.AdbClient:
        return adbutils.AdbClient(host="127.0.0.1", port=self.port, socket_timeout=20)

    def server(self) -> AdbServer:
        return AdbServer(host="127.0.0.1", port=self.port, adb_path=self.adb_path)


def start_adb_server() -> AdbTestServer:
    """Google's adb (from adbutils' wheel) started on a free port of its own."""
    server = AdbTestServer(free_port(), os.path.join(os.path.dirname(adbutils.__file__), "binaries", "adb"))
    started = server.run("start-server", timeout=30)
    assert started.returncode == 0, started.stderr.decode()
    return server


@pytest.fixture(scope="session")
def adb_server() -> Iterator[AdbTestServer]:
    """Google's adb (from adbutils' wheel) on a private port, never the user's 5037."""
    saved = os.environ.get("ANDROID_ADB_SERVER_PORT")
    server = start_adb_server()
    # adbutils restarts a missing server with a plain `adb start-server`; make that land on our port too.
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(server.port)
    try:
        yield server
    finally:
        server.run("kill-server", timeout=15)
        if saved is None:
            os.environ.pop("ANDROID_ADB_SERVER_PORT", None)
        else:
            os.environ["ANDROID_ADB_SERVER_PORT"] = saved


@pytest.fixture
async def sim(adb_server: AdbTestServer) -> AsyncIterator[VirtualPhoneService]:
    """A fresh virtual phone, connected to the private adb server and ready ("device")."""
    service = VirtualPhoneService(PhoneConfig(), adb=adb_server.server())
    await service.start()
    try:
        yield service
    finally:
        await service.stop()


# Environment the three SDKs (and the app's key store) read: keys, base URLs, Vertex/Bedrock switches, extra
# headers, API versions. A developer's real key must never reach a test, and a base URL must never send one away.
_LLM_ENV_PREFIXES = ("ANTHROPIC_", "OPENAI_", "AZURE_OPENAI_", "GOOGLE_GENAI_", "GOOGLE_CLOUD_", "GEMINI_")
_LLM_ENV_NAMES = ("GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL",
                  "GOOGLE_APPLICATION_CREDENTIALS", "AWS_BEARER_TOKEN_BEDROCK", "CLOUD_ML_REGION", "OPENROUTER_API_KEY",
                  # A proxy would get the requests meant for 127.0.0.1 if it were not excluded.
                  "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    """A fresh fake LLM server (tests/fake_llm) on 127.0.0.1, with provider credentials cleared from the env.

    Function-scoped: a new server per test, so no test sees another's script or requests (starting one takes
    about a millisecond). The test fails if the fake server itself raised while handling a request."""
    for name in list(os.environ):
        if name.startswith(_LLM_ENV_PREFIXES) or name in _LLM_ENV_NAMES:
            monkeypatch.delenv(name)
    with FakeLLMServer() as server:
        yield server
    if server.errors:
        pytest.fail("the fake LLM server failed internally:\n" + "\n".join(server.errors), pytrace=False)


@pytest.fixture(scope="session")
def _qasync_loop(qapp):  # type: ignore[no-untyped-def]
    """One asyncio loop on Qt's loop for every window test: creating and closing one per test left Qt timers
    pointing at deleted objects, which crashed a later event-processing pass now and then."""
    import qasync

    loop = qasync.QEventLoop(qapp)
    yield loop
    loop.close()


@pytest.fixture
def qt_loop(_qasync_loop):  # type: ignore[no-untyped-def]
    """asyncio on Qt's loop, as the app runs it; the test suite's own loop is current again afterwards, and
    nothing the test started outlives it."""
    import asyncio

    try:
        previous = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        previous = None
    asyncio.set_event_loop(_qasync_loop)
    try:
        yield _qasync_loop
        pending = [t for t in asyncio.all_tasks(_qasync_loop) if not t.done()]
        if pending:   # work still finishing (a closing mirror's reader) gets a moment; then it is a leak
            _qasync_loop.run_until_complete(asyncio.wait(pending, timeout=3))
        leaked = [t for t in pending if not t.done()]
        for task in leaked:
            task.cancel()
        _qasync_loop.run_until_complete(asyncio.gather(*leaked, return_exceptions=True))
        assert not leaked, f"tasks outlived the test: {sorted(t.get_name() + ' ' + repr(t.get_coro()) for t in leaked)}"
    finally:
        asyncio.set_event_loop(previous)


@pytest.fixture
def window(qtbot, adb_server: AdbTestServer, tmp_path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
           _qasync_loop):
    """The main window, shown, with its files in a temporary folder and the virtual phone's built-in scrcpy
    server (no download: offline, and no desktop scrcpy install is looked for). A test that stopped half-way
    has its phone let go afterwards: a virtual phone left listening is still visited by the adb server, and each
    visit would be a task "outliving" every later test."""
    from relay_desktop.ui.main_window import MainWindow

    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    monkeypatch.setenv("RELAY_SCRCPY_SERVER_URL", "http://127.0.0.1:9/none")
    monkeypatch.setattr("relay_desktop.mirror.provisioning.install_locations", lambda *a, **k: [])
    main = MainWindow()
    qtbot.addWidget(main)
    main.resize(1200, 900)
    main.show()
    yield main
    if main._shutdown is None:      # the widgets may be gone already (pytest-qt closes them); the phones are not
        async def let_go() -> None:
            await asyncio.gather(*(pane.session.close() for pane in main.panes))
        _qasync_loop.run_until_complete(asyncio.wait_for(let_go(), 15))
