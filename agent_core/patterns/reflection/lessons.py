"""How Reflection is taught and drawn: its variant, graph, step titles, Eval entries, Compare preset and
Learn text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...config import RunConfig
from ..spec import Edge, EvalEntry, LaneSpec, Lesson, Preset, Text, VariantSpec


def edges(config: Mapping[str, Any]) -> list[Edge]:
    tests = bool(config.get("test_evaluator"))
    revise, passed = Text("REVISE", "REVISE"), Text("PASS", "PASS")
    if config.get("graph_style"):
        edges: list[Edge] = [("task", "generator", None)]
        edges += (
            [("generator", "tests", None), ("tests", "reviewer", None)] if tests else [("generator", "reviewer", None)]
        )
        return edges + [("reviewer", "generator", revise), ("reviewer", "end", passed)]
    edges = [("task", "draft", None)]
    edges += [("draft", "tests", None), ("tests", "critic", None)] if tests else [("draft", "critic", None)]
    edges += [("critic", "refiner", revise), ("critic", "end", passed)]
    edges += [("refiner", "tests", None)] if tests else [("refiner", "critic", Text("new draft", "新草稿"))]
    return edges


def role_node(role: str, config: Mapping[str, Any], after: str | None) -> str:
    if config.get("graph_style"):
        return "reviewer" if role == "critic" else "generator"
    return "draft" if role == "actor" else role


def block_title(ident: tuple[Any, ...], config: Mapping[str, Any], lang: str) -> str | None:
    kind, step = ident[0], ident[1]
    graph = bool(config.get("graph_style"))
    if kind == "actor":
        if graph:
            return (
                Text(f"Generator · version {step}", f"生成器 · 第 {step} 版")(lang)
                if step
                else Text("Generator · first version", "生成器 · 第一版")(lang)
            )
        return (
            Text(f"Draft {step}", f"草稿 {step}")(lang)
            if step
            else Text("Draft 0 · first attempt", "草稿 0 · 初稿")(lang)
        )
    if kind == "critic":
        return (Text(f"Review {step}", f"评审 {step}") if graph else Text(f"Critique {step}", f"反思 {step}"))(lang)
    if kind == "refiner":
        return Text(f"Refine · draft {step}", f"优化 · 草稿 {step}")(lang)
    return None


_STRICT = Text(
    "\n\nBe strict. Answer PASS only when every quality criterion is fully met and you would hand the "
    "draft over exactly as it is; otherwise answer REVISE and list every remaining problem.",
    "\n\n请从严评审：只有当每一条质量标准都完全满足、你愿意原样交付时才回答 PASS；"
    "否则回答 REVISE，并列出所有剩余问题。",
)


VARIANTS = (
    VariantSpec(
        "reflection",
        Text("Reflection", "反思"),
        Text(
            "Draft, critique, refine — until the critic finds nothing to improve (seeds 02, 04, 05).",
            "初稿、反思、优化——直到评审员认为无需改进（种子文章 02、04、05）。",
        ),
        "primes",
    ),
)


NODES = {
    "task": Text("Task", "任务"),
    "draft": Text("Draft\\n(actor)", "草稿\\n（执行者）"),
    "critic": Text("Critic", "评审员"),
    "refiner": Text("Refiner", "修订者"),
    "generator": Text("Generator", "生成器"),
    "reviewer": Text("Reviewer", "评审员"),
    "tests": Text("Unit tests", "单元测试"),
    "end": Text("End", "结束"),
}


EVAL_ENTRIES = (
    EvalEntry(
        "reflection",
        {},
        Text(
            "draft, critique, refine, with the critic's judgement alone (intrinsic self-correction)",
            "初稿→评审→修改，只依靠评审员自己的判断（内在自我纠错）",
        ),
        rounds=True,
    ),
    EvalEntry(
        "reflection+tests",
        {"test_evaluator": True},
        Text(
            "reflection whose drafts are run against the task's tests; failures go to the refiner",
            "反思模式，每版草稿都运行任务的单元测试，失败信息交给修订者",
        ),
        rounds=True,
        color="#E45756",
        tests=True,
    ),
)


#: The lenient lane is the `lenient_critic` switch, not a sentence typed into its prompt: the switch adds
#: the sentence for a real model and tells the offline critic (in the call's context) to play it, so the
#: lanes differ offline too; the strict lane's sentence is the exacting critic the scripts already play.
PRESETS = (
    Preset(
        "critic",
        Text("Strict vs lenient critic", "严格 vs 宽松的评审员"),
        ":material/gavel:",
        Text(
            "Reflection on the report task. The strict lane adds one sentence to the critic's prompt; the lenient "
            "lane turns on the Lenient critic switch, which adds the opposite sentence. The lenient critic passes "
            "the report the strict one sends back for its missing owners: fewer calls, a weaker answer.",
            "在报告任务上运行反思模式。严格赛道给评审员的提示词加一句话；宽松赛道打开“宽松的评审员”开关，"
            "加上相反的一句话。宽松的评审员会放行严格评审员因缺少负责人而打回的报告：调用更少，答案更弱。",
        ),
        (
            LaneSpec("reflection", Text("Strict critic", "严格的评审员"), prompt_tails={"critic": _STRICT}),
            LaneSpec("reflection", Text("Lenient critic", "宽松的评审员"), {"lenient_critic": True}),
        ),
        scenario="report-criteria",
    ),
)


LESSON = Lesson(
    "reflection",
    "primes",
    Text("Reflection", "反思"),
    Text(
        "**Execute → reflect → refine**, in a loop. An actor writes a draft; a critic reviews it from "
        "several angles (facts, logic, efficiency, omissions); a refiner rewrites it from the task, the "
        'last draft and the feedback. The loop stops when the critic passes the draft (or says "no '
        'improvement needed") or at `max_iterations`. With unit tests, failing tests force a revision — '
        "Reflexion's external feedback.",
        "**执行 → 反思 → 优化**循环。执行者写出初稿；评审员从多个维度（事实、逻辑、效率、遗漏）审视；"
        "修订者结合任务、上一版和反馈重写。评审通过（或说“无需改进”）或达到 `max_iterations` 时停止。"
        "启用单元测试时，测试失败会强制修订——这正是 Reflexion 的外部反馈。",
    ),
    (
        Text(
            "business-critical code, reports and analyses where quality beats latency",
            "对质量要求极高、对实时性要求宽松的关键代码、报告与分析",
        ),
        Text(
            "tasks with an external check (tests, criteria) the critic can lean on",
            "有外部检验（测试、标准）可依托的任务",
        ),
    ),
    (
        Text('real-time answers, or when "roughly right" is enough', "需要实时响应，或“大致正确”即可的场景"),
        Text(
            "self-critique with no external signal: it may not help (Huang et al. 2024)",
            "没有外部信号的自我批评：未必有帮助（Huang 等，2024）",
        ),
    ),
    Text(
        "Each iteration adds at least two calls (critique and refinement): at most `1 + max_iterations × (r + 1)`.",
        "每轮迭代至少增加两次调用（反思与优化）：最多 `1 + max_iterations × (r + 1)`。",
    ),
)


#: Eval's tasks are code; whether a run sees their tests is the entry's choice, and the tests are the harness's.
EVAL_DEFAULTS = {"code_task": True, "test_evaluator": False}
EVAL_OWNED = ("tests", "test_evaluator")


def take_tests(config: RunConfig, tests: str) -> RunConfig:
    """An Eval run with the task's unit tests, when its entry turned the evaluator on."""
    return config.replace(tests=tests if config.options.test_evaluator else "")
