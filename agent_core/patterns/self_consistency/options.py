"""The options of self-consistency: how many samples are drawn, at what temperature, and whether an
arbiter reviews the vote."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options
from ...errors import ConfigError
from ..spec import LimitSpec, SwitchSpec, Text

LIMITS = (
    LimitSpec(
        "num_samples",
        2,
        8,
        Text("Samples (k)", "采样次数（k）"),
        Text(
            "independent answers to the same prompt; their final answers are voted on",
            "对同一提示词的相互独立的回答；对它们的最终答案投票",
        ),
    ),
)

SWITCHES = (
    SwitchSpec(
        "use_arbiter",
        Text("Arbiter", "仲裁者"),
        Text(
            "One more call reviews the vote: it sees the distinct answers and their counts, and keeps "
            "the vote's pick (PASS) or chooses another (REVISE). Skipped when every sample agrees.",
            "再用一次调用审查投票：它看到各个不同的答案及其票数，维持投票结果（PASS）或改选另一个"
            "（REVISE）。所有采样一致时跳过。",
        ),
    ),
)

#: the highest sampling temperature a run may ask for (OpenAI-compatible servers take 0 to 2)
MAX_TEMPERATURE = 2.0


@dataclass(frozen=True)
class SelfConsistencyOptions(Options):
    """What only a self-consistency run reads."""

    LIMITS = LIMITS

    num_samples: int = 3
    """Independent samples of the same prompt (k); their final answers are voted on."""
    use_arbiter: bool = False
    """An arbiter call reviews the vote whenever the samples disagree."""
    sample_temperature: float = 0.7
    """The temperature each sample is sent with when the run sets none (the sidebar's wins when set)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        value = self.sample_temperature
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_TEMPERATURE:
            raise ConfigError(f"sample_temperature must be a number from 0 to {MAX_TEMPERATURE:g}, got {value!r}")
