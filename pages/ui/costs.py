"""Money on the pages: the worst case beside the call bound, a spend gauge during a run, and the
price table the session uses (built-in lines, the user's settings, and the sidebar's own lines)."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from agent_core import events as ev
from agent_core.errors import ConfigError
from agent_core.models import ModelRouter
from agent_core.offline import MODEL_NAME as OFFLINE_MODEL
from agent_core.pricing import Price, PriceTable, WorstCase, configured_table, parse_user_prices, spend

#: the sidebar's price lines for this session: {model: [input, output]} in USD per million tokens
K_PRICES = "sb_prices"

WORDS = {
    "en": {"unknown": "unknown", "free": "$0 (offline: no model is called)", "unbounded": "no bound (no output cap)",
           "worst": "worst case ≤ {tokens} tokens · {cost}", "spend": "Spent {spent} of at most {worst}",
           "spend_unknown": "Spent: unknown (no price for {models})",
           "unknown_help": "No price for {models}: add one in the sidebar's Prices, or in settings.",
           "cost": "cost (USD)", "cost_help": "At the price table's prices; empty when a model's price is unknown.",
           "prices": "Prices · USD per 1M tokens",
           "prices_help": "Built-in list prices with their date and source, your settings ([prices] in "
                          "secrets, or AGENT_PRICES), and lines you add here for this session.",
           "model": "model", "input": "input", "output": "output", "as_of": "as of", "source": "source",
           "yours": "Your lines (this session)", "bad": "Price lines not used: {error}"},
    "zh": {"unknown": "未知", "free": "$0（离线：不调用任何模型）", "unbounded": "无上限（未设输出上限）",
           "worst": "最坏情况 ≤ {tokens} tokens · {cost}", "spend": "已花费 {spent}，最多 {worst}",
           "spend_unknown": "已花费：未知（{models} 没有价格）",
           "unknown_help": "{models} 没有价格：请在侧边栏的“价格”或设置中添加。",
           "cost": "费用（美元）", "cost_help": "按价格表计算；模型价格未知时留空。",
           "prices": "价格 · 每百万 token 美元",
           "prices_help": "内置的标价（附日期与来源）、你的设置（secrets 中的 [prices] 或 AGENT_PRICES），"
                          "以及你在这里为本次会话添加的价格。",
           "model": "模型", "input": "输入", "output": "输出", "as_of": "日期", "source": "来源",
           "yours": "你的价格（本次会话）", "bad": "以下价格未生效：{error}"},
}


def words(lang: str) -> dict[str, str]:
    return WORDS.get(lang, WORDS["en"])


def money(usd: float | None, lang: str = "en") -> str:
    """$1.23, $0.0042, or "unknown" — never a made-up 0."""
    if usd is None:
        return words(lang)["unknown"]
    if usd == 0:
        return "$0"
    return f"${usd:,.2f}" if usd >= 0.1 else f"${usd:.4f}" if usd >= 0.0001 else "< $0.0001"


def price_table() -> tuple[PriceTable, str | None]:
    """The table costs are shown at, and why some configured lines were not used (or None)."""
    problem = None
    try:
        table = configured_table()
    except ConfigError as exc:  # a broken setting: the built-in table, and say so
        table, problem = PriceTable(), str(exc)
    try:
        table = table.with_user(parse_user_prices(st.session_state.get(K_PRICES) or {}, where="sidebar prices"))
    except ConfigError as exc:
        problem = str(exc)
    return table, problem


def model_price(router: ModelRouter, table: PriceTable) -> tuple[Price | None, list[str]]:
    """The dearest price among the models a run may call (so a worst case is a worst case), and the
    models without a price."""
    names = list(dict.fromkeys(router.names().values()))
    prices = [table.find(n) for n in names]
    unknown = [n for n, p in zip(names, prices, strict=True) if p is None]
    if unknown or not prices:
        return None, unknown
    dearest = Price("+".join(names), max(p.input_per_mtok for p in prices), max(p.output_per_mtok for p in prices),
                    "", "")
    return dearest, []


def worst_case_text(worst: WorstCase, router: ModelRouter, lang: str) -> str:
    """'worst case ≤ 12,345 tokens · $0.0123' for a caption beside the call bound."""
    w = words(lang)
    table, _ = price_table()
    if worst.total_tokens is None:
        return w["worst"].format(tokens="∞", cost=w["unbounded"])
    if router.names().get("default") == OFFLINE_MODEL and len(set(router.names().values())) == 1:
        return w["worst"].format(tokens=f"{worst.total_tokens:,}", cost=w["free"])
    price, _unknown = model_price(router, table)
    return w["worst"].format(tokens=f"{worst.total_tokens:,}", cost=money(worst.cost(price), lang))


def spend_gauge(slot, events: Iterable[ev.Event], worst: WorstCase, router: ModelRouter, lang: str) -> None:
    """Draw into `slot` a bar of the cost so far against the worst case."""
    w = words(lang)
    table, _ = price_table()
    used = spend(events, table)
    price, _ = model_price(router, table)
    ceiling = worst.cost(price)
    if not used.known:
        slot.caption(w["spend_unknown"].format(models=", ".join(used.unknown_models)))
        return
    fraction = min(1.0, used.usd / ceiling) if ceiling else 0.0
    slot.progress(fraction, text=w["spend"].format(spent=money(used.usd, lang), worst=money(ceiling, lang)))


def price_editor(lang: str, *, disabled: bool) -> None:
    """The sidebar's Prices expander: the table in use, and lines of the user's own for this session."""
    import pandas as pd

    w = words(lang)
    table, problem = price_table()
    with st.expander(w["prices"], icon=":material/payments:"):
        st.caption(w["prices_help"])
        st.dataframe(pd.DataFrame([{w["model"]: p.model, w["input"]: p.input_per_mtok, w["output"]: p.output_per_mtok,
                                    w["as_of"]: p.as_of, w["source"]: p.source} for p in table.lines()]),
                     hide_index=True, key="sb_prices_table", column_config={
                         w["source"]: st.column_config.LinkColumn(w["source"])})
        st.caption(w["yours"])
        # The editor keeps its rows in its own widget state, as edits of this empty frame: rebuilding
        # the frame from the stored lines would apply those edits twice.
        frame = pd.DataFrame({"model": pd.Series(dtype="string"), "input": pd.Series(dtype="float"),
                              "output": pd.Series(dtype="float")})
        edited = st.data_editor(frame, num_rows="dynamic", hide_index=True, key="sb_prices_editor",
                                disabled=disabled, column_config={
                                    "model": st.column_config.TextColumn(w["model"]),
                                    "input": st.column_config.NumberColumn(w["input"], min_value=0.0, format="%.4f"),
                                    "output": st.column_config.NumberColumn(w["output"], min_value=0.0,
                                                                            format="%.4f")})
        new = {str(r["model"]).strip(): [float(r["input"]), float(r["output"])] for _, r in edited.iterrows()
               if isinstance(r["model"], str) and r["model"].strip() and pd.notna(r["input"]) and pd.notna(r["output"])}
        changes = st.session_state.get("sb_prices_editor") or {}
        touched = any(changes.get(k) for k in ("edited_rows", "added_rows", "deleted_rows"))
        if touched and new != (st.session_state.get(K_PRICES) or {}):
            st.session_state[K_PRICES] = new  # costs drawn from the next script run on use them
        if problem:
            st.warning(w["bad"].format(error=problem))
