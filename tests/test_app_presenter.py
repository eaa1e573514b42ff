"""Presenter mode and the verdict-first run view under AppTest: the switch and `?present=1`, the URL
kept in step with the switch, what the mode's style hides, graph labels drawn large, and a run view
that leads with its verdicts and latest change, a REPLAN amber rather than red.

What a room sees on screen (above the fold, following the run, no blink) is measured in a real
browser: tests/browser/test_presenter_browser.py.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from streamlit.testing.v1 import AppTest

from pages.ui import headline, presenter
from tests.app_pages import APP, open_page

P = "pg"
open_playground = functools.partial(open_page, "pages/playground.py")


def _walk(node) -> Iterator[object]:  # noqa: ANN001
    """Every element under `node`, in page order."""
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def _styles(at: AppTest) -> str:
    return "".join(h.proto.body for h in at.get("html") if "<style>" in h.proto.body)


def _run(at: AppTest, variant: str, scenario: str) -> None:
    at.selectbox(key=f"{P}_variant").set_value(variant).run()
    at.selectbox(key=f"{P}_scenario").set_value(scenario).run()
    at.button(key=f"{P}_run").click().run()
    assert not at.exception, [e.message for e in at.exception]


def _trail(at: AppTest) -> str:
    trails = [h.proto.body for h in at.get("html") if headline.TRAIL_CLASS in h.proto.body]
    assert len(trails) == 1, "one verdict trail, at the head of the run view"
    return trails[0]


def test_presenter_mode_is_off_by_default_and_styles_nothing():
    at = open_playground()
    assert at.toggle(key=presenter.K_ON).value is False
    assert "stSidebar" not in _styles(at) and "font-size: 18px" not in _styles(at)
    assert "fontsize=11" in at.get("graphviz_chart")[0].proto.spec  # the usual labels


def test_present_1_in_the_url_turns_it_on():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[presenter.PARAM] = "1"
    at.session_state["sb_offline_speed"] = "instant"
    at.run()
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    assert at.toggle(key=presenter.K_ON).value is True
    style = _styles(at)
    assert "[data-testid=stSidebar]" in style and "display: none !important" in style  # the sidebar goes
    assert ":not(:has(.st-key-pg_run))" in style  # of the setup, only Run and Stop stay
    assert f"font-size: {presenter.FONT_PX}px" in style
    spec = at.get("graphviz_chart")[0].proto.spec
    assert "fontsize=14" in spec and "fontsize=13" in spec  # graph labels at least 14 px on screen


def test_the_switch_writes_the_url_and_takes_the_mode_back_off():
    at = open_playground()
    at.toggle(key=presenter.K_ON).set_value(True).run()
    assert at.query_params[presenter.PARAM] == ["1"] or at.query_params[presenter.PARAM] == "1"
    assert "[data-testid=stSidebar]" in _styles(at)
    at.toggle(key=presenter.K_ON).set_value(False).run()
    assert presenter.PARAM not in at.query_params
    assert "[data-testid=stSidebar]" not in _styles(at)


def test_a_reflection_run_leads_with_its_verdicts_and_the_latest_diff():
    at = open_playground()
    _run(at, "reflection", "primes")
    trail = _trail(at)
    assert trail.index('data-verdict="REVISE"') < trail.index('data-verdict="PASS"')
    assert "Sieve of Eratosthenes" in trail  # the feedback is one hover away, in the badge's tooltip
    area = next(e for e in _walk(at.main) if getattr(e, "key", None) == f"{P}_run_area")
    order = [getattr(e, "type", "") for e in _walk(area)]
    bodies = [getattr(getattr(e, "proto", None), "body", "") for e in _walk(area)]
    first_trail = next(i for i, b in enumerate(bodies) if headline.TRAIL_CLASS in (b or ""))
    first_diff = next(i for i, b in enumerate(bodies) if "apg-diff" in (b or ""))
    first_metric = order.index("metric")
    assert first_trail < first_diff < first_metric, "verdicts, then the diff, then the counters"
    texts = [m.value for m in at.markdown]
    assert any(t.startswith("**What changed · Draft 0 → Draft 1**") for t in texts)
    assert any("For general use, no improvement needed" in t for t in texts)  # the newest feedback


def test_a_replan_is_amber_at_the_head_and_in_its_step_not_an_error():
    at = open_playground()
    _run(at, "plan-execute-reflector", "order-99999")
    trail = _trail(at)
    assert [v for v in ("REPLAN", "RETRY", "PASS") if f'data-verdict="{v}"' in trail] == ["REPLAN", "RETRY", "PASS"]
    amber, _bg, _glyph = headline.LOOKS["REPLAN"]
    replan = trail[trail.index('data-verdict="REPLAN"') :]
    assert f"color: {amber}" in replan[: replan.index("</span>")] and "#b91c1c" not in trail.lower()
    assert not at.error, [e.value for e in at.error]  # red is kept for real errors
    assert any("Step 1 failed" in w.value for w in at.warning)
    texts = [m.value for m in at.markdown]
    # the latest change of the run: the retried step's result against its first attempt
    assert any(t.startswith("**What changed · step 4, attempt 1 → step 4, attempt 2**") for t in texts)


def test_a_run_with_no_verdict_has_no_trail():
    at = open_playground()
    _run(at, "react", "weather-report")
    assert not [h for h in at.get("html") if headline.TRAIL_CLASS in h.proto.body]
    assert any(m.type == "metric" for m in at.get("metric"))  # the counters still come
