"""One module per provider SDK; everything provider-specific stays inside it."""

from __future__ import annotations

from relay_desktop.llm.config import ProviderSettings
from relay_desktop.llm.providers.base import Provider


def create_provider(settings: ProviderSettings) -> Provider:
    # Imported here so that a broken or missing SDK only breaks the provider that needs it.
    if settings.kind == "anthropic":
        from relay_desktop.llm.providers.anthropic import AnthropicProvider

        return AnthropicProvider(settings)
    if settings.kind == "openai":
        from relay_desktop.llm.providers.openai import OpenAIProvider

        return OpenAIProvider(settings)
    from relay_desktop.llm.providers.gemini import GeminiProvider

    return GeminiProvider(settings)


__all__ = ["Provider", "create_provider"]
