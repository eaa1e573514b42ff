"""How an event kind that a pattern adds is shown, as data: in words, in the pattern's graph, in a
figure of its own, and in a run's counts.

A pattern that adds an event kind (events.py) says how it is shown in its folder's `views.py`, as an
`EventView` in `SPEC.event_views` (kind -> view). Every consumer — the CLI's lines, Replay's position
caption, the report's narrative, the run view's blocks and graph, the run summary's counts — asks
`view_of(kind)` and never names the kind, so a new kind reaches all of them from its folder. The core
stays UI-free: a view returns text and a `Figure` (nodes, edges, their states and labels as `Text`);
the pages draw it (pages/ui/figures.py), as they draw the patterns' graphs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .text import Text

if TYPE_CHECKING:
    from .events import Event

#: How a figure's state is drawn, from plain to emphasised; the view picks colours for these only, so
#: a pattern's states (solved, pruned...) need no edit in the pages.
TONES = ("plain", "new", "active", "good", "bad", "dim", "lit")


@dataclass(frozen=True)
class FigureState:
    """A state a node or an edge of a figure may be in: its name for a legend and its tone (TONES)."""

    label: Text
    tone: str = "plain"


@dataclass(frozen=True)
class FigureNode:
    id: str
    label: Text
    #: a key of the figure's `states`
    state: str


@dataclass(frozen=True)
class FigureEdge:
    source: str
    target: str
    #: a key of the figure's `states` ("" = plain)
    state: str = ""


@dataclass(frozen=True)
class Figure:
    """A picture that the events of one kind draw together, e.g. a search tree as it grows."""

    title: Text
    nodes: tuple[FigureNode, ...]
    edges: tuple[FigureEdge, ...]
    #: every state its nodes and edges use, in legend order
    states: Mapping[str, FigureState]
    #: nodes left out of the picture (a figure is bounded whatever the run holds), said under it
    hidden: int = 0


def _nothing(event: Event) -> str | None:
    return None


def _no_suffix(event: Event, lang: str) -> str | None:
    return None


@dataclass(frozen=True)
class EventView:
    """How one event kind is shown."""

    #: the event in a few words of `lang` (plain text: each consumer escapes it for its medium)
    line: Callable[[Event, str], str]
    #: the node of the pattern's graph the event lights (None: it moves nothing)
    node: Callable[[Event], str | None] = _nothing
    #: what the block the event is drawn in is labelled after it (None: the label is kept)
    suffix: Callable[[Event, str], str | None] = _no_suffix
    #: the figure the kind's events draw together, from every one of them so far (None: no figure)
    figure: Callable[[Sequence[Event]], Figure] | None = None
    #: a run's counts from its events of this kind (name -> count), for the run summary
    counts: Callable[[Sequence[Event]], Mapping[str, int]] | None = None
    #: each count's name as a person reads it
    count_labels: Mapping[str, Text] = field(default_factory=dict)


def views() -> dict[str, EventView]:
    """Every view the registered patterns declare, by event kind."""
    from .patterns import registry  # the patterns' specs import this module for its types

    return {kind: view for spec in registry.specs().values() for kind, view in spec.event_views.items()}


def view_of(kind: str) -> EventView | None:
    """The view of an event kind a pattern added, or None for the core's own kinds."""
    return _cached().get(kind)


def line(event: Event, lang: str = "en") -> str | None:
    """A pattern's event in words (None for the core's own kinds, which each consumer words itself)."""
    view = _cached().get(event.kind)
    return view.line(event, lang) if view is not None else None


def counts(events: Iterable[Event]) -> dict[str, int]:
    """The counts every pattern's view takes from a run's events (empty when no view counts)."""
    by_kind: dict[str, list[Event]] = {}
    found = _cached()
    for e in events:
        if e.kind in found:
            by_kind.setdefault(e.kind, []).append(e)
    out: dict[str, int] = {}
    for kind, mine in by_kind.items():
        count = found[kind].counts
        if count is not None:
            out.update(count(mine))
    return out


def count_label(name: str, lang: str) -> str:
    """A count's name as a person reads it (the name itself when no view labels it)."""
    label = next((v.count_labels[name] for v in _cached().values() if name in v.count_labels), None)
    return label(lang) if label is not None else name


@functools.cache
def _cached() -> dict[str, EventView]:
    # the registry never changes in a process: worked out once (the run view asks for every event)
    return views()
