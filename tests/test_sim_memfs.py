"""The virtual phone's in-memory file system."""

from __future__ import annotations

import errno
import stat

import pytest

from relay_desktop.sim.memfs import MemoryFS


@pytest.fixture
def fs() -> MemoryFS:
    return MemoryFS.android_default()


def test_android_layout(fs: MemoryFS) -> None:
    for path in ("/sdcard", "/sdcard/Download", "/sdcard/Pictures", "/sdcard/DCIM", "/storage/emulated/0",
                 "/data/local/tmp", "/system/bin", "/proc", "/dev"):
        assert fs.is_dir(path), path
    assert stat.S_ISCHR(fs.stat("/dev/null").mode)  # type: ignore[union-attr]


def test_sdcard_is_the_same_directory_as_storage_emulated_0(fs: MemoryFS) -> None:
    fs.write("/sdcard/Download/a.txt", b"A")
    assert fs.read("/storage/emulated/0/Download/a.txt") == b"A"
    assert fs.stat("/sdcard").ino == fs.stat("/storage/emulated/0").ino  # type: ignore[union-attr]
    assert fs.normalize("/sdcard/Download/../DCIM/") == "/storage/emulated/0/DCIM"


@pytest.mark.parametrize(("raw", "normal"), [
    ("//data///local/./tmp/", "/data/local/tmp"),
    ("/data/local/tmp/../../", "/data"),
    ("/..", "/"),
    ("relative/x", "/relative/x"),
    ("", "/"),
])
def test_path_normalization(fs: MemoryFS, raw: str, normal: str) -> None:
    assert fs.normalize(raw) == normal


def test_write_read_stat_and_overwrite(fs: MemoryFS) -> None:
    fs.write("/data/local/tmp/f.bin", b"12345", mode=0o755, mtime=1_700_000_000)
    st = fs.stat("/data/local/tmp/f.bin")
    assert st is not None
    assert (st.mode, st.size, st.mtime, st.nlink, st.uid, st.gid) == (stat.S_IFREG | 0o755, 5, 1_700_000_000, 1,
                                                                        2000, 2000)
    assert st.ino > 0 and not st.is_dir
    fs.write("/data/local/tmp/f.bin", b"new")
    again = fs.stat("/data/local/tmp/f.bin")
    assert again is not None and (again.size, again.ino, stat.S_IMODE(again.mode)) == (3, st.ino, 0o644)
    assert fs.read("/data/local/tmp//f.bin") == b"new"


def test_directory_stat_and_listing(fs: MemoryFS) -> None:
    fs.mkdir("/data/local/tmp/d")
    fs.write("/data/local/tmp/z", b"")
    st = fs.stat("/data/local/tmp")
    assert st is not None and st.is_dir and stat.S_ISDIR(st.mode) and st.nlink == 3
    assert fs.listdir("/data/local/tmp/") == ["d", "z"]
    assert fs.stat("/nope") is None and not fs.exists("/nope") and not fs.is_dir("/data/local/tmp/z")


def test_errors_carry_errno_and_path(fs: MemoryFS) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        fs.read("/sdcard/none.txt")
    assert (missing.value.errno, missing.value.strerror, missing.value.filename) == (
        errno.ENOENT, "No such file or directory", "/sdcard/none.txt")
    with pytest.raises(IsADirectoryError):
        fs.read("/sdcard")
    with pytest.raises(IsADirectoryError):
        fs.write("/sdcard/Download", b"x")
    with pytest.raises(FileNotFoundError):
        fs.write("/sdcard/no/such/dir/f", b"x")
    fs.write("/data/local/tmp/file", b"x")
    with pytest.raises(NotADirectoryError):
        fs.write("/data/local/tmp/file/child", b"x")
    with pytest.raises(NotADirectoryError):
        fs.listdir("/data/local/tmp/file")
    with pytest.raises(NotADirectoryError):
        fs.read("/data/local/tmp/file/child")
    assert fs.stat("/data/local/tmp/file/child") is None
    with pytest.raises(FileNotFoundError):
        fs.listdir("/none")


def test_write_can_make_parents(fs: MemoryFS) -> None:
    fs.write("/sdcard/a/b/c.txt", b"c", make_parents=True)
    assert fs.is_dir("/sdcard/a/b") and fs.read("/sdcard/a/b/c.txt") == b"c"


def test_mkdir(fs: MemoryFS) -> None:
    fs.mkdir("/data/local/tmp/x")
    with pytest.raises(FileExistsError):
        fs.mkdir("/data/local/tmp/x")
    fs.mkdir("/data/local/tmp/x", parents=True)  # -p: an existing directory is fine
    with pytest.raises(FileNotFoundError):
        fs.mkdir("/data/local/tmp/p/q")
    fs.mkdir("/data/local/tmp/p/q", parents=True)
    assert fs.is_dir("/data/local/tmp/p/q")
    fs.write("/data/local/tmp/f", b"")
    with pytest.raises(FileExistsError):
        fs.mkdir("/data/local/tmp/f", parents=True)
    with pytest.raises(NotADirectoryError):
        fs.mkdir("/data/local/tmp/f/g", parents=True)


def test_remove(fs: MemoryFS) -> None:
    fs.write("/data/local/tmp/d/f", b"x", make_parents=True)
    with pytest.raises(OSError) as not_empty:
        fs.remove("/data/local/tmp/d")
    assert not_empty.value.errno == errno.ENOTEMPTY
    fs.remove("/data/local/tmp/d/f")
    fs.remove("/data/local/tmp/d")  # empty now
    fs.write("/data/local/tmp/e/f", b"x", make_parents=True)
    fs.remove("/data/local/tmp/e", recursive=True)
    assert fs.listdir("/data/local/tmp") == []
    with pytest.raises(FileNotFoundError):
        fs.remove("/data/local/tmp/e")


def test_dev_null_is_a_sink(fs: MemoryFS) -> None:
    fs.write("/dev/null", b"vanishes")
    assert fs.read("/dev/null") == b""
    assert fs.stat("/dev/null").size == 0  # type: ignore[union-attr]
