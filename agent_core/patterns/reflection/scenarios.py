"""Reflection's scenarios: primes up to n (seed 04), the code generator and reviewer (seed 02) and the
report against quality criteria (seed 05); the code tasks carry their unit tests."""

from __future__ import annotations

from ..spec import Scenario, Text

#: Unit tests of the code scenarios, for the optional test evaluator (every scripted draft passes).
PRIMES_TESTS = """
assert find_primes(1) == []
assert find_primes(2) == [2]
assert find_primes(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
assert len(find_primes(1000)) == 168
""".lstrip()

PARSE_KV_TESTS = """
assert parse_kv("key=value; key2=value2") == {"key": "value", "key2": "value2"}
assert parse_kv("a=1") == {"a": "1"}
assert parse_kv("name=Ada; lang=Python") == {"name": "Ada", "lang": "Python"}
""".lstrip()


SCENARIOS = (
    Scenario(
        "primes",
        "reflection",
        "04",
        Text("Primes up to n (draft → critique → refine)", "1 到 n 的素数（初稿 → 评审 → 优化）"),
        Text(
            "Write a Python function find_primes(n) that returns all prime numbers from 1 to n.",
            "编写一个 Python 函数 find_primes(n)，找出 1 到 n 之间所有的素数。",
        ),
        (),
        {"max_iterations": 2, "code_task": True, "tests": PRIMES_TESTS},
        Text(
            "Trial division draft; the critic suggests a sieve; sieve draft; 'no improvement needed'.",
            "试除法初稿；评审建议筛法；筛法修订稿；“无需改进”。",
        ),
    ),
    Scenario(
        "code-review",
        "reflection",
        "02",
        Text("Code generator and reviewer (graph-style)", "代码生成与代码审查（图式反思）"),
        Text(
            "Write a Python function parse_kv(line) that parses 'key=value; key2=value2' into a dict.",
            "编写一个 Python 函数 parse_kv(line)，把 'key=value; key2=value2' 解析成字典。",
        ),
        (),
        {"max_iterations": 3, "graph_style": True, "code_task": True, "tests": PARSE_KV_TESTS},
        Text(
            "A generator and a reviewer alternate up to 3 rounds with concrete review points; the last draft wins.",
            "生成节点与审查节点交替最多 3 轮，给出具体审查意见；以最后一版为准。",
        ),
    ),
    Scenario(
        "report-criteria",
        "reflection",
        "05",
        Text("Report against quality criteria", "按质量标准撰写报告"),
        Text(
            "Write a short report for the team on why our checkout page's conversion rate fell last month.",
            "为团队写一份简短报告，分析上个月结算页转化率下降的原因。",
        ),
        (),
        {"max_iterations": 3, "criteria": "default"},
        Text(
            "The critic checks explicit criteria; the report is revised until every criterion is met.",
            "评审按明确的质量标准检查；报告反复修订直到全部达标。",
        ),
    ),
)
