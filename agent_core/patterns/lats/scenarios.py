"""LATS's scenario: round half up, where the tempting approach (rounding the binary float) is a dead
end, and the search backtracks from its failed branch to the one that passes (decimal arithmetic).

The same task is Compare's "Reflection vs self-consistency vs LATS": its offline script plays those
two patterns on it as well (`also`), so the three lanes are scripted runs side by side.
"""

from __future__ import annotations

from ..reflection import SPEC as REFLECTION
from ..self_consistency import SPEC as SELF_CONSISTENCY
from ..spec import Scenario, Text

#: The unit tests the candidates are valued by: two halves (one negative), and two numbers that binary
#: floats store just below the half (1.005 is 1.00499999999999989…, 0.285 is 0.28499999999999998…).
ROUND_TESTS = """
assert round_half_up(2.5) == 3
assert round_half_up(-2.5) == -3
assert round_half_up(2.675, 2) == 2.68
assert round_half_up(1.005, 2) == 1.01
assert round_half_up(0.285, 2) == 0.29
""".lstrip()

SCENARIOS = (
    Scenario(
        "round-half-up",
        "lats",
        "-",
        Text("Round half up (tree search backtracks)", "四舍五入（树搜索回溯）"),
        Text(
            "Write a Python function round_half_up(x, digits=0) that rounds x to `digits` decimal places, "
            "rounding halves away from zero as taught in school: round_half_up(2.5) == 3 and "
            "round_half_up(-2.5) == -3.",
            "编写一个 Python 函数 round_half_up(x, digits=0)，把 x 四舍五入到小数点后 digits 位，"
            "逢五远离零进位，和课堂上教的一样：round_half_up(2.5) == 3，round_half_up(-2.5) == -3。",
        ),
        (),
        {"branching": 2, "max_nodes": 8, "code_task": True, "test_evaluator": True, "tests": ROUND_TESTS},
        Text(
            "The task's two children both fail: floor(x·10^d + 0.5) (value 0.40) and decimal arithmetic that "
            "rounds half to even (0.20). UCT grows the better one; its two revisions fix the sign but still "
            "fail 1.005 and 0.285, and the reflection names why: the binary float is already below the half. "
            "UCT backtracks to the decimal branch, and its child passes every test.",
            "任务的两个子节点都失败：floor(x·10^d + 0.5)（价值 0.40）和按“银行家舍入”进位的十进制算法（0.20）。"
            "UCT 先扩展较好的一支；它的两个修订版修好了负数，却仍然算错 1.005 和 0.285，反思指出原因："
            "二进制浮点数本身就已略小于 5。UCT 回溯到十进制分支，它的子节点通过了全部测试。",
        ),
        also=(REFLECTION.name, SELF_CONSISTENCY.name),
    ),
)
