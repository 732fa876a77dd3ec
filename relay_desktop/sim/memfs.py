"""The virtual phone's file system: directories and files in memory, with Android's usual layout.

Enough POSIX for adb's sync protocol (stat, list, send, receive) and the shell (ls, cat, rm, mkdir).
``/sdcard`` is an alias of ``/storage/emulated/0``, as the symlink is on a real phone.
"""

from __future__ import annotations

import errno
import itertools
import os
import posixpath
import stat as statmod
import time
from dataclasses import dataclass, field

_inodes = itertools.count(1000)


def _error(kind: type[OSError], code: int, path: str) -> OSError:
    # errno, strerror and filename set as the os module sets them, so callers can print `exc.strerror`.
    return kind(code, os.strerror(code), path)


@dataclass
class FileStat:
    mode: int           # including S_IFDIR / S_IFREG / S_IFCHR bits
    size: int
    mtime: float
    nlink: int = 1
    uid: int = 2000     # AID_SHELL
    gid: int = 2000
    ino: int = 0

    @property
    def is_dir(self) -> bool:
        return statmod.S_ISDIR(self.mode)


@dataclass
class _Node:
    mode: int
    mtime: float
    data: bytearray = field(default_factory=bytearray)
    children: dict[str, _Node] | None = None
    uid: int = 2000
    gid: int = 2000
    ino: int = field(default_factory=lambda: next(_inodes))

    @property
    def is_dir(self) -> bool:
        return self.children is not None


class MemoryFS:
    ALIASES = {"/sdcard": "/storage/emulated/0", "/storage/self/primary": "/storage/emulated/0"}
    SINKS = {"/dev/null"}

    def __init__(self) -> None:
        self._root = _Node(statmod.S_IFDIR | 0o755, time.time(), children={}, uid=0, gid=0)

    @classmethod
    def android_default(cls) -> MemoryFS:
        fs = cls()
        for path in ("/storage/emulated/0/Download", "/storage/emulated/0/Pictures", "/storage/emulated/0/DCIM",
                     "/storage/emulated/0/Documents", "/storage/emulated/0/Music", "/storage/emulated/0/Movies",
                     "/storage/emulated/0/Android/data", "/data/local/tmp", "/system/bin", "/proc", "/dev",
                     "/vendor", "/product/app"):
            fs.mkdir(path, parents=True)
        fs._lookup("/dev").children["null"] = _Node(statmod.S_IFCHR | 0o666, time.time(), uid=0, gid=0)  # type: ignore[index]
        fs.write("/proc/version", b"Linux version 6.1.57-android14-11 (relay@sim) #1 SMP PREEMPT\n", mode=0o444)
        return fs

    # ------------------------------------------------------------ paths

    def normalize(self, path: str) -> str:
        if not path.startswith("/"):
            path = "/" + path
        path = posixpath.normpath(path)
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        for alias, target in self.ALIASES.items():
            if path == alias or path.startswith(alias + "/"):
                return target + path[len(alias):]
        return path

    def _parts(self, path: str) -> list[str]:
        return [p for p in self.normalize(path).split("/") if p]

    def _lookup(self, path: str) -> _Node | None:
        node = self._root
        for part in self._parts(path):
            if node.children is None:
                raise _error(NotADirectoryError, errno.ENOTDIR, path)
            nxt = node.children.get(part)
            if nxt is None:
                return None
            node = nxt
        return node

    def _parent(self, path: str, make: bool = False) -> tuple[_Node, str]:
        parts = self._parts(path)
        if not parts:
            raise _error(IsADirectoryError, errno.EISDIR, path)
        parent_path = "/" + "/".join(parts[:-1])
        parent = self._lookup(parent_path)
        if parent is None:
            if not make:
                raise _error(FileNotFoundError, errno.ENOENT, path)
            self.mkdir(parent_path, parents=True)
            parent = self._lookup(parent_path)
        if parent is None or parent.children is None:
            raise _error(NotADirectoryError, errno.ENOTDIR, parent_path)
        return parent, parts[-1]

    # ------------------------------------------------------------ queries

    def stat(self, path: str) -> FileStat | None:
        try:
            node = self._lookup(path)
        except NotADirectoryError:
            return None
        if node is None:
            return None
        size = 4096 if node.is_dir else len(node.data)
        nlink = 2 + sum(1 for c in node.children.values() if c.is_dir) if node.children is not None else 1
        return FileStat(node.mode, size, node.mtime, nlink, node.uid, node.gid, node.ino)

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        st = self.stat(path)
        return st is not None and st.is_dir

    def listdir(self, path: str) -> list[str]:
        node = self._lookup(path)
        if node is None:
            raise _error(FileNotFoundError, errno.ENOENT, path)
        if node.children is None:
            raise _error(NotADirectoryError, errno.ENOTDIR, path)
        return sorted(node.children)

    def read(self, path: str) -> bytes:
        if self.normalize(path) in self.SINKS:
            return b""
        node = self._lookup(path)
        if node is None:
            raise _error(FileNotFoundError, errno.ENOENT, path)
        if node.is_dir:
            raise _error(IsADirectoryError, errno.EISDIR, path)
        return bytes(node.data)

    # ------------------------------------------------------------ changes

    def write(self, path: str, data: bytes, mode: int = 0o644, mtime: float | None = None,
              make_parents: bool = False) -> None:
        if self.normalize(path) in self.SINKS:
            return
        parent, name = self._parent(path, make=make_parents)
        existing = parent.children.get(name)  # type: ignore[union-attr]
        if existing is not None and existing.is_dir:
            raise _error(IsADirectoryError, errno.EISDIR, path)
        node = _Node(statmod.S_IFREG | (mode & 0o7777), time.time() if mtime is None else mtime, bytearray(data))
        if existing is not None:
            node.ino, node.uid, node.gid = existing.ino, existing.uid, existing.gid  # rewritten in place, as O_TRUNC
        parent.children[name] = node  # type: ignore[index]
        parent.mtime = time.time()

    def mkdir(self, path: str, parents: bool = False) -> None:
        """``mkdir`` (``mkdir -p`` with ``parents``: existing directories are fine, an existing file is not)."""
        parts = self._parts(path)
        if not parts and not parents:
            raise _error(FileExistsError, errno.EEXIST, path)
        node = self._root
        for index, part in enumerate(parts):
            assert node.children is not None
            child = node.children.get(part)
            last = index == len(parts) - 1
            if child is None:
                if not last and not parents:
                    raise _error(FileNotFoundError, errno.ENOENT, path)
                child = _Node(statmod.S_IFDIR | 0o771, time.time(), children={})
                node.children[part] = child
                node.mtime = child.mtime
            elif last and (not parents or not child.is_dir):
                raise _error(FileExistsError, errno.EEXIST, path)
            if child.children is None:
                raise _error(NotADirectoryError, errno.ENOTDIR, path)
            node = child

    def remove(self, path: str, recursive: bool = False) -> None:
        parent, name = self._parent(path)
        node = parent.children.get(name)  # type: ignore[union-attr]
        if node is None:
            raise _error(FileNotFoundError, errno.ENOENT, path)
        if node.is_dir and node.children and not recursive:
            raise _error(OSError, errno.ENOTEMPTY, path)
        del parent.children[name]  # type: ignore[union-attr]
        parent.mtime = time.time()
