"""JSON-RPC 2.0 answered the way u2.jar answers it: jsonrpc4j's ``JsonRpcBasicServer`` over the methods of
``AutomatorService``, with the error resolver u2's ``Main`` installs.

What a client sees (always with HTTP 200; the HTTP side is in ``u2_server.py``):

* a body that is not JSON: ``{"jsonrpc":"2.0","id":"null","error":{"code":-32700,"message":"JSON parse
  error"}}`` — jsonrpc4j puts its ``NULL`` constant there, which is the *string* ``"null"``; a parameter
  that cannot be converted to the Java type (a word where an ``int`` goes) ends the same way;
* no ``method``, or a name the interface does not have: -32601 ``method not found``;
* no overload with as many parameters as were sent: -32602 ``method parameters invalid``;
* a method that throws: code -32001, the exception's class name as message and its stack trace as data (just
  its message for ``UiObjectNotFoundException``), which is how the Python client recognises the errors;
* ``void`` methods: ``"result":null``; a request without an id (a notification): an empty body.

Replies are Jackson's compact JSON with non-ASCII text written as UTF-8, keys in the order jsonrpc4j puts
them (``jsonrpc``, ``id``, then ``result`` or ``error``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["UNSIMULATED", "JavaError", "Overload", "RpcServer"]

PARSE_ERROR = (-32700, "JSON parse error")
INVALID_REQUEST = (-32600, "invalid request")
METHOD_NOT_FOUND = (-32601, "method not found")
PARAMS_INVALID = (-32602, "method parameters invalid")
CUSTOM_ERROR_CODE = -32001  # u2's Main: every exception a method throws
NOT_FOUND_CLASS = "androidx.test.uiautomator.UiObjectNotFoundException"

# Methods of the real AutomatorService interface the virtual phone does not act out (watchers, pinches, the
# UiObject-by-id family, ...). They exist on a phone, so calling one must not look like a typo: it fails the
# way an unsupported operation fails there, with the resolver's format and a message that says why.
UNSIMULATED = frozenset({
    "registerClickUiObjectWatcher", "registerPressKeyskWatcher", "removeWatcher", "resetWatcherTriggers",
    "runWatchers", "getWatchers", "hasWatcherTriggered", "hasAnyWatcherTriggered", "getLastTraversedText",
    "clearLastTraversedText", "clickAndWaitForNewWindow", "dragTo", "gesture", "pinchIn", "pinchOut",
    "flingBackward", "flingForward", "flingToBeginning", "flingToEnd", "scrollBackward", "scrollForward",
    "scrollToBeginning", "scrollToEnd", "scrollTo", "childByText", "childByDescription", "childByInstance",
    "getChild", "getFromParent", "getUiObject", "removeUiObject", "getUiObjects", "getConfigurator",
    "setConfigurator", "executeShellCommand",
})


class JavaError(Exception):
    """An exception thrown by a simulated Java method: ``java_class`` names it, ``data`` becomes error.data
    (by default a one-frame stack trace, as ``printStackTrace`` would start)."""

    def __init__(self, java_class: str, message: str = "", data: str | None = None) -> None:
        super().__init__(message)
        self.java_class = java_class
        self.message = message
        self.data = data if data is not None else (
            f"{java_class}: {message}\n\tat com.wetest.uia2.stub.AutomatorServiceImpl(AutomatorServiceImpl.java)\n"
            if message else f"{java_class}\n")


Handler = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class Overload:
    """One Java signature: parameter types (``int``, ``long``, ``float``, ``bool``, ``str``, ``obj``,
    ``int[]``) and the coroutine that runs it with the converted arguments."""

    types: tuple[str, ...]
    run: Handler


class _Unconvertible(ValueError):
    pass


def _to_int(value: Any) -> int:
    # Jackson: floats are truncated, numeric strings parsed, null is 0 for a primitive; booleans refused.
    if value is None:
        return 0
    if isinstance(value, bool):
        raise _Unconvertible(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise _Unconvertible(value) from None
    raise _Unconvertible(value)


def _convert(value: Any, kind: str) -> Any:
    if kind in ("int", "long"):
        return _to_int(value)
    if kind == "float":
        if value is None:
            return 0.0
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise _Unconvertible(value)
        try:
            return float(value)
        except ValueError:
            raise _Unconvertible(value) from None
    if kind == "bool":
        if value is None or isinstance(value, bool):
            return bool(value)
        if isinstance(value, int):
            return value != 0
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise _Unconvertible(value)
    if kind == "str":
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, dict | list):
            raise _Unconvertible(value)
        return json.dumps(value)  # Jackson turns a scalar into its text: 12 -> "12", true -> "true"
    if kind == "int[]":
        items = value if isinstance(value, list) else [value]  # ACCEPT_SINGLE_VALUE_AS_ARRAY
        return [_to_int(v) for v in items]
    if kind == "obj":
        if value is None or isinstance(value, dict):
            return value
        raise _Unconvertible(value)
    raise ValueError(f"unknown parameter type {kind!r}")


def _type_matches(value: Any, kind: str) -> bool:
    """jsonrpc4j's isMatchingType, used to pick among overloads with the same number of parameters."""
    if value is None:
        return True
    if kind == "str":
        return isinstance(value, str)
    if kind in ("int", "long", "float"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int[]":
        return isinstance(value, list)
    return isinstance(value, dict)


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class RpcServer:
    def __init__(self, methods: dict[str, list[Overload]]) -> None:
        self.methods = methods

    async def handle(self, body: bytes) -> bytes:
        """The HTTP response body for one POST to ``/jsonrpc/0``."""
        try:
            request = json.loads(body.decode("utf-8", errors="replace"))
        except ValueError:
            return _dumps(self._error("2.0", "null", PARSE_ERROR))
        if isinstance(request, list):
            replies = [reply for item in request if (reply := await self._one(item)) is not None]
            return _dumps(replies)
        reply = await self._one(request)
        return b"" if reply is None else _dumps(reply)

    @staticmethod
    def _error(version: str, request_id: Any, error: tuple[int, str], data: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"code": error[0], "message": error[1]}
        if data is not None:
            body["data"] = data
        return {"jsonrpc": version, "id": request_id, "error": body}

    async def _one(self, request: Any) -> dict[str, Any] | None:
        if not isinstance(request, dict):
            return self._error("2.0", "null", INVALID_REQUEST)
        version = request.get("jsonrpc")
        version = "2.0" if version is None else version if isinstance(version, str) else json.dumps(version)
        request_id = request.get("id")
        if isinstance(request_id, bool | dict | list):
            request_id = json.dumps(request_id)
        name = request.get("method")
        if not isinstance(name, str) or not name:
            return self._error(version, request_id, METHOD_NOT_FOUND)
        overloads = self.methods.get(name)
        if overloads is None and name not in UNSIMULATED:
            return self._error(version, request_id, METHOD_NOT_FOUND)
        params = request.get("params")
        # An empty object is how the Python client sends "no arguments" (`jsonrpc.deviceInfo()`); named
        # parameters otherwise need @JsonRpcParam annotations, which AutomatorService does not have.
        if params is None or params == {}:
            args: list[Any] = []
        elif isinstance(params, list):
            args = params
        elif isinstance(params, dict):
            return self._error(version, request_id, PARAMS_INVALID)
        else:
            return self._error(version, "null", PARSE_ERROR)
        try:
            if overloads is None:
                raise JavaError("java.lang.UnsupportedOperationException",
                                f"{name} is not simulated by the virtual phone")
            overload = self._pick(overloads, args)
            if overload is None:
                return self._error(version, request_id, PARAMS_INVALID)
            try:
                converted = [_convert(v, t) for v, t in zip(args, overload.types, strict=True)]
            except _Unconvertible:
                return self._error(version, "null", PARSE_ERROR)
            result = await overload.run(*converted)
        except JavaError as exc:
            data = exc.message if exc.java_class == NOT_FOUND_CLASS else exc.data
            reply = self._error(version, request_id, (CUSTOM_ERROR_CODE, exc.java_class), data)
            return None if request_id is None else reply
        if request_id is None:
            return None
        return {"jsonrpc": version, "id": request_id, "result": result}

    @staticmethod
    def _pick(overloads: list[Overload], args: list[Any]) -> Overload | None:
        same_arity = [o for o in overloads if len(o.types) == len(args)]
        if not same_arity:
            return None
        return max(same_arity, key=lambda o: sum(_type_matches(v, t) for v, t in zip(args, o.types, strict=True)))
