"""Offline scripts for self-consistency: the two word problems (one chain of thought slips; the vote,
or the arbiter, gets it right) and free-text tasks.

A sample's reply depends on its number (the call context's `attempt`), so every run replays alike and
a fork at any sample reproduces the rest. On the order, the single-call baseline's one call is
sample 1's chain, the one that slips. With more samples than the scenario's three, the right answer
keeps coming, as a model that is more often right than wrong would give it. The arbiter reads the
distinct answers from its call context (`choices`: letter -> answer) and picks the right one.
"""

from __future__ import annotations

import json

from ...offline.script import Call, Reply, script
from ...offline.scripts.generic import label, role, topic
from ..direct import SPEC as BASELINE

#: the order (seed 03's AirX WatchFit): sample 1 multiplies wrong, the others agree on 408
ORDER_SAMPLES = (
    (
        "The straps cost 3 × 129 = 377 yuan. With the charger: 377 + 59 = 436 yuan. After the coupon: 436 - 50 = "
        "386 yuan. Adding shipping: 386 + 12 = 398 yuan.\nAnswer: 398",
        "3 条表带：3 × 129 = 377 元。加上充电器：377 + 59 = 436 元。减去优惠券：436 - 50 = 386 元。"
        "再加运费：386 + 12 = 398 元。\n答案：398",
    ),
    (
        "Straps: 129 × 3 = 387 yuan. Goods in all: 387 + 59 = 446 yuan. The coupon takes off 50: 396 yuan. "
        "Shipping adds 12: 408 yuan.\nAnswer: 408",
        "表带：129 × 3 = 387 元。商品合计：387 + 59 = 446 元。优惠券减 50 元：396 元。运费加 12 元：408 元。\n答案：408",
    ),
    (
        "First the goods: 3 × 129 + 59 = 387 + 59 = 446 yuan. Then the coupon and the shipping: 446 - 50 + 12 = "
        "408 yuan.\nAnswer: 408",
        "先算商品：3 × 129 + 59 = 387 + 59 = 446 元。再算优惠券和运费：446 - 50 + 12 = 408 元。\n答案：408",
    ),
)
ORDER_RIGHT = "408"

#: the parcel (seed 03's hubs): three chains, three answers; only sample 2 reads the clock right
PARCEL_SAMPLES = (
    (
        "13:15 - 09:40: reading the times as 13.15 and 9.40 gives 3.75 hours, and 3.75 × 60 = 225 minutes."
        "\nAnswer: 225",
        "13:15 - 09:40：把时刻看成 13.15 和 9.40，相差 3.75 小时，3.75 × 60 = 225 分钟。\n答案：225",
    ),
    (
        "From 09:40 to 10:00 is 20 minutes; from 10:00 to 13:15 is 3 hours 15 minutes, 195 minutes. "
        "20 + 195 = 215 minutes.\nAnswer: 215",
        "09:40 到 10:00 是 20 分钟；10:00 到 13:15 是 3 小时 15 分钟，即 195 分钟。20 + 195 = 215 分钟。\n答案：215",
    ),
    (
        "From 09:40 to 10:00 is 10 minutes; from 10:00 to 13:15 is 195 minutes. 10 + 195 = 205 minutes.\nAnswer: 205",
        "09:40 到 10:00 是 10 分钟；10:00 到 13:15 是 195 分钟。10 + 195 = 205 分钟。\n答案：205",
    ),
    (
        "From 09:40 to 13:40 would be 4 hours, 240 minutes; 13:15 is 25 minutes earlier, so 240 - 25 = 215 "
        "minutes.\nAnswer: 215",
        "09:40 到 13:40 是 4 小时，即 240 分钟；13:15 比它早 25 分钟，所以 240 - 25 = 215 分钟。\n答案：215",
    ),
)
PARCEL_RIGHT = "215"

_WHY = {
    ORDER_RIGHT: (
        "3 × 129 is 387, not 377: the chains that reach 408 multiply and add correctly.",
        "3 × 129 等于 387，不是 377：得到 408 的推理乘法和加法都正确。",
    ),
    PARCEL_RIGHT: (
        "A clock has 60 minutes to the hour, so 13:15 - 09:40 cannot be worked as decimals (225); "
        "09:40 to 10:00 is 20 minutes, not 10 (205). 20 + 195 = 215 is right.",
        "一小时是 60 分钟，13:15 - 09:40 不能按小数计算（225）；09:40 到 10:00 是 20 分钟而不是 10 分钟（205）。"
        "20 + 195 = 215 才是对的。",
    ),
}


def _sample(call: Call, samples: tuple[tuple[str, str], ...], again: tuple[int, ...]) -> Reply:
    """Sample n's reply: the scenario's three, then the right ones (`again`, by index) in turn."""
    n = call.ctx.attempt or 1
    index = n - 1 if n <= 3 else again[(n - 4) % len(again)]
    return Reply(call.t(*samples[index]))


def _arbiter(call: Call, right: str) -> Reply:
    """The scripted arbiter: the letter whose answer is right; PASS when that is the vote's pick."""
    choices = json.loads(call.input("choices") or "{}")
    pick = call.input("pick")
    letter = next((k for k, v in choices.items() if v == right), pick)
    verdict = "PASS" if letter == pick else "REVISE"
    return Reply(
        json.dumps({"verdict": verdict, "choice": letter, "feedback": call.t(*_WHY[right])}, ensure_ascii=False)
    )


@script("order-total-vote")
def order_total(call: Call) -> Reply | None:
    if call.ctx.pattern == BASELINE.name:  # one call alone: the first draw, the chain that slips
        return Reply(call.t(*ORDER_SAMPLES[0]))
    if call.role == "sampler":
        return _sample(call, ORDER_SAMPLES, (1, 2))
    if call.role == "arbiter":
        return _arbiter(call, ORDER_RIGHT)
    return None


@script("parcel-time-arbiter")
def parcel_time(call: Call) -> Reply | None:
    if call.role == "sampler":
        return _sample(call, PARCEL_SAMPLES, (3, 1))
    if call.role == "arbiter":
        return _arbiter(call, PARCEL_RIGHT)
    return None


@role("self-consistency", "sampler")
def generic_sampler(call: Call) -> Reply:
    n = call.ctx.attempt or 1
    return Reply(
        call.t(
            f"{label(call)} Sample {n}: a real model would reason about “{topic(call)}” here, "
            "on its own, and end with its final answer. Connect a model in the sidebar to see the "
            "samples differ.\nAnswer: scripted placeholder",
            f"{label(call)} 第 {n} 次采样：真实模型会在这里独立思考“{topic(call)}”，并在最后写出最终答案。"
            "请在侧边栏连接真实模型，看看各次采样有何不同。\n答案：脚本占位",
        )
    )


@role("self-consistency", "arbiter")
def generic_arbiter(call: Call) -> Reply:
    return Reply(
        json.dumps(
            {
                "verdict": "PASS",
                "choice": call.input("pick"),
                "feedback": call.t(f"{label(call)} The vote's pick stands.", f"{label(call)} 维持投票结果。"),
            },
            ensure_ascii=False,
        )
    )
