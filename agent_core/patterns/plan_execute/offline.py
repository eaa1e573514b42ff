"""Offline scripts for Plan-and-Execute: seed 03's four Reflector runs, and free-text tasks.

The scripts read the call's role and its call context (`replan` and `revision` on planner calls;
`step_id`, `attempt`, `tool`, `synthesis`, `has_hint`, `revision` on step and Reflector calls; the
values the prompt was rendered from: the goal, the step, the step's result, the completed and failed
steps), plus the tool observations and whether a goal or a Reflector hint mentions the user's cats.
No script looks for a prompt's headings, so an edited prompt cannot break a scripted run. So a run still ends well when the user
turns the Reflector off, allows no retries or re-plans, or gives a step a single round.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ...offline.script import Call, Reply, script
from ...offline.scripts.generic import generic, label, role, shortened, topic

Role = Callable[[Call], Reply]

_CATS = re.compile(r"\bcats?\b|猫", re.IGNORECASE)
_SYNCING = re.compile(r"sync|同步|查询中", re.IGNORECASE)


def _plan(call: Call, *steps: tuple[str, str, str | None]) -> Reply:
    """A plan reply: (English description, Chinese description, tool) per step."""
    return Reply(
        json.dumps(
            {
                "steps": [
                    {"id": i, "description": call.t(en, zh), "tool": tool, "critical": False}
                    for i, (en, zh, tool) in enumerate(steps, 1)
                ]
            },
            ensure_ascii=False,
        )
    )


def _verdict(call: Call, verdict: str, analysis: tuple[str, str], suggestion: tuple[str, str] = ("", "")) -> Reply:
    return Reply(
        json.dumps(
            {"verdict": verdict, "analysis": call.t(*analysis), "suggestion": call.t(*suggestion)}, ensure_ascii=False
        )
    )


def _observed(call: Call) -> list[Any]:
    """The tool observations of this attempt, parsed when they are JSON."""
    out: list[Any] = []
    for m in call.tool_results():
        try:
            out.append(json.loads(m.content))
        except ValueError:
            out.append(m.content)
    return out


def _call_tool(call: Call, tool: str, **arguments: str) -> Reply | None:
    """Call `tool` if this round offers it and it has not been called yet in this attempt."""
    if tool in call.tool_names() and not call.tool_results():
        return Reply("", ((tool, json.dumps(arguments, ensure_ascii=False)),))
    return None


def _play(call: Call, roles: dict[str, Role]) -> Reply:
    """Dispatch a scenario call to its role; roles a scenario leaves out fall back to the generic ones."""
    name = "replanner" if call.role == "planner" and call.ctx.replan else call.role
    fn = roles.get(name) or _GENERIC.get(name) or generic
    return fn(call)


# --- order 99999: a "syncing" shell (REPLAN), an off-topic recovery step (RETRY), then PASS ----------


def _order_summary(call: Call) -> str:
    order = next((o for o in _observed(call) if isinstance(o, dict) and o.get("orderId")), None)
    if order is None:
        return call.t(
            "Order 99999 could not be looked up in this step, so its status and sign-off information "
            "are not available.",
            "本步骤未能查询订单 99999，订单状态和签收信息均不可用。",
        )
    return call.t(
        f'Order 99999: status "{order.get("status")}"; remark: "{order.get("remark")}". '
        "No delivery or sign-off information was returned.",
        f"订单 99999：状态“{order.get('status')}”，备注“{order.get('remark')}”。未返回签收信息。",
    )


def _order_executor(call: Call) -> Reply:
    if call.ctx.tool == "query_order":
        return _call_tool(call, "query_order", order_id="99999") or Reply(_order_summary(call))
    if _SYNCING.search(call.text):
        return Reply(
            call.t(
                "The order status is still being synchronised and there is no sign-off time, so "
                "whether order 99999 has arrived cannot be determined yet.",
                "订单状态仍在同步中，也没有签收时间，因此暂时无法判断订单 99999 是否已签收。",
            )
        )
    return Reply(
        call.t(
            "No order status is available, so whether order 99999 has arrived cannot be determined.",
            "没有可用的订单状态，无法判断订单 99999 是否已签收。",
        )
    )


def _order_step_verdict(call: Call) -> Reply:
    """REPLAN for a shell or missing data: the step's aim (status and sign-off) is not met."""
    if _SYNCING.search(call.input("result")):
        return _verdict(
            call,
            "REPLAN",
            (
                "The result does not give the order's status or sign-off information: the data is still being "
                "synchronised, so the step's aim cannot be met.",
                "执行结果未能获取订单状态和签收信息，数据尚在同步中，无法达成步骤目标。",
            ),
            (
                "Tell the user the order could not be confirmed and suggest trying again later or contacting "
                "customer service.",
                "告知用户订单暂时无法确认，建议稍后重试或联系客服。",
            ),
        )
    return _verdict(
        call,
        "REPLAN",
        (
            "No order information was obtained, so the step's aim cannot be met.",
            "未获取到任何订单信息，无法达成步骤目标。",
        ),
    )


def _order_reflector(call: Call) -> Reply:
    if call.ctx.synthesis:
        if "99999" in call.input("result"):
            return _verdict(
                call,
                "PASS",
                (
                    "The reply tells the user the order could not be confirmed and what to do next.",
                    "回复如实告知了订单无法确认，并给出了后续建议。",
                ),
            )
        return _verdict(
            call,
            "RETRY",
            (
                "The result does not tell the user that the order query failed or what to do; it is a generic "
                "reply unrelated to the order, far from the step's aim.",
                "执行结果未按步骤目标告知用户订单查询失败及建议，而是给出无关的通用回复，严重偏离目标。",
            ),
            (
                "Tell the user plainly that order 99999 could not be confirmed because its data is still being "
                "synchronised, and suggest trying again later or contacting customer service.",
                "明确告知用户订单 99999 因数据同步中暂时无法确认，并建议稍后重试或联系人工客服。",
            ),
        )
    if call.ctx.tool == "query_order":
        return _order_step_verdict(call)
    return _verdict(call, "PASS", ("The step's result is adequate.", "步骤结果符合要求。"))


_ORDER_ANSWER = (
    "Hello, and sorry — we could not find the information for your order 99999 just now. The system may be "
    "synchronising data, so the order status has not been updated yet. Please try again later, or contact "
    "customer service directly for further help.",
    "您好，很抱歉，关于您的订单 99999，我们暂时未能查询到相关信息。目前系统可能正在进行数据同步，"
    "导致订单状态未及时更新。建议您稍后重试，或直接联系人工客服获取进一步帮助。",
)


def _order_synthesizer(call: Call) -> Reply:
    # seed 03's run: the recovery step's first attempt, with no reflection to go on, drifts off-topic
    if (call.ctx.revision or 0) > 0 and not call.ctx.has_hint:
        return Reply(
            call.t(
                "Hello! Thank you for contacting us. We are always happy to help with questions about "
                "products, promotions, payment or after-sales service. Is there anything else I can "
                "do for you today?",
                "您好！感谢您的咨询。我们随时为您解答商品、优惠活动、支付及售后等方面的问题，请问还有什么可以帮您？",
            )
        )
    if not _SYNCING.search(call.text):
        return Reply(
            call.t(
                "Sorry, I couldn't look up order 99999 just now, so I can't tell whether it has arrived. "
                "Please try again later or contact customer service.",
                "抱歉，暂时未能查询订单 99999，无法确认是否已到。建议您稍后重试或联系人工客服。",
            )
        )
    if not call.ctx.revision:
        # Seed 03's point: with nobody to REPLAN the first step, the "syncing" shell was accepted as the
        # order's status, and the answer passes it on as if it meant something.
        return Reply(call.t(*_SHELL_ANSWER))
    return Reply(call.t(*_ORDER_ANSWER))


_SHELL_ANSWER = (
    'Your order 99999 currently shows the status "syncing" and has no sign-off yet, so it is still on its '
    "way. It should reach you soon.",
    "您的订单 99999 当前状态为“查询中”，尚未签收，说明仍在配送途中，很快就会送达。",
)


@script("order-99999")
def order_99999(call: Call) -> Reply:
    return _play(
        call,
        {
            "planner": lambda c: _plan(
                c,
                (
                    "Query the details of order 99999 to get its status and sign-off information",
                    "查询订单 99999 的详情，获取订单状态和签收信息",
                    "query_order",
                ),
                (
                    "Judge from the order status or sign-off time whether it has been delivered",
                    "根据订单状态或签收时间判断是否已签收",
                    None,
                ),
                (
                    "Combine the results above and tell the user whether the order has arrived",
                    "综合以上结果，告知用户订单是否已到",
                    None,
                ),
            ),
            "replanner": lambda c: _plan(
                c,
                (
                    "Combine the available information and tell the user that the query for order 99999 failed: the data "
                    "is being synchronised and the order status cannot be obtained; suggest trying again later or "
                    "contacting customer service",
                    "综合已有信息，告知用户订单 99999 查询失败、数据同步中、无法获取订单状态，建议稍后重试或联系客服",
                    None,
                ),
            ),
            "executor": _order_executor,
            "reflector": _order_reflector,
            "synthesizer": _order_synthesizer,
        },
    )


# --- waybill SF0000000: the tool returns an error (REPLAN) ------------------------------------------

_NO_WAYBILL = re.compile(r"does not exist|不存在|\berror\b", re.IGNORECASE)


def _logistics_executor(call: Call) -> Reply:
    step = _call_tool(call, "query_logistics", tracking_no="SF0000000")
    if step is not None:
        return step
    result = next(iter(_observed(call)), None)
    if isinstance(result, dict) and "error" in result:
        return Reply(
            call.t(
                "The logistics query failed: the courier's system returned an error — waybill "
                "SF0000000 does not exist.",
                "物流查询失败：物流接口返回错误——运单号不存在：SF0000000。",
            )
        )
    if isinstance(result, dict):
        return Reply(
            call.t(
                f"Waybill SF0000000 is {result.get('status')}; last scan: {result.get('lastScan')}.",
                f"运单 SF0000000 状态：{result.get('status')}；最近扫描：{result.get('lastScan')}。",
            )
        )
    return Reply(
        call.t(
            "Waybill SF0000000 could not be looked up in this step; no tracking data is available.",
            "本步骤未能查询运单 SF0000000，没有可用的物流信息。",
        )
    )


def _logistics_reflector(call: Call) -> Reply:
    result = call.input("result")
    if call.ctx.synthesis:
        return _verdict(
            call,
            "PASS",
            (
                "The reply covers what the steps found and what the user can do.",
                "回复覆盖了各步骤的关键信息，并给出了用户可以采取的行动。",
            ),
        )
    if _NO_WAYBILL.search(result):
        return _verdict(
            call,
            "REPLAN",
            (
                "The logistics system returned an error: waybill SF0000000 does not exist, so the parcel cannot be "
                "tracked, and running the same query again will not help.",
                "物流接口返回错误：运单号 SF0000000 不存在，无法查询物流轨迹，重试同样的查询也无济于事。",
            ),
            (
                "Tell the user the waybill does not exist and ask them to check the number.",
                "告知用户运单不存在，建议确认快递单号。",
            ),
        )
    if "SF0000000" in result and ("status" in result or "状态" in result):
        return _verdict(call, "PASS", ("The tracking status was obtained.", "已获取物流状态。"))
    return _verdict(call, "REPLAN", ("No tracking data was obtained.", "未获取到任何物流信息。"))


def _logistics_synthesizer(call: Call) -> Reply:
    if _NO_WAYBILL.search(call.text):
        return Reply(
            call.t(
                "Sorry, I couldn't chase this parcel: the waybill does not exist — the courier's system has no record "
                "of SF0000000. Please check the number, as it may have been copied incorrectly. If the seller has only "
                "just created the waybill, the courier may not have collected the parcel yet: try again in a few hours "
                "or ask the seller for the correct number.",
                "抱歉，暂时无法为您催件：运单不存在——物流系统中查不到单号 SF0000000。请您确认一下快递单号是否正确，"
                "可能是复制时出错；如果商家刚生成运单，也可能是物流公司尚未揽收，建议过几个小时再查，或向商家确认正确的单号。",
            )
        )
    return Reply(
        call.t(
            "I couldn't look up waybill SF0000000 just now. Please check the number and try again later.",
            "暂时未能查询运单 SF0000000，请核对单号后稍后再试。",
        )
    )


@script("logistics-sf0000000")
def logistics_sf0000000(call: Call) -> Reply:
    return _play(
        call,
        {
            "planner": lambda c: _plan(
                c,
                ("Query the logistics track of waybill SF0000000", "查询运单 SF0000000 的物流轨迹", "query_logistics"),
                (
                    "Combine the results and tell the user where the parcel is and what happens next",
                    "综合以上结果，告知用户包裹的物流状态和后续处理",
                    None,
                ),
            ),
            "replanner": lambda c: _plan(
                c,
                (
                    "Tell the user that waybill SF0000000 does not exist and suggest checking the number (it may have been "
                    "copied wrongly, or the courier has not collected the parcel yet)",
                    "告知用户运单 SF0000000 不存在，建议确认快递单号（可能复制错误，或物流公司尚未揽收）",
                    None,
                ),
            ),
            "executor": _logistics_executor,
            "reflector": _logistics_reflector,
            "synthesizer": _logistics_synthesizer,
        },
    )


# --- R1 vs R7 Pro for two long-haired cats: the goal-blind executor lists specs (RETRY) -------------

_BRUSH_ZH = {
    "standard bristle roller brush (hair wraps around it)": "普通鬃毛滚刷（毛发易缠绕）",
    "rubber anti-tangle brush with hair-cutting blade": "橡胶防缠绕滚刷，带割毛刀片",
}


def _products(call: Call) -> dict[str, dict[str, Any]]:
    for result in _observed(call):
        if isinstance(result, dict) and isinstance(result.get("products"), dict):
            return result["products"]
    return {}


def _spec_line(call: Call, name: str, p: dict[str, Any]) -> str:
    brush = str(p.get("brush", ""))
    return call.t(
        f"{name}: {p.get('price_cny')} CNY, suction {p.get('suction_pa')} Pa, battery "
        f"{p.get('battery_min')} min, dustbin {p.get('dustbin_ml')} ml, mop: {p.get('mop')}, "
        f"brush: {brush}, noise {p.get('noise_db')} dB.",
        f"{name}：{p.get('price_cny')} 元，吸力 {p.get('suction_pa')} Pa，续航 {p.get('battery_min')} 分钟，"
        f"尘盒 {p.get('dustbin_ml')} ml，拖地：{'有' if p.get('mop') == 'yes' else '无'}，"
        f"滚刷：{_BRUSH_ZH.get(brush, brush)}，噪音 {p.get('noise_db')} dB。",
    )


def _vacuum_executor(call: Call) -> Reply:
    step = _call_tool(call, "compare_products", products="R1, R7 Pro")
    if step is not None:
        return step
    products = _products(call)
    r1, r7 = products.get("R1"), products.get("R7 Pro")
    if not (r1 and r7):
        return Reply(
            call.t(
                "The specifications of the R1 and R7 Pro could not be retrieved in this step.",
                "本步骤未能获取 R1 和 R7 Pro 的规格参数。",
            )
        )
    # the goal (goal-aware executor) or the Reflector's hint is the only way the user's cats reach this step
    if _CATS.search(call.text):
        gap = r7["price_cny"] - r1["price_cny"]
        return Reply(
            call.t(
                f"For a home with two long-haired cats the brush decides it. The R1 has a standard bristle roller brush "
                f"that long hair wraps around, so it needs frequent untangling. The R7 Pro has a rubber anti-tangle "
                f"brush with a hair-cutting blade, made for pet hair, plus more suction ({r7['suction_pa']} vs "
                f"{r1['suction_pa']} Pa) and a longer battery ({r7['battery_min']} vs {r1['battery_min']} min). It costs "
                f"{gap} CNY more ({r7['price_cny']} vs {r1['price_cny']}), but for two long-haired cats the R7 Pro is "
                "the clear choice. Recommendation: R7 Pro.",
                f"家里有两只长毛猫，滚刷是决定性因素。R1 是普通鬃毛滚刷，长毛很容易缠在上面，需要经常手动清理；"
                f"R7 Pro 是橡胶防缠绕滚刷，还带割毛刀片，专门应对宠物毛发，吸力也更强（{r7['suction_pa']} Pa 对 "
                f"{r1['suction_pa']} Pa），续航更长（{r7['battery_min']} 分钟对 {r1['battery_min']} 分钟）。R7 Pro 贵 "
                f"{gap} 元（{r7['price_cny']} 元对 {r1['price_cny']} 元），但对养两只长毛猫的家庭来说明显更合适。推荐：R7 Pro。",
            )
        )
    return Reply(
        "\n".join(
            [
                _spec_line(call, "R1", r1),
                _spec_line(call, "R7 Pro", r7),
                call.t(
                    "Each has its strengths: the R1 is cheaper with a bigger dustbin, the R7 Pro has more suction, a longer "
                    "battery and a mop. Choose according to your preference and budget.",
                    "两款各有优势：R1 更便宜、尘盒更大，R7 Pro 吸力更强、续航更长、带拖地功能。看您的偏好和预算选择即可。",
                ),
            ]
        )
    )


def _vacuum_reflector(call: Call) -> Reply:
    result = call.input("result")
    if call.ctx.synthesis:
        return _verdict(
            call, "PASS", ("The reply covers the key information of the comparison.", "回复覆盖了对比步骤的关键信息。")
        )
    if "Pa" not in result:
        return _verdict(
            call,
            "REPLAN",
            ("The specifications needed for the comparison were not retrieved.", "未获取到对比所需的规格参数。"),
        )
    if _CATS.search(result):
        return _verdict(
            call,
            "PASS",
            (
                "The comparison centres on hair tangling, which is decisive for two long-haired cats, and gives a "
                "clear recommendation.",
                "对比围绕长毛缠绕这一对养猫家庭的决定性因素展开，并给出了明确推荐。",
            ),
        )
    return _verdict(
        call,
        "RETRY",
        (
            "The result lists every specification flatly and ends with 'choose according to your preference'; it "
            "ignores that the user has two long-haired cats, for whom a brush that resists hair tangling is decisive.",
            "执行结果只做了全维度平铺罗列，结论是“看您的偏好”，没有结合用户养了两只长毛猫的处境——"
            "对这类用户来说，滚刷防不防缠绕才是决定性因素。",
        ),
        (
            "The user has two long-haired cats: centre the comparison on whether each model's brush resists long "
            "hair tangling, and give a clear recommendation instead of 'it depends'.",
            "用户家里养了两只长毛猫：请围绕两款机型的滚刷是否防长毛缠绕展开对比，并给出明确推荐，不要和稀泥。",
        ),
    )


def _vacuum_synthesizer(call: Call) -> Reply:
    completed = call.input("completed")
    if _CATS.search(completed) or (_CATS.search(call.text) and "Pa" in completed):
        return Reply(
            call.t(
                "My recommendation: the R7 Pro. With two long-haired cats, the deciding factor is the brush: the R1's "
                "bristle roller brush gets wrapped in long hair, while the R7 Pro's rubber anti-tangle brush with a "
                "hair-cutting blade is made for pet hair. It also has stronger suction and a longer battery. It costs "
                "1300 CNY more, but it will save you untangling the brush every few days.",
                "推荐您选 R7 Pro。家里有两只长毛猫，关键在滚刷：R1 的鬃毛滚刷容易被长毛缠住，"
                "R7 Pro 的橡胶防缠绕滚刷带割毛刀片，专为宠物毛发设计，吸力更强、续航也更长。"
                "虽然贵 1300 元，但能省去隔几天就清理缠毛的麻烦。",
            )
        )
    if "Pa" in completed:
        return Reply(
            call.t(
                "Both are solid robot vacuums. The R1 (1999 CNY) is cheaper and has a larger dustbin; the R7 Pro "
                "(3299 CNY) has stronger suction, a longer battery and a mop. Each has its advantages, so choose "
                "according to your preference and budget.",
                "两款都是不错的扫地机。R1（1999 元）更便宜、尘盒更大；R7 Pro（3299 元）吸力更强、续航更长，还能拖地。"
                "两款各有优势，您可以根据自己的偏好和预算选择。",
            )
        )
    return Reply(
        call.t(
            "Sorry, I couldn't retrieve the R1 and R7 Pro specifications just now, so I can't compare "
            "them yet. Please try again later.",
            "抱歉，暂时未能获取 R1 和 R7 Pro 的规格参数，还无法为您对比，请稍后再试。",
        )
    )


@script("vacuum-cats")
def vacuum_cats(call: Call) -> Reply:
    return _play(
        call,
        {
            "planner": lambda c: _plan(
                c,
                (
                    "Compare the full specifications of the R1 and R7 Pro robot vacuums",
                    "对比 R1 和 R7 Pro 两款扫地机的完整规格参数",
                    "compare_products",
                ),
                ("Combine the comparison into a recommendation for the user", "综合对比结果，给用户一个选购建议", None),
            ),
            "executor": _vacuum_executor,
            "reflector": _vacuum_reflector,
            "synthesizer": _vacuum_synthesizer,
        },
    )


# --- AirX vs WatchFit, and order 99999: one step fails, synthesis reports it ------------------------


def _anc(airx: dict[str, Any]) -> str:
    """The noise-cancelling figure alone ("yes, -42 dB" → "-42 dB", "有，-42 dB" → "-42 dB")."""
    return re.split(r",\s*|，", str(airx.get("anc", "")))[-1]


def _gadgets_summary(call: Call) -> str:
    products = _products(call)
    airx, watch = products.get("AirX"), products.get("WatchFit")
    if not (airx and watch):
        return call.t(
            "The AirX and WatchFit specifications could not be retrieved in this step.",
            "本步骤未能获取 AirX 和 WatchFit 的规格参数。",
        )
    return call.t(
        f"AirX earbuds ({airx['price_cny']} CNY): active noise cancelling ({_anc(airx)}), "
        f"{airx['battery_h']} h battery, {airx['weight_g']} g. WatchFit watch ({watch['price_cny']} CNY): "
        f"{watch['sensors']} sensors, {watch['battery_days']}-day battery, {watch['waterproof']} water resistance. "
        "They serve different needs: the AirX is for listening and calls in noisy places, the WatchFit for "
        "health and sport tracking.",
        f"AirX 耳机（{airx['price_cny']} 元）：主动降噪（{_anc(airx)}），续航 {airx['battery_h']} 小时，"
        f"重 {airx['weight_g']} 克。WatchFit 手表（{watch['price_cny']} 元）：心率、血氧、GPS 传感器，"
        f"续航 {watch['battery_days']} 天，{watch['waterproof']} 防水。两者定位不同：AirX 适合嘈杂环境下听音乐和通话，"
        "WatchFit 适合健康与运动监测。",
    )


def _gadgets_executor(call: Call) -> Reply:
    if call.ctx.tool == "query_order":
        return _call_tool(call, "query_order", order_id="99999") or Reply(_order_summary(call))
    return _call_tool(call, "compare_products", products="AirX, WatchFit") or Reply(_gadgets_summary(call))


def _gadgets_reflector(call: Call) -> Reply:
    if call.ctx.synthesis:
        return _verdict(
            call,
            "PASS",
            (
                "The reply covers the comparison and honestly reports the order step that failed.",
                "回复覆盖了对比结论，并如实说明了查询订单步骤的失败。",
            ),
        )
    if call.ctx.tool == "query_order":
        return _order_step_verdict(call)
    if (
        "AirX" in call.input("result")
        and "WatchFit" in call.input("result")
        and ("CNY" in call.input("result") or "元" in call.input("result"))
    ):
        return _verdict(
            call,
            "PASS",
            (
                "The comparison covers both products' key specifications and uses.",
                "对比覆盖了两款商品的关键参数和适用场景。",
            ),
        )
    return _verdict(call, "REPLAN", ("The product specifications were not retrieved.", "未获取到商品规格参数。"))


def _gadgets_synthesizer(call: Call) -> Reply:
    completed, failed = call.input("completed"), call.input("failed")
    parts = []
    if "CNY" in completed or "元" in completed:
        parts.append(
            call.t(
                "AirX vs WatchFit: they are different kinds of product. The AirX earbuds (899 CNY) offer strong noise "
                "cancelling and 30 hours of battery, for music and calls on the go; the WatchFit watch (1299 CNY) "
                "tracks heart rate, SpO2 and GPS for 10 days per charge, for health and sport. Pick the AirX for "
                "listening, the WatchFit for fitness tracking.",
                "AirX 与 WatchFit 属于不同品类：AirX 耳机（899 元）降噪强、续航 30 小时，适合通勤听歌和通话；"
                "WatchFit 手表（1299 元）支持心率、血氧和 GPS，续航 10 天，适合健康与运动监测。想听音乐选 AirX，"
                "想做运动健康监测选 WatchFit。",
            )
        )
    else:
        parts.append(
            call.t(
                "Sorry, I couldn't retrieve the AirX and WatchFit specifications just now.",
                "抱歉，暂时未能获取 AirX 和 WatchFit 的规格参数。",
            )
        )
    if "99999" in failed or not call.input("completed") or _SYNCING.search(completed):
        parts.append(
            call.t(
                "About order 99999: I couldn't confirm whether it has arrived — the order query failed because its "
                "data is still being synchronised. Please try again later or contact customer service.",
                "关于订单 99999：暂时无法确认是否已到——订单查询失败，订单数据仍在同步中。建议您稍后重试或联系人工客服。",
            )
        )
    return Reply("\n\n".join(parts))


@script("airx-watchfit-order")
def airx_watchfit_order(call: Call) -> Reply:
    return _play(
        call,
        {
            "planner": lambda c: _plan(
                c,
                (
                    "Compare the AirX earbuds and the WatchFit watch (a cross-category comparison)",
                    "对比 AirX 耳机和 WatchFit 手表（跨品类对比）",
                    "compare_products",
                ),
                (
                    "Query order 99999 to get its status and whether it has been delivered",
                    "查询订单 99999 的状态和签收信息",
                    "query_order",
                ),
                (
                    "Combine the results: give the comparison and tell the user whether order 99999 has arrived",
                    "综合以上结果：给出对比结论，并告知用户订单 99999 是否已到",
                    None,
                ),
            ),
            "replanner": lambda c: _plan(
                c,
                (
                    "Combine the results: give the AirX vs WatchFit comparison, and tell the user honestly that order 99999 "
                    "could not be confirmed (its data is being synchronised; try again later or contact customer service)",
                    "综合已有结果：给出 AirX 与 WatchFit 的对比结论，并如实告知用户订单 99999 暂时无法确认"
                    "（数据同步中，建议稍后重试或联系客服）",
                    None,
                ),
            ),
            "executor": _gadgets_executor,
            "reflector": _gadgets_reflector,
            "synthesizer": _gadgets_synthesizer,
        },
    )


# --- free-text tasks ------------------------------------------------------------------------------

_TOOL_LINE = re.compile(r"^- ([A-Za-z_][\w-]*)\(", re.MULTILINE)
_QUOTED = re.compile(r"“(.+?)”")


@role("plan-execute", "planner")
def generic_planner(call: Call) -> Reply:
    if call.ctx.replan:
        return generic_replanner(call)
    goal = shortened(call.input("goal"), 80) or topic(call)
    tools = _TOOL_LINE.findall(call.input("tools"))
    first = (
        (
            call.t(f"Use {tools[0]} to look up what is needed for “{goal}”", f"使用 {tools[0]} 查询“{goal}”所需的信息"),
            tools[0],
        )
        if tools
        else (call.t(f"Work out the key points of “{goal}”", f"梳理“{goal}”的要点"), None)
    )
    return Reply(
        json.dumps(
            {
                "steps": [
                    {"id": 1, "description": first[0], "tool": first[1], "critical": False},
                    {
                        "id": 2,
                        "description": call.t("Combine the results into the final reply", "综合以上结果，生成最终回复"),
                        "tool": None,
                        "critical": False,
                    },
                ]
            },
            ensure_ascii=False,
        )
    )


def generic_replanner(call: Call) -> Reply:
    return Reply(
        json.dumps(
            {
                "steps": [
                    {
                        "description": call.t(
                            "Tell the user honestly what could not be done, and answer with what is known",
                            "如实告知用户哪些事情没能完成，并根据已知信息作答",
                        ),
                        "tool": None,
                        "critical": False,
                    }
                ]
            },
            ensure_ascii=False,
        )
    )


@role("plan-execute", "executor")
def generic_executor(call: Call) -> Reply:
    tool = call.ctx.tool
    offered = call.tool_names()
    if offered and not call.tool_results():
        name = tool if tool in offered else offered[0]
        schema: dict[str, Any] = next((t["function"] for t in call.request.tools if t["function"]["name"] == name), {})
        params = list(schema.get("parameters", {}).get("properties", {})) or ["query"]
        quoted = _QUOTED.search(call.input("step"))
        value = quoted.group(1).rstrip("…") if quoted else shortened(call.input("step"), 80).rstrip("…")
        return Reply(
            call.t(f"{label(call)} Calling {name}.", f"{label(call)} 调用 {name}。"),
            ((name, json.dumps({params[0]: value}, ensure_ascii=False)),),
        )
    observed = call.tool_results()
    reply = shortened(observed[-1].content, 160) if observed else ""
    seen = call.t(f" The tool replied: {reply}", f"工具返回：{reply}") if observed else ""
    return Reply(
        call.t(
            f"{label(call)} Step done as far as a script can do it.{seen}",
            f"{label(call)} 脚本已尽可能完成本步骤。{seen}",
        )
    )


@role("plan-execute", "synthesizer")
def generic_synthesizer(call: Call) -> Reply:
    done = len(re.findall(r"^Step \d+", call.input("completed"), re.MULTILINE))
    failed = len(re.findall(r"^Step \d+", call.input("failed"), re.MULTILINE))
    return Reply(
        call.t(
            f"{label(call)} This is where a real model would combine the results of {done} completed "
            f"and {failed} failed step(s) into the reply to “{topic(call)}”. Pick a built-in scenario to "
            "see a documented run, or connect a model in the sidebar.",
            f"{label(call)} 这里本应由真实模型综合 {done} 个已完成步骤和 {failed} 个失败步骤的结果，"
            f"生成对“{topic(call)}”的回复。"
            "选择内置场景可观看完整的文档化运行，或在侧边栏连接真实模型。",
        )
    )


@role("plan-execute", "reflector")
def generic_reflector(call: Call) -> Reply:
    return _verdict(call, "PASS", ("Scripted review: the step's result is accepted.", "脚本评审：接受本步骤结果。"))


_GENERIC: dict[str, Role] = {
    "planner": generic_planner,
    "replanner": generic_replanner,
    "executor": generic_executor,
    "synthesizer": generic_synthesizer,
    "reflector": generic_reflector,
}
