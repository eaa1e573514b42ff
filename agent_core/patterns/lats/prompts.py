"""LATS prompts: expand (write one new candidate), evaluate (value it), self-reflect (say why a failed
one failed); and the labels of their optional sections.

Optional placeholders ({parent}, {siblings}, {reflections}) arrive as whole sections, heading
included, or as an empty string, so a template never shows an empty heading.
"""

from __future__ import annotations

from ...prompts import spec
from ..spec import Text

_SECTIONS = {
    "parent": {
        "en": "Candidate to improve (node {node}, value {value})",
        "zh": "待改进的候选（节点 {node}，价值 {value}）",
    },
    "feedback": {"en": "Its evaluation", "zh": "它的评估结果"},
    "siblings": {
        "en": "Candidates already written from this node (take a different approach)",
        "zh": "从该节点已写出的候选（请换一种不同的思路）",
    },
    "reflections": {"en": "Reflections on failed candidates (oldest first)", "zh": "对失败候选的反思（按时间先后）"},
}

#: How one earlier candidate or reflection is headed inside a section.
ITEM = {"en": "--- node {node} ---", "zh": "--- 节点 {node} ---"}


def _key(lang: str) -> str:
    return "zh" if lang == "zh" else "en"


def heading(name: str, lang: str, **values: object) -> str:
    return _SECTIONS[name][_key(lang)].format(**values)


def section(name: str, body: str, lang: str, **values: object) -> str:
    """An optional prompt section with its heading, or "" when there is nothing to say."""
    if not body.strip():
        return ""
    return f"\n## {heading(name, lang, **values)}\n{body.strip()}\n"


def items(pairs: list[tuple[int, str]], lang: str) -> str:
    """Earlier candidates or reflections, each under its node's number."""
    return "\n\n".join(f"{ITEM[_key(lang)].format(node=node)}\n{body.strip()}" for node, body in pairs)


PROMPTS = (
    spec(
        "expand",
        "expander",
        Text(
            "Writes one new candidate: from the task at the root, else from the candidate "
            "being expanded and its evaluation; the reflections on failed candidates come along.",
            "写出一个新候选：在根节点只依据任务，否则依据被扩展的候选及其评估；同时附上对失败候选的反思。",
        ),
        """
You are searching for the best answer to a task, one candidate at a time. Write ONE new, complete
candidate.

## Task
{task}
{parent}{siblings}{reflections}
- If a candidate to improve is given, keep what works in it and fix what its evaluation shows.
- If candidates already written from this node are listed, take a clearly different approach.
- Learn from the reflections on failed candidates: do not repeat their mistakes.
- For code: output only the code — a complete function with its signature and a docstring whose
  first line says your approach — and no explanation.
- For text: output only the candidate itself.
""",
        """
你正在为一项任务搜索最佳答案，每次写一个候选。请写出【一个】新的、完整的候选。

## 任务
{task}
{parent}{siblings}{reflections}
- 如果给出了待改进的候选，保留其中正确的部分，并修正评估指出的问题。
- 如果列出了从该节点已写出的候选，请采用明显不同的思路。
- 吸取对失败候选的反思，不要重犯同样的错误。
- 如果是代码：只输出代码——包含函数签名和文档字符串（第一行说明你的思路）的完整函数——不要任何解释。
- 如果是文本：只输出候选本身。
""",
        required=["task"],
        optional=["parent", "siblings", "reflections"],
    ),
    spec(
        "evaluate",
        "evaluator",
        Text(
            "Values one candidate from 0 to 1: how likely it is, or leads to, a correct and "
            "complete answer. Unused with the unit-test evaluator.",
            "为一个候选打 0 到 1 的分：它本身是、或能引出正确完整答案的可能性。启用单元测试评估时不使用。",
        ),
        """
You are valuing one candidate answer to the task below: how likely is it to be, or to lead to, a
correct and complete answer?

## Task
{task}

## Candidate
{candidate}

Reply with exactly one JSON object and nothing else:
{{"value": a number from 0.0 (hopeless) to 1.0 (correct and complete),
 "reason": "what is right and what is wrong in it, in one or two sentences"}}
""",
        """
你正在为下面任务的一个候选答案打分：它本身是、或者能引出一个正确且完整的答案的可能性有多大？

## 任务
{task}

## 候选
{candidate}

你必须且只能输出一个 JSON 对象：
{{"value": 0.0（毫无希望）到 1.0（正确且完整）之间的数字,
 "reason": "用一两句话说明其中正确与错误之处"}}
""",
        required=["task", "candidate"],
    ),
    spec(
        "self_reflect",
        "self_reflector",
        Text(
            "Says why a failed candidate failed and what a better one must do "
            "differently; the reflection goes into every later expansion's prompt.",
            "说明一个失败的候选为何失败、更好的候选应当怎样做；这条反思会加入之后每次扩展的提示词。",
        ),
        """
A candidate answer to the task below failed its evaluation. In two to four sentences, say why it
failed and what a better candidate must do differently. Be specific: name the input or the step
where it goes wrong. Do not write a new candidate.

## Task
{task}

## Failed candidate
{candidate}

## Its evaluation
{feedback}
""",
        """
下面任务的一个候选答案没有通过评估。请用两到四句话说明它失败的原因，以及更好的候选应当怎样做。
要具体：指出它在哪个输入或哪一步出错。不要写新的候选。

## 任务
{task}

## 失败的候选
{candidate}

## 它的评估结果
{feedback}
""",
        required=["task", "candidate", "feedback"],
    ),
)
