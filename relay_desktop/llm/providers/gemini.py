"""Google's Gemini API through the official `google-genai` SDK: function calling, schema output, or text."""

from __future__ import annotations

from typing import Any

from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from relay_desktop.llm.errors import LLMError
from relay_desktop.llm.providers.base import Provider, error_message
from relay_desktop.llm.types import Completion, LLMRequest, Message, OutputMode, Usage


class GeminiProvider(Provider[genai.Client]):
    kind = "gemini"
    modes = (OutputMode.TOOL, OutputMode.JSON_SCHEMA, OutputMode.THINK_ANSWER, OutputMode.JSON_TEXT)
    default_base_url = "https://generativelanguage.googleapis.com"

    def _new_client(self, api_key: str | None) -> genai.Client:
        options = genai_types.HttpOptions(
            base_url=self.settings.base_url,
            timeout=int(self.settings.timeout * 1000),  # the SDK counts milliseconds
            retry_options=None,  # retries are ours: bounded, jittered, key-rotating
        )
        return genai.Client(api_key=api_key or "none", http_options=options)

    async def _close_client(self, client: genai.Client) -> None:
        await client.aio.aclose()

    async def _complete(self, request: LLMRequest, model: str, api_key: str | None,
                        mode: OutputMode) -> Completion:
        config: dict[str, Any] = {
            "system_instruction": self.system_prompt(request, mode),
            "max_output_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        contract = request.contract
        if contract is not None and mode is OutputMode.TOOL:
            config["tools"] = [genai_types.Tool(function_declarations=[genai_types.FunctionDeclaration(
                name=contract.name, description=contract.description, parameters_json_schema=contract.schema)])]
            config["tool_config"] = genai_types.ToolConfig(function_calling_config=genai_types.FunctionCallingConfig(
                mode=genai_types.FunctionCallingConfigMode.ANY, allowed_function_names=[contract.name]))
            config["automatic_function_calling"] = genai_types.AutomaticFunctionCallingConfig(disable=True)
        elif contract is not None and mode is OutputMode.JSON_SCHEMA:
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = contract.schema
        response = await self.client(api_key).aio.models.generate_content(
            model=model, contents=[_content(m) for m in request.messages],
            config=genai_types.GenerateContentConfig(**config))
        return self._completion(response, model)

    def _completion(self, response: Any, model: str) -> Completion:
        candidates = getattr(response, "candidates", None) or []
        if not candidates:
            feedback = getattr(response, "prompt_feedback", None)
            reason = getattr(feedback, "block_reason", None)
            raise self.unreadable_response(model, f"no candidates (blocked: {reason})" if reason else "no candidates")
        candidate = candidates[0]
        texts, thoughts = [], []
        tool_name, tool_args = None, None
        parts = getattr(candidate.content, "parts", None) or []
        for part in parts:
            if part.function_call is not None and tool_name is None:
                tool_name, tool_args = part.function_call.name, dict(part.function_call.args or {})
            elif part.text:
                (thoughts if part.thought else texts).append(part.text)
        usage = response.usage_metadata
        finish = getattr(candidate, "finish_reason", None)
        return Completion(
            text="".join(texts),
            tool_name=tool_name,
            tool_args=tool_args,
            thinking="\n".join(thoughts),
            usage=Usage(input_tokens=getattr(usage, "prompt_token_count", 0) or 0,
                        # Gemini bills its thinking tokens as output.
                        output_tokens=(getattr(usage, "candidates_token_count", 0) or 0)
                        + (getattr(usage, "thoughts_token_count", 0) or 0),
                        cached_input_tokens=getattr(usage, "cached_content_token_count", 0) or 0),
            model=getattr(response, "model_version", None) or model,
            stop_reason=str(getattr(finish, "value", finish)) if finish is not None else None,
        )

    def translate(self, error: Exception, model: str) -> LLMError | None:
        if isinstance(error, genai_errors.APIError):
            message, code = error_message(error.details, error.message or "")
            response = getattr(error, "response", None)
            headers = getattr(response, "headers", None)
            return self.status_error(error.code, message, model, headers, f"{code} {error.status or ''}".strip())
        return super().translate(error, model)


def _content(message: Message) -> genai_types.Content:
    parts = [genai_types.Part.from_bytes(data=image.data, mime_type=image.media_type) for image in message.images]
    if message.text or not parts:
        parts.append(genai_types.Part.from_text(text=message.text or "(no text)"))
    # Gemini calls the assistant "model".
    return genai_types.Content(role="model" if message.role == "assistant" else "user", parts=parts)
