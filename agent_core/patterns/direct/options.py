"""The options of the `direct` baseline: how many independent samples are voted on."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options
from ..spec import LimitSpec, Text

LIMITS = (
    LimitSpec("samples", 1, 8, Text("Samples (majority vote)", "采样次数（多数投票）"),
              Text("independent answers, the most frequent wins: the baseline at a larger call budget "
                   "(1 = one call)", "相互独立的回答，取出现最多的一个：更大调用预算下的基线（1 = 一次调用）")),
)


@dataclass(frozen=True)
class DirectOptions(Options):
    """What only a baseline run reads."""

    LIMITS = LIMITS

    samples: int = 1
    """Independent answers; the most frequent one wins (1 = one call)."""
