"""How self-consistency is shown: each sample's answer goes to the vote in the graph, the vote has a
block of its own, and the samples' blocks are drawn side by side, as lanes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import events as ev
from .roles import VOTE

#: a sample's reply (its `thought`) is its ballot: the graph moves to the vote
EVENT_NODES = {"thought": "vote"}
#: samples drawn side by side, at most this many to a row
LANES_PER_ROW = 4


def event_block(event: ev.Event) -> tuple[Any, ...] | None:
    """The vote's verdict gets its own block, below the samples' lanes."""
    if isinstance(event, ev.VerdictEvent) and event.role == VOTE.name:
        return ("vote", None)
    return None


def block_lane(ident: tuple[Any, ...], config: Mapping[str, Any]) -> tuple[Any, int, int] | None:
    """A sample's block: its lane in a row of at most LANES_PER_ROW."""
    if ident[0] != "sampler" or not isinstance(ident[1], int) or ident[1] < 1:
        return None
    per_row = min(LANES_PER_ROW, max(1, int(config.get("num_samples") or 3)))
    index = ident[1] - 1
    return (("samples", index // per_row), index % per_row, per_row)
