"""Orchestrator–workers' scenario: three errands for one Tuesday in Shanghai, split into three subtasks;
the booking worker's tool call fails, and the orchestrator re-dispatches it with a sharper instruction."""

from __future__ import annotations

from ..spec import Scenario, Text

SCENARIOS = (
    Scenario(
        "tuesday-errands",
        "orchestrator",
        "05",
        Text("Tuesday errands (a failed booking re-dispatched)", "周二三件事（重新分派失败的预约）"),
        Text(
            "It's Tuesday and I'm in Shanghai. Book me a dentist for this afternoon, tell me whether I need an "
            "umbrella today, and check whether my order 10001 has arrived.",
            "今天是周二，我在上海。帮我约今天下午的牙医，告诉我今天出门要不要带伞，再查一下我的订单 10001 到了没有。",
        ),
        ("weather", "find_dentist", "book_appointment", "query_order"),
        {},
        Text(
            "Three workers, one per errand. The booking worker asks for a slot the dentist does not have, the "
            "tool returns an error and its calls run out: it reports the failure. The orchestrator's review "
            "says REDISPATCH with the exact slot; the second attempt books it, the next review says DONE, and "
            "the reply cites all three.",
            "三个工作者，每件事一个。负责预约的工作者要了一个牙医没有的时段，工具返回错误，调用次数也用完了："
            "它如实报告失败。编排者复核后判 REDISPATCH，并给出确切的时段；第二次尝试预约成功，下一次复核判 DONE，"
            "最终回复覆盖了全部三件事。",
        ),
    ),
)
