"""Offline scripts for the bundled eval tasks (agent_core/data/eval_tasks.jsonl), for every pattern.

The scripted model writes each task the way a capable but hasty model might: right the first time on
four tasks, with a plausible bug in three — fizzbuzz stops at n - 1, running_max reads numbers[0] of
an empty list, primes_up_to never tests n itself. What each pattern makes of those bugs follows the
papers the Eval page cites:

- react answers in one shot, bugs and all;
- plan-execute plans an edge-case step first, which catches running_max's empty list but neither
  off-by-one;
- reflection (the critic alone, Self-Refine) catches fizzbuzz's bound by reading the docstring; on
  primes_up_to it asks for a sieve, as the critic prompt invites, and the refined sieve keeps the bound
  bug: a review finds what it looks for (Huang et al. 2024);
- reflection+tests hands the failing assertions to the refiner, which fixes all three (Reflexion).

Each run is registered as scenario "eval/<task_id>" (the harness sets it). Every reply is a pure
function of the request: the critic judges the draft and the unit-test report its call context
carries (the values its prompt was rendered from); the refiner fixes the bug when its feedback carries a test failure, and otherwise
answers what the critic asked for. All code here is real and checked by tests/test_evaluation.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from ...patterns.reflection.prompts import TESTS_FAILED
from ..script import Call, Reply, script


@dataclass(frozen=True)
class Solution:
    """How the scripted model writes one task."""

    #: the first version (react's answer, reflection's draft 0)
    draft: str
    #: the version after feedback that names the bug; "" when the draft is right
    fixed: str = ""
    #: what a reviewer who sees the failing tests says is wrong (en, zh)
    diagnosis: tuple[str, str] = ("", "")
    #: what the critic alone objects to in the draft (en, zh); None when it passes the draft
    review: tuple[str, str] | None = None
    #: what the refiner writes from that review alone; "" means `fixed`
    reviewed: str = ""
    #: plan-execute's edge-case step (en, zh)
    edge_cases: tuple[str, str] = ("", "")
    #: whether writing the function with those edge cases in view avoids the bug
    edge_case_fix: bool = False

    def latest_in(self, text: str) -> str:
        """The newest of this task's versions that appears in `text` (a run only moves forward:
        draft, then reviewed, then fixed)."""
        return next((code for code in (self.fixed, self.reviewed, self.draft) if code and code.strip() in text), "")


SOLUTIONS: dict[str, Solution] = {
    "bundled/is_palindrome": Solution(
        draft='''
def is_palindrome(text: str) -> bool:
    """Return True if text is a palindrome, ignoring case and non-alphanumerics."""
    cleaned = "".join(ch.lower() for ch in text if ch.isalnum())
    return cleaned == cleaned[::-1]
''',
        edge_cases=(
            "The empty string and single characters are palindromes; case, spaces and punctuation are "
            "ignored (\"No 'x' in Nixon\" is one).",
            "空字符串和单个字符都是回文；忽略大小写、空格和标点（\"No 'x' in Nixon\" 是回文）。",
        ),
    ),
    "bundled/fizzbuzz": Solution(
        draft='''
from typing import List


def fizzbuzz(n: int) -> List[str]:
    """Return the FizzBuzz sequence for the numbers 1 to n."""
    result = []
    for i in range(1, n):
        if i % 15 == 0:
            result.append("FizzBuzz")
        elif i % 3 == 0:
            result.append("Fizz")
        elif i % 5 == 0:
            result.append("Buzz")
        else:
            result.append(str(i))
    return result
''',
        fixed='''
from typing import List


def fizzbuzz(n: int) -> List[str]:
    """Return the FizzBuzz sequence for the numbers 1 to n inclusive."""
    result = []
    for i in range(1, n + 1):
        if i % 15 == 0:
            result.append("FizzBuzz")
        elif i % 3 == 0:
            result.append("Fizz")
        elif i % 5 == 0:
            result.append("Buzz")
        else:
            result.append(str(i))
    return result
''',
        diagnosis=(
            "range(1, n) stops at n - 1, so the last number is always missing (fizzbuzz(1) returns []). "
            "Loop over range(1, n + 1).",
            "range(1, n) 只到 n - 1，最后一个数总是缺失（fizzbuzz(1) 返回 []）。请改为遍历 range(1, n + 1)。",
        ),
        review=(
            "The docstring asks for the numbers 1 to n inclusive, but range(1, n) stops at n - 1: "
            "fizzbuzz(15) would end at 14 and never say FizzBuzz. Loop over range(1, n + 1).",
            "文档字符串要求包含 1 到 n，但 range(1, n) 只到 n - 1：fizzbuzz(15) 会停在 14，永远输出不了 FizzBuzz。"
            "请改为遍历 range(1, n + 1)。",
        ),
        edge_cases=(
            "n = 0 gives an empty list; multiples of 15 must give FizzBuzz, not Fizz.",
            "n = 0 时返回空列表；15 的倍数必须输出 FizzBuzz，而不是 Fizz。",
        ),
    ),
    "bundled/running_max": Solution(
        draft='''
from typing import List


def running_max(numbers: List[int]) -> List[int]:
    """Return the running maximum of numbers."""
    result = []
    current = numbers[0]
    for x in numbers:
        current = max(current, x)
        result.append(current)
    return result
''',
        fixed='''
from typing import List


def running_max(numbers: List[int]) -> List[int]:
    """Return the running maximum of numbers; an empty list gives an empty list."""
    if not numbers:
        return []
    result = []
    current = numbers[0]
    for x in numbers:
        current = max(current, x)
        result.append(current)
    return result
''',
        diagnosis=(
            "numbers[0] raises IndexError when the list is empty; return [] for an empty list before "
            "reading the first element.",
            "列表为空时 numbers[0] 会抛出 IndexError；请在读取第一个元素之前，对空列表直接返回 []。",
        ),
        edge_cases=(
            "An empty list must give an empty list, so do not read numbers[0] before checking; negative "
            "numbers need no special case.",
            "空列表必须返回空列表，所以检查之前不能读取 numbers[0]；负数不需要特殊处理。",
        ),
        edge_case_fix=True,
    ),
    "bundled/primes_up_to": Solution(
        draft='''
from typing import List


def primes_up_to(n: int) -> List[int]:
    """Return the primes from 2 up to n, testing each number by trial division."""
    primes = []
    for candidate in range(2, n):
        if all(candidate % d for d in range(2, int(candidate ** 0.5) + 1)):
            primes.append(candidate)
    return primes
''',
        reviewed='''
from typing import List


def primes_up_to(n: int) -> List[int]:
    """Return the primes from 2 up to n with the Sieve of Eratosthenes."""
    if n < 2:
        return []
    is_prime = [True] * n
    is_prime[0] = is_prime[1] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_prime[i]:
            for multiple in range(i * i, n, i):
                is_prime[multiple] = False
    return [i for i in range(n) if is_prime[i]]
''',
        fixed='''
from typing import List


def primes_up_to(n: int) -> List[int]:
    """Return the primes p with 2 <= p <= n, using the Sieve of Eratosthenes."""
    if n < 2:
        return []
    is_prime = [True] * (n + 1)
    is_prime[0] = is_prime[1] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_prime[i]:
            for multiple in range(i * i, n + 1, i):
                is_prime[multiple] = False
    return [i for i in range(n + 1) if is_prime[i]]
''',
        diagnosis=(
            "range(2, n) never tests n itself, so primes_up_to(2) misses 2 and primes_up_to(13) misses 13. "
            "Include n; and a Sieve of Eratosthenes over n + 1 flags would also remove the O(n·√n) trial "
            "division.",
            "range(2, n) 从不检查 n 本身，所以 primes_up_to(2) 漏掉 2，primes_up_to(13) 漏掉 13。请把 n 包含进来；"
            "改用长度为 n + 1 的埃拉托斯特尼筛法还能去掉 O(n·√n) 的试除。",
        ),
        review=(
            "Trial division makes this O(n·√n): every candidate is divided by the same small numbers again "
            "and again. Use the Sieve of Eratosthenes (O(n log log n)): a list of booleans, crossing out the "
            "multiples of each prime from its square.",
            "试除法使复杂度为 O(n·√n)：每个候选数都要被同样的小因子反复试除。请改用埃拉托斯特尼筛法"
            "（O(n log log n)）：用一个布尔列表，从每个素数的平方开始划掉它的倍数。",
        ),
        edge_cases=(
            "n < 2 gives an empty list; even numbers above 2 are never prime.",
            "n < 2 时返回空列表；大于 2 的偶数都不是素数。",
        ),
    ),
    "bundled/word_frequency": Solution(
        draft='''
import re
from collections import Counter
from typing import Dict


def word_frequency(text: str) -> Dict[str, int]:
    """Count each lower-cased word (a run of letters or digits) in text."""
    return dict(Counter(re.findall(r"[a-z0-9]+", text.lower())))
''',
        edge_cases=(
            'Empty text gives {}; punctuation separates words; "Go" and "go" are the same word.',
            '空文本返回 {}；标点分隔单词；"Go" 和 "go" 是同一个词。',
        ),
    ),
    "bundled/balanced_brackets": Solution(
        draft='''
def balanced_brackets(s: str) -> bool:
    """Return True if the brackets in s are balanced and properly nested."""
    closing = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
        elif ch in closing:
            if not stack or stack[-1] != closing[ch]:
                return False
            stack.pop()
    return not stack
''',
        edge_cases=(
            "The empty string is balanced; a closing bracket with nothing open, or brackets left open at "
            "the end, are not; other characters are ignored.",
            "空字符串是平衡的；没有对应左括号的右括号、或结尾仍未闭合的括号都不平衡；其他字符忽略。",
        ),
    ),
    "bundled/to_roman": Solution(
        draft='''
def to_roman(number: int) -> str:
    """Write a number from 1 to 3999 in Roman numerals."""
    numerals = (
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"),
        (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
        (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    )
    parts = []
    for value, symbol in numerals:
        while number >= value:
            parts.append(symbol)
            number -= value
    return "".join(parts)
''',
        edge_cases=(
            "The subtractive forms 4, 9, 40, 90, 400 and 900; 3999 (MMMCMXCIX) is the largest value.",
            "减法形式 4、9、40、90、400、900；最大值 3999 写作 MMMCMXCIX。",
        ),
    ),
}

#: How a failing test result starts when it reaches the critic's verdict and the refiner.
_FAILED_PREFIXES = tuple(text.split("{")[0] for text in TESTS_FAILED.values())
_PASSED = re.compile(r"all \d+ tests passed")


#: Players of the bundled tasks for patterns whose roles the story above does not tell: a pattern's own
#: offline module registers one (its folder keeps its story), pattern name -> (solution, call) -> reply.
PLAYERS: dict[str, Callable[[Solution, Call], Reply]] = {}


def _play(task_id: str, call: Call) -> Reply:
    solution = SOLUTIONS[task_id]
    player = PLAYERS.get(str(call.ctx.pattern))
    if player is not None:
        return player(solution, call)
    name = task_id.split("/", 1)[1]
    version = call.ctx.version or 0
    if call.role == "planner":
        return _plan(call, name)
    if call.role == "executor":
        return Reply(call.t(*solution.edge_cases))
    if call.role == "synthesizer":
        edge_cases_known = solution.edge_case_fix and any(e in call.text for e in solution.edge_cases)
        return _fenced(solution.fixed if edge_cases_known else solution.draft)
    if call.role == "critic":
        return _critique(call, solution)
    if call.role == "refiner" or (call.role == "actor" and version > 0):  # graph style: the generator revises
        return _fenced(_refine(call, solution))
    if call.role == "judge":  # ReAct's reflection advisor, if the user turns it on
        return Reply(json.dumps({"passed": True, "feedback": None}))
    if call.role == "reflector":  # Plan-and-Execute's step Reflector, if the user turns it on
        return Reply(
            json.dumps(
                {
                    "verdict": "PASS",
                    "analysis": call.t("The step did what it says.", "该步骤已完成其目标。"),
                    "suggestion": "",
                },
                ensure_ascii=False,
            )
        )
    intro = call.t("Here is the function:", "函数如下：")
    code = f"```python\n{solution.draft.strip()}\n```"
    if call.ctx.protocol == "text":
        return Reply(f"Thought: {call.t('I can write this directly.', '可以直接写出这个函数。')}\nFinal Answer: {code}")
    # a chat turn that may call tools (ReAct's native protocol) introduces its code; other calls send it bare
    return Reply(f"{intro}\n\n{code}" if call.ctx.protocol == "native" else code)


def _fenced(code: str) -> Reply:
    return Reply(f"```python\n{code.strip()}\n```")


def _plan(call: Call, name: str) -> Reply:
    steps = [
        {
            "description": call.t(
                f"List the edge cases the docstring of {name} implies.", f"列出 {name} 的文档字符串所隐含的边界情况。"
            ),
            "tool": None,
            "critical": False,
        },
        {
            "description": call.t(
                f"Write {name} in full, handling those edge cases, in one Python code block.",
                f"完整编写 {name}，处理上述边界情况，放在一个 Python 代码块中。",
            ),
            "tool": None,
            "critical": False,
        },
    ]
    return Reply(json.dumps({"steps": steps}, ensure_ascii=False))


def _critique(call: Call, solution: Solution) -> Reply:
    # the draft under review and its unit-test report, as the pattern rendered them into the prompt
    draft = solution.latest_in(call.input("draft"))
    report = call.input("tests")
    tests = report.splitlines()[0] if report else None
    if tests is not None and not _PASSED.match(tests):
        known = bool(draft) and draft != solution.fixed and bool(solution.diagnosis[0])
        return _verdict(
            call,
            "REVISE",
            (f"The unit tests fail: {tests}", f"单元测试未通过：{tests}"),
            solution.diagnosis
            if known
            else ("Make the failing assertion pass; keep the signature.", "请让失败的断言通过，保持函数签名不变。"),
        )
    if draft == solution.draft and solution.review is not None:
        return _verdict(
            call,
            "REVISE",
            (
                "Read the code against the docstring, then looked for its bottleneck.",
                "对照文档字符串阅读了代码，并查找了它的性能瓶颈。",
            ),
            solution.review,
        )
    return _verdict(
        call,
        "PASS",
        (
            "Checked the code against the docstring and its examples; the algorithm suits the task.",
            "已对照文档字符串及其示例检查代码；算法适合该任务。",
        ),
        ("No improvement needed.", "无需改进。"),
    )


def _verdict(call: Call, verdict: str, analysis: tuple[str, str], feedback: tuple[str, str]) -> Reply:
    if call.ctx.node == "reviewer":  # graph style reviews in free text, as in seed 02
        text = call.t(*feedback)
        return Reply(text if verdict == "PASS" else f"1. {text}")
    return Reply(
        json.dumps(
            {"verdict": verdict, "analysis": call.t(*analysis), "feedback": call.t(*feedback)}, ensure_ascii=False
        )
    )


def _refine(call: Call, solution: Solution) -> str:
    tests_failed = any(prefix in call.input("feedback") for prefix in _FAILED_PREFIXES)
    if solution.reviewed and not tests_failed:
        return solution.reviewed  # the critic asked for speed, and speed is what it gets
    return solution.fixed or solution.draft


for _task_id in SOLUTIONS:
    script(f"eval/{_task_id}")(partial(_play, _task_id))
