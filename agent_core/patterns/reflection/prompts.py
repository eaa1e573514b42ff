"""Reflection prompts (seeds 02, 04, 05): first draft, critic, refiner, and the graph-style generator
and reviewer; plus the default quality criteria and the labels of the optional prompt sections.

Optional placeholders ({criteria}, {tests}, {trajectory}) arrive as whole sections, heading included,
or as an empty string, so a template never shows an empty heading when the option is off.
"""

from __future__ import annotations

from ...prompts import spec
from ..spec import Text

#: The report scenario's quality criteria (seed 05); `RunConfig.criteria == "default"` stands for them.
DEFAULT_CRITERIA = {
    "en": """
1. States the metric and the period it covers, with numbers.
2. Gives at least three causes, each backed by evidence (data, an experiment or a log).
3. Ends with recommendations, each with an owner.
4. Stays under 250 words.
""".strip(),
    "zh": """
1. 写明指标及其统计周期，并给出具体数字。
2. 至少给出三个原因，每个原因都有证据支撑（数据、实验或日志）。
3. 最后给出改进建议，每条建议都有负责人。
4. 全文不超过 400 字。
""".strip(),
}

_SECTIONS = {
    "criteria": {"en": "Quality criteria", "zh": "质量标准"},
    "tests": {"en": "Unit test results", "zh": "单元测试结果"},
    "trajectory": {
        "en": "Trajectory so far (every attempt and every piece of feedback, oldest first)",
        "zh": "迄今为止的完整轨迹（历次尝试与评审反馈，按时间先后）",
    },
}

#: Labels of seed 04's memory records when the trajectory is written into a prompt.
RECORD_LABELS = {
    "execution": {"en": "--- Attempt (version {version}) ---", "zh": "--- 第 {version} 版尝试 ---"},
    "reflection": {
        "en": "--- Reviewer feedback on version {version} ---",
        "zh": "--- 评审员对第 {version} 版的反馈 ---",
    },
}

#: How failing unit tests are put to the critic's verdict and to the refiner.
TESTS_FAILED = {"en": "The unit tests failed: {summary}", "zh": "单元测试未通过：{summary}"}

#: What `lenient_critic` appends to the critic's (or the reviewer's) prompt, after the template, so an
#: edited template gets it too.
LENIENT = {
    "en": "\n\nBe lenient. Answer PASS unless the draft has a factual error or does not do the task; never "
    "ask for polish, style or extra detail.",
    "zh": "\n\n请宽松评审：除非草稿有事实错误或没有完成任务，否则一律回答 PASS；不要为润色、文风或补充细节要求修改。",
}


def resolve_criteria(criteria: str, lang: str) -> str:
    """The criteria text a run uses: "default" stands for DEFAULT_CRITERIA in the run's language."""
    text = (criteria or "").strip()
    return DEFAULT_CRITERIA["zh" if lang == "zh" else "en"] if text == "default" else text


def section(name: str, body: str, lang: str) -> str:
    """An optional prompt section with its heading, or "" when there is nothing to say."""
    if not body.strip():
        return ""
    return f"\n## {_SECTIONS[name]['zh' if lang == 'zh' else 'en']}\n{body.strip()}\n"


PROMPTS = (
    spec(
        "initial",
        "actor",
        Text(
            "First draft of a free-text task (execution phase). As in seed 05 it sees only "
            "the task; add {criteria} to show the writer the quality criteria too.",
            "自由文本任务的初稿（执行阶段）。与种子文章 05 一样，它只看到任务；加入 {criteria} 可让写作者也看到质量标准。",
        ),
        """
Complete the task below. Write a complete first version: it will be reviewed and you will be able
to revise it.

## Task
{task}

Output only the result itself, with no preamble and no comments about it.
""",
        """
请完成下面的任务，写出一份完整的初稿：它会被评审，之后你还有机会修改。

## 任务
{task}

只输出结果本身，不要写开场白，也不要对结果做任何评论。
""",
        required=["task"],
        optional=["criteria"],
    ),
    spec(
        "initial_code",
        "actor",
        Text(
            "First draft of a code task (seed 04's execution prompt); {criteria} may be added.",
            "代码任务的初稿（种子文章 04 的执行提示词）；可以加入 {criteria}。",
        ),
        """
You are a senior Python programmer. Write Python code for the requirement below. Your code must have
a complete function signature and a docstring, and follow PEP 8.

Requirement: {task}

Output only the code, with no explanation.
""",
        """
你是一位资深的 Python 程序员。请根据以下要求编写 Python 代码。
你的代码必须包含完整的函数签名和文档字符串，并遵循 PEP 8 编码规范。

要求：{task}

请直接输出代码，不要包含任何额外的解释。
""",
        required=["task"],
        optional=["criteria"],
    ),
    spec(
        "critic",
        "critic",
        Text(
            "Reviews the latest draft and returns a PASS/REVISE verdict (reflection phase).",
            "审阅最新草稿，返回 PASS/REVISE 结论（反思阶段）。",
        ),
        """
You are an exacting reviewer. Review the DRAFT below against the task and find what most needs to
change.

- For code, act as a strict code reviewer and senior algorithm engineer: check that the code is
  correct, then find its main algorithmic bottleneck. State its time complexity and, if a clearly
  better algorithm exists, name it and say how to apply it (for example, a sieve instead of trial
  division).
- For text, look for factual errors, gaps in the logic, missing points, and any quality criterion the
  draft does not meet; name every unmet criterion by its number.
- Failing unit tests always mean REVISE.

## Task
{task}

## Draft
{draft}
{criteria}{tests}{trajectory}
Reply with exactly one JSON object and nothing else:
{{"verdict": "PASS" or "REVISE",
 "analysis": "what you found, e.g. the time complexity or which criteria are met",
 "feedback": "for REVISE: concrete, actionable changes; for PASS: why it is good enough"}}

Answer PASS only when nothing important needs improving, and then say "no improvement needed" in the
feedback.
""",
        """
你是一位极其严格的评审专家。请对照任务审查下面的【草稿】，找出最需要修改的地方。

- 如果是代码：请以严格的代码评审专家和资深算法工程师的身份，先检查代码是否正确，再找出它在算法效率上的主要瓶颈。
  请写明其时间复杂度；如果存在算法上明显更优的方案，请指出并说明如何实现（例如，用筛法替代试除法）。
- 如果是文本：请查找事实错误、逻辑漏洞、遗漏的信息，以及草稿未满足的质量标准，并逐条写明未满足标准的编号。
- 单元测试未通过时，结论必须是 REVISE。

## 任务
{task}

## 草稿
{draft}
{criteria}{tests}{trajectory}
你必须且只能输出一个 JSON 对象：
{{"verdict": "PASS" 或 "REVISE",
 "analysis": "你的分析，如时间复杂度、各项标准是否满足",
 "feedback": "REVISE 时给出具体、可执行的修改建议；PASS 时说明为何已足够好"}}

只有在没有任何重要的改进空间时才能给出 PASS，并在 feedback 中写明“无需改进”。
""",
        required=["task", "draft"],
        optional=["criteria", "tests", "trajectory"],
    ),
    spec(
        "refiner",
        "refiner",
        Text(
            "Writes the next draft from the last one and the feedback (refinement phase).",
            "根据上一版草稿和反馈写出下一版（优化阶段）。",
        ),
        """
You are revising your own work using a reviewer's feedback.

## Task
{task}

## Your previous version
{draft}

## Reviewer's feedback
{feedback}
{criteria}{trajectory}
Write a new, complete version that addresses every point of the feedback.
- For code: output only the code, with a complete function signature and a docstring, following
  PEP 8, and no explanation.
- For text: output only the revised text.
""",
        """
你正在根据一位评审专家的反馈修改自己的作品。

## 任务
{task}

## 你上一轮的版本
{draft}

## 评审员的反馈
{feedback}
{criteria}{trajectory}
请写出一个完整的新版本，逐条落实反馈意见。
- 如果是代码：只输出代码，包含完整的函数签名和文档字符串，遵循 PEP 8，不要任何额外解释。
- 如果是文本：只输出修改后的文本。
""",
        required=["task", "draft", "feedback"],
        optional=["criteria", "trajectory"],
    ),
    spec(
        "generator",
        "actor",
        Text(
            "Graph style (seed 02): system prompt of the generator node.",
            "图式风格（种子文章 02）：生成器节点的系统提示词。",
        ),
        """
You are a senior software engineer who writes high-quality, maintainable code. Write clear code that
meets the user's request. When you receive code review comments, improve your latest version based
on them and return the complete new version. Pay attention to readability, performance, security and
error handling. Return only the code and any necessary comments. If the request is not for code, give
your text the same care and return only the text.
{criteria}""",
        """
你是一位资深的软件工程师，专注于编写高质量、可维护的代码。请根据需求生成清晰、规范的代码。
如果收到代码审查意见，请基于建议改进你的最新版本，并返回完整的新版本。
关注代码的可读性、性能、安全性和错误处理。只返回代码和必要的注释。
如果需求不是代码，请以同样的标准对待文字，只返回正文。
{criteria}""",
        optional=["criteria"],
    ),
    spec(
        "reviewer",
        "critic",
        Text(
            "Graph style (seed 02): system prompt of the reviewer node.",
            "图式风格（种子文章 02）：评审节点的系统提示词。",
        ),
        """
You are a senior code reviewer. Review the latest version in this conversation against the user's
request, looking at:
- readability and naming
- performance and algorithmic efficiency
- security and error handling (invalid input, edge cases)
- design and best practices (type hints, docstrings, structure)
{criteria}
Give concrete, numbered review points: each says what to change and why, with a short example input
when it helps. Do not rewrite the code yourself. If nothing important is left to improve, reply only
"no improvement needed" and a one-line reason.
""",
        """
你是一位资深的代码审查专家，负责评估代码质量。请对照用户的需求审查对话中的最新版本，从以下方面进行评估：
- 代码可读性和命名规范
- 性能优化和算法效率
- 安全性和错误处理（非法输入、边界情况）
- 设计模式和最佳实践（类型注解、文档字符串、结构）
{criteria}
请给出具体的、编号的改进建议：每条说明改什么、为什么，必要时附一个示例输入。不要自己重写代码。
如果已没有重要的改进空间，只回复“无需改进”并用一句话说明理由。
""",
        optional=["criteria"],
    ),
)
