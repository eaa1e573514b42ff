"""Offline honesty: the scripted model plays the seeds' runs whatever the prompts say, so where a
person edits prompts on it, the page says so plainly — and offers what does make an edit matter."""

from __future__ import annotations

import streamlit as st

from . import sidebar
from .i18n import t


def prompts_note(lang: str) -> None:
    """Above the prompt editor, while the model is the scripted one."""
    if sidebar.is_offline():
        st.info(t("honesty.note", lang), icon=":material/smart_toy:")


def run_note(edited: int, lang: str) -> None:
    """By the Run button, when prompts were edited but the scripted model will not read them."""
    if edited and sidebar.is_offline():
        st.warning(t("honesty.edited", lang, n=edited), icon=":material/info:")
