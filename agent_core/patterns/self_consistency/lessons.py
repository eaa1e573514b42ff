"""How self-consistency is taught and drawn: its variants, graph, step blocks, Eval entry, Compare preset
and Learn text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..direct import SPEC as BASELINE
from ..spec import Edge, EvalEntry, LaneSpec, Lesson, Preset, Text, VariantSpec

VARIANTS = (
    VariantSpec(
        "self-consistency",
        Text("Self-consistency — majority vote", "自洽性——多数投票"),
        Text(
            "k independent samples of one prompt; their final answers are voted on, a tie goes to the "
            "answer that came first (Wang et al. 2023).",
            "对同一提示词独立采样 k 次；对最终答案投票，平票时取最先出现的答案（Wang 等，2023）。",
        ),
        "order-total-vote",
        {"use_arbiter": False},
        frozenset({"use_arbiter"}),
    ),
    VariantSpec(
        "self-consistency-arbiter",
        Text("Self-consistency + arbiter", "自洽性 + 仲裁者"),
        Text(
            "The same vote, and when the samples disagree an arbiter reads each answer's reasoning and "
            "keeps the vote's pick or chooses another.",
            "同样的投票；当采样结果不一致时，仲裁者阅读每个答案的推理，维持投票结果或改选另一个。",
        ),
        "parcel-time-arbiter",
        {"use_arbiter": True},
        frozenset({"use_arbiter"}),
    ),
)


def edges(config: Mapping[str, Any]) -> list[Edge]:
    k = config.get("num_samples") or 3
    edges: list[Edge] = [
        ("task", "samples", Text(f"same prompt ×{k}", f"同一提示词 ×{k}")),
        ("samples", "vote", Text("final answer", "最终答案")),
        ("vote", "samples", Text("next sample", "下一次采样")),
    ]
    if config.get("use_arbiter"):
        return edges + [
            ("vote", "arbiter", Text("answers differ", "答案不一致")),
            ("vote", "end", Text("all agree", "全部一致")),
            ("arbiter", "end", Text("PASS / REVISE", "PASS / REVISE")),
        ]
    return edges + [("vote", "end", Text("most votes", "得票最多"))]


NODES = {
    "task": Text("Task", "任务"),
    "samples": Text("k samples\\n(sampler)", "k 次采样\\n（采样者）"),
    "vote": Text("Majority vote", "多数投票"),
    "arbiter": Text("Arbiter", "仲裁者"),
    "end": Text("End", "结束"),
}


def role_node(role: str, config: Mapping[str, Any], after: str | None) -> str:
    return "arbiter" if role == "arbiter" else "samples"


def block_title(ident: tuple[Any, ...], config: Mapping[str, Any], lang: str) -> str | None:
    kind, step = ident[0], ident[1]
    if kind == "sampler":
        k = config.get("num_samples") or 3
        return Text(f"Sample {step} of {k}", f"第 {step} 次采样（共 {k} 次）")(lang) if step else None
    if kind == "vote":
        return Text("Vote", "投票")(lang)
    if kind == "arbiter":
        return Text("Arbiter · reviews the vote", "仲裁者 · 审查投票")(lang)
    return None


LESSON = Lesson(
    "self-consistency",
    "order-total-vote",
    Text("Self-consistency", "自洽性"),
    Text(
        "**Sample k times, then vote.** The same prompt is answered k times, each on its own at a temperature "
        "above zero, so each answer is its own chain of thought. Each chain's final answer is read — the last "
        "`#### X`, else the last answer line (`Answer: X`, `答案：X`), else the first code block, else the last "
        "number, else the whole reply; numbers are compared as numbers, text with whitespace and case ignored — "
        "and the answer most chains reach wins. A tie goes to the tied answer that came first. One slip in one "
        "chain is outvoted by the chains that did not slip: Wang et al. (ICLR 2023) report +17.9 points on "
        "GSM8K over a single chain of thought, and Huang et al. (2024) find that much of what self-correction "
        "seems to gain is this vote. With the **arbiter** on, one more call reads the distinct answers and "
        "their reasoning whenever the chains disagree, and keeps the vote's pick (PASS) or chooses another "
        "(REVISE).",
        "**采样 k 次，然后投票。**同一提示词独立作答 k 次，每次都在高于零的温度下进行，因此每个回答都是一条独立的"
        "思维链。读取每条思维链的最终答案——最后一个 `#### X`；否则取最后一个答案行（`Answer: X`、`答案：X`）；"
        "否则取第一个代码块；否则取最后一个数；再否则取整段回复。数按数值比较，文本忽略空白和大小写——"
        "得票最多的答案胜出；平票时取最先出现的那个。某一条思维链的失误会被其他没出错的思维链投票推翻："
        "Wang 等（ICLR 2023）报告在 GSM8K 上比单条思维链高 17.9 个百分点；Huang 等（2024）发现，"
        "自我纠错看似带来的提升，很大一部分其实来自这种投票。开启**仲裁者**后，当各条思维链答案不一致时，"
        "再用一次调用阅读各个不同答案及其推理，维持投票结果（PASS）或改选另一个（REVISE）。",
    ),
    (
        Text(
            "questions with one short answer: arithmetic, word problems, multiple choice, a fact",
            "只有一个简短答案的问题：算术、应用题、选择题、事实",
        ),
        Text(
            "a fair baseline beside reflection at the same call budget (Huang et al. 2024)",
            "在相同调用预算下与反思模式公平对比的基线（Huang 等，2024）",
        ),
    ),
    (
        Text(
            "open-ended writing: two essays never give the same answer, so the vote falls to the tie rule",
            "开放式写作：两篇文章的答案不会相同，投票只能落到平局规则上",
        ),
        Text(
            "temperature 0: every sample is the same chain, and the vote adds nothing but cost",
            "温度为 0：每次采样都是同一条思维链，投票除了成本什么也不增加",
        ),
    ),
    Text(
        "Exactly k calls (no tools are offered), plus one for the arbiter when the samples disagree (two with "
        "the repair re-ask): at most `k + r`.",
        "恰好 k 次调用（不提供工具）；开启仲裁者且采样结果不一致时再加 1 次（有修复重问时为 2 次）：最多 `k + r`。",
    ),
)


PRESETS = (
    Preset(
        "vote",
        Text("One call vs the vote", "一次调用 vs 投票"),
        ":material/how_to_vote:",
        Text(
            "The order's total, answered by one call, by three samples voted on, and by the same vote with the "
            "arbiter: the one call keeps its slip (398), the vote outnumbers it (408, 3 calls), the arbiter agrees "
            "with the majority (4 calls). Offline the scripts play every lane; with a model, set a temperature "
            "above 0 (or leave the server's) so the samples can differ.",
            "订单总额：分别由一次调用、三次采样投票、以及加上仲裁者的同样投票来回答：一次调用保留了它的失误（398），"
            "投票以多数推翻它（408，3 次调用），仲裁者同意多数（4 次调用）。离线时每条赛道都由脚本演示；连接模型时，"
            "请把温度设为大于 0（或使用服务器默认值），采样才会不同。",
        ),
        (
            LaneSpec(BASELINE.compare_variant, Text("One call (baseline)", "一次调用（基线）")),
            LaneSpec("self-consistency", Text("Three samples, voted", "三次采样投票")),
            LaneSpec("self-consistency-arbiter", Text("Voted, then the arbiter", "投票后由仲裁者审查")),
        ),
        scenario="order-total-vote",
    ),
)


#: Eval's voting baseline: three samples, about the calls Reflection spends on the bundled tasks
EVAL_ENTRIES = (
    EvalEntry(
        "self-consistency×3",
        {"num_samples": 3, "use_arbiter": False},
        Text(
            "three independent answers voted on, about reflection's call budget: the baseline self-correction "
            "must beat at the same cost (Wang et al. 2023; Huang et al. 2024)",
            "三次独立回答投票，调用预算与反思相当：自我纠错在相同成本下必须超过的基线（Wang 等 2023；Huang 等 2024）",
        ),
        color="#F58518",
        baseline=True,
    ),
)
