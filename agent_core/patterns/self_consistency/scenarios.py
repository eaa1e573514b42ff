"""Self-consistency's scenarios: word problems on the seeds' shop and parcels (seed 03), where one
chain of thought slips. In the first the vote overturns the slip; in the second every sample differs,
the tie rule would keep the slip, and the arbiter reads the reasoning and chooses the right answer.
The order's script plays the single-call baseline too (its one call is the chain that slips), so
Compare can put one call beside the vote on it."""

from __future__ import annotations

from ..direct import SPEC as BASELINE
from ..spec import Scenario, Text

SCENARIOS = (
    Scenario(
        "order-total-vote",
        "self-consistency",
        "03",
        Text("Order total (three samples vote)", "订单总额（三次采样投票）"),
        Text(
            "An order has 3 AirX WatchFit straps at 129 yuan each and one charger at 59 yuan. A 50-yuan coupon "
            "applies, and shipping costs 12 yuan. How much does the customer pay, in yuan?",
            "一个订单包含 3 条 AirX WatchFit 表带，每条 129 元，以及 1 个 59 元的充电器。使用一张 50 元优惠券，"
            "运费 12 元。顾客一共要付多少元？",
        ),
        (),
        {"num_samples": 3},
        Text(
            "Sample 1 slips (3 × 129 = 377) and ends at 398; samples 2 and 3 agree on 408. The vote (2 of 3) "
            "overturns the slip; one call alone would have answered 398.",
            "第 1 次采样算错（3 × 129 = 377），得出 398；第 2、3 次采样都得到 408。投票（3 票中 2 票）推翻了这次失误；"
            "只调用一次的话答案就是 398。",
        ),
        also=(BASELINE.name,),
    ),
    Scenario(
        "parcel-time-arbiter",
        "self-consistency",
        "03",
        Text("Parcel time (no majority: the arbiter decides)", "包裹在途时间（无多数，仲裁者定）"),
        Text(
            "A parcel left the Shenzhen hub at 09:40 and reached the Guangzhou hub at 13:15 the same day. How "
            "many minutes was it on the road?",
            "一个包裹 09:40 离开深圳分拨中心，当天 13:15 到达广州分拨中心。它在路上走了多少分钟？",
        ),
        (),
        {"num_samples": 3, "use_arbiter": True},
        Text(
            "Three samples, three answers (225, 215, 205): no majority, and the tie rule would keep sample 1's "
            "225. The arbiter checks each chain, finds the clock read as decimals, and chooses 215 (REVISE).",
            "三次采样得到三个答案（225、215、205）：没有多数，按平局规则会保留第 1 次的 225。仲裁者逐条检查推理，"
            "发现把时刻当成了小数，于是改选 215（REVISE）。",
        ),
    ),
)
