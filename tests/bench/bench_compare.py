"""Compare's concurrency: three lanes against an endpoint that takes 300 ms per call, vs the
slowest lane alone. Target: at most 1.3x.

    python tests/bench/bench_compare.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import agent_core as ac  # noqa: E402
from agent_core.lanes import Lane, LaneSet  # noqa: E402
from agent_core.llm import OpenAICompatibleModel  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer, Reply  # noqa: E402
from tests.test_faults import sensible  # noqa: E402

DELAY_S = 0.3
PATTERNS = ("react", "plan-execute", "reflection")


def slow(request):
    reply = sensible(request)
    return Reply(reply.text, reply.tool_calls, chunks=reply.chunks, delay=DELAY_S)


def lane(server: FakeOpenAIServer, pattern: str) -> Lane:
    config = ac.configure(
        pattern=pattern, tools=("query_order",), reflector=True, max_iterations=2, max_reflection_rounds=1
    )
    model = OpenAICompatibleModel(server.url, "fake-model", timeout=10)
    return Lane(pattern, lambda: ac.stream("Has order 10001 arrived?", config, model))


def timed(lanes: list[Lane]) -> tuple[float, list[int]]:
    started = time.perf_counter()
    LaneSet(lanes).start().join()
    calls = [sum(e.kind == "llm_call" for e in one.events) for one in lanes]
    return time.perf_counter() - started, calls


def main() -> None:
    with FakeOpenAIServer(default=slow) as server:
        alone = {p: timed([lane(server, p)]) for p in PATTERNS}
        together, calls = timed([lane(server, p) for p in PATTERNS])
    slowest = max(alone, key=lambda p: alone[p][0])
    ratio = together / alone[slowest][0]
    print(f"Endpoint: {DELAY_S * 1000:.0f} ms per call (local fake server on 127.0.0.1)\n")
    print("| run | LLM calls | wall time |\n|---|---|---|")
    for p in PATTERNS:
        print(f"| {p} alone | {alone[p][1][0]} | {alone[p][0]:.2f} s |")
    print(f"| three lanes together | {' + '.join(map(str, calls))} | {together:.2f} s |")
    print(
        f"\nThree lanes / slowest lane alone ({slowest}): **{ratio:.2f}x** (target <= 1.3x): "
        f"{'met' if ratio <= 1.3 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
