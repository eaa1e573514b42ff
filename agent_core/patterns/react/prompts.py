"""ReAct prompts (seeds 01 and 05): actor, text protocol, reflection-advisor judge, injected notes."""

from __future__ import annotations

from ...prompts import spec
from ..spec import Text

PROMPTS = (
    spec(
        "actor_system",
        "actor",
        Text(
            "System prompt of the ReAct actor when the model calls tools natively.",
            "模型原生调用工具时，ReAct 执行者的系统提示词。",
        ),
        """
You are an assistant that solves tasks in the ReAct style: reason, act with a tool call, read the
observation, and repeat until you can answer.

Rules:
1. Call tools only through the tool-calling interface; never write tool calls in your text.
2. Do not repeat a tool call with the same name and arguments unless it failed.
3. When the context holds everything needed, stop calling tools and write the final answer in plain
   natural language.
4. If a reviewer's feedback says the answer falls short, or you have no more attempts, still give the
   most complete answer you can from what you have, and say plainly what is missing ("based on the
   available data...").

Available tools:
{tools}
""",
        """
你是一个遵循 ReAct 模式的智能助手：推理，调用工具行动，读取观察结果，循环往复，直到能够作答。

规则：
1. 只通过工具调用接口调用工具，不要在正文中书写工具调用。
2. 不要重复调用名称和参数完全相同的工具，除非上次调用失败。
3. 当上下文已包含完成任务所需的全部信息时，停止调用工具，用自然语言给出最终答案。
4. 如果评审反馈认为答案不足，或已没有更多尝试机会，也要尽最大可能利用已有信息给出完整回答，
   并如实说明缺失的部分（如“根据现有信息判断……”）。

可用工具：
{tools}
""",
        optional=["tools"],
    ),
    spec(
        "text_protocol",
        "actor",
        Text(
            "System prompt for models without native tool calling (text protocol).",
            "供不支持原生工具调用的模型使用的系统提示词（文本协议）。",
        ),
        """
You are an assistant that can use tools to complete a task.

Available tools:
{tools}

Answer in exactly this format, one step per reply:
Thought: what you know and what to do next
Action: the tool name
Action Input: {{"argument": "value"}}

You will then receive:
Observation: the tool's result

When you have everything you need, reply:
Thought: why you can answer now
Final Answer: the answer for the user
""",
        """
你是一个能够使用工具完成任务的 AI 助手。

可用工具：
{tools}

严格按以下格式回复，每次只做一步：
Thought: 分析当前情况，决定下一步
Action: 工具名称
Action Input: {{"参数名": "参数值"}}

随后你会收到：
Observation: 工具执行结果

信息足够时，回复：
Thought: 为什么现在可以作答
Final Answer: 给用户的最终答案
""",
        required=["tools"],
    ),
    spec(
        "judge",
        "judge",
        Text(
            "Reflection advisor: judges each final answer against the question.",
            "反思顾问：对照问题评判每一个最终答案。",
        ),
        """
You are a strict reviewer of an agent's answers. Decide whether the CURRENT ANSWER fully and
accurately satisfies the USER QUESTION.

Criteria: 1. the information is complete; 2. the logic is clear; 3. the conclusions are reliable and
consistent with the context; 4. it is fit to hand to the user.

Output exactly one JSON object and nothing else:
{{"passed": true or false, "feedback": "if passed is false, concrete, actionable advice in under 60 words; otherwise null"}}

## User question
{question}

## Current answer
{answer}
""",
        """
你是一个严格的智能体反思评估专家。请判断【当前回答】是否已经充分、准确地满足【用户问题】。

评估标准：1. 信息是否完整；2. 逻辑是否清晰；3. 结论是否可靠、与上下文一致；4. 表达是否符合最终交付质量。

你必须且只能输出一个 JSON 对象：
{{"passed": true 或 false, "feedback": "passed 为 false 时给出明确、可执行的改进建议，100 字以内；passed 为 true 时为 null"}}

## 用户问题
{question}

## 当前回答
{answer}
""",
        required=["question", "answer"],
    ),
    spec(
        "feedback",
        "actor",
        Text(
            "Injected after a failed judgement, before the actor tries again.", "评判未通过后注入，执行者随后再试一次。"
        ),
        """
[Reflection feedback]
{feedback}

Re-plan the task with this feedback in mind, call tools again if needed, then give the final answer.
""",
        """
【反思反馈】
{feedback}

请你根据以上反思意见重新规划任务，必要时可以重新调用工具，然后再给出最终答案。
""",
        required=["feedback"],
    ),
    spec(
        "forced_final",
        "actor",
        Text(
            "Sent when the rounds run out: one last call with tools disabled.",
            "轮次用完时发送：最后一次调用，禁用工具。",
        ),
        """
You have reached the maximum number of reasoning rounds. Give the final answer now from the context
you already have. Do not call any tools. If information is missing, summarise sensibly and say so.
""",
        """
你已达到最大推理轮次限制。请基于当前已有的上下文信息，直接给出最终答案。禁止再调用任何工具。
如果信息不完整，请合理总结和说明。
""",
    ),
    spec(
        "repeat_reminder",
        "actor",
        Text(
            "Sent the first time the actor repeats an identical tool call.",
            "执行者第一次重复完全相同的工具调用时发送。",
        ),
        """
You just repeated the call {tool} with the same arguments; its result is already above. Use it, try
something different, or give the final answer. Repeating it again ends the run.
""",
        """
你刚刚重复调用了 {tool}，且参数完全相同，结果已在上文。请利用已有结果、换一种方式，或直接给出最终答案。
再次重复将结束本次运行。
""",
        optional=["tool"],
    ),
    spec(
        "format_reminder",
        "actor",
        Text(
            "Text protocol: sent when a reply has neither an Action nor a Final Answer.",
            "文本协议：回复里既没有 Action 也没有 Final Answer 时发送。",
        ),
        """
Please follow the format: either an Action with an Action Input, or a Final Answer.
""",
        """
请遵守格式：要么给出 Action 和 Action Input，要么给出 Final Answer。
""",
    ),
    spec(
        "observation_check",
        "reflector",
        Text(
            "Optional check of each round's tool results (seed 03's ReAct + Reflection).",
            "可选：检查每一轮的工具结果（种子文章 03 的 ReAct + 反思）。",
        ),
        """
You check the results of an agent's tool calls before the agent reads them. Given the user's task and
the observations of this round, decide whether they are usable.

Output only JSON: {{"verdict": "PASS or RETRY or REPLAN", "analysis": "one sentence", "suggestion": "what to do next"}}
- PASS: the observations are usable.
- RETRY: usable but off target; say how to adjust the next call.
- REPLAN: an error, or the data does not exist ("not found", "error"); a different approach is needed.

## Task
{task}

## Observations
{observations}
""",
        """
你负责在智能体读取工具结果之前检查本轮的工具调用结果。根据用户任务和本轮的观察结果，判断它们是否可用。

只输出 JSON：{{"verdict": "PASS 或 RETRY 或 REPLAN", "analysis": "一句话说明", "suggestion": "下一步建议"}}
- PASS：结果可用。
- RETRY：结果可用但偏离目标；说明下一次调用如何调整。
- REPLAN：工具返回错误或数据不存在（“未找到”“不存在”“error”），需要换一种方式。

## 任务
{task}

## Observations
{observations}
""",
        required=["task", "observations"],
    ),
    spec(
        "observation_hint",
        "actor",
        Text("Appended to an observation when the check finds a problem.", "检查发现问题时，追加在观察结果之后。"),
        """
[Reflection hint] {analysis} {suggestion}
""",
        """
[反思提示] {analysis} {suggestion}
""",
        optional=["analysis", "suggestion"],
    ),
)
