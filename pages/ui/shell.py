"""Keeps every page inside the app shell (app.py: page config, navigation, the model sidebar).

Streamlit runs a page script alone, without app.py, while it still believes the app uses the old
pages/-folder navigation: on a freshly started server until the first app.py run has called
st.navigation, and in every AppTest run. A page that finds itself run that way sends the browser
through app.py and back to itself, so it is always drawn with its sidebar.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

_BACK = "to"


def mark() -> None:
    """Called by app.py once its navigation is set up: returns to the page a redirect came from."""
    target = st.query_params.get(_BACK)
    if target:
        del st.query_params[_BACK]
        st.switch_page(f"pages/{target}.py", query_params=st.query_params.to_dict())  # keeps ?present=1


def require(page: str) -> None:
    """Called first by every page script: if app.py did not run this script run, go through it."""
    if PagesManager.uses_pages_directory:
        # the page's own parameters (e.g. ?present=1) come along through the detour
        st.switch_page("app.py", query_params={**st.query_params.to_dict(), _BACK: page})
