"""OpenAI's Chat Completions API through the official `openai` SDK, and any server that speaks it.

With `base_url` this covers Ollama, vLLM, LM Studio and OpenRouter. Those differ in what they accept, so the
request adapts: `max_tokens` instead of `max_completion_tokens`, plain string content where no image is sent,
no temperature for models that refuse one, and (in the router) a plain-JSON text format for servers that have
no tool calling.
"""

from __future__ import annotations

from typing import Any

import openai

from relay_desktop.llm.errors import BadRequest, LLMError
from relay_desktop.llm.providers.base import Provider, error_message
from relay_desktop.llm.types import Completion, LLMRequest, Message, OutputMode, Usage


class OpenAIProvider(Provider[openai.AsyncOpenAI]):
    kind = "openai"
    modes = (OutputMode.TOOL, OutputMode.JSON_SCHEMA, OutputMode.THINK_ANSWER, OutputMode.JSON_TEXT)
    default_base_url = "https://api.openai.com/v1"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._no_temperature: set[str] = set()  # models that answered "temperature is not supported"

    @property
    def compatible_server(self) -> bool:
        # The built-in "openai" provider is OpenAI even through a proxy URL; any other name is some other server.
        return self.settings.name != "openai"

    def _new_client(self, api_key: str | None) -> openai.AsyncOpenAI:
        # Local servers ignore the key, but the SDK insists on one.
        return openai.AsyncOpenAI(api_key=api_key or "no-key", base_url=self.settings.base_url,
                                  timeout=self.settings.timeout, max_retries=0)

    async def _close_client(self, client: openai.AsyncOpenAI) -> None:
        await client.close()

    async def _complete(self, request: LLMRequest, model: str, api_key: str | None,
                        mode: OutputMode) -> Completion:
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system_prompt(request, mode)}]
        messages += [_message(m) for m in request.messages]
        kwargs: dict[str, Any] = {"model": model, "messages": messages}
        # Newer OpenAI models accept only max_completion_tokens; many compatible servers only max_tokens.
        kwargs["max_tokens" if self.compatible_server else "max_completion_tokens"] = request.max_tokens
        if model not in self._no_temperature:
            kwargs["temperature"] = request.temperature
        contract = request.contract
        if contract is not None and mode is OutputMode.TOOL:
            kwargs["tools"] = [{"type": "function", "function": {
                "name": contract.name, "description": contract.description, "parameters": contract.schema}}]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": contract.name}}
        elif contract is not None and mode is OutputMode.JSON_SCHEMA:
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": contract.name, "description": contract.description, "schema": contract.schema}}
        client = self.client(api_key)
        try:
            response = await client.chat.completions.create(**kwargs)
        except openai.BadRequestError as error:
            if "temperature" not in str(error).lower() or "temperature" not in kwargs:
                raise
            # Reasoning models take only their default temperature: remember, and ask again without it.
            self._no_temperature.add(model)
            kwargs.pop("temperature")
            response = await client.chat.completions.create(**kwargs)
        return self._completion(response, model)

    def _completion(self, response: Any, model: str) -> Completion:
        if not getattr(response, "choices", None):
            raise self.unreadable_response(model, "no choices in the answer")
        choice = response.choices[0]
        message = choice.message
        tool_name, tool_args = None, None
        for call in message.tool_calls or []:
            function = getattr(call, "function", None)
            if function is not None:
                tool_name, tool_args = function.name, function.arguments
                break
        extra = getattr(message, "model_extra", None) or {}
        # vLLM, DeepSeek and OpenRouter return a reasoning model's thoughts beside the content.
        thinking = extra.get("reasoning_content") or extra.get("reasoning") or ""
        usage = getattr(response, "usage", None)
        details = getattr(usage, "prompt_tokens_details", None)
        return Completion(
            text=message.content or "",
            tool_name=tool_name,
            tool_args=tool_args,
            thinking=thinking if isinstance(thinking, str) else "",
            usage=Usage(input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                        output_tokens=getattr(usage, "completion_tokens", 0) or 0,
                        cached_input_tokens=getattr(details, "cached_tokens", 0) or 0),
            model=getattr(response, "model", "") or model,
            stop_reason=choice.finish_reason,
        )

    def translate(self, error: Exception, model: str) -> LLMError | None:
        if isinstance(error, openai.APITimeoutError):
            return self.timeout_error(model)
        if isinstance(error, openai.APIConnectionError):
            return self.connection_error(error, model)
        if isinstance(error, openai.APIStatusError):
            message, code = error_message(error.body, error.response.reason_phrase or "")
            translated = self.status_error(error.status_code, message, model, error.response.headers, code)
            if isinstance(translated, BadRequest) and self.compatible_server and _mentions_tools(message):
                translated.unsupported_tools = True
            return translated
        return super().translate(error, model)


def _mentions_tools(message: str) -> bool:
    lowered = message.lower()
    return any(word in lowered for word in ("tool", "function call", "response_format", "json_schema"))


def _message(message: Message) -> dict[str, Any]:
    if not message.images:
        return {"role": message.role, "content": message.text}
    content: list[dict[str, Any]] = [{"type": "text", "text": message.text}] if message.text else []
    content += [{"type": "image_url", "image_url": {"url": image.data_url()}} for image in message.images]
    return {"role": message.role, "content": content}
