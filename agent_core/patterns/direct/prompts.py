"""Prompts of the `direct` baseline: one system prompt, and the note before its one final call."""

from __future__ import annotations

from ...prompts import spec
from ..spec import Text

PROMPTS = (
    spec(
        "system",
        "actor",
        Text(
            "System prompt of the single call that answers the task (the baseline).",
            "基线方案中唯一那次回答任务的调用所用的系统提示词。",
        ),
        """
You are a capable assistant. Answer the user's task in one reply: think it through, then give your
complete answer. There is no second draft and no reviewer, so check your answer before you send it.
{tools}
""",
        """
你是一名能干的助手。请在一次回复中完成用户的任务：先想清楚，再给出完整答案。
不会有第二稿，也没有评审，发送前请自己检查一遍。
{tools}
""",
        optional=["tools"],
    ),
    spec(
        "tools_note",
        "actor",
        Text("Appended to the system prompt when the task has tools.", "任务带有工具时，追加在系统提示词之后。"),
        """
You may call the tools below once, all in this one turn; their results come back and you then write
the final answer with tools switched off.

Available tools:
{tools}
""",
        """
你可以在这一轮中一次性调用下列工具；工具结果返回后，你将在禁用工具的情况下写出最终答案。

可用工具：
{tools}
""",
        required=["tools"],
    ),
    spec(
        "final",
        "actor",
        Text(
            "Sent after the tool results, before the one final call (tools disabled).",
            "在工具结果之后、唯一一次最终调用（禁用工具）之前发送。",
        ),
        """
Write the final answer now from the tool results above. Tools are switched off.
""",
        """
请根据上面的工具结果写出最终答案。工具已禁用。
""",
    ),
)
