"""Plan-and-Execute's scenarios (seed 03): order 99999's syncing shell, waybill SF0000000's tool error,
the two long-haired cats, and the two-product comparison with an order lookup."""

from __future__ import annotations

from ..spec import Scenario, Text

SCENARIOS = (
    Scenario(
        "order-99999",
        "plan-execute",
        "03",
        Text("Order 99999 (Plan-and-Execute + Reflector)", "订单 99999（计划执行 + 反思器）"),
        Text("Has my order 99999 arrived yet?", "帮我查一下订单 99999 到了没"),
        ("query_order",),
        {"reflector": True},
        Text(
            "A 'syncing' shell is caught: REPLAN, then the new synthesis step is RETRIED, then PASS.",
            "“查询中”空壳被拦下：REPLAN，新的综合步骤 RETRY，然后 PASS。",
        ),
    ),
    Scenario(
        "logistics-sf0000000",
        "plan-execute",
        "03",
        Text("Waybill SF0000000 (tool error)", "运单 SF0000000（工具报错）"),
        Text("Please chase my parcel, waybill SF0000000.", "帮我催一下快递，单号 SF0000000"),
        ("query_logistics",),
        {"reflector": True},
        Text(
            "The tool returns an error object; the Reflector says REPLAN; the answer says the waybill does not exist.",
            "工具返回 error；反思器判 REPLAN；最终回复告知运单不存在。",
        ),
    ),
    Scenario(
        "vacuum-cats",
        "plan-execute",
        "03",
        Text("Two cats: R1 or R7 Pro (goal-blind executor)", "两只长毛猫选 R1 还是 R7 Pro（目标不可见的执行器）"),
        Text(
            "I have two long-haired cats. Help me choose between the R1 and R7 Pro robot vacuums.",
            "我家养了两只长毛猫，帮我在 R1 和 R7 Pro 两款扫地机里挑一个",
        ),
        ("compare_products",),
        {"reflector": True},
        Text(
            "The goal-blind executor lists every spec; the Reflector, holding the goal, asks for a RETRY "
            "centred on hair tangling.",
            "看不到目标的执行器全维度罗列；握有完整需求的反思器要求围绕缠毛问题 RETRY。",
        ),
    ),
    Scenario(
        "airx-watchfit-order",
        "plan-execute",
        "03",
        Text("AirX vs WatchFit + order 99999", "AirX 对比 WatchFit＋查订单"),
        Text(
            "Compare the AirX earbuds and the WatchFit watch for me, and check whether order 99999 has arrived.",
            "帮我对比 AirX 耳机和 WatchFit 手表，顺便查一下订单 99999 到了没",
        ),
        ("compare_products", "query_order"),
        {"reflector": True},
        Text(
            "Three steps; the order step fails; synthesis reports the failure and still answers the comparison.",
            "三步计划；查订单失败；综合回复如实说明失败，同时给出对比结论。",
        ),
    ),
)
