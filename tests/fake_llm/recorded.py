"""What the fake server saw: one `RecordedRequest` per HTTP request, with readers that hide the wire format.

Tests assert on what the app *sent* (the screenshot, the tool schema, the key) without caring which provider it
went to, so every reader here returns the same normalized shape for Anthropic, OpenAI and Gemini.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Provider = Literal["anthropic", "openai", "gemini", "unknown"]

_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?:;[^,;]*)*;base64,(?P<data>.*)$", re.DOTALL)


class Headers(Mapping[str, str]):
    """Request headers with case-insensitive lookup (HTTP header names are; the SDKs mix cases freely)."""

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self._items = list(items)
        self._lower: dict[str, str] = {}
        for name, value in self._items:
            self._lower.setdefault(name.lower(), value)  # the first of repeated headers, as most servers read it

    def __getitem__(self, name: str) -> str:
        return self._lower[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._lower

    def __iter__(self) -> Iterator[str]:
        return iter(self._lower)

    def __len__(self) -> int:
        return len(self._lower)

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


@dataclass(frozen=True)
class ToolSpec:
    """A tool definition as the request offered it, whatever the provider called its fields."""

    name: str
    description: str
    schema: dict[str, Any]  # JSON schema of the arguments; Gemini's upper-case OpenAPI type names lower-cased


@dataclass(frozen=True)
class Image:
    mime_type: str
    data: bytes


@dataclass(eq=False)
class RecordedRequest:
    index: int  # 0-based arrival order on this server
    provider: Provider
    method: str
    path: str  # without the query string
    query: dict[str, str]
    headers: Headers
    body: bytes
    json: Any  # the parsed body, or None when it was empty or not JSON
    model: str | None  # Gemini's from the path, without "models/"; the others' from the body
    disconnected: bool = False  # the client went away before the server answered (cancelled, timed out)
    answered_with: str | None = None  # the Reply kind used, or "invalid_key" / "unknown_model" / "models_list"

    def key(self) -> str | None:
        """The API key as sent, from wherever this provider's SDK puts it.

        anthropic 2.x sends `api_key` as `Authorization: Bearer` (older SDKs and curl examples use `x-api-key`),
        so both are read. Gemini uses `x-goog-api-key` (or `?key=` in hand-written URLs)."""
        if self.provider == "gemini":
            return self.headers.get("x-goog-api-key") or self.query.get("key")
        if self.provider == "anthropic" and "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        auth = self.headers.get("authorization")
        if auth is None:
            return None
        return auth[len("bearer "):] if auth.lower().startswith("bearer ") else auth

    def _body(self) -> dict[str, Any]:
        return self.json if isinstance(self.json, dict) else {}

    # Images.

    def image_parts(self) -> list[Image]:
        """Every base64 image in the request (all messages, in order) with its declared MIME type."""
        images: list[Image] = []
        for part in _walk(self._body().get("messages") or self._body().get("contents") or []):
            if self.provider == "anthropic" and part.get("type") == "image":
                source = part.get("source") or {}
                if source.get("type") == "base64":
                    images.append(Image(source.get("media_type", ""), _b64(source.get("data", ""))))
            elif self.provider == "openai" and part.get("type") == "image_url":
                image_url = part.get("image_url")
                url = image_url.get("url", "") if isinstance(image_url, dict) else str(image_url or "")
                match = _DATA_URL.match(url)
                if match:
                    images.append(Image(match["mime"] or "", _b64(match["data"])))
            elif self.provider == "gemini":
                # google-genai 3.x writes `inlineData` with a snake_case `mime_type` inside; accept both spellings.
                inline = part.get("inlineData") or part.get("inline_data")
                if isinstance(inline, dict) and "data" in inline:
                    mime = inline.get("mimeType") or inline.get("mime_type") or ""
                    images.append(Image(mime, _b64(inline["data"])))
        return images

    def images(self) -> list[bytes]:
        """The decoded bytes of every image the request carries."""
        return [image.data for image in self.image_parts()]

    # Tools and structured output.

    def tools(self) -> list[ToolSpec]:
        """The tool/function definitions offered, normalized to name, description and JSON schema."""
        specs: list[ToolSpec] = []
        for tool in self._body().get("tools") or []:
            if not isinstance(tool, dict):
                continue
            if self.provider == "anthropic":
                specs.append(ToolSpec(tool.get("name", ""), tool.get("description", ""),
                                      tool.get("input_schema") or {}))
            elif self.provider == "openai":
                function = tool.get("function") or {}
                specs.append(ToolSpec(function.get("name", ""), function.get("description", ""),
                                      function.get("parameters") or {}))
            elif self.provider == "gemini":
                for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                    # `parameters` is Gemini's OpenAPI subset (types in upper case); `parameters_json_schema`
                    # (sent snake_case by google-genai 3.x) or `parametersJsonSchema` is plain JSON schema.
                    schema = (decl.get("parametersJsonSchema") or decl.get("parameters_json_schema")
                              or _lower_types(decl.get("parameters") or {}))
                    specs.append(ToolSpec(decl.get("name", ""), decl.get("description", ""), schema))
        return specs

    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.tools()]

    def response_schema(self) -> dict[str, Any] | None:
        """The JSON schema the request asks the answer to follow (structured output), if any.

        OpenAI: `response_format.json_schema.schema`. Gemini: `generationConfig.responseJsonSchema` (what
        google-genai sends for `response_json_schema=`) or `responseSchema` (for `response_schema=`, OpenAPI
        subset, upper-case types, lower-cased here). Anthropic has no such field in the Messages API body
        unless `output_format`/`output_config` is used, which is read too."""
        body = self._body()
        if self.provider == "openai":
            response_format = body.get("response_format") or {}
            if response_format.get("type") == "json_schema":
                return (response_format.get("json_schema") or {}).get("schema")
            return None
        if self.provider == "gemini":
            config = body.get("generationConfig") or body.get("generation_config") or {}
            schema = config.get("responseJsonSchema") or config.get("response_json_schema")
            if schema is not None:
                return schema
            legacy = config.get("responseSchema") or config.get("response_schema")
            return _lower_types(legacy) if legacy is not None else None
        if self.provider == "anthropic":
            output = body.get("output_format") or (body.get("output_config") or {}).get("format") or {}
            return output.get("schema") if isinstance(output, dict) else None
        return None

    # Text.

    def system_text(self) -> str:
        """The system prompt as one string ("" when there is none)."""
        body = self._body()
        if self.provider == "anthropic":
            return _join_text(body.get("system"))
        if self.provider == "openai":
            return "\n".join(_join_text(m.get("content")) for m in body.get("messages") or []
                             if isinstance(m, dict) and m.get("role") in ("system", "developer"))
        if self.provider == "gemini":
            instruction = body.get("systemInstruction") or body.get("system_instruction")
            return _join_text((instruction or {}).get("parts") if isinstance(instruction, dict) else instruction)
        return ""

    def texts(self) -> list[str]:
        """The text of every non-system message, in order (user, assistant and tool-result text alike)."""
        body = self._body()
        if self.provider == "gemini":
            return [_join_text(c.get("parts")) for c in body.get("contents") or [] if isinstance(c, dict)]
        return [_join_text(m.get("content")) for m in body.get("messages") or []
                if isinstance(m, dict) and m.get("role") not in ("system", "developer")]

    def last_text(self) -> str:
        """The text of the last message: usually what the app just asked."""
        texts = self.texts()
        return texts[-1] if texts else ""


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict nested anywhere in `value` (content parts hide at different depths per provider)."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _join_text(content: Any) -> str:
    """Text from a string, or from the `text` fields of a list of parts (tool results' nested content too)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    pieces = [part["text"] for part in _walk(content) if isinstance(part.get("text"), str) and not part.get("thought")]
    return "\n".join(pieces)


def _b64(data: str) -> bytes:
    # google-genai encodes bytes URL-safe ("-" and "_"), the others use the standard alphabet; accept both, and
    # missing padding too.
    data = "".join(data.split()).replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(data + "=" * (-len(data) % 4), validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"fake server: the request's image is not valid base64: {error}") from None


def _lower_types(schema: Any) -> Any:
    """Gemini's OpenAPI-style schema ("type": "OBJECT") as JSON schema spelling ("type": "object")."""
    if isinstance(schema, dict):
        return {k: (v.lower() if k == "type" and isinstance(v, str) else _lower_types(v)) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_lower_types(item) for item in schema]
    return schema
