"""The scenarios' mock tools: fixed, deterministic data shaped like the seeds' demos.

Outputs follow the seeds on purpose: the search tool is incomplete (seed 01), order 99999 is a
"syncing" shell rather than an error (seed 03), waybill SF0000000 is an `error` object (seed 03).
Every tool answers in the run's language (`registry(names, lang)`): its data's words, never its keys.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .tools import Tool, ToolRegistry


def _obj(**props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}


def _str(desc: str) -> dict[str, Any]:
    return {"type": "string", "description": desc}


_WEATHER = {
    "beijing": {
        "city": "Beijing",
        "today": {"condition": "sunny, windy", "high_c": 31, "low_c": 19, "wind": "NW 5-6", "aqi": 68},
        "next_7_days": [
            "sunny 31/19",
            "sunny 33/20",
            "cloudy 30/21",
            "thunderstorms 27/20",
            "showers 26/19",
            "cloudy 29/20",
            "sunny 32/21",
        ],
    },
    "shanghai": {
        "city": "Shanghai",
        "today": {"condition": "overcast, light rain", "high_c": 26, "low_c": 21, "wind": "E 3", "aqi": 45},
    },
}
_WEATHER_ZH = {
    "beijing": {
        "city": "北京",
        "today": {"condition": "晴，有风", "high_c": 31, "low_c": 19, "wind": "西北风 5-6", "aqi": 68},
        "next_7_days": ["晴 31/19", "晴 33/20", "多云 30/21", "雷阵雨 27/20", "阵雨 26/19", "多云 29/20", "晴 32/21"],
    },
    "shanghai": {
        "city": "上海",
        "today": {"condition": "阴有小雨", "high_c": 26, "low_c": 21, "wind": "东风 3", "aqi": 45},
    },
}
_CITY_ALIASES = {"北京": "beijing", "上海": "shanghai", "peking": "beijing"}


def _say(lang: str, en: str, zh: str) -> str:
    return zh if lang == "zh" else en


def weather(city: str, lang: str = "en") -> dict[str, Any]:
    key = _CITY_ALIASES.get(city.strip(), city.strip().lower())
    data = (_WEATHER_ZH if lang == "zh" else _WEATHER).get(key)
    if data is None:
        return {
            "error": _say(
                lang,
                f"no weather data for {city!r}; known cities: Beijing, Shanghai",
                f"没有“{city}”的天气数据；可查询的城市：北京、上海",
            )
        }
    return data


def search(query: str, lang: str = "en") -> dict[str, Any]:
    # Deliberately thin (seed 01): the judge should find the warning information incomplete.
    return {
        "query": query,
        "results": [
            {
                "title": _say(lang, "Beijing Meteorological Service", "北京市气象局"),
                "snippet": _say(
                    lang,
                    "Weather warnings are published on the official site. No further details available in this index.",
                    "天气预警信息发布在官方网站上。本索引中没有更多详情。",
                ),
            },
        ],
        "note": _say(lang, "mock search index: only one cached result", "模拟搜索索引：只缓存了一条结果"),
    }


_DENTISTS: list[dict[str, Any]] = [
    {
        "id": "D-17",
        "name": "Bright Smile Dental",
        "address": "12 Park Rd",
        "rating": 4.8,
        "free_slots": ["Tue 10:00", "Tue 14:00", "Wed 09:30"],
    },
    {
        "id": "D-22",
        "name": "City Dental Care",
        "address": "5 River St",
        "rating": 4.5,
        "free_slots": ["Tue 16:00", "Thu 14:00"],
    },
]


def find_dentist(day: str = "", time: str = "", lang: str = "en") -> dict[str, Any]:
    return {"dentists": _DENTISTS}  # names and addresses are proper nouns: one spelling in both languages


def book_appointment(dentist_id: str, slot: str, lang: str = "en") -> dict[str, Any]:
    for d in _DENTISTS:
        if d["id"] == dentist_id:
            if slot not in d["free_slots"]:
                return {
                    "error": _say(
                        lang,
                        f"slot {slot!r} is not free at {d['name']}; free: {d['free_slots']}",
                        f"{d['name']} 的 {slot} 时段已约满；可约时段：{'、'.join(d['free_slots'])}",
                    )
                }
            return {"confirmation": "BK-4821", "dentist": d["name"], "slot": slot, "address": d["address"]}
    return {"error": _say(lang, f"unknown dentist id {dentist_id!r}", f"未知的牙医编号“{dentist_id}”")}


def add_calendar_event(title: str, start: str, lang: str = "en") -> dict[str, Any]:
    return {
        "event_id": "CAL-311",
        "title": title,
        "start": start,
        "reminder": _say(lang, "1 hour before", "提前 1 小时"),
    }


def query_order(order_id: str, lang: str = "en") -> dict[str, Any]:
    order_id = str(order_id).strip()
    if order_id == "99999":  # seed 03: a well-formed shell that does not answer "has it arrived?"
        return {
            "orderId": "99999",
            "status": _say(lang, "syncing", "查询中"),
            "remark": _say(
                lang,
                "Order information is being synchronised, please try again later",
                "该订单信息正在同步，请稍后再试",
            ),
        }
    if order_id == "10001":
        return {"orderId": "10001", "status": _say(lang, "delivered", "已签收"), "signedAt": "2026-11-27 15:20"}
    return {"error": _say(lang, f"order not found: {order_id}", f"订单不存在：{order_id}")}


def query_logistics(tracking_no: str, lang: str = "en") -> dict[str, Any]:
    tracking_no = str(tracking_no).strip()
    if tracking_no.upper().startswith("SF") and tracking_no[2:] == "0000000":
        return {"error": _say(lang, f"waybill does not exist: {tracking_no}", f"运单号不存在：{tracking_no}")}
    return {
        "trackingNo": tracking_no,
        "status": _say(lang, "in transit", "运输中"),
        "lastScan": _say(lang, "Hangzhou hub, 2026-11-29 08:10", "杭州转运中心，2026-11-29 08:10"),
    }


_PRODUCTS = {
    "R1": {
        "name": "R1 robot vacuum",
        "price_cny": 1999,
        "suction_pa": 4000,
        "battery_min": 150,
        "dustbin_ml": 450,
        "mop": "no",
        "brush": "standard bristle roller brush (hair wraps around it)",
        "noise_db": 65,
    },
    "R7 Pro": {
        "name": "R7 Pro robot vacuum",
        "price_cny": 3299,
        "suction_pa": 6000,
        "battery_min": 180,
        "dustbin_ml": 400,
        "mop": "yes",
        "brush": "rubber anti-tangle brush with hair-cutting blade",
        "noise_db": 62,
    },
    "AirX": {
        "name": "AirX earbuds",
        "category": "audio",
        "price_cny": 899,
        "anc": "yes, -42 dB",
        "battery_h": 30,
        "weight_g": 5,
    },
    "WatchFit": {
        "name": "WatchFit watch",
        "category": "wearable",
        "price_cny": 1299,
        "sensors": "heart rate, SpO2, GPS",
        "battery_days": 10,
        "waterproof": "5 ATM",
    },
}


_PRODUCTS_ZH = {
    "R1": {"name": "R1 扫地机器人", "mop": "无", "brush": "普通鬃毛滚刷（毛发易缠绕）"},
    "R7 Pro": {"name": "R7 Pro 扫地机器人", "mop": "有", "brush": "橡胶防缠绕滚刷，带割毛刀片"},
    "AirX": {"name": "AirX 耳机", "category": "音频", "anc": "有，-42 dB"},
    "WatchFit": {"name": "WatchFit 手表", "category": "可穿戴设备", "sensors": "心率、血氧、GPS"},
}


def compare_products(products: str, lang: str = "en") -> dict[str, Any]:
    wanted = [p.strip() for p in str(products).replace("，", ",").replace(" vs ", ",").split(",") if p.strip()]
    found, missing = {}, []
    for name in wanted:
        key = next((k for k in _PRODUCTS if k.lower() == name.lower()), None)
        if key:
            found[key] = _PRODUCTS[key] | (_PRODUCTS_ZH[key] if lang == "zh" else {})
        else:
            missing.append(name)
    if not found:
        return {
            "error": _say(
                lang,
                f"no such products: {', '.join(missing) or products}",
                f"没有这些商品：{'、'.join(missing) or products}",
            )
        }
    out: dict[str, Any] = {"products": found}
    if missing:
        out["not_found"] = missing
    return out


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool(
            "weather",
            "Current weather and the 7-day trend for a city.",
            _obj(city=_str("city name")),
            weather,
            "查询指定城市的实时天气和未来一周天气趋势",
        ),
        Tool(
            "search",
            "Search the web for background information.",
            _obj(query=_str("search keywords")),
            search,
            "搜索指定关键词的信息，补充分析所需的背景数据",
        ),
        Tool(
            "find_dentist",
            "Find dentists with free appointment slots.",
            {"type": "object", "properties": {"day": _str("day, e.g. Tue"), "time": _str("time, e.g. 14:00")}},
            find_dentist,
            "查找有空闲预约时段的牙医",
        ),
        Tool(
            "book_appointment",
            "Book a slot at a dentist.",
            _obj(dentist_id=_str("dentist id"), slot=_str("slot, e.g. 'Tue 14:00'")),
            book_appointment,
            "在指定牙医处预约时段",
        ),
        Tool(
            "add_calendar_event",
            "Add an event to the user's calendar.",
            _obj(title=_str("event title"), start=_str("start, e.g. 'Tue 14:00'")),
            add_calendar_event,
            "在用户日历中添加日程",
        ),
        Tool(
            "query_order",
            "Look up an order's status and delivery by order id.",
            _obj(order_id=_str("order id")),
            query_order,
            "按订单号查询订单状态与签收信息",
        ),
        Tool(
            "query_logistics",
            "Track a parcel by waybill number.",
            _obj(tracking_no=_str("waybill number")),
            query_logistics,
            "按运单号查询物流轨迹",
        ),
        Tool(
            "compare_products",
            "Compare products' full specifications.",
            _obj(products=_str("comma-separated product names")),
            compare_products,
            "对比多个商品的完整规格参数",
        ),
    )
}


def _speaking(tool: Tool, lang: str) -> Tool:
    """The tool answering in `lang`: the language is the run's, never an argument the model sends."""
    fn = tool.fn

    def answer(**arguments: Any) -> Any:
        if "lang" in arguments:  # not in any schema; refused like any other unknown argument
            raise TypeError(f"{tool.name}() got an unexpected keyword argument 'lang'")
        return fn(**arguments, lang=lang)

    return dataclasses.replace(tool, fn=answer)


def registry(names: list[str] | tuple[str, ...] | None = None, lang: str = "en") -> ToolRegistry:
    """A registry of the named mock tools (all of them when `names` is None), answering in `lang`."""
    if names is None:
        names = list(TOOLS)
    unknown = [n for n in names if n not in TOOLS]
    if unknown:
        from .errors import ConfigError

        raise ConfigError(f"unknown tool(s): {', '.join(unknown)}; available: {', '.join(TOOLS)}")
    return ToolRegistry({n: _speaking(TOOLS[n], lang) for n in names})
