"""Offline scripts for the `direct` baseline: the umbrella question (one tool turn, then the answer),
and free-text tasks. The eval tasks' script (eval_tasks.py) answers its one call with the first draft."""

from __future__ import annotations

import json
from typing import Any

from ...offline.script import Call, Reply, script
from ...offline.scripts.generic import label, role, shortened, topic


@script("umbrella-one-call")
def umbrella(call: Call) -> Reply | None:
    if call.role != "actor":
        return None
    if "weather" in call.tool_names() and not call.tool_results():
        return Reply(
            call.t(
                "I'll check Shanghai's weather once, then answer.",
                "我先查一次上海今天的天气，看看会不会下雨，再来回答要不要带伞。",
            ),
            (("weather", json.dumps({"city": call.t("Shanghai", "上海")}, ensure_ascii=False)),),
        )
    today = next((json.loads(m.content).get("today") for m in call.tool_results() if m.content.startswith("{")), None)
    if not today:
        return Reply(
            call.t(
                "I couldn't get Shanghai's weather, so take an umbrella to be safe.",
                "没能查到上海的天气，稳妥起见还是带上伞吧。",
            )
        )
    return Reply(
        call.t(
            f"Yes, take an umbrella: Shanghai is {today['condition']} today, {today['low_c']}-{today['high_c']} °C, "
            f"with an east wind of force {today['wind'].split()[-1]}. The rain is light but may last through the "
            "afternoon, so a small folding umbrella and shoes that can take a puddle will do.",
            f"要带伞：上海今天阴有小雨，{today['low_c']}-{today['high_c']}°C，东风 {today['wind'].split()[-1]} 级。"
            "雨不大，但可能持续到下午，带一把折叠伞、穿一双不怕积水的鞋子出门就好。空气质量不错（AQI 45），"
            "气温也比较舒适，适合步行；如果傍晚还要出门，可以再加一件薄外套。",
        )
    )


@role("direct", "actor")
def generic_actor(call: Call) -> Reply:
    tools = call.tool_names()
    if tools and not call.tool_results() and not call.ctx.forced:
        tool = tools[0]
        schema: dict[str, Any] = next((t["function"] for t in call.request.tools if t["function"]["name"] == tool), {})
        params = list(schema.get("parameters", {}).get("properties", {})) or ["query"]
        return Reply(
            call.t(f"{label(call)} One tool turn: {tool}.", f"{label(call)} 一轮工具调用：{tool}。"),
            (
                (
                    tool,
                    json.dumps(
                        {params[0]: shortened(call.input("task") or call.task, 80).rstrip("…")}, ensure_ascii=False
                    ),
                ),
            ),
        )
    observed = call.tool_results()
    reply = shortened(observed[-1].content, 160) if observed else ""
    seen = call.t(f" The tool replied: {reply}", f"工具返回：{reply}") if observed else ""
    return Reply(
        call.t(
            f"{label(call)} This is where a real model would answer “{topic(call)}” in one "
            f"call.{seen} Connect a model in the sidebar to run it for real.",
            f"{label(call)} 这里本应由真实模型一次性回答“{topic(call)}”。{seen}请在侧边栏连接真实模型。",
        )
    )
