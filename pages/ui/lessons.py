"""What the Learn page teaches about each pattern, in English and Chinese (content only, no widgets).

The facts come from the seeds: the cost table and the three failure modes are seed 03's, the
selection advice is seeds 04 and 05's. Call bounds are computed from our own formulas.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    variant: str  # a catalogue.VARIANTS id, opened in the Playground by the page's button
    scenario: str
    title: dict[str, str]
    what: dict[str, str]
    use_when: dict[str, list[str]]
    avoid_when: dict[str, list[str]]
    cost: dict[str, str]


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "react-advisor", "weather-report",
        {"en": "ReAct (+ reflection advisor)", "zh": "ReAct（+ 反思顾问）"},
        {"en": "The model alternates **reasoning** and **acting**: it thinks, calls a tool, reads the "
               "observation, and repeats until it can answer. Guards keep it from looping: a round limit "
               "followed by one forced answer with tools disabled, a repeat detector (a reminder, then a stop) "
               "and a progress detector (near-identical thoughts end the loop). The optional **reflection "
               "advisor** (seed 01) judges every final answer as `{passed, feedback}`; a failing answer sends "
               "the feedback back into the loop, up to a cap.",
         "zh": "模型在**推理**与**行动**之间交替：思考、调用工具、读取观察结果，循环直到能够作答。"
               "防护机制防止空转：轮次上限（之后禁用工具、强制作答一次）、重复检测（先提醒、再终止）、"
               "进展检测（连续思考高度相似即终止）。可选的**反思顾问**（种子文章 01）以 `{passed, feedback}` "
               "评估每个最终答案；未通过时把反馈注入下一轮，直到达到上限。"},
        {"en": ["exploratory tasks where the next step depends on what a tool returns",
                "a handful of tools and a short path to the answer"],
         "zh": ["下一步取决于工具返回结果的探索性任务", "工具不多、路径较短的任务"]},
        {"en": ["long tasks that need a global plan (it improvises each step and can drift)",
                "streaming chat where the advisor's extra latency hurts"],
         "zh": ["需要全局规划的长流程任务（每步即兴决定，容易偏离）", "对延迟敏感的流式对话（反思会拉长响应时间）"]},
        {"en": "At most `max_rounds + 1` actor calls, plus `max_reflection_rounds` judge calls (twice that with "
               "the repair re-ask).",
         "zh": "执行者最多 `max_rounds + 1` 次调用，另加 `max_reflection_rounds` 次评审调用（启用修复重问时翻倍）。"}),
    Lesson(
        "plan-execute-reflector", "order-99999",
        {"en": "Plan-and-Execute (+ Reflector)", "zh": "计划执行（+ 反思器）"},
        {"en": "A **planner** writes the steps first; an **executor** runs each step in a small tool loop, "
               "seeing only the step (goal-blind, as seed 03 argues); a **synthesizer** writes the reply. The "
               "optional **Reflector** judges every step against the user's full goal: **PASS** (next step), "
               "**RETRY** (run it again with its suggestion), **REPLAN** (mark it failed and re-plan the rest, "
               "with the failure reasons). Because the executor cannot see the goal, the Reflector is the one "
               "place where the user's real situation comes back during execution.",
         "zh": "**规划器**先写出步骤；**执行器**在小型工具循环中逐步执行，只看得到当前步骤（种子文章 03 "
               "主张的“目标不可见”）；**综合器**生成最终回复。可选的**反思器**用用户的完整目标评估每一步："
               "**PASS**（继续）、**RETRY**（带着建议重试本步）、**REPLAN**（标记失败并带着失败原因重规划剩余步骤）。"
               "由于执行器看不到目标，反思器是执行期间唯一把用户真实处境带回来的环节。"},
        {"en": ["multi-step tasks with dependencies, where one step's failure changes the rest",
                "a strong planner with a cheaper executor (bind them to different models)"],
         "zh": ["步骤间有依赖、一步失败会影响全局的多步任务", "强模型做规划、快模型做执行（分别绑定不同模型）"]},
        {"en": ["single-step lookups: the plan and the reviews are pure overhead",
                "tasks whose path is only discovered while acting"],
         "zh": ["单步查询：规划与反思都是额外开销", "只有边做边看才能找到路径的任务"]},
        {"en": "Seed 03's table, with N steps: no reflection `1 + N`; every step passes `1 + 2N`; one RETRY adds "
               "`2`; one REPLAN adds `1 + M` (M = new steps' calls). Our hard bound covers every path.",
         "zh": "种子文章 03 的成本表（N 为步骤数）：无反思 `1 + N`；全部 PASS `1 + 2N`；一次 RETRY 再加 `2`；"
               "一次 REPLAN 再加 `1 + M`（M 为新步骤的调用）。下方的硬上限覆盖所有路径。"}),
    Lesson(
        "reflection", "primes",
        {"en": "Reflection", "zh": "反思（Reflection）"},
        {"en": "**Execute → reflect → refine**, in a loop. An actor writes a draft; a critic reviews it from "
               "several angles (facts, logic, efficiency, omissions); a refiner rewrites it from the task, the "
               "last draft and the feedback. The loop stops when the critic passes the draft (or says \"no "
               "improvement needed\") or at `max_iterations`. With unit tests, failing tests force a revision — "
               "Reflexion's external feedback.",
         "zh": "**执行 → 反思 → 优化**循环。执行者写出初稿；评审员从多个维度（事实、逻辑、效率、遗漏）审视；"
               "修订者结合任务、上一版和反馈重写。评审通过（或说“无需改进”）或达到 `max_iterations` 时停止。"
               "启用单元测试时，测试失败会强制修订——这正是 Reflexion 的外部反馈。"},
        {"en": ["business-critical code, reports and analyses where quality beats latency",
                "tasks with an external check (tests, criteria) the critic can lean on"],
         "zh": ["对质量要求极高、对实时性要求宽松的关键代码、报告与分析", "有外部检验（测试、标准）可依托的任务"]},
        {"en": ["real-time answers, or when \"roughly right\" is enough",
                "self-critique with no external signal: it may not help (Huang et al. 2024)"],
         "zh": ["需要实时响应，或“大致正确”即可的场景", "没有外部信号的自我批评：未必有帮助（Huang 等，2024）"]},
        {"en": "Each iteration adds at least two calls (critique and refinement): at most "
               "`1 + max_iterations × (r + 1)`.",
         "zh": "每轮迭代至少增加两次调用（反思与优化）：最多 `1 + max_iterations × (r + 1)`。"}),
)

FAILURES = {
    "en": [("Tool returns an error", "`query_logistics(\"SF0000000\")` returns `{\"error\": \"waybill does not exist\"}`; "
            "no exception is thrown, so without a check the step counts as done.", "logistics-sf0000000"),
           ("Reasoning drift", "For a home with two long-haired cats the executor lists every spec of R1 and R7 Pro "
            "but misses what decides it: an anti-tangle brush. Nothing errors.", "vacuum-cats"),
           ("Chain effects in a multi-step plan", "If the order lookup fails, the synthesis step must know — or it "
            "invents a status or drops the sub-task.", "airx-watchfit-order")],
    "zh": [("工具返回错误", "`query_logistics(\"SF0000000\")` 返回 `{\"error\": \"运单号不存在\"}`；"
            "没有抛异常，不做检查的话这一步会被当作完成。", "logistics-sf0000000"),
           ("推理偏差", "家里有两只长毛猫，执行器全维度罗列 R1 与 R7 Pro 的参数，却没抓住决定性因素——防缠绕滚刷。"
            "全程没有报错。", "vacuum-cats"),
           ("多步任务中的连锁影响", "查订单这一步失败了，综合步骤必须知道——否则它要么编造状态，要么忽略这个子任务。",
            "airx-watchfit-order")],
}

LIMITS_OF_REFLECTION = {
    "en": "A reviewer has no ground truth. It can check that a result is **complete** and **consistent** with "
          "the goal, not that it is **true**: if the order tool had invented `{\"status\": \"delivered\"}` for "
          "order 99999, every reflection in this app would pass it. Reflection turns hidden failures into "
          "visible, recoverable ones; it does not make a model know what it cannot see (seed 03).",
    "zh": "评审没有标准答案（ground truth）。它能校验结果是否**完整**、是否与目标**一致**，却无法校验结果是否"
          "**真实**：如果订单工具为 99999 编造了 `{\"status\": \"已签收\"}`，本应用中的每一种反思都会放行。"
          "反思把隐蔽的失败变成可见、可恢复的状态，却不能让模型知道它看不见的东西（种子文章 03）。",
}
