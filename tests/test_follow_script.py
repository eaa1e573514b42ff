"""The follow script (pages/ui/follow.py) reaches the browser whole: Streamlit's HTML sanitiser empties
a script whose text holds "<" before a letter, "/" or "!" (it could be markup), and the page then
follows nothing, silently. A comment naming `<prefix>_pause` did exactly that."""

from __future__ import annotations

import re

from pages.ui import follow


def _body() -> str:
    html = follow._SCRIPT % follow._VALUES
    assert html.count("<script>") == 1 and html.count("</script>") == 1
    return html.split("<script>", 1)[1].split("</script>", 1)[0]


def test_the_script_holds_nothing_the_sanitiser_takes_for_markup():
    body = _body()
    assert not re.findall(r"<[\w/!]", body), "the sanitiser would drop the whole script"


def test_every_value_is_filled_in():
    body = _body()
    assert "%(" not in body
    assert f'.{follow.MARK}[data-live="1"]' in body
    assert str(follow.SETTLED_FRAMES) in body and str(follow.SETTLE_MS) in body
