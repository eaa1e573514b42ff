"""What the page tests share: a page of the real app.py opened in AppTest, and its badges."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
_BADGE = re.compile(r":(\w+)-badge\[(?::material/\w+: )?([^\]]+)\]")


def open_page(page: str, **state: object) -> AppTest:
    """Run app.py (sidebar, navigation) with `state` seeded, then switch to `page`, e.g.
    "pages/compare.py". The offline model runs instantly unless `state` says otherwise."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["sb_offline_speed"] = "instant"
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def badges(at: AppTest) -> list[tuple[str, str]]:
    """(colour, label) of every badge on the page, in order."""
    return [m for md in at.markdown for m in _BADGE.findall(md.value)]


def keyed(node, key: str):  # noqa: ANN001, ANN201 - an AppTest block
    """The block with widget or container key `key` under `node` (e.g. `at.main`), or None."""
    for child in getattr(node, "children", {}).values():
        if getattr(child, "key", None) == key:
            return child
        found = keyed(child, key)
        if found is not None:
            return found
    return None


def connect(at: AppTest, url: str, model: str = "fake-model") -> None:
    """Point the sidebar at an OpenAI-compatible endpoint, as a person does (provider, base URL, model)."""
    at.sidebar.selectbox(key="sb_provider").select("Custom OpenAI-compatible endpoint").run()
    at.sidebar.text_input(key="sb_base_url").input(url).run()
    at.sidebar.text_input(key="sb_model").input(model).run()
