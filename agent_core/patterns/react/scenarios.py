"""ReAct's scenarios: the weather report with its reflection advisor (seed 01), and the dentist
booking in the text protocol (seed 05)."""

from __future__ import annotations

from ..spec import Scenario, Text

SCENARIOS = (
    Scenario(
        "weather-report",
        "react",
        "01",
        Text("Weather report (ReAct + reflection advisor)", "天气分析报告（ReAct + 反思顾问）"),
        Text(
            "Using Beijing's weather today, its 7-day trend, Shanghai's weather today, and a search for "
            "Beijing's weather warnings, write a combined analysis report of at least 200 words.",
            "请你根据北京今天的天气、未来七天的天气趋势、以及上海今天的天气，并搜索北京天气的预警情况，"
            "生成一份不少于 200 字的综合分析报告。",
        ),
        ("weather", "search"),
        {"max_reflection_rounds": 2},
        Text(
            "The judge finds the warning data incomplete twice; the agent searches again; at the cap the "
            "answer is returned anyway.",
            "评审两次判定预警信息不完整；智能体再次搜索；达到反思上限后仍输出答案。",
        ),
    ),
    Scenario(
        "dentist-booking",
        "react",
        "05",
        Text("Dentist booking (ReAct, text protocol)", "预约牙医（ReAct，文本协议）"),
        Text(
            "Book a dentist for next Tuesday at 2 pm and add the appointment to my calendar.",
            "预约下周二下午2点的牙医，并在我的日历上加上这条记录。",
        ),
        ("find_dentist", "book_appointment", "add_calendar_event"),
        {"text_protocol": True},
        Text(
            "Thought / Action / Action Input / Observation lines parsed from plain text.",
            "从纯文本中解析 Thought / Action / Action Input / Observation。",
        ),
    ),
)
