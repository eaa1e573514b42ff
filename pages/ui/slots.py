"""`slot`: a place a run view fills later, the same element tree live and on a redraw."""

from __future__ import annotations

from typing import Any

import streamlit as st


def slot(live: bool) -> Any:
    """A place a view fills later: redrawn often while live, once (at close) on a redraw.

    Both are a container, so a live view and its redraw have the same element tree. A redraw puts
    no empty placeholder in it first: an st.empty sent in the place of the live run's counters or
    graph would blank them until close() drew them again, and the run area would shrink for that
    moment at the end of every run.
    """
    box = st.container()
    return box.empty() if live else box
