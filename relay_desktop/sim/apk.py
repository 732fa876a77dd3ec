"""What the virtual phone's package manager reads from an APK: its package name and version.

An APK is a zip whose ``AndroidManifest.xml`` is Android's binary XML (AXML): a string pool, then the elements,
the first being ``<manifest package="…" android:versionCode="…" android:versionName="…">``. Only that first
element is read. A manifest in plain-text XML (as in an unbuilt project) is accepted too.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from dataclasses import dataclass

__all__ = ["ApkError", "ApkInfo", "read_apk"]

_STRING_POOL, _START_ELEMENT = 0x0001, 0x0102
_UTF8_FLAG = 0x100
_TYPE_STRING, _TYPE_INT_DEC, _TYPE_INT_HEX = 0x03, 0x10, 0x11


class ApkError(Exception):
    """Not an APK (not a zip, no manifest, no package name): the message says which."""


@dataclass(frozen=True)
class ApkInfo:
    package: str
    version_code: int = 1
    version_name: str = "1.0"


def read_apk(data: bytes) -> ApkInfo:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            manifest = archive.read("AndroidManifest.xml")
    except (zipfile.BadZipFile, KeyError, OSError, EOFError) as exc:
        raise ApkError(f"not an APK: {exc}") from exc
    if manifest.lstrip().startswith(b"<"):
        return _text_manifest(manifest.decode("utf-8", errors="replace"))
    try:
        return _binary_manifest(manifest)
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ApkError(f"a malformed AndroidManifest.xml: {exc}") from exc


def _text_manifest(text: str) -> ApkInfo:
    tag = re.search(r"<manifest\b[^>]*>", text)
    package = re.search(r'\bpackage="([^"]+)"', tag.group(0)) if tag else None
    if package is None:
        raise ApkError("<manifest> has no package attribute")
    code = re.search(r'android:versionCode="(\d+)"', tag.group(0)) if tag else None
    name = re.search(r'android:versionName="([^"]*)"', tag.group(0)) if tag else None
    return ApkInfo(package.group(1), int(code.group(1)) if code else 1, name.group(1) if name else "1.0")


def _binary_manifest(data: bytes) -> ApkInfo:
    _, file_header, _ = struct.unpack_from("<HHI", data, 0)
    strings: list[str] = []
    offset = file_header
    while offset + 8 <= len(data):
        kind, header_size, size = struct.unpack_from("<HHI", data, offset)
        if size < 8:
            break
        if kind == _STRING_POOL:
            strings = _string_pool(data, offset)
        elif kind == _START_ELEMENT:
            attributes = _attributes(data, offset + header_size, strings)
            if "package" not in attributes:
                raise ApkError("<manifest> has no package attribute")
            code = attributes.get("versionCode", 1)
            return ApkInfo(str(attributes["package"]), int(code) if isinstance(code, int) else 1,
                           str(attributes.get("versionName", "1.0")))
        offset += size
    raise ApkError("AndroidManifest.xml has no <manifest> element")


def _string_pool(data: bytes, start: int) -> list[str]:
    count, _styles, flags, strings_start, _ = struct.unpack_from("<IIIII", data, start + 8)
    header_size = struct.unpack_from("<H", data, start + 2)[0]
    offsets = struct.unpack_from(f"<{count}I", data, start + header_size)
    base = start + strings_start
    return [_utf8_at(data, base + o) if flags & _UTF8_FLAG else _utf16_at(data, base + o) for o in offsets]


def _utf8_at(data: bytes, at: int) -> str:
    at += 2 if data[at] & 0x80 else 1               # the length in characters (one or two bytes)
    size = data[at]
    if size & 0x80:
        size, at = ((size & 0x7F) << 8) | data[at + 1], at + 2
    else:
        at += 1
    return data[at:at + size].decode("utf-8")


def _utf16_at(data: bytes, at: int) -> str:
    size = struct.unpack_from("<H", data, at)[0]
    if size & 0x8000:
        size, at = ((size & 0x7FFF) << 16) | struct.unpack_from("<H", data, at + 2)[0], at + 4
    else:
        at += 2
    return data[at:at + size * 2].decode("utf-16-le")


def _attributes(data: bytes, at: int, strings: list[str]) -> dict[str, str | int]:
    """The element's attributes by name: strings as text, numbers as int (at = the element's extension)."""
    attribute_start, attribute_size, count = struct.unpack_from("<HHH", data, at + 8)
    values: dict[str, str | int] = {}
    for index in range(count):
        _ns, name, raw, _size, _res0, kind, value = struct.unpack_from(
            "<IIIHBBI", data, at + attribute_start + index * attribute_size)
        key = strings[name] if name < len(strings) else ""
        if raw != 0xFFFFFFFF and raw < len(strings):
            values[key] = strings[raw]
        elif kind == _TYPE_STRING and value < len(strings):
            values[key] = strings[value]
        elif kind in (_TYPE_INT_DEC, _TYPE_INT_HEX):
            values[key] = value
    return values
