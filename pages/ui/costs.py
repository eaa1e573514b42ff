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

from . import i18n, tables

#: the sidebar's price lines for this session: {model: [input, output]} in USD per million tokens
K_PRICES = "sb_prices"


def words(lang: str) -> dict[str, str]:
    """This module's words (the catalogue's `costs` table) in `lang`."""
    return i18n.words("costs", lang)


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
    dearest = Price(
        "+".join(names), max(p.input_per_mtok for p in prices), max(p.output_per_mtok for p in prices), "", ""
    )
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


def _add_line() -> None:
    state = st.session_state
    model = (state.get("sb_price_model") or "").strip()
    if model:
        lines = dict(state.get(K_PRICES) or {})
        lines[model] = [float(state.get("sb_price_in") or 0.0), float(state.get("sb_price_out") or 0.0)]
        state[K_PRICES] = lines
        state["sb_price_model"] = ""


def _clear_lines() -> None:
    st.session_state[K_PRICES] = {}


def price_editor(lang: str, *, disabled: bool) -> None:
    """The sidebar's Prices expander: the table in use, and lines of the user's own for this session."""
    w = words(lang)
    table, problem = price_table()
    with st.expander(w["prices"], icon=":material/payments:"):
        st.caption(w["prices_help"])
        # st.table, not st.dataframe: a page's own tables stay the only dataframes it draws
        st.table(
            tables.arrow(
                [
                    {
                        w["model"]: p.model,
                        w["input"]: f"{p.input_per_mtok:g}",
                        w["output"]: f"{p.output_per_mtok:g}",
                        w["as_of"]: p.as_of,
                        w["source"]: p.source,
                    }
                    for p in table.lines()
                ]
            ),
            hide_index=True,  # an Arrow table has none; said, so st.table does not convert it to find out
        )
        st.caption(w["yours"])
        st.text_input(
            w["model"],
            key="sb_price_model",
            disabled=disabled,
            placeholder=w["model_placeholder"],
            persist_state="session",
        )
        left, right = st.columns(2)
        left.number_input(
            w["input"],
            min_value=0.0,
            step=0.01,
            format="%.4f",
            key="sb_price_in",
            disabled=disabled,
            persist_state="session",
        )
        right.number_input(
            w["output"],
            min_value=0.0,
            step=0.01,
            format="%.4f",
            key="sb_price_out",
            disabled=disabled,
            persist_state="session",
        )
        row = st.container(horizontal=True)
        row.button(w["add"], key="sb_price_add", on_click=_add_line, disabled=disabled, icon=":material/add:")
        if st.session_state.get(K_PRICES):
            row.button(w["clear"], key="sb_price_clear", on_click=_clear_lines, disabled=disabled, type="tertiary")
        if problem:
            st.warning(w["bad"].format(error=problem))
