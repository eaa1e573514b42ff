"""The options of LATS: how wide each expansion is, how many nodes the tree may grow, how much UCT
explores, what value counts as solved, and how candidates are judged (the evaluator, or unit tests)."""

from __future__ import annotations

from dataclasses import dataclass

from ...config import Options
from ..spec import LimitSpec, SwitchSpec, Text, TextFieldSpec

LIMITS = (
    LimitSpec(
        "branching",
        1,
        5,
        Text("Candidates per expansion (k)", "每次扩展的候选数（k）"),
        Text(
            "how many children each expansion writes, one model call each", "每次扩展写出的子节点个数，每个一次模型调用"
        ),
    ),
    LimitSpec(
        "max_nodes",
        1,
        40,
        Text("Node budget", "节点预算"),
        Text(
            "candidates the tree may grow in all (the root, the task, is not one); the search stops there",
            "整棵树最多生长的候选节点数（根节点即任务，不计在内）；达到后搜索停止",
        ),
    ),
    LimitSpec(
        "exploration",
        0,
        400,
        Text("Exploration weight c (in hundredths)", "探索权重 c（百分之几）"),
        Text(
            "UCT's c: 100 is c = 1.0, the paper's; 0 always grows the best mean value",
            "UCT 公式中的 c：100 即 c = 1.0（论文取值）；0 表示总是扩展平均价值最高的节点",
        ),
    ),
    LimitSpec(
        "threshold",
        1,
        100,
        Text("Solved at value (in hundredths)", "判定为解的价值（百分之几）"),
        Text(
            "a candidate the evaluator values at this or more is a solution (90 = 0.9); with unit tests, "
            "passing them is",
            "评估者给出的价值不低于此值即视为解（90 = 0.9）；启用单元测试时以测试全部通过为准",
        ),
    ),
)

SWITCHES = (
    SwitchSpec(
        "code_task",
        Text("Code task", "代码任务"),
        Text(
            "Candidates are code: fences and prose around them are dropped.",
            "候选是代码：去掉代码围栏和周围的说明文字。",
        ),
    ),
    SwitchSpec(
        "test_evaluator",
        Text("Unit-test evaluator", "单元测试评估"),
        Text(
            "Value every candidate by the unit tests below (the share that passes) instead of the evaluator.",
            "用下方单元测试为每个候选打分（通过的比例），代替评估者。",
        ),
    ),
)

TEXT_FIELDS = (
    TextFieldSpec(
        "tests",
        Text("Unit tests (assert statements)", "单元测试（assert 语句）"),
        Text(
            "Each candidate's value is the share of these that pass; all passing is a solution.",
            "每个候选的价值是这些测试的通过比例；全部通过即为解。",
        ),
        when="test_evaluator",
        height=110,
    ),
)


@dataclass(frozen=True)
class LatsOptions(Options):
    """What only a LATS run reads."""

    LIMITS = LIMITS

    branching: int = 2
    """Children each expansion writes (k), one expander call each."""
    max_nodes: int = 8
    """Candidates the tree may grow in all; the search stops at this budget."""
    exploration: int = 100
    """UCT's exploration weight c, in hundredths (100 = 1.0)."""
    threshold: int = 90
    """The evaluator's value, in hundredths, at which a candidate is a solution."""
    code_task: bool = False
    """Candidates are code: fences and prose around them are dropped."""
    test_evaluator: bool = False
    """Candidates are valued by `tests` (the share that passes) instead of the evaluator."""
    tests: str = ""
    """Unit tests (assert statements) for the test evaluator."""
