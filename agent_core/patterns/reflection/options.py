"""The options of Reflection: its iteration limit, switches, and its free-text fields (criteria, tests)."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options
from ..spec import LimitSpec, SwitchSpec, Text, TextFieldSpec

LIMITS = (
    LimitSpec(
        "max_iterations",
        1,
        8,
        Text("Max critique rounds", "最大反思轮次"),
        Text("critique rounds (each may be followed by a refinement)", "反思轮次（每次反思后可能跟一次优化）"),
    ),
)

SWITCHES = (
    SwitchSpec(
        "code_task",
        Text("Code task", "代码任务"),
        Text(
            "Drafts are code: fences and prose around them are dropped.", "草稿是代码：去掉代码围栏和周围的说明文字。"
        ),
    ),
    SwitchSpec(
        "use_trajectory",
        Text("Trajectory memory", "轨迹记忆"),
        Text("The refiner sees every earlier draft and critique.", "修订者能看到之前所有草稿和反思。"),
    ),
    SwitchSpec(
        "graph_style",
        Text("Graph style", "图式风格"),
        Text(
            "A generator and a reviewer take turns on one conversation (seed 02).",
            "生成器与评审员在同一段对话中轮流发言（种子文章 02）。",
        ),
    ),
    SwitchSpec(
        "test_evaluator",
        Text("Unit-test evaluator", "单元测试评估"),
        Text(
            "Run every draft against the unit tests below; failures force a revision.",
            "每版草稿都运行下方的单元测试；失败会强制修订。",
        ),
    ),
    SwitchSpec(
        "lenient_critic",
        Text("Lenient critic", "宽松的评审员"),
        Text(
            "One sentence is added to the critic's prompt: pass unless the draft has a factual error or "
            "does not do the task, never ask for polish. The scripted offline critic plays it too.",
            "在评审员的提示词末尾加一句：除非草稿有事实错误或没有完成任务，否则通过，不为润色要求修改。"
            "离线脚本中的评审员也会照此评审。",
        ),
    ),
)

TEXT_FIELDS = (
    TextFieldSpec(
        "criteria",
        Text("Quality criteria", "质量标准"),
        Text(
            'What the critic checks; "default" uses the built-in list, empty means none.',
            '评审员检查的内容；填 "default" 使用内置清单，留空表示不设标准。',
        ),
    ),
    TextFieldSpec(
        "tests",
        Text("Unit tests (assert statements)", "单元测试（assert 语句）"),
        Text("Run against every draft by the unit-test evaluator.", "单元测试评估会用它们检验每一版草稿。"),
        when="test_evaluator",
        height=110,
    ),
)


@dataclass(frozen=True)
class ReflectionOptions(Options):
    """What only a Reflection run reads."""

    LIMITS = LIMITS

    max_iterations: int = 3
    """Critique rounds; each may be followed by a refinement."""
    criteria: str = ""
    """Quality criteria for the critic, reviewer, refiner and generator ("default" = the built-in list)."""
    use_trajectory: bool = False
    """The refiner sees every earlier draft and critique."""
    test_evaluator: bool = False
    """Every draft is run against `tests`; failures force a revision."""
    tests: str = ""
    """Unit tests (assert statements) for the test evaluator."""
    graph_style: bool = False
    """A generator and a reviewer take turns on one conversation (seed 02)."""
    code_task: bool = False
    """Drafts are code: fences and prose around them are dropped."""
    lenient_critic: bool = False
    """The critic's prompt ends with `prompts.LENIENT`; its call's input "stance" says "lenient"."""
