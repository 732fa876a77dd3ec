"""Part of packaging/smoke.sh: the bundle's three provider SDKs make a real request, to the tests' fake server.

An SDK that imports part of itself lazily fails only when a request is made, so ``--version`` cannot show that a
module was left out of the bundle; ``check-provider`` sends one request per provider and needs the SDK's client,
its request and response models and its error classes. The fake LLM server (tests/fake_llm) answers like each
provider, on 127.0.0.1, so no key or network is needed.

    python packaging/smoke_providers.py dist/relay-desktop/relay-desktop
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fake_llm import FakeLLMServer, Reply  # noqa: E402 - needs ROOT on sys.path first

KEY_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY"}
# What the SDKs and the app's key store read. A developer's real keys and base URLs must neither reach the fake
# server nor send the request elsewhere, and a proxy would intercept 127.0.0.1.
_CLEARED_PREFIXES = ("ANTHROPIC_", "OPENAI_", "AZURE_OPENAI_", "GOOGLE_", "GEMINI_")
_CLEARED = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "OPENROUTER_API_KEY"}


def clean_env() -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(_CLEARED_PREFIXES) and name not in _CLEARED}
    # Keys come from the environment only: the user's OS keyring is neither read nor asked to unlock.
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    return env


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    app = argv[1]
    failed = 0
    with FakeLLMServer() as server:
        server.default = Reply.text("OK")
        for provider, key_var in KEY_VARS.items():
            env = {**clean_env(), key_var: "smoke-test-key"}
            command = [app, "check-provider", provider, "--base-url", server.base_url_for(provider),
                       "--timeout", "30"]
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
            answered = result.returncode == 0 and "✓" in result.stdout
            print(f"{'ok  ' if answered else 'FAIL'} {provider}: {result.stdout.strip() or '(no output)'}")
            if not answered:
                failed += 1
                print(result.stderr.strip(), file=sys.stderr)
        if server.errors:
            print("the fake LLM server failed internally:\n" + "\n".join(server.errors), file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
