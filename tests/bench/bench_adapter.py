"""Per-call client overhead of our adapter vs. plain `chat.completions.create`, as history grows.

Run: python tests/bench/bench_adapter.py [--reps 7] [--calls 20]

Both clients stream an instant two-token reply from the local fake server. A raw keep-alive
`http.client` POST of the same JSON body measures the floor (server work + minimal client), so
"overhead" is each client's time above that floor. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from openai import OpenAI  # noqa: E402

from agent_core.llm import OpenAICompatibleModel  # noqa: E402
from agent_core.messages import ChatRequest, Message, ToolCall, assistant, system, tool_message, user  # noqa: E402
from tests.bench._util import machine, median, table, version  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer, Reply  # noqa: E402

SIZES = (10, 50, 200)
TOOLS = (
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Find an order by id",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        },
    },
)


def history(n: int) -> tuple[Message, ...]:
    """A ReAct-shaped history of n messages: user, assistant tool call, tool result, assistant answer."""
    out: list[Message] = [system("You are a support agent. Use tools when needed. " * 3)]
    i = 0
    while len(out) < n:
        call = ToolCall(f"call_{i}", "lookup_order", json.dumps({"order_id": f"{10000 + i}"}))
        out += [
            user(f"Where is order {10000 + i}? It was due last week and I need it for a trip."),
            assistant("", (call,)),
            tool_message(call, json.dumps({"status": "shipped", "eta": "2 days", "carrier": "DHL"})),
            assistant(f"Order {10000 + i} has shipped with DHL and should arrive in about two days."),
        ]
        i += 1
    return tuple(out[:n])


def per_call(fn, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - started) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="repetitions; the median is reported")
    parser.add_argument("--calls", type=int, default=20, help="calls per repetition")
    args = parser.parse_args()

    with FakeOpenAIServer(default=Reply("ok", chunks=2, usage=(10, 2))) as server:
        ours = OpenAICompatibleModel(server.url, "fake-model", api_key="sk-bench", max_retries=0)
        plain = OpenAI(base_url=server.url, api_key="sk-bench", max_retries=0)
        raw = http.client.HTTPConnection("127.0.0.1", server.port)

        rows = []
        opened = {"floor": 0, "ours": 0, "plain": 0}  # TCP connections opened while timed
        for n in SIZES:
            request = ChatRequest(history(n), tools=TOOLS)
            dicts = [m.to_openai() for m in request.messages]  # plain create() gets ready-made dicts
            payload = json.dumps(
                {
                    "model": "fake-model",
                    "messages": dicts,
                    "tools": list(TOOLS),
                    "stream": True,
                    "stream_options": {"include_usage": True},
                }
            ).encode()

            # each closure is timed within this iteration; the defaults bind this size's values
            def run_floor(payload: bytes = payload) -> None:
                raw.request(
                    "POST",
                    "/v1/chat/completions",
                    body=payload,
                    headers={"Content-Type": "application/json", "Authorization": "Bearer sk-bench"},
                )
                raw.getresponse().read()

            def run_ours(request: ChatRequest = request) -> None:
                for _ in ours.stream(request):
                    pass

            def run_plain(dicts: list = dicts) -> None:
                stream = plain.chat.completions.create(
                    model="fake-model",
                    messages=dicts,
                    tools=list(TOOLS),
                    stream=True,
                    stream_options={"include_usage": True},
                )
                for _ in stream:
                    pass

            fns = {"floor": run_floor, "ours": run_ours, "plain": run_plain}
            for fn in fns.values():  # warm up connections, caches and the SDK's lazy imports
                per_call(fn, 3)
            samples: dict[str, list[float]] = {name: [] for name in fns}
            for _ in range(args.reps):  # interleaved, so drift hits every client alike
                for name, fn in fns.items():
                    before = server.connections
                    samples[name].append(per_call(fn, args.calls))
                    opened[name] += server.connections - before
            rows.append((n, len(payload), {name: median(v) for name, v in samples.items()}))

        raw.close()
        ours.close()
        plain.close()

    print(
        f"{machine()} openai {version('openai')}, median of {args.reps} x {args.calls} calls; "
        "overhead = time above the raw-HTTP floor.\n"
    )
    headers = (
        "history",
        "body",
        "raw HTTP floor",
        "ours",
        "plain create()",
        "ours overhead",
        "create() overhead",
        "ours / create() (total)",
        "ours / create() (overhead)",
    )
    print(
        table(
            headers,
            [
                (
                    f"{n} msgs",
                    f"{size / 1024:.0f} KB",
                    ms(t["floor"]),
                    ms(t["ours"]),
                    ms(t["plain"]),
                    ms(t["ours"] - t["floor"]),
                    ms(t["plain"] - t["floor"]),
                    f"1/{t['plain'] / t['ours']:.0f}",
                    f"1/{(t['plain'] - t['floor']) / max(t['ours'] - t['floor'], 1e-9):.0f}",
                )
                for n, size, t in rows
            ],
        )
    )
    total = args.reps * args.calls * len(SIZES)
    print(
        f"\nTCP connections opened over {total} calls each: raw floor {opened['floor']}, "
        f"ours {opened['ours']}, plain create() {opened['plain']}."
    )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


if __name__ == "__main__":
    main()
