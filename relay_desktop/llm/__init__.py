"""Language models behind one small async interface.

`LLMRequest` in, `LLMResponse` out (a schema-validated object, usage, latency), whatever the provider:
Anthropic, OpenAI or any OpenAI-compatible server, and Gemini, each through its official SDK in a module of
its own under `providers/`. `ModelRouter` adds what the agent needs around single calls: per-role models,
fallback chains, key rotation, retries with backoff, output repair and cost accounting.
"""
