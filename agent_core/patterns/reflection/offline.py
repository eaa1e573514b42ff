"""Offline scripts for Reflection: seed 04's primes, seed 02's code review, seed 05's report against
quality criteria, and free-text tasks.

Every script reads the `version` hint — the draft a call writes (actor, refiner) or judges (critic) —
so a run plays the same way in the classic loop and in graph style, and stays sensible when the user
changes `max_iterations`. Graph-style calls also carry `node` ("generator" or "reviewer"). A critic
whose call carries the input `stance = "lenient"` (the `lenient_critic` switch) passes what the
exacting default critic sends back for polish or detail: it still sends back a draft that is wrong or
does not do the task, so Compare's "strict vs lenient critic" lanes end differently. Every
code draft is real Python that passes the scenario's unit tests (scenarios.PRIMES_TESTS,
scenarios.PARSE_KV_TESTS).
"""

from __future__ import annotations

import json

from ...offline.script import Call, Reply, script
from ...offline.scripts.generic import label, role, topic


def _version(call: Call) -> int:
    return call.ctx.version or 0


def _lenient(call: Call) -> bool:
    """Whether the critic was asked to be lenient (the call's context, never the prompt's words)."""
    return call.input("stance") == "lenient"


def _fenced(code: str) -> Reply:
    """Code the way chat models usually send it: in a fence, which the pattern strips."""
    return Reply(f"```python\n{code.strip()}\n```")


def _verdict(call: Call, verdict: str, analysis: tuple[str, str], feedback: tuple[str, str]) -> Reply:
    return Reply(
        json.dumps(
            {"verdict": verdict, "analysis": call.t(*analysis), "feedback": call.t(*feedback)}, ensure_ascii=False
        )
    )


# --- seed 04: primes, trial division -> sieve -----------------------------------------------------

_TRIAL_DIVISION = '''
def find_primes(n):
    """Return all prime numbers from 1 to n, testing each number by trial division.

    Args:
        n: the upper bound (inclusive).

    Returns:
        A list of the primes up to n, in ascending order.
    """
    primes = []
    for num in range(2, n + 1):
        is_prime = True
        for divisor in range(2, int(num ** 0.5) + 1):
            if num % divisor == 0:
                is_prime = False
                break
        if is_prime:
            primes.append(num)
    return primes
'''

_SIEVE = '''
def find_primes(n):
    """Return all prime numbers from 1 to n using the Sieve of Eratosthenes.

    Runs in O(n log log n) time and O(n) space.

    Args:
        n: the upper bound (inclusive).

    Returns:
        A list of the primes up to n, in ascending order; empty when n < 2.
    """
    if n < 2:
        return []

    is_prime = [True] * (n + 1)
    is_prime[0] = is_prime[1] = False

    p = 2
    while p * p <= n:
        if is_prime[p]:
            for multiple in range(p * p, n + 1, p):
                is_prime[multiple] = False
        p += 1

    return [num for num in range(2, n + 1) if is_prime[num]]
'''


#: Seed 04's two drafts: trial division, then the sieve the critic asks for.
PRIMES_DRAFTS = (_TRIAL_DIVISION, _SIEVE)


@script("primes")
def primes(call: Call) -> Reply | None:
    version = _version(call)
    if call.role in ("actor", "refiner"):
        return _fenced(PRIMES_DRAFTS[min(version, 1)])
    if call.role != "critic":
        return None
    if version == 0 and _lenient(call):
        return _verdict(
            call,
            "PASS",
            (
                "The code is correct: trial division up to √n finds every prime up to n, and the function has a "
                "signature and a docstring. It is O(n·√n), which is fine for the sizes the task implies.",
                "代码功能正确：试除到 √n 能找出 n 以内的所有素数，函数也有签名和文档字符串。时间复杂度为 O(n·√n)，"
                "对任务所暗示的规模已经够用。",
            ),
            (
                "No improvement needed: the code does the task. A faster algorithm would be an optimisation, not a fix.",
                "无需改进：代码完成了任务。换用更快的算法属于优化，而不是修正。",
            ),
        )
    if version == 0:
        return _verdict(
            call,
            "REVISE",
            (
                "The code is correct, but its time complexity is O(n·√n): every number up to n is tested by trial "
                "division, and the same small divisors are tried again and again. Acceptable for small n, it slows "
                "down markedly as n grows.",
                "代码功能正确，但时间复杂度为 O(n·√n)：对 1 到 n 的每个数都做试除，同样的小因子被反复尝试。"
                "n 较小时尚可接受，n 很大时性能会显著下降。",
            ),
            (
                "Use the Sieve of Eratosthenes: keep a list of n + 1 booleans and, for each prime p with p·p ≤ n, "
                "cross out its multiples starting at p·p. That is O(n log log n) time and O(n) space. Keep the "
                "signature and return [] when n < 2.",
                "建议使用埃拉托斯特尼筛法（Sieve of Eratosthenes）：用长度为 n+1 的布尔列表，对每个满足 p·p ≤ n 的素数 p，"
                "从 p·p 起划掉它的倍数。时间复杂度 O(n log log n)，空间复杂度 O(n)。保持函数签名不变，n < 2 时返回空列表。",
            ),
        )
    return _verdict(
        call,
        "PASS",
        (
            "The code uses the Sieve of Eratosthenes: O(n log log n) time and O(n) space, which is already very "
            "efficient. A segmented sieve would cut memory for very large n and an odd-only sieve would halve the "
            "work, but those are advanced directions.",
            "代码使用了埃拉托斯特尼筛法，时间复杂度 O(n log log n)，空间复杂度 O(n)，已经非常高效。"
            "分段筛法可以降低超大 n 时的内存占用，奇数筛法可以将计算量减半，但这些属于更高级的优化方向。",
        ),
        ("For general use, no improvement needed.", "一般场景下无需改进。"),
    )


# --- seed 02: parse_kv, a generator and a reviewer ------------------------------------------------

#: parse_kv as the generator writes it, version by version (seed 02's review rounds).
PARSE_KV_DRAFTS = (
    """
def parse_kv(line):
    result = {}
    for pair in line.split("; "):
        key, value = pair.split("=")
        result[key] = value
    return result
""",
    '''
def parse_kv(line: str) -> dict[str, str]:
    """Parse 'key=value; key2=value2' into a dict of strings.

    >>> parse_kv("key=value; key2=value2")
    {'key': 'value', 'key2': 'value2'}
    """
    result = {}
    for segment in line.split(";"):
        segment = segment.strip()
        if not segment:
            continue
        key, _, value = segment.partition("=")
        result[key.strip()] = value.strip()
    return result
''',
    '''
def parse_kv(line: str) -> dict[str, str]:
    """Parse a 'key=value; key2=value2' string into a dict.

    Whitespace around keys, values and separators is ignored, and empty segments
    (such as a trailing ';') are skipped. Values may themselves contain '='.

    >>> parse_kv("key=value; key2=value2")
    {'key': 'value', 'key2': 'value2'}

    Raises:
        ValueError: if a segment has no '=', has an empty key, or repeats a key.
    """
    result: dict[str, str] = {}
    for position, segment in enumerate(line.split(";"), start=1):
        segment = segment.strip()
        if not segment:
            continue
        key, separator, value = segment.partition("=")
        key = key.strip()
        if not separator or not key:
            raise ValueError(f"segment {position} is not 'key=value': {segment!r}")
        if key in result:
            raise ValueError(f"duplicate key {key!r} in segment {position}")
        result[key] = value.strip()
    return result
''',
    '''
PAIR_SEPARATOR = ";"
KEY_VALUE_SEPARATOR = "="


def parse_kv(line: str) -> dict[str, str]:
    """Parse a 'key=value; key2=value2' string into a dict.

    Whitespace around keys, values and separators is ignored, and empty segments
    (such as a trailing ';') are skipped. Values may themselves contain '='.

    >>> parse_kv("key=value; key2=value2")
    {'key': 'value', 'key2': 'value2'}

    Raises:
        TypeError: if line is not a string.
        ValueError: if a segment has no '=', has an empty key, or repeats a key.
    """
    if not isinstance(line, str):
        raise TypeError(f"parse_kv expects a str, got {type(line).__name__}")
    result: dict[str, str] = {}
    for position, segment in enumerate(line.split(PAIR_SEPARATOR), start=1):
        segment = segment.strip()
        if not segment:
            continue
        key, value = _split_pair(segment, position)
        if key in result:
            raise ValueError(f"duplicate key {key!r} in segment {position}")
        result[key] = value
    return result


def _split_pair(segment: str, position: int) -> tuple[str, str]:
    """Split one 'key=value' segment; raise ValueError when it is malformed."""
    key, separator, value = segment.partition(KEY_VALUE_SEPARATOR)
    key = key.strip()
    if not separator or not key:
        raise ValueError(f"segment {position} is not 'key=value': {segment!r}")
    return key, value.strip()
''',
)

_REVIEWS = (
    (
        """1. Separators: `line.split("; ")` only works with exactly one space after each ';'. "a=1;b=2" is not split \
at all and then crashes; "a = 1" keeps the spaces in the key and the value. Split on ';' and strip whitespace \
around keys and values.
2. Error handling: `key, value = pair.split("=")` raises an unhelpful "too many values to unpack" on values that \
contain '=' ("token=abc==") and "not enough values" on a pair without '='. Use `partition("=")`.
3. Edge cases: an empty line or a trailing ';' gives an empty segment, which crashes. Skip empty segments.
4. Readability: add type hints (`line: str` -> `dict[str, str]`) and a docstring with an example.""",
        """1. 分隔符：`line.split("; ")` 只适用于分号后恰好有一个空格的情况。"a=1;b=2" 根本不会被拆分，随后直接报错；\
"a = 1" 会把空格留在键和值里。请按 ';' 拆分，并去掉键和值两侧的空白。
2. 错误处理：`key, value = pair.split("=")` 在值里含有 '='（如 "token=abc=="）时抛出晦涩的 "too many values to unpack"，\
在缺少 '=' 时抛出 "not enough values"。请改用 `partition("=")`。
3. 边界情况：空字符串或末尾多一个 ';' 会产生空片段并导致崩溃。请跳过空片段。
4. 可读性：补充类型注解（`line: str` -> `dict[str, str]`）和带示例的文档字符串。""",
    ),
    (
        """1. Silent data loss: a segment without '=' ("a=1; oops") becomes {"oops": ""}, which hides malformed input. \
Raise a ValueError that names the segment and its position.
2. Empty keys: "=5" is accepted as the key ""; reject it the same way.
3. Duplicate keys: "a=1; a=2" silently keeps the last value. Raise a ValueError instead, so a typo in the input \
is not swallowed.
4. Documentation: describe the accepted format and the errors in the docstring (a Raises: section).""",
        """1. 静默丢数据：没有 '=' 的片段（如 "a=1; oops"）会变成 {"oops": ""}，掩盖了格式错误。\
请抛出 ValueError，并指出出错的片段及其位置。
2. 空键："=5" 会被当作键 "" 接受；请同样拒绝。
3. 重复键："a=1; a=2" 会静默保留最后一个值。请改为抛出 ValueError，避免输入中的笔误被吞掉。
4. 文档：在文档字符串中说明可接受的格式和会抛出的错误（Raises: 一节）。""",
    ),
    (
        """1. Input type: `parse_kv(None)` fails with "AttributeError: 'NoneType' object has no attribute 'split'". \
Check `isinstance(line, str)` and raise a TypeError that says what was expected.
2. Readability: the loop body mixes splitting and validating. Move the handling of one segment into a small \
helper (e.g. `_split_pair(segment, position)`) so the loop reads as a summary.
3. Magic strings: name the separators (`PAIR_SEPARATOR = ";"`, `KEY_VALUE_SEPARATOR = "="`) so they are \
documented and easy to change.""",
        """1. 输入类型：`parse_kv(None)` 会报 "AttributeError: 'NoneType' object has no attribute 'split'"。\
请检查 `isinstance(line, str)`，并抛出说明期望类型的 TypeError。
2. 可读性：循环体把拆分和校验混在一起。请把单个片段的处理提取成一个小函数（如 `_split_pair(segment, position)`），\
让循环一目了然。
3. 魔法字符串：给分隔符命名（`PAIR_SEPARATOR = ";"`、`KEY_VALUE_SEPARATOR = "="`），便于说明和修改。""",
    ),
)

_REVIEW_DONE = (
    "No improvement needed: the function validates its input, names the malformed segment in every "
    "error, and is typed and documented.",
    "无需改进：函数会校验输入，每个错误都指出了出错的片段，且有类型注解和文档。",
)


_REVIEW_LENIENT = (
    "No improvement needed: the function parses every well-formed line, with or without spaces, and "
    "values that contain '='. Stricter validation of malformed input would be extra, not a fix.",
    "无需改进：函数能正确解析所有格式正确的输入，无论有没有空格，值里含有 '=' 也没问题。"
    "对错误输入做更严格的校验属于锦上添花，而不是修正。",
)


@script("code-review")
def code_review(call: Call) -> Reply | None:
    version = _version(call)
    if call.role in ("actor", "refiner"):
        return _fenced(PARSE_KV_DRAFTS[min(version, len(PARSE_KV_DRAFTS) - 1)])
    if call.role != "critic":
        return None
    if _lenient(call) and version >= 1:  # the first version crashes on valid input; the second works
        return Reply(call.t(*_REVIEW_LENIENT))
    return Reply(call.t(*(_REVIEWS[version] if version < len(_REVIEWS) else _REVIEW_DONE)))


# --- seed 05: a report revised against quality criteria -------------------------------------------

_REPORTS = (
    (
        """Checkout conversion report

Our checkout conversion dropped last month. The main reasons seem to be the redesigned payment page, which some \
customers found confusing, and slower pages on mobile. We should look into the payment flow and speed up the site.""",
        """结算页转化率报告

上个月结算页转化率下降了。主要原因可能是改版后的支付页让部分用户感到困惑，以及移动端页面变慢。\
建议排查支付流程并提升网站速度。""",
    ),
    (
        """Checkout conversion report — last month

Metric: checkout conversion (orders ÷ checkout sessions) fell from 3.8% the month before to 3.1% last month, \
a drop of 0.7 points (−18%).

Causes:
1. Payment step redesign (released on the 4th): funnel data show drop-off at the payment step rising from 22% \
to 31%.
2. Slower mobile pages: real-user monitoring shows the median mobile checkout load time rising from 1.9 s to \
3.4 s after a new tracking script; mobile conversion fell 1.1 points, desktop only 0.2.
3. Card declines: the payment provider's log shows declines up 40% for one card issuer after a 3-D Secure \
change on the 12th.

Recommendations:
- A/B test the old one-page payment form against the redesign.
- Load the tracking script asynchronously and set a 2-second mobile load budget.
- Ask the payment provider to fix the 3-D Secure flow for the affected issuer.""",
        """结算页转化率报告（上个月）

指标：结算转化率（订单数 ÷ 结算会话数）从前一个月的 3.8% 降至上个月的 3.1%，下降 0.7 个百分点（-18%）。

原因：
1. 支付步骤改版（4 日上线）：漏斗数据显示，支付步骤的流失率从 22% 升至 31%。
2. 移动端变慢：真实用户监控显示，新增埋点脚本后，移动端结算页加载时间中位数从 1.9 秒升至 3.4 秒；\
移动端转化率下降 1.1 个百分点，桌面端仅下降 0.2。
3. 银行卡拒付：支付服务商日志显示，12 日 3-D Secure 调整后，某发卡行的拒付率上升 40%。

建议：
- 对旧版单页支付表单与新版做 A/B 测试。
- 异步加载埋点脚本，并设定移动端 2 秒的加载预算。
- 请支付服务商修复该发卡行的 3-D Secure 流程。""",
    ),
)

_OWNERS = (
    (
        (
            "- A/B test the old one-page payment form against the redesign.",
            "- A/B test the old one-page payment form against the redesign (owner: Checkout product team, results by "
            "the 15th).",
        ),
        (
            "- Load the tracking script asynchronously and set a 2-second mobile load budget.",
            "- Load the tracking script asynchronously and set a 2-second mobile load budget (owner: Web performance "
            "team).",
        ),
        (
            "- Ask the payment provider to fix the 3-D Secure flow for the affected issuer.",
            "- Ask the payment provider to fix the 3-D Secure flow for the affected issuer (owner: Payments lead).",
        ),
    ),
    (
        (
            "- 对旧版单页支付表单与新版做 A/B 测试。",
            "- 对旧版单页支付表单与新版做 A/B 测试（负责人：结算产品组，15 日前出结果）。",
        ),
        (
            "- 异步加载埋点脚本，并设定移动端 2 秒的加载预算。",
            "- 异步加载埋点脚本，并设定移动端 2 秒的加载预算（负责人：前端性能组）。",
        ),
        (
            "- 请支付服务商修复该发卡行的 3-D Secure 流程。",
            "- 请支付服务商修复该发卡行的 3-D Secure 流程（负责人：支付负责人）。",
        ),
    ),
)


def _report(call: Call, version: int) -> str:
    if version < 2:
        return call.t(*_REPORTS[version])
    text = call.t(*_REPORTS[1])
    for before, after in _OWNERS[1 if call.zh else 0]:
        text = text.replace(before, after)
    return text


@script("report-criteria")
def report_criteria(call: Call) -> Reply | None:
    version = _version(call)
    if call.role in ("actor", "refiner"):
        return Reply(_report(call, version))
    if call.role != "critic":
        return None
    if version == 0 and _lenient(call):
        return _verdict(
            call,
            "REVISE",
            (
                "The draft does not do the task yet: it gives no conversion figures and no evidence for its causes, "
                "so the team cannot tell what happened. Style and length are fine.",
                "草稿还没有完成任务：没有给出转化率数字，原因也没有证据，团队无法据此判断发生了什么。文风和篇幅没有问题。",
            ),
            (
                "Give the conversion rate for last month and the month before, and back each cause with data, an "
                "experiment or a log.",
                "写明上个月与前一个月的转化率，并为每个原因给出数据、实验或日志证据。",
            ),
        )
    if version >= 1 and _lenient(call):
        return _verdict(
            call,
            "PASS",
            (
                "The report does the task: the metric and both months' figures, three causes each with evidence, and "
                "three concrete recommendations. No recommendation has an owner yet, but that is extra detail, not an "
                "error.",
                "报告完成了任务：有指标和两个月的数字，三个原因都有证据，还有三条具体建议。建议还没有负责人，"
                "但这属于补充细节，不是错误。",
            ),
            ("No improvement needed.", "无需改进。"),
        )
    if version == 0:
        return _verdict(
            call,
            "REVISE",
            (
                "Criterion 1 not met: no conversion figures and no period to compare. Criterion 2 not met: only two "
                "causes, and neither is backed by evidence. Criterion 3 not met: the recommendations are vague and "
                "have no owners. Criterion 4 met (about 40 words).",
                "标准 1 未满足：没有转化率数字，也没有对比周期。标准 2 未满足：只有两个原因，且都没有证据。"
                "标准 3 未满足：建议笼统，没有负责人。标准 4 已满足（约 70 字）。",
            ),
            (
                "Unmet criteria: 1, 2 and 3. (1) Give the checkout conversion rate for last month and the month "
                "before. (2) Add a third cause and back each cause with data, an experiment or a log. (3) Turn the "
                "last sentence into concrete recommendations, each with an owner.",
                "未满足的标准：1、2、3。(1) 写明上个月与前一个月的结算转化率；(2) 补充第三个原因，并为每个原因给出数据、"
                "实验或日志证据；(3) 把最后一句改成具体建议，并为每条建议指定负责人。",
            ),
        )
    if version == 1:
        return _verdict(
            call,
            "REVISE",
            (
                "Criteria 1, 2 and 4 are met: the rate for both months is given, each of the three causes has "
                "evidence, and the report has about 150 words. Criterion 3 not met: no recommendation has an owner.",
                "标准 1、2、4 已满足：给出了两个月的转化率，三个原因都有证据，全文约 300 字。"
                "标准 3 未满足：所有建议都没有负责人。",
            ),
            (
                "Unmet criterion: 3. Give every recommendation an owner (a team or a person), and ideally a date, so "
                "the team knows who acts.",
                "未满足的标准：3。请为每条建议指定负责人（团队或个人），最好再给出完成时间。",
            ),
        )
    return _verdict(
        call,
        "PASS",
        (
            "All four criteria are met: 1 the metric and period, with numbers; 2 three causes, each with evidence; "
            "3 three recommendations, each with an owner; 4 about 160 words.",
            "四项标准均已满足：1 写明了指标、周期和数字；2 三个原因均有证据；3 三条建议均有负责人；4 约 350 字。",
        ),
        ("No improvement needed.", "无需改进。"),
    )


# --- free-text tasks ------------------------------------------------------------------------------


def _thin_draft(call: Call) -> str:
    return call.t(
        f"{label(call)} First draft for “{topic(call)}”.\n"
        "A real model would write its first version here. This scripted draft is deliberately thin: "
        "it states the goal, with no structure and no example, so the critic has something to ask for.",
        f"{label(call)} “{topic(call)}”的初稿。\n"
        "这里本应由真实模型写出第一版。这份脚本初稿故意写得很单薄：只说明了目标，没有结构，也没有示例，"
        "好让评审员有意见可提。",
    )


def _revised_draft(call: Call) -> str:
    return call.t(
        f"{label(call)} Revised draft for “{topic(call)}”, following the critic's feedback:\n"
        "- the key points, as a short list\n- one concrete example\n- a one-line summary at the end\n"
        "Scripted replies ignore prompt edits. Pick a built-in scenario to see a documented run, "
        "or connect a model in the sidebar.",
        f"{label(call)} 按评审意见修改后的“{topic(call)}”：\n"
        "- 用简短列表列出要点\n- 给出一个具体示例\n- 结尾用一句话总结\n"
        "脚本回复不会随提示词修改而变化。选择内置场景可观看完整的文档化运行，或在侧边栏连接真实模型。",
    )


@role("reflection", "actor")
def generic_actor(call: Call) -> Reply:
    # in graph style the generator also writes the revisions
    return Reply(_thin_draft(call) if _version(call) == 0 else _revised_draft(call))


@role("reflection", "refiner")
def generic_refiner(call: Call) -> Reply:
    return Reply(_revised_draft(call))


_GENERIC_FEEDBACK = (
    "Give the draft a clear structure (the key points as a list), add one concrete example, and "
    "end with a one-line summary.",
    "请给草稿加上清晰的结构（用列表列出要点），补充一个具体示例，并在结尾用一句话总结。",
)


@role("reflection", "critic")
def generic_critic(call: Call) -> Reply:
    first = _version(call) == 0
    if first and _lenient(call):  # a lenient critic does not ask for structure or an example
        return _lenient_pass(call)
    if call.ctx.node == "reviewer":  # graph style: free-text review points, as in seed 02
        return Reply(
            call.t(f"1. {_GENERIC_FEEDBACK[0]}", f"1. {_GENERIC_FEEDBACK[1]}")
            if first
            else call.t(
                "No improvement needed: the revision addresses every review point.",
                "无需改进：修改稿已落实所有审查意见。",
            )
        )
    if first:
        return _verdict(
            call,
            "REVISE",
            (
                "The draft states the goal but has no structure and no example.",
                "草稿只说明了目标，没有结构，也没有示例。",
            ),
            _GENERIC_FEEDBACK,
        )
    return _verdict(
        call,
        "PASS",
        ("The revision addresses every point of the feedback.", "修改稿落实了所有反馈意见。"),
        ("No improvement needed.", "无需改进。"),
    )


def _lenient_pass(call: Call) -> Reply:
    analysis = (
        "The draft states the goal and contains no error; structure and an example would be polish.",
        "草稿说明了目标，也没有错误；结构和示例属于润色。",
    )
    if call.ctx.node == "reviewer":
        return Reply(
            call.t(f"No improvement needed: {analysis[0][0].lower()}{analysis[0][1:]}", f"无需改进：{analysis[1]}")
        )
    return _verdict(call, "PASS", analysis, ("No improvement needed.", "无需改进。"))
