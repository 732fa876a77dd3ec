"""Anthropic's Messages API through the official `anthropic` SDK: a forced tool call, or text."""

from __future__ import annotations

from typing import Any

import anthropic

from relay_desktop.llm.errors import LLMError
from relay_desktop.llm.providers.base import Provider, error_message
from relay_desktop.llm.types import Completion, LLMRequest, Message, OutputMode, Usage


class AnthropicProvider(Provider[anthropic.AsyncAnthropic]):
    kind = "anthropic"
    modes = (OutputMode.TOOL, OutputMode.JSON_SCHEMA, OutputMode.THINK_ANSWER, OutputMode.JSON_TEXT)
    default_base_url = "https://api.anthropic.com"

    def _new_client(self, api_key: str | None) -> anthropic.AsyncAnthropic:
        # Retries are ours (bounded, jittered, key-rotating); the SDK's would hide rate limits from the key pool.
        return anthropic.AsyncAnthropic(api_key=api_key or "none", base_url=self.settings.base_url,
                                        timeout=self.settings.timeout, max_retries=0)

    async def _close_client(self, client: anthropic.AsyncAnthropic) -> None:
        await client.close()

    async def _complete(self, request: LLMRequest, model: str, api_key: str | None,
                        mode: OutputMode) -> Completion:
        kwargs: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_tokens,
            # No temperature: SDK 2.x dropped the parameter (the API picks it per model).
            # The system prompt is the long, unchanging part of every agent call: caching it makes each call
            # cheaper and faster once it passes the provider's minimum cacheable length.
            "system": [{"type": "text", "text": self.system_prompt(request, mode),
                        "cache_control": {"type": "ephemeral"}}],
            "messages": [_message(m) for m in request.messages],
        }
        if mode is OutputMode.TOOL and request.contract is not None:
            contract = request.contract
            kwargs["tools"] = [{"name": contract.name, "description": contract.description,
                                "input_schema": contract.schema}]
            kwargs["tool_choice"] = {"type": "tool", "name": contract.name}
        elif mode is OutputMode.JSON_SCHEMA and request.contract is not None:
            kwargs["output_config"] = {"format": {"type": "json_schema", "schema": request.contract.schema}}
        message = await self.client(api_key).messages.create(**kwargs)
        return _completion(message)

    def translate(self, error: Exception, model: str) -> LLMError | None:
        if isinstance(error, anthropic.APITimeoutError):
            return self.timeout_error(model)
        if isinstance(error, anthropic.APIConnectionError):
            return self.connection_error(error, model)
        if isinstance(error, anthropic.APIStatusError):
            message, code = error_message(error.body, error.response.reason_phrase or "")
            return self.status_error(error.status_code, message, model, error.response.headers, code)
        return super().translate(error, model)


def _message(message: Message) -> dict[str, Any]:
    # Images before text: Anthropic's guidance, and the text then reads as being about the picture.
    content: list[dict[str, Any]] = [
        {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.base64()}}
        for image in message.images
    ]
    if message.text or not content:
        content.append({"type": "text", "text": message.text or "(no text)"})
    return {"role": message.role, "content": content}


def _completion(message: Any) -> Completion:
    texts, thinking = [], []
    tool_name, tool_args = None, None
    for block in message.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "thinking":
            thinking.append(getattr(block, "thinking", "") or "")
        elif kind == "tool_use" and tool_name is None:
            tool_name, tool_args = block.name, block.input
    usage = message.usage
    cache_read = getattr(usage, "cache_read_input_tokens", None) or 0
    cache_write = getattr(usage, "cache_creation_input_tokens", None) or 0
    return Completion(
        text="".join(texts),
        tool_name=tool_name,
        tool_args=tool_args if isinstance(tool_args, dict | str) else None,
        thinking="\n".join(thinking),
        # Anthropic counts cached prompt tokens apart from input_tokens; ours count every prompt token.
        usage=Usage(input_tokens=(usage.input_tokens or 0) + cache_read + cache_write,
                    output_tokens=usage.output_tokens or 0, cached_input_tokens=cache_read,
                    cache_write_tokens=cache_write),
        model=message.model or "",
        stop_reason=message.stop_reason,
    )
