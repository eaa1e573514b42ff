"""A corpus of hostile trace files for Replay, built from the bundled examples.

Each entry of `corpus()` is a file a participant could upload: markup in every field that reaches a
label, trace shapes no run produces, drafts whose diff costs cubic time, and a 20,000-event run.
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
UNESCAPED = ("![ATTACKIMG]", f"]({_URL}", "](javascript:", ":red[ATTACKRED", ":material/skull:", "**ATTACKBOLD",
             "$ATTACK^2$", "<img src=", "<b>", ":blue-badge[ATTACKBADGE")


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
            {"kind": "llm_call", "t": t, "step": r, "role": "actor", "model": "m", "prompt_tokens": 100,
             "completion_tokens": 10, "latency_ms": 1.0, "usage_estimated": False},
            {"kind": "thought", "t": t, "step": r, "text": f"Round {r}: look it up again."},
            {"kind": "tool_call", "t": t, "step": r, "name": "search", "arguments": {"query": f"q{r}"},
             "call_id": f"c{r}"},
            {"kind": "tool_result", "t": t, "step": r, "name": "search", "output": f"result {r}", "is_error": False,
             "call_id": f"c{r}"},
        ]
    events += [{"kind": "limit_reached", "t": t, "step": None, "limit": "max_rounds", "value": rounds,
                "message": "round limit"},
               {"kind": "final_answer", "t": t, "step": None, "text": "The last answer."}]
    events += [{"kind": "run_finished", "t": t, "step": None, "reason": "cap", "llm_calls": rounds,
                "total_tokens": rounds * 110, "elapsed_ms": t * 1000}]
    data["events"] = events[:n - 1] + events[-1:] if len(events) > n else events
    return data


def corpus() -> dict[str, tuple[dict[str, Any] | list[Any], str | None]]:
    """name -> (trace data, None if it must replay, or words its "cannot be replayed" message holds)."""
    labels = {f"labels-{sid}": (_poison_labels(_example(sid)), None)
              for sid in ("order-99999", "primes", "weather-report", "code-review")}
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
        "shape-markup-role": ("llm_call", "role", PAYLOAD, "llm_call.role must be one of"),
        "shape-list-tool-name": ("tool_call", "name", ["search"], "tool_call.name should be str"),
        "shape-list-step-finished-status": ("step_finished", "status", ["done"], "step_finished.status"),
        "shape-unknown-end-reason": ("run_finished", "reason", "pwned", "run_finished.reason must be one of"),
        "shape-infinite-time": ("run_finished", "t", float("inf"), "run_finished.t should be a finite number"),
    }.items():
        data = _example("order-99999")
        next(e for e in data["events"] if e["kind"] == kind)[field_name] = value
        shapes[name] = (data, words)
    return {**labels, **shapes, "cubic-diff": (_cubic_diff(), None), "many-cubic-drafts": (_many_cubic_drafts(), None),
            "many-events": (_many_events(), None)}


def _steps_object() -> dict[str, Any]:
    data = _example("order-99999")
    next(e for e in data["events"] if e["kind"] == "plan")["steps"] = {"id": 1}
    return data


def dumps(data: Any) -> bytes:
    """The bytes of a trace file (Infinity and NaN written as Python's json writes them)."""
    return json.dumps(data, ensure_ascii=False).encode()


def write(folder: Path) -> dict[str, Path]:
    """Write every trace of the corpus to `folder` as <name>.json."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, (data, _words) in corpus().items():
        path = folder / f"{name}.json"
        path.write_bytes(dumps(data))
        out[name] = path
    return out
