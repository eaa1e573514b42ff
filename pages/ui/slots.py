"""`slot`: a place a run view fills later, the same element tree live and on a redraw; `nth`: the key of
the n-th box of a kind that one long script run draws again and again."""

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


def nth(key: str, n: int) -> str:
    """The key of the n-th box of a kind one script run draws (keys are unique in a script run): a seat
    that follows the room redraws its pause bar, question and fork button in the same run."""
    return key if n == 1 else f"{key}-{n}"
