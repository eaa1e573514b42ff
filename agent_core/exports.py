"""Files that hold several runs — Compare's export — and what a trace says about its own bound.

A Compare export is `{"version": trace.VERSION, "kind": "comparison", "task": ..., "lanes": [...]}`,
each lane a whole trace plus its `name`; Replay opens any lane of it. The format lives here, beside
the trace format it embeds, so the page that writes it and the page that reads it cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from . import events as ev
from . import trace as trace_format
from .errors import AgentError, TraceFormatError

EXPORT_KIND = "comparison"


def comparison_json(task: str, lanes: Sequence[tuple[str, trace_format.Trace]], secrets: Iterable[str] = ()) -> str:
    """Every lane's trace in one file; keys in `secrets` are redacted from all of it."""
    keys = list(secrets)
    items = [{"name": name, **json.loads(t.dumps(secrets=keys))} for name, t in lanes]
    return json.dumps(
        {"version": trace_format.VERSION, "kind": EXPORT_KIND, "task": task, "lanes": items},
        ensure_ascii=False,
        indent=1,
    )


def lane_items(raw: Any) -> list[Any] | None:
    """The runs of a multi-run file (a Compare export, or a bare list of traces), or None when `raw`
    is a single trace; raises TraceFormatError for an export of another version or with no run."""
    if isinstance(raw, dict) and "lanes" in raw and "events" not in raw:
        if raw.get("version") != trace_format.VERSION:
            raise TraceFormatError(
                f"export version {ev.quoted(raw.get('version'))} is not supported (this app reads "
                f"version {trace_format.VERSION})",
                reason="version",
            )
        items = raw["lanes"]
    elif isinstance(raw, list):
        items = raw
    else:
        return None
    if not isinstance(items, list) or not items:
        raise TraceFormatError("the file holds no run to replay", reason="no_run")
    return items


def bound_of(config: dict[str, Any], events: Sequence[ev.Event]) -> int:
    """The call bound a recorded run ran under: what its run_started said, else what its config
    allows (old traces), else the calls it made (a config this version cannot rebuild)."""
    started = next((e for e in events if isinstance(e, ev.RunStarted)), None)
    if started is not None and started.max_llm_calls:
        return started.max_llm_calls
    from .patterns.registry import config_from_dict
    from .runner import call_bound

    try:
        return call_bound(config_from_dict(config))
    except (AgentError, TypeError, ValueError):
        return sum(1 for e in events if isinstance(e, ev.LlmCall))
