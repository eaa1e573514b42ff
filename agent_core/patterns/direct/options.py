"""The options of the `direct` baseline: none. It is one call; the same budget spent on several
independent answers, voted on, is the self-consistency pattern."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options

LIMITS = ()


@dataclass(frozen=True)
class DirectOptions(Options):
    """What only a baseline run reads: nothing (a trace's old `samples` is left out as it loads)."""
