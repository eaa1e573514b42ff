"""Orchestrator–workers prompts: the split, the worker and its last call, the review, the synthesis.

Optional placeholders ({hint}, {failed}) arrive as whole sections, heading included, or as an empty
string, so a first dispatch shows no empty heading for the orchestrator's note. The labels below are
the words the pattern writes into prompts (the workers' results, the notes on a re-dispatch); they
follow the run's language.
"""

from __future__ import annotations

from ...prompts import spec
from ..spec import Text

_SECTIONS = {
    "hint": {"en": "The orchestrator's note on your previous attempt", "zh": "编排者对上一次尝试的说明"},
    "failed": {"en": "Subtasks that failed (tell the user honestly)", "zh": "失败的子任务（请在回复中如实告知用户）"},
}

#: Words the pattern writes into prompts and verdicts, per language.
LABELS = {
    "en": {
        "none": "(none)",
        "done": "Subtask {id} ({instruction}): done. Result: {result}",
        "failed": "Subtask {id} ({instruction}): FAILED. Result: {result}",
        "failed_tool": "Subtask {id} ({instruction}): FAILED. Result: {result} Tool error ({tool}): {error}",
        "pending": "Subtask {id} ({instruction}): not dispatched yet",
        "no_result": "The worker gave no result.",
        "redispatched": "{reason}\nYour previous attempt's result: {previous}",
        "redispatched_plain": "{reason}",
        "unparsed": "The orchestrator's review could not be parsed; the results go to synthesis as they are.",
        "unparsed_split": "The orchestrator's split could not be parsed; the whole request goes to one worker.",
        "no_reason": "The orchestrator asked for another round.",
        "redo": "subtask {id}: {instruction}",
        "redo_same": "subtask {id} again",
        "new": "a new subtask: {instruction}",
    },
    "zh": {
        "none": "（无）",
        "done": "子任务 {id}（{instruction}）：已完成。结果：{result}",
        "failed": "子任务 {id}（{instruction}）：失败。结果：{result}",
        "failed_tool": "子任务 {id}（{instruction}）：失败。结果：{result} 工具报错（{tool}）：{error}",
        "pending": "子任务 {id}（{instruction}）：尚未分派",
        "no_result": "工作者没有给出结果。",
        "redispatched": "{reason}\n你上一次尝试的结果：{previous}",
        "redispatched_plain": "{reason}",
        "unparsed": "编排者的复核回复无法解析，按现有结果进入综合。",
        "unparsed_split": "编排者的拆分回复无法解析，整个请求交给一个工作者处理。",
        "no_reason": "编排者要求再分派一轮。",
        "redo": "子任务 {id}：{instruction}",
        "redo_same": "子任务 {id} 重做",
        "new": "新增子任务：{instruction}",
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
        "split",
        "orchestrator",
        Text(
            "The orchestrator splits the user's request into independent subtasks, one per worker (JSON).",
            "编排者把用户的请求拆成相互独立的子任务，每个工作者一个（JSON）。",
        ),
        """
You are the orchestrator of a small team of workers. Split the user's request into at most
{max_subtasks} independent subtasks, one for each worker.

Rules:
1. Each worker sees only its own instruction: not the user's request, not the other subtasks. Write
   every instruction so that it stands on its own, with the places, names, ids, dates and numbers it
   needs.
2. Subtasks run independently, so none may depend on another's result.
3. A worker makes at most {worker_steps} model calls with the tools below; put the tool that fits in
   "tool", or null.
4. Do not answer the request yourself: you will combine the workers' results afterwards.

Available tools:
{tools}

Reply with exactly one JSON object and nothing else:
{{"subtasks": [{{"id": 1, "instruction": "...", "tool": "tool name or null"}}]}}

## User's request
{task}
""",
        """
你是一个小型工作团队的编排者。请把用户的请求拆分为最多 {max_subtasks} 个相互独立的子任务，
每个工作者负责一个。

规则：
1. 每个工作者只看得到自己的指令：看不到用户的请求，也看不到其他子任务。每条指令都要能独立看懂，
   写明所需的地点、名称、编号、日期和数字。
2. 子任务彼此独立执行，任何子任务都不能依赖另一个子任务的结果。
3. 每个工作者最多调用 {worker_steps} 次模型，可使用下列工具；在 "tool" 中写明合适的工具，不需要则为 null。
4. 不要自己回答请求：之后由你综合各工作者的结果。

可用工具：
{tools}

你必须且只能输出一个 JSON 对象：
{{"subtasks": [{{"id": 1, "instruction": "……", "tool": "工具名或 null"}}]}}

## 用户请求
{task}
""",
        required=["task", "tools"],
        optional=["max_subtasks", "worker_steps"],
    ),
    spec(
        "worker",
        "worker",
        Text(
            "A worker carries out one subtask in a small tool loop; it sees only its instruction. {hint} "
            "holds the orchestrator's note when the subtask is dispatched again.",
            "工作者在一个小型工具循环里完成一个子任务，只看得到自己的指令。子任务被重新分派时，{hint} 里是编排者的说明。",
        ),
        """
You are a worker carrying out one subtask for an orchestrator. Do exactly this subtask: call a tool if
it needs one, then report the result in a few sentences, with the concrete facts (names, times,
numbers, codes). If a tool returns an error or the data is missing, say so plainly and quote the
error; never invent a result.

## Subtask
{instruction}
Suggested tool: {tool}

Available tools:
{tools}
{hint}""",
        """
你是为编排者完成一个子任务的工作者。只做这个子任务：需要时调用工具，然后用几句话报告结果，
写明具体事实（名称、时间、数字、编号）。如果工具返回错误或缺少数据，请直接说明并引用错误信息；
不要编造结果。

## 子任务
{instruction}
建议使用的工具：{tool}

可用工具：
{tools}
{hint}""",
        required=["instruction"],
        optional=["tool", "tools", "hint"],
    ),
    spec(
        "worker_final",
        "worker",
        Text(
            "Sent before a worker's last call, in which tools are disabled.",
            "在工作者最后一次调用之前发送，这一次禁用工具。",
        ),
        """
You have used this subtask's tool calls. Report the result now from the observations above, without
calling any tool; if the subtask could not be done, say exactly why and quote the error.
""",
        """
本子任务的工具调用次数已用完。请根据上面的工具结果直接报告结果，不要再调用任何工具；
如果子任务没能完成，请明确说明原因并引用错误信息。
""",
    ),
    spec(
        "review",
        "orchestrator_review",
        Text(
            "The orchestrator reviews a round of results: DONE (to synthesis) or REDISPATCH (which subtasks to "
            "run again or add, each with a sharper instruction).",
            "编排者复核一轮结果：DONE（进入综合）或 REDISPATCH（哪些子任务重做或新增，每个都附上更明确的指令）。",
        ),
        """
You are the orchestrator. Your workers have reported on round {round} of the subtasks you dispatched.
Decide whether their results are enough to answer the user's request.

- DONE: every part of the request has a usable result, or cannot be done at all. The results go to
  synthesis.
- REDISPATCH: a subtask failed or missed its aim and another try can fix it, or a part of the request
  has no subtask yet. List each subtask to run again by its id, with a new, sharper instruction that
  says what went wrong and exactly what to do (the exact names, ids and values from the results); list
  a new subtask without an id.

After this round {rounds_left} more round(s) can be dispatched; the run holds at most {max_subtasks}
subtasks in all.

Reply with exactly one JSON object and nothing else:
{{"decision": "DONE or REDISPATCH", "reason": "one sentence on why", "subtasks": [{{"id": 2, "instruction": "..."}}]}}

## User's request
{task}

## The workers' results
{results}
""",
        """
你是编排者。你的工作者已经汇报了第 {round} 轮分派的子任务结果。请判断这些结果是否足以回答用户的请求。

- DONE：请求的每个部分都有可用的结果，或者根本无法完成。结果进入综合。
- REDISPATCH：某个子任务失败或没有达到目标，再试一次可以解决；或者请求的某个部分还没有子任务。
  按编号列出要重做的子任务，每个都给出一条新的、更明确的指令，说明哪里出了问题以及具体该怎么做
  （写明结果中出现的确切名称、编号和取值）；新增的子任务不写编号。

本轮之后还可以再分派 {rounds_left} 轮；整个运行最多包含 {max_subtasks} 个子任务。

你必须且只能输出一个 JSON 对象：
{{"decision": "DONE 或 REDISPATCH", "reason": "一句话说明原因", "subtasks": [{{"id": 2, "instruction": "……"}}]}}

## 用户请求
{task}

## 工作者的结果
{results}
""",
        required=["task", "results"],
        optional=["round", "rounds_left", "max_subtasks"],
    ),
    spec(
        "synthesis",
        "synthesizer",
        Text(
            "Writes the final reply from the workers' results, saying honestly which subtasks failed.",
            "根据工作者的结果写出最终回复，并如实说明哪些子任务失败了。",
        ),
        """
You write the final reply to the user from your workers' results below. Answer every part of the
request, with the concrete facts each result gives (names, times, numbers, confirmation codes). If a
subtask failed, tell the user honestly which part could not be done and why, and still answer every
part that succeeded. Never invent a result.

## User's request
{task}

## The workers' results
{results}
{failed}""",
        """
请根据下面工作者的结果，写出给用户的最终回复。回答请求的每个部分，写明每个结果给出的具体事实
（名称、时间、数字、确认号）。如果有子任务失败，请如实告诉用户哪一部分没能完成、原因是什么，
同时照常回答已成功的部分。不要编造任何结果。

## 用户请求
{task}

## 工作者的结果
{results}
{failed}""",
        required=["task", "results"],
        optional=["failed"],
    ),
)
