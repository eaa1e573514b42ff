"""Every string a person reads on a page, in English and Chinese.

One catalogue per language — `locales/en.toml` and `locales/zh.toml`, one table per module — looked up
by dotted key in the sidebar's language: `t("sidebar.provider")`, `t("runs.calls", n=3)`. Pages hold no
user-visible literal of their own; `tests/test_i18n.py` fails on a key missing in either catalogue and
on a literal label in a page. Text that belongs to a pattern (its name, variants, limits, graph) lives
with the pattern in the core (`agent_core.patterns.spec.Text`) and is read from there.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import streamlit as st

from agent_core.patterns import registry

LANGS = ("en", "zh")
LOCALES = Path(__file__).with_name("locales")
#: the sidebar's language key (pages.ui.sidebar.K_LANG), read here without importing the sidebar
_LANG_KEY = "sb_lang"


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The flat catalogue of one language: dotted key → text."""
    with (LOCALES / f"{lang}.toml").open("rb") as handle:
        return dict(_flatten(tomllib.load(handle)))


def _flatten(table: dict[str, Any], prefix: str = ""):
    for name, value in table.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def lang() -> str:
    """The language the page speaks: the sidebar's choice, English before it is made."""
    try:
        chosen = st.session_state.get(_LANG_KEY)
    except Exception:  # outside a script run (core tests, CLI): no session
        chosen = None
    return chosen if chosen in LANGS else "en"


def t(key: str, lang_: str | None = None, /, **values: Any) -> str:
    """The text for `key` in `lang_` (default: the page's language), with `{placeholders}` filled.

    A key missing from a catalogue falls back to English, then to the key itself, so a page never
    breaks on a gap; the catalogue test is what keeps gaps from shipping."""
    chosen = lang_ if lang_ in LANGS else lang()
    text = catalogue(chosen).get(key)
    if text is None:
        text = catalogue("en").get(key, key)
    return text.format(**values) if values else text


def words(section: str, lang_: str | None = None) -> dict[str, str]:
    """Every text of one table, by its short key — for code that picks among many."""
    return _table(section, lang_ if lang_ in LANGS else lang())


def role_labels(lang_: str | None = None) -> dict[str, str]:
    """Every role's label (each pattern's own, from its roles.py, a vote's too) and "default", in one language."""
    chosen = lang_ if lang_ in LANGS else lang()
    return {**words("roles", chosen), **{name: r.label(chosen) for name, r in registry.roles().items()}}


@cache
def _table(section: str, chosen: str) -> dict[str, str]:
    # cached: a redraw asks for a table per drawn call, and a scan of the catalogue each time adds up
    # (callers read it, never write it)
    head = f"{section}."
    english = {k[len(head) :]: v for k, v in catalogue("en").items() if k.startswith(head)}
    local = {k[len(head) :]: v for k, v in catalogue(chosen).items() if k.startswith(head)}
    return english | local
