"""How LATS is taught and drawn: its variant, graph, iteration blocks, Eval entries, Compare preset and
Learn text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...config import RunConfig
from ..reflection import SPEC as REFLECTION
from ..self_consistency import SPEC as SELF_CONSISTENCY
from ..spec import Edge, EvalEntry, LaneSpec, Lesson, Preset, Text, VariantSpec

VARIANTS = (
    VariantSpec(
        "lats",
        Text("LATS — tree search", "LATS——树搜索"),
        Text(
            "Grow a tree of candidates, value each, pick the next by UCT, reflect on failures (Zhou et al. 2024).",
            "生长一棵候选树，为每个候选打分，用 UCT 选择下一步，反思失败的候选（Zhou 等，2024）。",
        ),
        "round-half-up",
    ),
)


NODES = {
    "task": Text("Task", "任务"),
    "select": Text("Select\\n(UCT)", "选择\\n（UCT）"),
    "expand": Text("Expand\\n(expander × k)", "扩展\\n（扩展者 × k）"),
    "evaluate": Text("Evaluate\\n(evaluator)", "评估\\n（评估者）"),
    "tests": Text("Unit tests", "单元测试"),
    "reflect": Text("Reflect\\n(self-reflector)", "反思\\n（自我反思者）"),
    "end": Text("End", "结束"),
}


def edges(config: Mapping[str, Any]) -> list[Edge]:
    judge = "tests" if config.get("test_evaluator") else "evaluate"
    return [
        ("task", "select", None),
        ("select", "expand", Text("best leaf", "最优叶节点")),
        ("expand", judge, Text("each candidate", "每个候选")),
        (judge, "end", Text("solved", "已解决")),
        (judge, "reflect", Text("not solved", "未解决")),
        ("reflect", "expand", Text("next sibling", "下一个兄弟")),
        ("reflect", "select", Text("backtrack", "回溯")),
        ("reflect", "end", Text("node budget", "节点预算")),
    ]


def role_node(role: str, config: Mapping[str, Any], after: str | None) -> str:
    return {"expander": "expand", "evaluator": "evaluate", "self_reflector": "reflect"}.get(role, role)


def block_of(role: str, step: int | None) -> tuple[Any, ...]:
    """Every call of an iteration goes in its block (the select that opened it, its children, their
    evaluations and reflections)."""
    return ("iteration", step)


def block_title(ident: tuple[Any, ...], config: Mapping[str, Any], lang: str) -> str | None:
    if ident[0] == "iteration" and ident[1] is not None:
        return Text(f"Iteration {ident[1]}", f"第 {ident[1]} 次迭代")(lang)
    return None


EVAL_ENTRIES = (
    EvalEntry(
        "lats",
        {},
        Text(
            "tree search valued by the evaluator alone: k candidates per expansion, UCT, reflection on failures",
            "只由评估者打分的树搜索：每次扩展 k 个候选，UCT 选择，反思失败的候选",
        ),
    ),
    EvalEntry(
        "lats+tests",
        {"test_evaluator": True},
        Text(
            "tree search whose candidates are valued by the task's tests (LATS's setting on HumanEval)",
            "用任务的单元测试为候选打分的树搜索（LATS 在 HumanEval 上的设定）",
        ),
        color="#9D755D",
        tests=True,
    ),
)

#: Eval's tasks are code; whether a run sees their tests is the entry's choice, and the tests are the harness's.
EVAL_DEFAULTS = {"code_task": True, "test_evaluator": False}
EVAL_OWNED = ("tests", "test_evaluator")


def take_tests(config: RunConfig, tests: str) -> RunConfig:
    """An Eval run with the task's unit tests, when its entry turned the test evaluator on."""
    return config.replace(tests=tests if config.options.test_evaluator else "")


PRESETS = (
    Preset(
        "search",
        Text("Reflection vs self-consistency vs LATS", "反思 vs 自洽性 vs LATS"),
        ":material/account_tree:",
        Text(
            "Round half up, with the task's unit tests: Reflection revises one line of drafts and never leaves the float "
            "approach; self-consistency's samples vote for the common float draft; LATS backtracks from the failed "
            "branch to decimal arithmetic, which passes. The offline scripts play all three lanes.",
            "四舍五入任务，附带单元测试：反思沿着一条草稿线反复修改，始终没有离开浮点思路；自洽性的多次采样投票选出了最常见的浮点草稿；"
            "LATS 从失败的分支回溯到十进制运算，通过了测试。离线脚本演示全部三条赛道。",
        ),
        (
            LaneSpec(REFLECTION.variants[0].id, REFLECTION.label),
            LaneSpec(SELF_CONSISTENCY.variants[0].id, SELF_CONSISTENCY.label),
            LaneSpec("lats", Text("LATS", "LATS")),
        ),
        scenario="round-half-up",
    ),
)


LESSON = Lesson(
    "lats",
    "round-half-up",
    Text("LATS (language-agent tree search)", "LATS（语言智能体树搜索）"),
    Text(
        "**Search a tree of candidates** (Zhou et al., ICML 2024): Monte-Carlo tree search with the model as the "
        "mover, the judge and the critic. Each iteration *selects* a leaf by UCT — mean value plus an exploration "
        "bonus, `Q/N + c·√(ln N_parent / N)` — *expands* it into k candidates, *evaluates* each (a value from 0 to 1 "
        "from an evaluator, or the share of unit tests that pass), *backpropagates* the value up the tree and "
        "*reflects* on every failure; the reflections go into later expansions. Unlike Reflection, which revises one "
        "line of drafts, the search can **backtrack**: a branch that keeps failing loses to a sibling. With GPT-4 "
        "it reached 92.7 % on HumanEval.",
        "**在候选树中搜索**（Zhou 等，ICML 2024）：把蒙特卡洛树搜索中的行动者、评判者和批评者都交给模型。每次迭代先用 UCT "
        "*选择*一个叶节点——平均价值加探索奖励，`Q/N + c·√(ln N_父 / N)`——再把它*扩展*成 k 个候选，逐个*评估*"
        "（评估者给出 0 到 1 的价值，或单元测试的通过比例），把价值*回传*到树上，并*反思*每一次失败；这些反思会进入之后的扩展。"
        "与沿着一条草稿线修改的反思模式不同，搜索可以**回溯**：一再失败的分支会输给它的兄弟分支。配合 GPT-4，"
        "它在 HumanEval 上达到 92.7%。",
    ),
    (
        Text(
            "tasks with a reliable external check (unit tests) and more than one plausible approach",
            "有可靠外部检验（单元测试）、且存在多种可行思路的任务",
        ),
        Text(
            "when a first idea may be a dead end that revising cannot fix",
            "第一个想法可能是死胡同、靠修改无法修好的情形",
        ),
    ),
    (
        Text(
            "simple tasks a single call gets right: the tree costs many calls",
            "一次调用就能做对的简单任务：树搜索要花很多次调用",
        ),
        Text(
            "no trustworthy value signal: a self-judged value misleads the search",
            "没有可信的价值信号：模型自评的价值会误导搜索",
        ),
    ),
    Text(
        "Each candidate costs one call to write it, r to value it and one to reflect on it: at most "
        "`max_nodes × (2 + r)`, with r = 0 under unit tests, else 1 (2 with the repair re-ask).",
        "每个候选花一次调用写出、r 次评估、一次反思：最多 `max_nodes × (2 + r)`，使用单元测试时 r = 0，"
        "否则为 1（开启修复重问时为 2）。",
    ),
)
