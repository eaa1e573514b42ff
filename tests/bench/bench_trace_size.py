"""Trace size of a ReAct run with the call record, against storing each call's whole history.

A ReAct run re-sends its history on every call. The call record stores each distinct message once
and each call's messages as id ranges (agent_core/calls.py), so a trace should grow linearly with
the rounds; storing every call's messages in full would grow quadratically. This prints the bytes
per round of both at 5, 10, 20 and 30 rounds (the rounds limit's maximum).

    python tests/bench/bench_trace_size.py

Deterministic (a scripted model, no timing), so one run is the result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import agent_core as ac  # noqa: E402
from agent_core import events as ev  # noqa: E402
from agent_core import trace  # noqa: E402
from agent_core.calls import MessageTable  # noqa: E402
from agent_core.testing import ScriptedModel, say, tool  # noqa: E402

ROUNDS = (5, 10, 20, 30)


CITIES = (
    "Beijing Shanghai Guangzhou Shenzhen Chengdu Hangzhou Wuhan Xian Nanjing Tianjin Suzhou Chongqing "
    "Qingdao Dalian Xiamen Kunming Harbin Changsha Hefei Fuzhou Jinan Zhengzhou Shenyang Nanning Guiyang "
    "Lanzhou Urumqi Lhasa Haikou Hohhot Yinchuan Xining"
).split()


def reply(request):  # noqa: ANN001, ANN201 - a ScriptedModel reply function
    n = len(request.messages) // 2
    if request.tools:
        # distinct thoughts, so the progress detector (Jaccard > 0.7) lets every round run
        city = CITIES[n % len(CITIES)]
        return say(
            f"{city} is next: its forecast {n} ({n * 7} km away) still missing from report section {n}.",
            tool("search", query=f"{city} weather forecast"),
        )
    return say("Here is everything I found.")


def sizes(rounds: int) -> tuple[int, int, int]:
    """(trace bytes with the call record, bytes if every call stored its whole request, calls)."""
    config = ac.configure(pattern="react", tools=("search",), max_rounds=rounds)
    events = list(ac.stream("Report the weather for every city you can find.", config, ScriptedModel.forever(reply)))
    recorded = len(trace.Trace.of(config.to_dict(), events).dumps(indent=None).encode())
    table = MessageTable(events)
    naive_calls = []
    for call in table.calls:
        whole = [{k: v for k, v in m.items() if k != "id"} for m in table.request(call)]
        naive_calls.append(
            {
                **{k: v for k, v in call.to_dict().items() if k not in ("messages", "new_messages")},
                "messages": whole,
                "reply": table.reply(call),
            }
        )
    others = [e.to_dict() for e in events if not isinstance(e, (ev.LlmCall, ev.Token))]
    naive = len(json.dumps({"config": config.to_dict(), "events": others + naive_calls}, ensure_ascii=False).encode())
    return recorded, naive, len(table.calls)


def main() -> None:
    print("| rounds | calls | trace bytes | bytes / round | whole history per call | bytes / round | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for rounds in ROUNDS:
        recorded, naive, calls = sizes(rounds)
        print(
            f"| {rounds} | {calls} | {recorded:,} | {recorded // rounds:,} | {naive:,} | {naive // rounds:,} | "
            f"{naive / recorded:.1f}× |"
        )


if __name__ == "__main__":
    main()
