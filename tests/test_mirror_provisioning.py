"""Where the scrcpy server comes from: the environment, a desktop install, or a checked one-time download."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from relay_desktop.mirror import provisioning
from relay_desktop.mirror.provisioning import (
    SERVER_VERSION,
    ProvisioningError,
    find_server,
    install_locations,
    provide_server,
)

CONTENT = b"PK\x03\x04 pretend scrcpy-server " * 5000


@pytest.fixture
def download_server() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server with the file at /server; records the paths asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            if self.path != "/server":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(CONTENT)))
            self.end_headers()
            self.wfile.write(CONTENT)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", asked
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_scrcpy_server_path_wins_and_an_official_file_is_recognised(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    server = tmp_path / "my-server"
    server.write_bytes(CONTENT)
    digest = hashlib.sha256(CONTENT).hexdigest()
    monkeypatch.setitem(provisioning.KNOWN_SERVERS, digest, "3.3.1")
    found = find_server({"SCRCPY_SERVER_PATH": str(server)}, locations=[], cache=tmp_path / "cache")
    assert found is not None and (found.path, found.version, found.source) == (server, "3.3.1", "SCRCPY_SERVER_PATH")


def test_an_unknown_file_uses_the_version_the_user_names(tmp_path: Path) -> None:
    server = tmp_path / "custom"
    server.write_bytes(b"self-built")
    env = {"SCRCPY_SERVER_PATH": str(server), "SCRCPY_SERVER_VERSION": "3.3.2"}
    found = find_server(env, locations=[], cache=tmp_path)
    assert found is not None and found.version == "3.3.2"
    assert find_server({"SCRCPY_SERVER_PATH": str(server)}, locations=[], cache=tmp_path).version == SERVER_VERSION


def test_a_missing_scrcpy_server_path_is_a_plain_error(tmp_path: Path) -> None:
    with pytest.raises(ProvisioningError, match=r"SCRCPY_SERVER_PATH points to .*nope, which is not a file"):
        find_server({"SCRCPY_SERVER_PATH": str(tmp_path / "nope")}, locations=[], cache=tmp_path)


def test_an_installed_server_is_used_only_when_its_version_is_spoken(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = tmp_path / "old" / "scrcpy-server", tmp_path / "new" / "scrcpy-server"
    for path, data in ((old, b"one point twenty-four"), (new, CONTENT)):
        path.parent.mkdir()
        path.write_bytes(data)
    monkeypatch.setitem(provisioning.KNOWN_SERVERS, hashlib.sha256(b"one point twenty-four").hexdigest(), "1.24")
    monkeypatch.setitem(provisioning.KNOWN_SERVERS, hashlib.sha256(CONTENT).hexdigest(), "3.3.4")
    found = find_server({}, locations=[old, new], cache=tmp_path / "cache")
    assert found is not None and found.path == new and found.source == "installed scrcpy"
    assert find_server({}, locations=[old], cache=tmp_path / "cache") is None


def test_install_locations_include_a_portable_scrcpy_on_path(tmp_path: Path) -> None:
    exe = tmp_path / "scrcpy"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    places = install_locations({"PATH": str(tmp_path)}, platform="linux")
    assert places[0] == tmp_path / "scrcpy-server"
    assert Path("/usr/share/scrcpy/scrcpy-server") in places


async def test_download_once_with_progress_then_reuse(tmp_path: Path,
                                                      download_server: tuple[str, list[str]]) -> None:
    base, asked = download_server
    seen: list[tuple[int, int | None]] = []
    digest = hashlib.sha256(CONTENT).hexdigest()
    first = await provide_server(url=f"{base}/server", sha256=digest, cache=tmp_path, environ={}, locations=[],
                                 progress=lambda done, total: seen.append((done, total)))
    assert first.source == "download" and first.version == SERVER_VERSION
    assert first.path.read_bytes() == CONTENT
    assert seen[-1] == (len(CONTENT), len(CONTENT)) and len(seen) > 1
    again = await provide_server(url=f"{base}/server", sha256=digest, cache=tmp_path, environ={}, locations=[])
    assert again.source == "cache" and asked == ["/server"]


async def test_a_bad_checksum_installs_nothing(tmp_path: Path, download_server: tuple[str, list[str]]) -> None:
    base, _ = download_server
    with pytest.raises(ProvisioningError, match=r"is not the official 3\.3\.4 release"):
        await provide_server(url=f"{base}/server", cache=tmp_path, environ={}, locations=[])
    assert list(tmp_path.iterdir()) == []


async def test_no_network_is_a_plain_error(tmp_path: Path, download_server: tuple[str, list[str]]) -> None:
    base, _ = download_server
    with pytest.raises(ProvisioningError, match=r"could not download the scrcpy server .* set SCRCPY_SERVER_PATH"):
        await provide_server(url=f"{base}/missing", cache=tmp_path, environ={}, locations=[])
