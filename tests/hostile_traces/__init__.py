"""A corpus of hostile trace files for Replay, built from the bundled examples.

Each entry of `corpus()` is a file a participant could upload: markup in every field that reaches a
label, trace shapes no run produces, drafts whose diff costs cubic time, a 20,000-event run, and
files that are small but costly to draw (`DRAWING`: 20,000 verdicts in one step, thousands of
answers, a 30,000-step plan, a token flood, a call record naming a billion messages).
`write(folder)` saves them as .json files (for the browser test, or to try by hand:
`python -m tests.hostile_traces /tmp/hostile`).

Every URL in the data points at `ATTACKER_HOST`, so a test can tell a fetch the data caused from the
app's own requests.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from agent_core import examples

ATTACKER_HOST = "attacker.invalid"
_URL = f"http://{ATTACKER_HOST}"

#: One piece per attack; each is findable in the page (a word in capitals) if it ever renders.
ATTACKS = {
    "image": f"![ATTACKIMG]({_URL}/img.png)",
    "link": f"[ATTACKLINK]({_URL}/link)",
    "javascript": "[ATTACKJS](javascript:alert(1))",
    "directive": ":red[ATTACKRED]",
    "icon": ":material/skull:",
    "bold": "**ATTACKBOLD**",
    "katex": "$ATTACK^2$",
    "html": f'<img src="{_URL}/html.png"><b>ATTACKHTML</b>',
    "badge": "] :blue-badge[ATTACKBADGE] [",
    "autolink": f"{_URL}/auto",
}
PAYLOAD = " ".join(ATTACKS.values())
#: Substrings that only appear in a markdown body if a piece of the payload went in unescaped.
UNESCAPED = (
    "![ATTACKIMG]",
    f"]({_URL}",
    "](javascript:",
    ":red[ATTACKRED",
    ":material/skull:",
    "**ATTACKBOLD",
    "$ATTACK^2$",
    "<img src=",
    "<b>",
    ":blue-badge[ATTACKBADGE",
)


def _example(scenario: str) -> dict[str, Any]:
    return json.loads(examples.path_of(scenario, "en").read_text(encoding="utf-8"))


def _poison_labels(data: dict[str, Any]) -> dict[str, Any]:
    """Every free-text field that reaches a label, a badge, a caption or a markdown body."""
    data = copy.deepcopy(data)
    for e in data["events"]:
        kind = e["kind"]
        if kind == "run_started":
            e["task"] = PAYLOAD
        elif kind in ("llm_call", "token"):
            e["model"] = PAYLOAD if kind == "llm_call" else e.get("model")
            e["role"] = e["role"]  # roles pick the block: kept, so the run still has its shape
        elif kind in ("thought", "draft", "final_answer"):
            e["text"] = PAYLOAD + "\n" + e["text"]
        elif kind == "tool_call":
            e["name"] = PAYLOAD
            e["arguments"] = {"q": PAYLOAD}
        elif kind == "tool_result":
            e["name"] = PAYLOAD
            e["output"] = PAYLOAD
        elif kind == "plan":
            for s in e["steps"]:
                s["id"] = f"{s['id']} {PAYLOAD}"
                s["description"] = PAYLOAD
                s["tool"] = PAYLOAD
                s["reason"] = PAYLOAD if s.get("reason") else ""
        elif kind == "step_started":
            e["description"] = PAYLOAD
        elif kind == "step_finished":
            e["result"] = PAYLOAD
        elif kind == "verdict":
            # the verdict word itself is one of four (checked at load: see "shape-markup-verdict")
            for name in ("feedback", "analysis", "suggestion"):
                e[name] = PAYLOAD
        elif kind == "limit_reached":
            e["limit"] = PAYLOAD
            e["message"] = PAYLOAD
    data["config"]["models"] = {"default": PAYLOAD, "critic": PAYLOAD}
    return data


def _with_plan_step(change: dict[str, Any] | str) -> dict[str, Any]:
    """order-99999 with its first plan's first step replaced (a string) or changed (a dict update)."""
    data = _example("order-99999")
    plan = next(e for e in data["events"] if e["kind"] == "plan")
    if isinstance(change, str):
        plan["steps"][0] = change
    else:
        plan["steps"][0].update(change)
    return data


def _cubic_diff() -> dict[str, Any]:
    """A Reflection run whose drafts are one line repeated, then that line interleaved with another:
    difflib's alignment of them grows with the cube of the line count (13 KB, tens of CPU seconds)."""
    data = _example("primes")
    drafts = ["x\n" * 1100, "x\ny\n" * 550, "x\n" * 1100]
    versions = iter(range(len(drafts)))
    kept = []
    for e in data["events"]:
        if e["kind"] == "draft":
            v = next(versions, None)
            if v is None:
                continue
            e["version"], e["text"] = v, drafts[v]
        kept.append(e)
    # one more draft (and its critique) than the example has
    extra = next(e for e in kept if e["kind"] == "draft")
    at = max(i for i, e in enumerate(kept) if e["kind"] == "draft") + 1
    kept.insert(at, {**extra, "version": 2, "text": drafts[2], "step": 3})
    data["events"] = kept
    data["config"]["code_task"] = False
    return data


def _many_cubic_drafts(n: int = 40) -> dict[str, Any]:
    """A Reflection run of `n` drafts, each pair as costly to diff as "cubic-diff" (90 KB): a bound per
    diff alone would still let it cost `n` times that bound."""
    data = _cubic_diff()
    first = next(e for e in data["events"] if e["kind"] == "draft")
    at = data["events"].index(first)
    drafts = [{**first, "version": v, "step": v, "text": ("x\n" * 1100, "x\ny\n" * 550)[v % 2]} for v in range(n)]
    data["events"] = [e for e in data["events"] if e["kind"] != "draft"]
    data["events"][at:at] = drafts
    return data


def _many_events(n: int = 20_000) -> dict[str, Any]:
    """A ReAct run of `n` events: one model call, a thought, a tool call and its result per round."""
    data = _example("weather-report")
    events: list[dict[str, Any]] = [data["events"][0]]
    rounds = (n - 4) // 4
    t = 0.0
    for r in range(1, rounds + 1):
        t += 0.001
        events += [
            {
                "kind": "llm_call",
                "t": t,
                "step": r,
                "role": "actor",
                "model": "m",
                "prompt_tokens": 100,
                "completion_tokens": 10,
                "latency_ms": 1.0,
                "usage_estimated": False,
            },
            {"kind": "thought", "t": t, "step": r, "text": f"Round {r}: look it up again."},
            {
                "kind": "tool_call",
                "t": t,
                "step": r,
                "name": "search",
                "arguments": {"query": f"q{r}"},
                "call_id": f"c{r}",
            },
            {
                "kind": "tool_result",
                "t": t,
                "step": r,
                "name": "search",
                "output": f"result {r}",
                "is_error": False,
                "call_id": f"c{r}",
            },
        ]
    events += [
        {
            "kind": "limit_reached",
            "t": t,
            "step": None,
            "limit": "max_rounds",
            "value": rounds,
            "message": "round limit",
        },
        {"kind": "final_answer", "t": t, "step": None, "text": "The last answer."},
    ]
    events += [
        {
            "kind": "run_finished",
            "t": t,
            "step": None,
            "reason": "cap",
            "llm_calls": rounds,
            "total_tokens": rounds * 110,
            "elapsed_ms": t * 1000,
        }
    ]
    data["events"] = events[: n - 1] + events[-1:] if len(events) > n else events
    return data


def corpus() -> dict[str, tuple[dict[str, Any] | list[Any], str | None]]:
    """name -> (trace data, None if it must replay, or words its "cannot be replayed" message holds)."""
    labels = {
        f"labels-{sid}": (_poison_labels(_example(sid)), None)
        for sid in ("order-99999", "primes", "weather-report", "code-review")
    }
    shapes: dict[str, tuple[dict[str, Any] | list[Any], str | None]] = {
        "shape-string-step": (_with_plan_step("Query the order"), "plan.steps[0] should be an object"),
        "shape-list-step-id": (_with_plan_step({"id": [1, 2]}), "plan.steps[0].id should be"),
        "shape-list-step-status": (_with_plan_step({"status": ["done"]}), "plan.steps[0].status should be"),
        "shape-unknown-step-status": (_with_plan_step({"status": "pwned"}), "plan.steps[0].status should be one of"),
        "shape-dict-description": (_with_plan_step({"description": {"a": 1}}), "plan.steps[0].description should be"),
        "shape-string-critical": (_with_plan_step({"critical": "yes"}), "plan.steps[0].critical should be"),
        "shape-list-tool": (_with_plan_step({"tool": ["a"]}), "plan.steps[0].tool should be"),
        "shape-steps-object": (_steps_object(), "plan.steps should be a list"),
    }
    for name, (kind, field_name, value, words) in {
        "shape-list-verdict": ("verdict", "verdict", ["PASS"], "verdict.verdict"),
        "shape-markup-verdict": ("verdict", "verdict", PAYLOAD, "verdict.verdict must be one of"),
        "shape-markup-role": ("llm_call", "role", PAYLOAD, "llm_call.role should be a role's name"),
        "shape-list-tool-name": ("tool_call", "name", ["search"], "tool_call.name should be str"),
        "shape-list-step-finished-status": ("step_finished", "status", ["done"], "step_finished.status"),
        "shape-unknown-end-reason": ("run_finished", "reason", "pwned", "run_finished.reason must be one of"),
        "shape-infinite-time": ("run_finished", "t", float("inf"), "run_finished.t should be a finite number"),
    }.items():
        data = _example("order-99999")
        next(e for e in data["events"] if e["kind"] == kind)[field_name] = value
        shapes[name] = (data, words)
    return {
        **labels,
        **shapes,
        "cubic-diff": (_cubic_diff(), None),
        "many-cubic-drafts": (_many_cubic_drafts(), None),
        "many-events": (_many_events(), None),
        **drawing(),
    }


def many_verdicts(n: int = 20_000) -> dict[str, Any]:
    """A Reflection run whose one critique holds `n` verdicts (about 3 MB): a whole redraw of it took
    a real server's script run 115 s."""
    data = _example("primes")
    events = data["events"]
    first = next(i for i, e in enumerate(events) if e["kind"] == "verdict")
    verdict = events[first]
    flood = [
        {
            **verdict,
            "verdict": ("PASS", "REVISE")[i % 2],
            "feedback": f"Verdict {i}: {PAYLOAD if i % 1000 == 0 else 'keep the sieve, bound it by sqrt(n)'}",
            "analysis": f"analysis {i}",
        }
        for i in range(n)
    ]
    data["events"] = events[:first] + flood + [e for e in events[first + 1 :] if e["kind"] != "verdict"]
    return data


def _many_endings(n: int = 2_000) -> dict[str, Any]:
    """A run that ends `n` times: answers, limits, failures and finishes (each drawn in the ending)."""
    data = _example("weather-report")
    events = [e for e in data["events"] if e["kind"] not in ("final_answer", "run_finished")]
    t = events[-1]["t"]
    for i in range(n):
        events += [
            {"kind": "final_answer", "t": t, "step": None, "text": f"Answer {i} {PAYLOAD}"},
            {"kind": "limit_reached", "t": t, "step": None, "limit": "max_rounds", "value": i, "message": PAYLOAD},
            {
                "kind": "run_finished",
                "t": t,
                "step": None,
                "reason": "answer",
                "llm_calls": 1,
                "total_tokens": 10,
                "elapsed_ms": 1.0,
            },
        ]
    data["events"] = events
    return data


def _repeated_drafts(n: int = 200) -> dict[str, Any]:
    """A Reflection run whose drafts all say they are version 1 (their boxes are keyed by version)."""
    data = _example("primes")
    draft = next(e for e in data["events"] if e["kind"] == "draft")
    at = data["events"].index(draft)
    data["events"][at : at + 1] = [{**draft, "version": 1, "text": f"def f():\n    return {i}\n"} for i in range(n)]
    return data


def _huge_plan(steps: int = 30_000) -> dict[str, Any]:
    """order-99999 whose plans hold `steps` steps each (a block line and a side-table row per step)."""
    data = _example("order-99999")
    plans = [e for e in data["events"] if e["kind"] == "plan"]
    for plan in plans:
        plan["steps"] = [
            {
                "id": i,
                "description": f"step {i}",
                "tool": None,
                "critical": False,
                "synthesis": False,
                "status": "pending",
                "reason": "",
            }
            for i in range(1, steps // len(plans) + 1)
        ]
    return data


def _token_flood(n: int = 60_000) -> dict[str, Any]:
    """A ReAct run whose first call streamed `n` one-character tokens, kept in the trace."""
    data = _example("weather-report")
    events = data["events"]
    call = next(i for i, e in enumerate(events) if e["kind"] == "llm_call")
    role, t = events[call]["role"], events[call]["t"]
    events[call:call] = [{"kind": "token", "t": t, "step": 1, "role": role, "text": "x"} for _ in range(n)]
    return data


def _many_tools(n: int = 10_000) -> dict[str, Any]:
    """A ReAct round that calls `n` differently named tools (the round's label names its tools)."""
    data = _example("weather-report")
    events = data["events"]
    at = next(i for i, e in enumerate(events) if e["kind"] == "tool_call")
    t, step = events[at]["t"], events[at]["step"]
    events[at:at] = [
        {"kind": "tool_call", "t": t, "step": step, "name": f"tool_{i}", "arguments": {}, "call_id": ""}
        for i in range(n)
    ]
    return data


def _call_record_bomb() -> dict[str, Any]:
    """A call record whose one range names a billion message ids: 60 bytes that expanded to 8 GB."""
    data = _example("order-99999")
    next(e for e in data["events"] if e["kind"] == "llm_call")["messages"] = [[0, 10**9]]
    return data


def _huge_number() -> dict[str, Any]:
    data = _example("order-99999")
    next(e for e in data["events"] if e["kind"] == "llm_call")["latency_ms"] = 10**400
    return data


def _format_spec_prompt() -> dict[str, Any]:
    """A run whose edited template pads its value to 20 MB (`{task:>20000000}`): forked, it would."""
    data = _example("weather-report")
    data["config"]["prompts"] = {"actor_system": "{tools:>20000000}"}
    return data


def _surrogates() -> dict[str, Any]:
    """Lone UTF-16 surrogates (JSON's \\ud800) in labels and bodies: no page can send one to a browser."""
    data = _example("order-99999")
    for e in data["events"]:
        if e["kind"] == "thought":
            e["text"] = "half a pair: \ud83d and \udfff"
        elif e["kind"] == "tool_call":
            e["name"] = "tool\ud800"
    data["config"]["models"] = {"default": "model\udc00"}
    return data


#: Small files that cost the most to draw: name -> (data, None if it must replay, or the words of its refusal).
def drawing() -> dict[str, tuple[dict[str, Any], str | None]]:
    return {
        "many-verdicts": (many_verdicts(), None),
        "many-endings": (_many_endings(), None),
        "repeated-drafts": (_repeated_drafts(), None),
        "huge-plan": (_huge_plan(), None),
        "token-flood": (_token_flood(), None),
        "many-tools": (_many_tools(), None),
        "surrogates": (_surrogates(), None),
        "call-record-bomb": (_call_record_bomb(), "names 1,000,000,001 messages"),
        "huge-number": (_huge_number(), "llm_call.latency_ms should be a number of at most 2**53"),
        "format-spec-prompt": (_format_spec_prompt(), "does more than name a value"),
    }


def _steps_object() -> dict[str, Any]:
    data = _example("order-99999")
    next(e for e in data["events"] if e["kind"] == "plan")["steps"] = {"id": 1}
    return data


def dumps(data: Any) -> bytes:
    """The bytes of a trace file (Infinity and NaN written as Python's json writes them, a lone
    surrogate as its JSON escape)."""
    return json.dumps(data, ensure_ascii=False).encode("utf-8", "backslashreplace")


def write(folder: Path) -> dict[str, Path]:
    """Write every trace of the corpus to `folder` as <name>.json."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, (data, _words) in corpus().items():
        path = folder / f"{name}.json"
        path.write_bytes(dumps(data))
        out[name] = path
    return out
