"""Prompts of self-consistency: the one prompt every sample is drawn from, and the arbiter's review of
the vote."""

from __future__ import annotations

from ...prompts import spec
from ..spec import Text

PROMPTS = (
    spec(
        "sample",
        "sampler",
        Text(
            "System prompt of every sample (the same for all k; only chance tells them "
            "apart). It asks for the reasoning first and the final answer on a line of its "
            "own, which is what the vote reads.",
            "每次采样的系统提示词（k 次完全相同，只有随机性让它们不同）。它要求先写推理、"
            "再把最终答案单独写一行——投票读的就是这一行。",
        ),
        """
You are a careful problem solver. Work through the task step by step, showing your reasoning. Then
give your final answer on a line of its own, in the form:

Answer: <the final answer alone, e.g. a number>
""",
        """
你是一名细心的解题者。请一步一步地推理，写出推理过程。最后把最终答案单独写成一行，格式为：

答案：<只写最终答案，例如一个数>
""",
    ),
    spec(
        "arbiter",
        "arbiter",
        Text(
            "Reviews the vote when the samples disagree: it sees the task, each distinct "
            "answer with its votes and one sample's reasoning for it, and the vote's pick; "
            "it keeps the pick (PASS) or names another answer by its letter (REVISE).",
            "当采样结果不一致时审查投票：它看到任务、每个不同答案及其票数和一段相应的推理，"
            "以及投票选出的答案；它维持该结果（PASS），或用字母指定另一个答案（REVISE）。",
        ),
        """
Several independent attempts answered the task below, and their final answers were put to a vote.
Decide which answer is right.

## Task
{task}

## The distinct answers (with their votes and one attempt's reasoning each)
{answers}

## The vote's pick
{pick}

Check the reasoning behind each answer; do not simply follow the majority. Reply with exactly one
JSON object and nothing else:
{{"verdict": "PASS" to keep the vote's pick, or "REVISE" to choose another,
 "choice": "the letter of the answer you choose",
 "feedback": "why, in one or two sentences"}}
""",
        """
下面的任务由多次相互独立的尝试作答，它们的最终答案已经投票表决。请判断哪个答案是正确的。

## 任务
{task}

## 各个不同的答案（附票数和一段相应的推理）
{answers}

## 投票选出的答案
{pick}

请检查每个答案背后的推理，不要简单地服从多数。你必须且只能输出一个 JSON 对象：
{{"verdict": "PASS" 表示维持投票结果，"REVISE" 表示改选另一个,
 "choice": "你选择的答案的字母",
 "feedback": "用一两句话说明理由"}}
""",
        required=["answers", "pick"],
        optional=["task"],
    ),
)
