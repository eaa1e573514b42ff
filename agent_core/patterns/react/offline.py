"""Offline scripts for ReAct: seed 01's weather report, seed 05's dentist booking, free-text tasks."""

from __future__ import annotations

import json
import re
from typing import Any

from ...offline.script import Call, Reply, script
from ...offline.scripts.generic import label, role, shortened, topic


def _args(**kw: str) -> str:
    return json.dumps(kw, ensure_ascii=False)


def _feedback_count(call: Call) -> int:
    """How many times the reflection advisor's feedback has been injected so far."""
    return sum(
        1
        for m in call.messages
        if m.role == "user" and ("[Reflection feedback]" in m.content or "【反思反馈】" in m.content)
    )


# --- seed 01: weather report with a reflection advisor -------------------------------------------


@script("weather-report")
def weather_report(call: Call) -> Reply | None:
    if call.role not in ("actor", "judge"):
        return None
    if call.role == "judge":
        return _weather_judge(call)
    if call.ctx.forced:
        return Reply(_weather_answer(call, 2))
    feedback = _feedback_count(call)
    last = call.last
    if not call.tool_results():
        return Reply(
            call.t(
                "I need Beijing's weather and trend, Shanghai's weather, and Beijing's warnings.",
                "我需要北京的天气与趋势、上海的天气，以及北京的天气预警信息。",
            ),
            (
                ("weather", _args(city=call.t("Beijing", "北京"))),
                ("weather", _args(city=call.t("Shanghai", "上海"))),
                ("search", _args(query=call.t("Beijing weather warning", "北京 天气 预警"))),
            ),
        )
    if feedback == 1 and last is not None and last.role == "user":
        return Reply(
            call.t(
                "The reviewer says the warning details are missing. I'll search the official alerts again.",
                "评审认为预警信息缺失。我再搜索一次官方预警。",
            ),
            (
                (
                    "search",
                    _args(query=call.t("Beijing Meteorological Service warnings today", "北京 气象台 今日 预警 信号")),
                ),
            ),
        )
    return Reply(_weather_answer(call, min(feedback, 2)))


def _weather_answer(call: Call, version: int) -> str:
    en = (
        "Weather analysis report — Beijing and Shanghai\n\n"
        "Beijing today is sunny and windy, 19-31 °C, north-west wind force 5-6, AQI 68 (good). The next seven "
        "days stay warm: sunny at 31-33 °C early on, thunderstorms and showers mid-week (26-27 °C), then sunny "
        "again at 32 °C. Shanghai today is overcast with light rain, 21-26 °C, east wind force 3, AQI 45, so it is "
        "cooler and more humid than Beijing.\n\n"
        "For Beijing, the strong wind today and the mid-week thunderstorms are the main risks: secure outdoor "
        "items, and plan for rain gear on days 4-5. "
    )
    zh = (
        "北京与上海天气综合分析报告\n\n"
        "北京今天晴、有风，气温 19-31°C，西北风 5-6 级，AQI 68（良）。未来七天整体偏暖：前期晴热 31-33°C，"
        "周中有雷阵雨和阵雨（26-27°C），之后转晴至 32°C。上海今天阴有小雨，21-26°C，东风 3 级，AQI 45，"
        "比北京更凉爽湿润。\n\n"
        "北京需重点关注今天的大风和周中的雷雨：外出注意固定户外物品，第 4-5 天备好雨具。"
    )
    notes = {
        0: ("Warnings: the search found no detail on current warnings.", "预警：搜索未找到当前预警的具体信息。"),
        1: (
            "Warnings: a second search of the official service still returned no warning details; based on the "
            "available data no specific warning can be confirmed, so check the Beijing Meteorological Service "
            "before travelling.",
            "预警：再次搜索官方气象台仍未获得预警细节；根据现有信息无法确认具体预警，出行前请以北京气象台发布为准。",
        ),
        2: (
            "Warnings: after two searches no warning details are available from our sources. Based on the "
            "available data, wind and thunderstorm risks are inferred from the forecast only; please confirm "
            "official warnings with the Beijing Meteorological Service.",
            "预警：两次搜索均未获得预警细节。根据现有信息，大风与雷雨风险仅由预报推断，"
            "请以北京气象台发布的官方预警为准。",
        ),
    }
    note_en, note_zh = notes[version]
    return call.t(en + note_en, zh + note_zh)


def _weather_judge(call: Call) -> Reply:
    answer = call.text
    if "two searches" in answer or "两次搜索" in answer:
        return Reply(json.dumps({"passed": True, "feedback": None}))
    if "second search" in answer or "再次搜索" in answer:
        fb = call.t(
            "The warning section is still unsupported: no warning level, area or validity period. Get "
            "the warning details or state clearly which conclusions rest on the forecast alone.",
            "预警部分仍缺乏依据：没有预警级别、范围和有效期。请补充预警细节，或明确说明哪些结论仅基于预报推断。",
        )
    else:
        fb = call.t(
            "The report lacks Beijing's warning information (type, level, period), which the user asked "
            "for. Search for the official warnings and add them.",
            "报告缺少用户要求的北京预警信息（类型、级别、时段）。请搜索官方预警并补充。",
        )
    return Reply(json.dumps({"passed": False, "feedback": fb}, ensure_ascii=False))


# --- seed 05: dentist booking over the text protocol ---------------------------------------------

_DENTIST_STEPS = (
    (
        "I need dentists with a free slot next Tuesday at 14:00.",
        "我需要查找下周二 14:00 有空位的牙医。",
        "find_dentist",
        {"day": "Tue", "time": "14:00"},
    ),
    (
        "Bright Smile Dental (D-17, rated 4.8) has Tue 14:00 free. I'll book it.",
        "Bright Smile Dental（D-17，评分 4.8）周二 14:00 有空。我来预约。",
        "book_appointment",
        {"dentist_id": "D-17", "slot": "Tue 14:00"},
    ),
    (
        "Booked (BK-4821). Now I'll add it to the calendar.",
        "已预约（BK-4821）。现在把它加入日历。",
        "add_calendar_event",
        {"title": "Dentist - Bright Smile Dental", "start": "Tue 14:00"},
    ),
)


@script("dentist-booking")
def dentist_booking(call: Call) -> Reply | None:
    if call.role not in ("actor", "judge"):
        return None
    if call.role == "judge":
        return Reply(json.dumps({"passed": True, "feedback": None}))
    done = len(call.tool_results())
    if done < len(_DENTIST_STEPS) and not call.ctx.forced:
        en, zh, tool, args = _DENTIST_STEPS[done]
        return _react_step(call, call.t(en, zh), tool, args)
    answer = call.t(
        "Your dentist appointment is booked: Bright Smile Dental, 12 Park Rd, next Tuesday at 14:00 "
        "(confirmation BK-4821). It is in your calendar as 'Dentist - Bright Smile Dental' with a "
        "reminder one hour before.",
        "已为您预约牙医：Bright Smile Dental（12 Park Rd），下周二 14:00，确认号 BK-4821。"
        "日程“Dentist - Bright Smile Dental”已加入您的日历，并会提前 1 小时提醒。",
    )
    thought = call.t("The booking and the calendar entry are both confirmed.", "预约和日程都已确认。")
    return Reply(f"Thought: {thought}\nFinal Answer: {answer}") if call.ctx.protocol == "text" else Reply(answer)


def _react_step(call: Call, thought: str, tool: str, args: dict[str, str]) -> Reply:
    """One ReAct step in whichever protocol the run uses."""
    if call.ctx.protocol == "text":
        return Reply(f"Thought: {thought}\nAction: {tool}\nAction Input: {_args(**args)}")
    return Reply(thought, ((tool, _args(**args)),))


# --- free-text tasks ------------------------------------------------------------------------------


@role("react", "actor")
def generic_actor(call: Call) -> Reply:
    tools = call.tool_names() or _text_protocol_tools(call)
    if tools and not call.tool_results() and not call.ctx.forced:
        tool = tools[0]
        schema: dict[str, Any] = next((t["function"] for t in call.request.tools if t["function"]["name"] == tool), {})
        params = list(schema.get("parameters", {}).get("properties", {})) or ["query"]
        args = {params[0]: _guess_argument(call.input("task") or call.task)}
        return _react_step(
            call,
            call.t(f"{label(call)} I will try the {tool} tool first.", f"{label(call)} 我先试试 {tool} 工具。"),
            tool,
            args,
        )
    observed = call.tool_results()
    reply = shortened(observed[-1].content, 160) if observed else ""
    seen = call.t(f" The tool replied: {reply}", f"工具返回：{reply}") if observed else ""
    answer = call.t(
        f"{label(call)} This is where a real model would answer “{topic(call)}”.{seen} "
        "Pick a built-in scenario to see a full documented run, or connect a model in the sidebar.",
        f"{label(call)} 这里本应由真实模型回答“{topic(call)}”。{seen}"
        "选择内置场景可观看完整的文档化运行，或在侧边栏连接真实模型。",
    )
    if call.ctx.protocol == "text":
        return Reply(
            call.t("Thought: I can answer now.\nFinal Answer: ", "Thought: 现在可以作答。\nFinal Answer: ") + answer
        )
    return Reply(answer)


def _guess_argument(task: str) -> str:
    """An id-like token from the task (an order or waybill number), else the task itself."""
    found = re.search(r"\b[A-Za-z]{0,3}\d{3,}\b", task)
    return found.group(0) if found else shortened(task, 80).rstrip("…")


def _text_protocol_tools(call: Call) -> list[str]:
    if call.ctx.protocol != "text":
        return []
    system = call.messages[0].content if call.messages else ""
    return [line[2:].split("(")[0] for line in system.splitlines() if line.startswith("- ") and "(" in line]


@role("react", "judge")
def generic_judge(call: Call) -> Reply:
    return Reply(json.dumps({"passed": True, "feedback": None}))


@role("react", "reflector")
def generic_observation_check(call: Call) -> Reply:
    """Seed 03's observation reflection: an error in the observations is REPLAN, anything else PASS."""
    observations = call.text.split("## Observations", 1)[-1]
    if '"error"' in observations or "error:" in observations:
        return Reply(
            json.dumps(
                {
                    "verdict": "REPLAN",
                    "analysis": call.t("The last tool call returned an error.", "上一次工具调用返回了错误。"),
                    "suggestion": call.t(
                        "Check the arguments or tell the user what could not be found.",
                        "检查参数，或如实告知用户未找到的信息。",
                    ),
                },
                ensure_ascii=False,
            )
        )
    return Reply(json.dumps({"verdict": "PASS", "analysis": "", "suggestion": ""}))
