"""Plan-and-Execute prompts (seeds 03, 05): planner, re-planner, executor, synthesizer, step Reflector.

Optional placeholders ({goal}, {hint}, {context}, {failed}, {observations}) arrive as whole sections,
heading included, or as an empty string, so a goal-blind executor's prompt holds no trace of the goal
and a first attempt shows no empty heading for a suggestion. The labels below are the words the pattern
writes into prompts (progress summaries, section headings); they follow the run's language.
"""

from __future__ import annotations

from ...prompts import spec
from ..spec import Text

_SECTIONS = {
    "goal": {"en": "The user's original request", "zh": "用户的原始需求"},
    "hint": {"en": "Reflection on the previous attempt", "zh": "上一次尝试的反思"},
    "context": {"en": "Results of earlier steps", "zh": "之前步骤的执行结果"},
    "failed": {"en": "Steps that failed (tell the user honestly)", "zh": "执行失败的步骤（请在回复中如实告知用户）"},
    "observations": {"en": "Tool observations of this step", "zh": "本步骤的工具调用结果"},
}

#: Words the pattern writes into prompts and verdicts, per language.
LABELS = {
    "en": {
        "synthesis": "Combine the results into the final reply to the user",
        "none": "(none)",
        "hint_follow_up": "Adjust how you carry out this step accordingly.",
        "done": "Step {id} ({description}): done. Result: {result}",
        "failed": "Step {id} ({description}): FAILED. Reason: {result}",
        "skipped": "Step {id} ({description}): not run (skipped after the re-plans ran out)",
        "pending": "Step {id} ({description}): not run yet; to be planned again",
        "precheck": "Rule pre-check: the tool {tool} returned an error, so the step is re-planned without "
        "asking the Reflector. Error: {error}",
        "unparsed": "The Reflector's reply could not be parsed; the result is accepted as if it passed.",
        "replan_reason": "The Reflector asked for a re-plan.",
    },
    "zh": {
        "synthesis": "综合以上结果，生成给用户的最终回复",
        "none": "（无）",
        "hint_follow_up": "请根据这个反思调整执行方式。",
        "done": "Step {id}（{description}）：已完成。结果：{result}",
        "failed": "Step {id}（{description}）：失败。失败原因：{result}",
        "skipped": "Step {id}（{description}）：未执行（重规划次数已用完，已跳过）",
        "pending": "Step {id}（{description}）：尚未执行，待重新规划",
        "precheck": "规则预检：工具 {tool} 返回了错误，无需调用反思器，直接重规划。错误：{error}",
        "unparsed": "反思器的回复无法解析，按通过处理，接受当前结果。",
        "replan_reason": "反思器要求重规划。",
    },
}


def label(name: str, lang: str, **values: object) -> str:
    """One of LABELS in the run's language, filled in."""
    text = LABELS["zh" if lang == "zh" else "en"][name]
    return text.format(**values) if values else text


def section(name: str, body: str, lang: str) -> str:
    """An optional prompt section with its heading, or "" when there is nothing to say."""
    if not body.strip():
        return ""
    return f"\n## {_SECTIONS[name]['zh' if lang == 'zh' else 'en']}\n{body.strip()}\n"


PROMPTS = (
    spec(
        "planner",
        "planner",
        Text(
            "Turns the user's request into a JSON plan that ends with a synthesis step.",
            "把用户的请求变成一份 JSON 计划，最后一步是综合步骤。",
        ),
        """
You are a task planner. Break the user's request into a short, ordered plan that an executor will
carry out one step at a time.

Rules:
1. Each step does one concrete thing. Put the tool it should use in "tool", or null if it needs none.
2. The executor may see only its own step and the results of earlier steps, not the user's request:
   write every description so that it stands on its own, with the names, ids and numbers it needs.
3. The last step combines the results into the final reply to the user; its "tool" is null.
4. "critical": true means the whole run stops if this step fails. Use it only when a partial answer
   would be wrong or harmful; a lookup whose failure can simply be reported to the user is not critical.
5. Use at most {max_steps} steps.

Available tools:
{tools}

Reply with exactly one JSON object and nothing else:
{{"steps": [{{"id": 1, "description": "...", "tool": "tool name or null", "critical": false}}]}}

## User's request
{goal}
""",
        """
你是一个任务规划专家。请把用户的需求拆解为一份简短、有序的执行计划，由执行器逐步执行。

规则：
1. 每个步骤只做一件具体的事。在 "tool" 中写明该步骤要使用的工具；不需要工具则为 null。
2. 执行器可能只看得到本步骤和之前步骤的结果，看不到用户的原始需求：每个步骤的描述都要能独立看懂，
   写明所需的名称、编号和数字。
3. 最后一步综合各步骤结果，生成给用户的最终回复，其 "tool" 为 null。
4. "critical": true 表示该步骤一旦失败，整个任务立即中止。只有当不完整的回答是错误或有害的时候才使用；
   失败后可以如实告知用户的查询类步骤不是关键步骤。
5. 步骤数不超过 {max_steps} 个。

可用工具：
{tools}

你必须且只能输出一个 JSON 对象：
{{"steps": [{{"id": 1, "description": "……", "tool": "工具名或 null", "critical": false}}]}}

## 用户需求
{goal}
""",
        required=["goal", "tools"],
        optional=["max_steps"],
    ),
    spec(
        "replanner",
        "planner",
        Text(
            "Re-plans the remaining steps from a progress summary that gives every failed step's reason.",
            "根据进度摘要重新规划剩余步骤；摘要里写明了每个失败步骤的原因。",
        ),
        """
You are a task planner revising a plan that ran into trouble. Some steps are done and at least one
failed; the progress below gives the reason for every failure. Plan the REMAINING steps again so the
user still gets the best answer possible.

Rules:
1. Do not repeat a failed step unchanged: if data does not exist or a tool returned an error, it will
   fail again. Work around it, or let the final step tell the user honestly what could not be done.
2. Do not redo completed steps; their results are kept.
3. Each step does one concrete thing, names its tool or null, and stands on its own (the executor may
   not see the user's request).
4. The last step combines the results into the final reply to the user; its "tool" is null.
5. Use at most {max_steps} steps. Set "critical": true only if the run must stop when the step fails.

Available tools:
{tools}

## User's request
{goal}

## Progress so far
{progress}

Reply with exactly one JSON object and nothing else:
{{"steps": [{{"description": "...", "tool": "tool name or null", "critical": false}}]}}
""",
        """
你是一个任务规划专家，正在调整一份执行受阻的计划。部分步骤已完成，至少有一个步骤失败，下面的执行进度
写明了每个失败步骤的原因。请重新规划【剩余】步骤，让用户仍然得到尽可能好的答复。

规则：
1. 不要原样重复失败的步骤：如果数据不存在或工具返回了错误，重复执行还会失败。请绕开它，
   或者让最后一步如实告知用户哪些事情没能完成。
2. 不要重做已完成的步骤，它们的结果会保留。
3. 每个步骤只做一件具体的事，写明工具或 null，且描述能独立看懂（执行器可能看不到用户的原始需求）。
4. 最后一步综合各步骤结果，生成给用户的最终回复，其 "tool" 为 null。
5. 步骤数不超过 {max_steps} 个。只有当步骤失败时任务必须中止，才设置 "critical": true。

可用工具：
{tools}

## 用户需求
{goal}

## 当前执行进度
{progress}

你必须且只能输出一个 JSON 对象：
{{"steps": [{{"description": "……", "tool": "工具名或 null", "critical": false}}]}}
""",
        required=["goal", "progress", "tools"],
        optional=["max_steps"],
    ),
    spec(
        "executor",
        "executor",
        Text(
            "Runs one work step in a small tool loop. Goal-blind: {goal} is filled only when the goal-aware "
            "toggle is on; {hint} holds the Reflector's suggestion on a retry.",
            "在一个小型工具循环里执行一个工作步骤。默认看不到目标：只有打开“执行器可见目标”开关时才会填入 {goal}；重试时 {hint} 里是反思器的建议。",
        ),
        """
You are an executor carrying out one step of a plan. Do exactly this step and nothing more: call a
tool if the step needs one, then report the step's result clearly and concisely.
{goal}
## Step
{step}
Suggested tool: {tool}
{context}
Available tools:
{tools}
{hint}""",
        """
你是计划的执行器，负责执行其中的一个步骤。只做这一步，不做多余的事：需要时调用工具，
然后清晰、简洁地给出本步骤的执行结果。
{goal}
## 当前步骤
{step}
建议使用的工具：{tool}
{context}
可用工具：
{tools}
{hint}""",
        required=["step"],
        optional=["goal", "hint", "tools", "tool", "context"],
    ),
    spec(
        "executor_final",
        "executor",
        Text(
            "Sent before a step's last round, in which tools are disabled.",
            "在一个步骤的最后一轮之前发送，这一轮禁用工具。",
        ),
        """
You have used this step's tool rounds. Give the step's result now from the observations above,
without calling any tool; if data is missing, say exactly what is missing.
""",
        """
本步骤的工具调用轮次已用完。请基于上面的工具结果直接给出本步骤的执行结果，不要再调用任何工具；
如果缺少数据，请明确说明缺少什么。
""",
    ),
    spec(
        "synthesizer",
        "synthesizer",
        Text(
            "The synthesis step: writes the final reply from the completed results and the failed steps.",
            "综合步骤：根据已完成的结果和失败的步骤写出最终回复。",
        ),
        """
You are a customer-facing assistant. Write one complete reply to the user from the results of the
plan's steps below. If any step failed, tell the user honestly which parts failed and why, and still
answer every part that succeeded. Never invent a result for a failed step.
{goal}
## This step
{step}

## Results of the completed steps
{completed}
{failed}{hint}""",
        """
你是面向用户的智能客服助手。请根据下面各步骤的执行结果，综合生成一段面向用户的完整回复。
如果有步骤失败，请在回复中如实告知用户哪些部分失败了、原因是什么，同时照常回答已成功的部分。
不要为失败的步骤编造结果。
{goal}
## 当前步骤
{step}

## 已完成步骤的执行结果
{completed}
{failed}{hint}""",
        required=["step", "completed"],
        optional=["failed", "hint", "goal"],
    ),
    spec(
        "synthesizer_all_failed",
        "synthesizer",
        Text(
            "The synthesis step when no earlier step succeeded: answer straight from the failure reasons.",
            "之前没有任何步骤成功时的综合步骤：直接根据失败原因作答。",
        ),
        """
You are a customer-facing assistant. None of the plan's earlier steps produced a usable result.
Reply to the user directly from the failure reasons below: say plainly what could not be done and
why, and suggest what the user can do next (check what they gave us, try again later, or contact
customer service). Do not invent any data.
{goal}
## This step
{step}
{failed}{hint}""",
        """
你是面向用户的智能客服助手。计划中之前的步骤都没有得到可用的结果。请直接根据下面的失败原因
如实答复用户：说明哪些事情没能完成、原因是什么，并建议用户下一步可以怎么做（核对提供的信息、
稍后重试或联系人工客服）。不要编造任何数据。
{goal}
## 当前步骤
{step}
{failed}{hint}""",
        required=["failed"],
        optional=["step", "hint", "goal"],
    ),
    spec(
        "reflector",
        "reflector",
        Text(
            "The step Reflector: PASS / RETRY / REPLAN on one step's result, judged against the user's goal.",
            "步骤反思器：对照用户目标评判单个步骤的结果，给出 PASS / RETRY / REPLAN。",
        ),
        """
You review the quality of one step of a plan. Judge whether the step's result achieves the step's
aim, keeping in mind the user's original request, which the executor may not have seen.

Reply with exactly one JSON object and nothing else:
{{"verdict": "PASS or RETRY or REPLAN", "analysis": "one sentence on why", "suggestion": "how to do better"}}

Criteria:
- PASS: the result fully meets the step's aim; the information is complete and accurate.
- RETRY: the result clearly deviates, and carrying out the step differently can fix it. Typical
  deviations: it misses what the user cares about; it is too vague; it lists every dimension without
  focusing on the user's situation; it gives no clear recommendation, only "each has its strengths,
  it depends on your preference".
- REPLAN: the step hit a problem a retry cannot fix (a tool returned an error, the data needed does
  not exist), so the rest of the plan must change.

Notes:
- If the result contains error information (such as "not found", "does not exist", "error"),
  answer REPLAN.
- For a synthesis step (one that combines the results into the final reply), answer PASS as long as
  it covers the key information of the completed steps.
- Output only the JSON, with no explanation around it.

## User's original request
{goal}

## Aim of the current step
{step}
{observations}
## Result of the step
{result}
""",
        """
你是一个执行质量评审员。请评估当前步骤的执行结果是否达成了步骤目标，同时对照用户的原始需求
（执行器可能看不到它）。

你必须且只能输出一个 JSON 对象：
{{"verdict": "PASS 或 RETRY 或 REPLAN", "analysis": "一句话说明评估结论", "suggestion": "改进建议"}}

评估标准：
- PASS：执行结果已充分满足步骤目标，信息完整且准确。
- RETRY：执行结果存在明显偏差，可通过调整执行方式修正。典型偏差包括：遗漏了用户关注的重点、
  回答过于笼统、只做了全维度罗列却没结合用户的使用场景给出针对性侧重、没给出明确推荐而是
  “各有优势看你偏好”这类和稀泥的结论。
- REPLAN：当前步骤遇到了无法通过重试解决的问题（如工具返回错误、所需数据不存在），需要调整后续计划。

注意：
- 如果执行结果包含错误信息（如“未找到”“不存在”“error”），应判定为 REPLAN。
- 对综合回复类步骤（目标是综合各步骤结果、生成最终回复），只要覆盖了已完成步骤的关键信息即可判定 PASS。
- 只输出 JSON，不要输出任何解释文字。

## 用户原始需求
{goal}

## 当前步骤目标
{step}
{observations}
## 步骤执行结果
{result}
""",
        required=["goal", "step", "result"],
        optional=["observations"],
    ),
)
