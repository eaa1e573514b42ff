"""The built-in scenarios, each from a seed article (or, for the baseline, a one-call question), in
English and Chinese."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Scenario:
    id: str
    pattern: str  # the pattern whose mechanism it shows (a name in patterns/registry.py)
    seed: str
    title: dict[str, str]
    task: dict[str, str]
    tools: tuple[str, ...] = ()
    #: limit/option overrides that make the scenario show its mechanism (e.g. reflection rounds)
    options: dict[str, Any] = field(default_factory=dict)
    #: what to watch for, shown in the UI
    watch: dict[str, str] = field(default_factory=dict)

    def task_text(self, lang: str) -> str:
        return self.task.get(lang) or self.task["en"]


#: Unit tests of the code scenarios, for Reflection's optional test evaluator (every scripted draft passes).
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


SCENARIOS: dict[str, Scenario] = {s.id: s for s in (
    Scenario(
        "weather-report", "react", "01",
        {"en": "Weather report (ReAct + reflection advisor)", "zh": "天气分析报告（ReAct + 反思顾问）"},
        {"en": "Using Beijing's weather today, its 7-day trend, Shanghai's weather today, and a search for "
               "Beijing's weather warnings, write a combined analysis report of at least 200 words.",
         "zh": "请你根据北京今天的天气、未来七天的天气趋势、以及上海今天的天气，并搜索北京天气的预警情况，"
               "生成一份不少于 200 字的综合分析报告。"},
        ("weather", "search"), {"max_reflection_rounds": 2},
        {"en": "The judge finds the warning data incomplete twice; the agent searches again; at the cap the "
               "answer is returned anyway.",
         "zh": "评审两次判定预警信息不完整；智能体再次搜索；达到反思上限后仍输出答案。"}),
    Scenario(
        "dentist-booking", "react", "05",
        {"en": "Dentist booking (ReAct, text protocol)", "zh": "预约牙医（ReAct，文本协议）"},
        {"en": "Book a dentist for next Tuesday at 2 pm and add the appointment to my calendar.",
         "zh": "预约下周二下午2点的牙医，并在我的日历上加上这条记录。"},
        ("find_dentist", "book_appointment", "add_calendar_event"), {"text_protocol": True},
        {"en": "Thought / Action / Action Input / Observation lines parsed from plain text.",
         "zh": "从纯文本中解析 Thought / Action / Action Input / Observation。"}),
    Scenario(
        "order-99999", "plan-execute", "03",
        {"en": "Order 99999 (Plan-and-Execute + Reflector)", "zh": "订单 99999（计划执行 + 反思器）"},
        {"en": "Has my order 99999 arrived yet?", "zh": "帮我查一下订单 99999 到了没"},
        ("query_order",), {"reflector": True},
        {"en": "A 'syncing' shell is caught: REPLAN, then the new synthesis step is RETRIED, then PASS.",
         "zh": "“查询中”空壳被拦下：REPLAN，新的综合步骤 RETRY，然后 PASS。"}),
    Scenario(
        "logistics-sf0000000", "plan-execute", "03",
        {"en": "Waybill SF0000000 (tool error)", "zh": "运单 SF0000000（工具报错）"},
        {"en": "Please chase my parcel, waybill SF0000000.", "zh": "帮我催一下快递，单号 SF0000000"},
        ("query_logistics",), {"reflector": True},
        {"en": "The tool returns an error object; the Reflector says REPLAN; the answer says the waybill does "
               "not exist.",
         "zh": "工具返回 error；反思器判 REPLAN；最终回复告知运单不存在。"}),
    Scenario(
        "vacuum-cats", "plan-execute", "03",
        {"en": "Two cats: R1 or R7 Pro (goal-blind executor)",
         "zh": "两只长毛猫选 R1 还是 R7 Pro（目标不可见的执行器）"},
        {"en": "I have two long-haired cats. Help me choose between the R1 and R7 Pro robot vacuums.",
         "zh": "我家养了两只长毛猫，帮我在 R1 和 R7 Pro 两款扫地机里挑一个"},
        ("compare_products",), {"reflector": True},
        {"en": "The goal-blind executor lists every spec; the Reflector, holding the goal, asks for a RETRY "
               "centred on hair tangling.",
         "zh": "看不到目标的执行器全维度罗列；握有完整需求的反思器要求围绕缠毛问题 RETRY。"}),
    Scenario(
        "airx-watchfit-order", "plan-execute", "03",
        {"en": "AirX vs WatchFit + order 99999", "zh": "AirX 对比 WatchFit＋查订单"},
        {"en": "Compare the AirX earbuds and the WatchFit watch for me, and check whether order 99999 has arrived.",
         "zh": "帮我对比 AirX 耳机和 WatchFit 手表，顺便查一下订单 99999 到了没"},
        ("compare_products", "query_order"), {"reflector": True},
        {"en": "Three steps; the order step fails; synthesis reports the failure and still answers the comparison.",
         "zh": "三步计划；查订单失败；综合回复如实说明失败，同时给出对比结论。"}),
    Scenario(
        "primes", "reflection", "04",
        {"en": "Primes up to n (draft → critique → refine)", "zh": "1 到 n 的素数（初稿 → 评审 → 优化）"},
        {"en": "Write a Python function find_primes(n) that returns all prime numbers from 1 to n.",
         "zh": "编写一个 Python 函数 find_primes(n)，找出 1 到 n 之间所有的素数。"},
        (), {"max_iterations": 2, "code_task": True, "tests": PRIMES_TESTS},
        {"en": "Trial division draft; the critic suggests a sieve; sieve draft; 'no improvement needed'.",
         "zh": "试除法初稿；评审建议筛法；筛法修订稿；“无需改进”。"}),
    Scenario(
        "code-review", "reflection", "02",
        {"en": "Code generator and reviewer (graph-style)", "zh": "代码生成与代码审查（图式反思）"},
        {"en": "Write a Python function parse_kv(line) that parses 'key=value; key2=value2' into a dict.",
         "zh": "编写一个 Python 函数 parse_kv(line)，把 'key=value; key2=value2' 解析成字典。"},
        (), {"max_iterations": 3, "graph_style": True, "code_task": True, "tests": PARSE_KV_TESTS},
        {"en": "A generator and a reviewer alternate up to 3 rounds with concrete review points; the last "
               "draft wins.",
         "zh": "生成节点与审查节点交替最多 3 轮，给出具体审查意见；以最后一版为准。"}),
    Scenario(
        "report-criteria", "reflection", "05",
        {"en": "Report against quality criteria", "zh": "按质量标准撰写报告"},
        {"en": "Write a short report for the team on why our checkout page's conversion rate fell last month.",
         "zh": "为团队写一份简短报告，分析上个月结算页转化率下降的原因。"},
        (), {"max_iterations": 3, "criteria": "default"},
        {"en": "The critic checks explicit criteria; the report is revised until every criterion is met.",
         "zh": "评审按明确的质量标准检查；报告反复修订直到全部达标。"}),
    Scenario(
        "umbrella-one-call", "direct", "-",
        {"en": "Umbrella today? (one call, the baseline)", "zh": "今天要带伞吗？（一次调用，基线）"},
        {"en": "Should I take an umbrella in Shanghai today?", "zh": "今天在上海出门要带伞吗？"},
        ("weather",), {},
        {"en": "One tool turn, then one call with tools off writes the answer: two calls, no loop, no critique.",
         "zh": "一轮工具调用，再用一次禁用工具的调用写出答案：共两次调用，没有循环，也没有评审。"}),
)}


def get(scenario_id: str) -> Scenario:
    try:
        return SCENARIOS[scenario_id]
    except KeyError:
        from .errors import ConfigError

        raise ConfigError(f"unknown scenario {scenario_id!r}; known: {', '.join(SCENARIOS)}") from None


def find_by_task(text: str) -> Scenario | None:
    """The scenario whose task text (in any language) is `text`, if any."""
    text = " ".join(text.split())
    for s in SCENARIOS.values():
        if any(" ".join(t.split()) == text for t in s.task.values()):
            return s
    return None
