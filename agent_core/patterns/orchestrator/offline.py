"""Offline scripts for orchestrator–workers: the Tuesday errands (a booking re-dispatched), and free-text tasks.

The scripts read the call's role and context (`step_id`, `attempt`, `tool` and `round` on a worker's
calls, `revision` on the reviews), the values the prompt was rendered from (a worker's instruction and
the orchestrator's note to it; the results a review or the synthesis reads), and the tool observations.
They never look for a prompt's wording, so an edited prompt cannot break a scripted run, and a run
still ends well when the user allows fewer calls per worker, fewer subtasks or a single round, or
answers the review in person: a REDISPATCH whose note names the free slot books it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ...offline.script import Call, Reply, script
from ...offline.scripts.generic import generic, label, role, shortened, topic

Role = Callable[[Call], Reply]

#: the dentist the scripted worker picks (the best rated), and the free slot a sharper instruction names
_DENTIST, _SLOT = "D-17", "Tue 14:00"
_SLOT_SAID = re.compile(r"14:00|14\s*点|下午两点|2\s*pm", re.IGNORECASE)
_BOOKED = re.compile(r"BK-\d+")
_DENTIST_PART = re.compile(r"dentist|牙医", re.IGNORECASE)
_WHEN = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
_TEMPS = re.compile(r"(\d+)[–-](\d+)\s*°C")


def _observed(call: Call, tool: str) -> Any:
    """The latest result of `tool` in this dispatch, parsed when it is JSON; None when it was not called."""
    for m in reversed(call.tool_results()):
        if m.name == tool:
            try:
                return json.loads(m.content)
            except ValueError:
                return m.content
    return None


def _call(call: Call, tool: str, **arguments: str) -> Reply | None:
    """Call `tool` if this call offers tools (the worker's last call has them disabled)."""
    if tool in call.tool_names():
        return Reply("", ((tool, json.dumps(arguments, ensure_ascii=False)),))
    return None


def _error(data: Any) -> str | None:
    return str(data["error"]) if isinstance(data, dict) and "error" in data else None


# --- the orchestrator's split, review and synthesis -------------------------------------------------


def _split(call: Call) -> Reply:
    return Reply(
        json.dumps(
            {
                "subtasks": [
                    {
                        "id": 1,
                        "instruction": call.t(
                            "Check today's weather in Shanghai and say whether an umbrella is needed",
                            "查询上海今天的天气，判断出门是否需要带伞",
                        ),
                        "tool": "weather",
                    },
                    {
                        "id": 2,
                        "instruction": call.t(
                            "Find a dentist with a free slot this Tuesday afternoon and book it",
                            "找一家今天（周二）下午有空位的牙医并完成预约",
                        ),
                        "tool": "find_dentist",
                    },
                    {
                        "id": 3,
                        "instruction": call.t(
                            "Check whether order 10001 has been delivered", "查询订单 10001 是否已签收"
                        ),
                        "tool": "query_order",
                    },
                ]
            },
            ensure_ascii=False,
        )
    )


def _review(call: Call) -> Reply:
    """REDISPATCH while the booking has no confirmation, naming the free slot; DONE once it has one."""
    results = call.input("results")
    if _DENTIST_PART.search(results) and not _BOOKED.search(results):
        ident = next(
            (
                int(m.group(1))
                for line in results.splitlines()
                if _DENTIST_PART.search(line) and (m := re.match(r"\D*?(\d+)", line))
            ),
            2,
        )
        return Reply(
            json.dumps(
                {
                    "decision": "REDISPATCH",
                    "reason": call.t(
                        'The booking did not go through: the worker asked for "Tue afternoon", which is not a '
                        "slot, and Bright Smile Dental lists Tue 14:00 as free.",
                        "预约没有成功：工作者请求的是“Tue afternoon”，这不是一个有效时段；"
                        "而 Bright Smile Dental 列出的空闲时段里有 Tue 14:00。",
                    ),
                    "subtasks": [
                        {
                            "id": ident,
                            "tool": "book_appointment",
                            "instruction": call.t(
                                f'Book Bright Smile Dental (dentist_id {_DENTIST}) at the slot "{_SLOT}", written exactly as '
                                f'find_dentist lists it: call book_appointment with dentist_id="{_DENTIST}" and slot="{_SLOT}". '
                                "There is no need to search again.",
                                f"预约 Bright Smile Dental（dentist_id 为 {_DENTIST}）的“{_SLOT}”时段，时段文字须与 find_dentist "
                                f'列出的完全一致：调用 book_appointment，dentist_id="{_DENTIST}"，slot="{_SLOT}"。无需重新搜索。',
                            ),
                        }
                    ],
                },
                ensure_ascii=False,
            )
        )
    return Reply(
        json.dumps(
            {
                "decision": "DONE",
                "reason": call.t(
                    "Every errand has a result: the weather, a confirmed booking and the order's delivery.",
                    "每件事都有了结果：天气、已确认的预约和订单的签收情况。",
                ),
                "subtasks": [],
            },
            ensure_ascii=False,
        )
    )


def _synthesis(call: Call) -> Reply:
    results, failed = call.input("results"), call.input("failed")
    parts = []
    temps = _TEMPS.search(results)
    if temps is not None:
        low, high = temps.groups()
        rain = re.search(r"rain|雨", results) is not None
        parts.append(
            call.t(
                f"Umbrella: {'yes' if rain else 'no need'}. Shanghai is overcast with light rain today, {low}–{high} °C."
                if rain
                else f"Umbrella: no need. Shanghai is dry today, {low}–{high} °C.",
                f"带伞：{'要带' if rain else '不用带'}。上海今天阴有小雨，{low}–{high}°C。"
                if rain
                else f"带伞：不用带。上海今天没有雨，{low}–{high}°C。",
            )
        )
    booked = _BOOKED.search(results)
    if booked is not None:
        parts.append(
            call.t(
                f"Dentist: booked at Bright Smile Dental, 12 Park Rd, today at 14:00 (confirmation {booked.group(0)}).",
                f"牙医：已为您预约 Bright Smile Dental（12 Park Rd），今天 14:00（确认号 {booked.group(0)}）。",
            )
        )
    elif _DENTIST_PART.search(failed) or _DENTIST_PART.search(results):
        parts.append(
            call.t(
                "Dentist: I could not book an appointment this afternoon; Bright Smile Dental lists "
                "Tue 14:00 as free, so you may want to call them.",
                "牙医：今天下午没能帮您约上；Bright Smile Dental 显示 Tue 14:00 有空位，您可以直接致电预约。",
            )
        )
    signed = _WHEN.search(results)
    if "10001" in results and signed is not None:
        parts.append(
            call.t(
                f"Order 10001: it has arrived, signed for on {signed.group(0)}.",
                f"订单 10001：已经到了，签收时间 {signed.group(0)}。",
            )
        )
    elif "10001" in failed:
        parts.append(call.t("Order 10001: I could not look it up just now.", "订单 10001：暂时没能查到。"))
    return Reply(
        "\n\n".join(parts)
        or call.t("I could not get any of your errands done just now.", "抱歉，这几件事暂时都没能办成。")
    )


# --- the workers ---------------------------------------------------------------------------------------


def _weather_worker(call: Call) -> Reply:
    data = _observed(call, "weather")
    if data is None:
        return _call(call, "weather", city=call.t("Shanghai", "上海")) or Reply(
            call.t("No weather data was retrieved for Shanghai.", "未能获取上海的天气数据。")
        )
    today = data.get("today") if isinstance(data, dict) else None
    if not isinstance(today, dict):
        return Reply(
            call.t(f"The weather lookup failed: {_error(data) or data}", f"天气查询失败：{_error(data) or data}")
        )
    rain = re.search(r"rain|雨", str(today.get("condition", ""))) is not None
    return Reply(
        call.t(
            f"Shanghai today: {today.get('condition')}, {today.get('low_c')}–{today.get('high_c')} °C, wind "
            f"{today.get('wind')}. "
            + ("Rain is forecast, so an umbrella is needed." if rain else "No rain is forecast."),
            f"上海今天：{today.get('condition')}，{today.get('low_c')}–{today.get('high_c')} °C，{today.get('wind')}。"
            + ("有雨，需要带伞。" if rain else "没有雨。"),
        )
    )


def _dentist_worker(call: Call) -> Reply:
    """A hasty first attempt (it books "Tue afternoon", which is no slot); a sharper instruction, or a
    note that names the free slot, books Tue 14:00 at once."""
    told = _SLOT_SAID.search(f"{call.input('instruction')}\n{call.input('hint')}") is not None
    booking = _observed(call, "book_appointment")
    if isinstance(booking, dict) and booking.get("confirmation"):
        return Reply(
            call.t(
                f"Booked {booking.get('dentist')}, {booking.get('address')}, at {booking.get('slot')}: confirmation "
                f"{booking.get('confirmation')}.",
                f"已预约 {booking.get('dentist')}（{booking.get('address')}），时间 {booking.get('slot')}，"
                f"确认号 {booking.get('confirmation')}。",
            )
        )
    if booking is not None and not told:
        return Reply(
            call.t(
                f"I could not book the dentist: book_appointment returned an error: {_error(booking) or booking}",
                f"没能预约牙医：book_appointment 返回错误：{_error(booking) or booking}",
            )
        )
    if told:
        return _call(call, "book_appointment", dentist_id=_DENTIST, slot=_SLOT) or Reply(
            call.t(
                f"The booking at {_DENTIST} for {_SLOT} could not be made within this subtask's calls.",
                f"本子任务的调用次数内没能完成 {_DENTIST} 在 {_SLOT} 的预约。",
            )
        )
    dentists = _observed(call, "find_dentist")
    if dentists is None:
        return _call(call, "find_dentist", day="Tue", time="afternoon") or Reply(
            call.t("No dentist was looked up within this subtask's calls.", "本子任务的调用次数内没有查询牙医。")
        )
    return _call(call, "book_appointment", dentist_id=_DENTIST, slot="Tue afternoon") or Reply(
        call.t(
            f"Bright Smile Dental ({_DENTIST}) has free slots on Tuesday (Tue 10:00, Tue 14:00), but no booking was "
            "made within this subtask's calls.",
            f"Bright Smile Dental（{_DENTIST}）周二有空位（Tue 10:00、Tue 14:00），但本子任务的调用次数内没有完成预约。",
        )
    )


def _order_worker(call: Call) -> Reply:
    data = _observed(call, "query_order")
    if data is None:
        return _call(call, "query_order", order_id="10001") or Reply(
            call.t(
                "Order 10001 was not looked up within this subtask's calls.", "本子任务的调用次数内没有查询订单 10001。"
            )
        )
    if _error(data) or not isinstance(data, dict):
        return Reply(
            call.t(f"The order lookup failed: {_error(data) or data}", f"订单查询失败：{_error(data) or data}")
        )
    return Reply(
        call.t(
            f"Order 10001 is {data.get('status')}: signed for at {data.get('signedAt')}.",
            f"订单 10001 状态：{data.get('status')}，签收时间 {data.get('signedAt')}。",
        )
    )


_WORKERS: dict[str | None, Role] = {
    "weather": _weather_worker,
    "find_dentist": _dentist_worker,
    "book_appointment": _dentist_worker,
    "query_order": _order_worker,
}


@script("tuesday-errands")
def tuesday_errands(call: Call) -> Reply:
    if call.role == "orchestrator":
        return _split(call)
    if call.role == "orchestrator_review":
        return _review(call)
    if call.role == "synthesizer":
        return _synthesis(call)
    if call.role == "worker":
        worker = _WORKERS.get(call.ctx.tool)
        if worker is None and _DENTIST_PART.search(call.input("instruction")):
            worker = _dentist_worker
        return (worker or generic_worker)(call)
    return generic(call)


# --- free-text tasks ------------------------------------------------------------------------------

_TOOL_LINE = re.compile(r"^- ([A-Za-z_][\w-]*)\(", re.MULTILINE)
_QUOTED = re.compile(r"“(.+?)”")


@role("orchestrator", "orchestrator")
def generic_split(call: Call) -> Reply:
    goal = shortened(call.input("task") or call.task, 80)
    tools = _TOOL_LINE.findall(call.input("tools"))
    gather = (
        (call.t(f"Use {tools[0]} to look up what “{goal}” needs", f"使用 {tools[0]} 查询“{goal}”所需的信息"), tools[0])
        if tools
        else (call.t(f"List the facts “{goal}” depends on", f"列出“{goal}”所依赖的事实"), None)
    )
    return Reply(
        json.dumps(
            {
                "subtasks": [
                    {"id": 1, "instruction": gather[0], "tool": gather[1]},
                    {
                        "id": 2,
                        "instruction": call.t(
                            f"Outline the points a reply to “{goal}” should make", f"列出回复“{goal}”时应讲到的要点"
                        ),
                        "tool": None,
                    },
                ]
            },
            ensure_ascii=False,
        )
    )


@role("orchestrator", "worker")
def generic_worker(call: Call) -> Reply:
    name = call.ctx.tool  # the tool the split suggested, called once
    if name is not None and name in call.tool_names() and not call.tool_results():
        schema: dict[str, Any] = next((t["function"] for t in call.request.tools if t["function"]["name"] == name), {})
        params = list(schema.get("parameters", {}).get("properties", {})) or ["query"]
        quoted = _QUOTED.search(call.input("instruction"))
        value = quoted.group(1).rstrip("…") if quoted else shortened(call.input("instruction"), 80).rstrip("…")
        return Reply(
            call.t(f"{label(call)} Calling {name}.", f"{label(call)} 调用 {name}。"),
            ((name, json.dumps({params[0]: value}, ensure_ascii=False)),),
        )
    observed = call.tool_results()
    reply = shortened(observed[-1].content, 160) if observed else ""
    seen = call.t(f" The tool replied: {reply}", f"工具返回：{reply}") if observed else ""
    return Reply(
        call.t(
            f"{label(call)} Subtask done as far as a script can do it.{seen}",
            f"{label(call)} 脚本已尽可能完成本子任务。{seen}",
        )
    )


@role("orchestrator", "orchestrator_review")
def generic_review(call: Call) -> Reply:
    return Reply(
        json.dumps(
            {
                "decision": "DONE",
                "reason": call.t("Scripted review: the results are accepted.", "脚本复核：接受这些结果。"),
                "subtasks": [],
            },
            ensure_ascii=False,
        )
    )


@role("orchestrator", "synthesizer")
def generic_synthesis(call: Call) -> Reply:
    done = len(re.findall(r"^(?:Subtask|子任务) \d+", call.input("results"), re.MULTILINE))
    failed = len(re.findall(r"^(?:Subtask|子任务) \d+", call.input("failed"), re.MULTILINE))
    return Reply(
        call.t(
            f"{label(call)} This is where a real model would combine the results of {done} completed "
            f"and {failed} failed subtask(s) into the reply to “{topic(call)}”. Pick the built-in "
            "scenario to see a documented run, or connect a model in the sidebar.",
            f"{label(call)} 这里本应由真实模型综合 {done} 个已完成和 {failed} 个失败子任务的结果，"
            f"生成对“{topic(call)}”的回复。选择内置场景可观看完整的文档化运行，或在侧边栏连接真实模型。",
        )
    )
