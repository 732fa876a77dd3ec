"""Cancellation latency and retry timing of the LLM router, per provider, against the fake provider server.

    python benchmarks/llm_cancel.py [--runs 30]

Cancellation: a request the server never answers is cancelled once the server has it; we time cancel() until
the awaiting task has returned, and until the server sees the connection close (the HTTP request is really
aborted, not left running). Retries: a 429 with `retry-after: 1`, then a 500, then the answer, with real sleeps;
we time each wait the router took."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.fake_llm

from relay_desktop.llm.retry import RetryPolicy
from relay_desktop.llm.types import LLMRequest, Message
from tests.fake_llm import FakeLLMServer, Reply
from tests.llm_fixtures import GOOD_PLAN, PLAN, TARGETS, make_router

REQUEST = LLMRequest("You operate a phone.", (Message.user("Turn on Wi-Fi."),), contract=PLAN)


def ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    median = statistics.median(values)
    return f"median {median * 1000:6.2f} ms   p95 {p95 * 1000:6.2f} ms   max {values[-1] * 1000:6.2f} ms"


async def cancel_latency(target: str, runs: int) -> tuple[list[float], list[float]]:
    returned, aborted = [], []
    with FakeLLMServer() as server:
        harness = make_router(server, target, timeout=60)
        server.default = Reply.hang()
        for run in range(runs + 1):
            task = asyncio.create_task(harness.router.generate("fast", REQUEST))
            await server.await_requests(run + 1, timeout=10)
            cancelled_at = time.perf_counter()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            back = time.perf_counter() - cancelled_at
            # A thread waiting on the server's condition variable wakes at once; the async wait polls.
            await asyncio.to_thread(server.wait_for_disconnects, run + 1, 10)
            gone = time.perf_counter() - cancelled_at
            if run:  # the first run pays for connecting and importing; it is not what a user waits for
                returned.append(back)
                aborted.append(gone)
        await harness.router.aclose()
    return returned, aborted


async def retry_timing(target: str) -> list[tuple[str, float]]:
    with FakeLLMServer() as server:
        harness = make_router(server, target, real_sleep=True, retry=RetryPolicy(base_delay=0.25))
        server.script(Reply.error(429, retry_after=1), Reply.error(500), Reply.tool_call("submit_plan", GOOD_PLAN))
        started = time.perf_counter()
        response = await harness.router.generate("fast", REQUEST)
        total = time.perf_counter() - started
        await harness.router.aclose()
    assert response.data == GOOD_PLAN
    return [*((e.message.split(": ", 1)[1], e.delay_s) for e in harness.events), ("total", total)]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    print(f"Cancellation, {args.runs} runs per target (cancel() → task returned / → server saw the close):")
    for target in TARGETS:
        returned, aborted = await cancel_latency(target, args.runs)
        print(f"  {target:11} returned: {ms(returned)}")
        print(f"  {'':11} aborted:  {ms(aborted)}")
    print("\nRetries (429 with retry-after: 1, then 500, then the answer; real waits):")
    for target in TARGETS:
        steps = await retry_timing(target)
        print(f"  {target:11} " + "; ".join(f"{what} ({delay:.2f} s)" for what, delay in steps))


if __name__ == "__main__":
    asyncio.run(main())
