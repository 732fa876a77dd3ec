"""Finding the scrcpy server to push to the phone: ``SCRCPY_SERVER_PATH``, a desktop scrcpy install, or a
one-time download of the official 3.3.4 server, checked against its published SHA-256.

The server refuses a client whose version string differs from its own by a single character, so the version
of the file we push must be known exactly. Official releases are recognised by their SHA-256; a file we do not
recognise is used with the version ``SCRCPY_SERVER_VERSION`` names (default: ours), and a mismatch then shows
up as the server's own plain error.
"""

from __future__ import annotations

import asyncio
import atexit
import glob
import hashlib
import logging
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from relay_desktop.paths import data_dir

__all__ = ["KNOWN_SERVERS", "SERVER_VERSION", "ProvisioningError", "ServerFile", "download_server",
           "find_server", "install_locations", "provide_server", "virtual_phone_server"]

log = logging.getLogger(__name__)

SERVER_VERSION = "3.3.4"
DOWNLOAD_URL = "https://github.com/Genymobile/scrcpy/releases/download/v{version}/scrcpy-server-v{version}"
# From scrcpy's install_release.sh for each release: the way to tell which server a file is.
KNOWN_SERVERS: dict[str, str] = {
    "958f0944a62f23b1f33a16e9eb14844c1a04b882ca175a738c16d23cb22b86c0": "3.1",
    "b920e0ea01936bf2482f4ba2fa985c22c13c621999e3d33b45baa5acfc1ea3d0": "3.2",
    "351cb2edc7e4c2c75f09a7933fdabcf137be52e2602df154f24ec02db46e9e51": "3.3",
    "a0f70b20aa4998fbf658c94118cd6c8dab6abbb0647a3bdab344d70bc1ebcbb8": "3.3.1",
    "2ee5ca0863ef440f5b7c75856bb475c5283d0a8359cb370b1c161314fd29dfd9": "3.3.2",
    "7e70323ba7f259649dd4acce97ac4fefbae8102b2c6d91e2e7be613fd5354be0": "3.3.3",
    "8588238c9a5a00aa542906b6ec7e6d5541d9ffb9b5d0f6e1bc0e365e2303079e": "3.3.4",
}
SERVER_SHA256 = next(h for h, v in KNOWN_SERVERS.items() if v == SERVER_VERSION)
# Our protocol code speaks 3.x; older servers also fail on Android 14+ (see the design notes).
SUPPORTED = ("3.1", "3.2", "3.3", "3.3.1", "3.3.2", "3.3.3", "3.3.4")

Progress = Callable[[int, int | None], None]    # bytes so far, total (None when the server does not say)


class ProvisioningError(Exception):
    """No usable server: the message says what was tried and what to do."""


@dataclass(frozen=True)
class ServerFile:
    path: Path
    version: str         # passed to the server as its first argument, exactly
    source: str          # "SCRCPY_SERVER_PATH", "installed scrcpy", "download", "cache"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def install_locations(environ: Mapping[str, str] | None = None, platform: str = sys.platform) -> list[Path]:
    """Where desktop installs of scrcpy keep their server, most specific first."""
    env = os.environ if environ is None else environ
    places: list[str] = []
    exe = shutil.which("scrcpy", path=env.get("PATH"))
    if exe:  # portable builds keep the server beside the executable; packaged ones under ../share/scrcpy
        real = Path(exe).resolve()
        places += [str(real.parent / "scrcpy-server"), str(real.parent.parent / "share" / "scrcpy" / "scrcpy-server")]
    if platform.startswith("win"):
        places += sorted(glob.glob(r"C:\ProgramData\chocolatey\lib\scrcpy\tools\scrcpy-win64-v*\scrcpy-server"),
                         reverse=True)
    else:
        places += ["/usr/local/share/scrcpy/scrcpy-server", "/usr/share/scrcpy/scrcpy-server",
                   "/opt/homebrew/share/scrcpy/scrcpy-server", "/snap/scrcpy/current/usr/share/scrcpy/scrcpy-server"]
        places += sorted(glob.glob("/opt/homebrew/Cellar/scrcpy/*/share/scrcpy/scrcpy-server"), reverse=True)
        places += sorted(glob.glob("/usr/local/Cellar/scrcpy/*/share/scrcpy/scrcpy-server"), reverse=True)
    return [Path(p) for p in dict.fromkeys(places)]


def _identify(path: Path, source: str, environ: Mapping[str, str]) -> ServerFile:
    version = KNOWN_SERVERS.get(_sha256(path))
    if version is None:
        version = environ.get("SCRCPY_SERVER_VERSION", SERVER_VERSION)
        log.warning("%s is not an official scrcpy server release; assuming version %s "
                    "(set SCRCPY_SERVER_VERSION if that is wrong)", path, version)
    return ServerFile(path, version, source)


def find_server(environ: Mapping[str, str] | None = None, locations: Iterable[Path] | None = None,
                cache: Path | None = None, sha256: str = SERVER_SHA256) -> ServerFile | None:
    """A server already on this computer, or None. ``SCRCPY_SERVER_PATH`` wins, even if it is an old version
    (the user asked for it); an installed server is used only if its version is one we speak."""
    env = os.environ if environ is None else environ
    chosen = env.get("SCRCPY_SERVER_PATH")
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            raise ProvisioningError(f"SCRCPY_SERVER_PATH points to {path}, which is not a file")
        return _identify(path, "SCRCPY_SERVER_PATH", env)
    cached = cache_path(cache)
    if cached.is_file() and _sha256(cached) == sha256:
        return ServerFile(cached, SERVER_VERSION, "cache")
    for path in install_locations(env) if locations is None else locations:
        if path.is_file():
            found = _identify(path, "installed scrcpy", env)
            if found.version in SUPPORTED:
                return found
            log.info("ignoring scrcpy server %s at %s: version 3.1 or newer is needed", found.version, path)
    return None


def cache_path(folder: Path | None = None) -> Path:
    return (folder or data_dir() / "scrcpy") / f"scrcpy-server-v{SERVER_VERSION}"


def download_server(url: str | None = None, *, sha256: str = SERVER_SHA256, cache: Path | None = None,
                    progress: Progress | None = None, timeout: float = 30.0) -> ServerFile:
    """Fetch the official server once into the data folder (blocking: call it in a thread)."""
    url = url or os.environ.get("RELAY_SCRCPY_SERVER_URL") or DOWNLOAD_URL.format(version=SERVER_VERSION)
    target = cache_path(cache)
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, temp = tempfile.mkstemp(prefix=".scrcpy-server-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as response:
            total = int(response.headers.get("Content-Length") or 0) or None
            done = 0
            while chunk := response.read(64 * 1024):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        if digest.hexdigest() != sha256:
            raise ProvisioningError(f"the scrcpy server downloaded from {url} is not the official {SERVER_VERSION} "
                                    f"release (SHA-256 {digest.hexdigest()[:16]}…, expected {sha256[:16]}…); "
                                    "nothing was installed")
        os.replace(temp, target)
    except (urllib.error.URLError, OSError) as exc:
        raise ProvisioningError(f"could not download the scrcpy server from {url}: {getattr(exc, 'reason', exc)}. "
                                "Install scrcpy, or set SCRCPY_SERVER_PATH to a scrcpy-server file") from exc
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    return ServerFile(target, SERVER_VERSION, "download")


async def provide_server(*, url: str | None = None, sha256: str = SERVER_SHA256, cache: Path | None = None,
                         progress: Progress | None = None, environ: Mapping[str, str] | None = None,
                         locations: Iterable[Path] | None = None) -> ServerFile:
    """A server for the phone: found on this computer, else downloaded once (never blocks the loop)."""
    found = await asyncio.to_thread(find_server, environ, locations, cache, sha256)
    if found is not None:
        return found
    return await asyncio.to_thread(download_server, url, sha256=sha256, cache=cache, progress=progress)


def virtual_phone_server() -> ServerFile:
    """What to push to the built-in virtual phone: it runs its own scrcpy server, so any file stands in for the
    jar — no download, no desktop scrcpy needed, and the demo works offline. A data folder that cannot take the
    file (read-only, full, a file in its place) must not stop the phone: the file then goes to a temporary
    folder for this process."""
    stand_in = data_dir() / "scrcpy" / "virtual-phone-server.jar"
    try:
        stand_in.parent.mkdir(parents=True, exist_ok=True)
        stand_in.write_bytes(_STAND_IN)
    except OSError as exc:
        log.info("the virtual phone's server file goes to a temporary folder: %s", exc)
        stand_in = _temporary_stand_in()
    return ServerFile(stand_in, SERVER_VERSION, "virtual phone")


_STAND_IN = b"The virtual phone runs its own scrcpy server."
_temporary: list[Path] = []     # the one temporary stand-in of this process, made on first need


def _temporary_stand_in() -> Path:
    if not _temporary or not _temporary[0].is_file():
        fd, name = tempfile.mkstemp(prefix="relay-desktop-virtual-phone-server-", suffix=".jar")
        with os.fdopen(fd, "wb") as out:
            out.write(_STAND_IN)
        path = Path(name)
        atexit.register(path.unlink, missing_ok=True)
        _temporary[:] = [path]
    return _temporary[0]
