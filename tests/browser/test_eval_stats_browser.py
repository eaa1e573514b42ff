"""A trainer shows the room Huang et al.'s finding on the Eval page, in a real browser: one click sets
up the GSM8K-style word problems with Direct against self-critique, two repeats run offline, and the
room reads the pass rates with their 95 % intervals, the paired test's verdict ("not distinguishable
at this n") and the chart with its error bars — the core's own figures for the same rows. A Stop keeps
every finished run; leaving the page and coming back, or running again, loses none; in 中文 the same
rows read in Chinese.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from agent_core.evaluation import backends, rows, samples
from agent_core.offline.model import OfflineModel
from pages.ui import eval_stats
from pages.ui.i18n import words
from tests.browser.harness import settle, shot

FINDING = next(f for f in samples.FINDINGS if f.sample == "gsm8k-style")
REPEATS = 2
RUN, STOP = ".st-key-ev_run button", ".st-key-ev_stop button"
SPEED = ".st-key-sb_offline_speed input[type=range]"


@pytest.fixture(scope="module")
def measured() -> tuple[list[rows.PatternSummary], list]:
    """The core's statistics for the rows the page will run (the offline model is deterministic)."""
    plan = backends.plan(samples.load_sample("gsm8k-style"), FINDING.patterns, repeats=REPEATS)
    found = [r for r in backends.local(plan, OfflineModel(), concurrency=4) if isinstance(r, rows.ResultRow)]
    return rows.summarize_rows(found), rows.comparisons(found, FINDING.patterns[0])


def _grid(page, nth: int):  # noqa: ANN001, ANN202
    """The nth data grid inside the Eval page's main area (0: the rows, 1: the summary)."""
    return page.locator("[data-testid=stMain] [data-testid=stDataFrame]").nth(nth)


def _row_count(page) -> int:  # noqa: ANN001
    """Rows in the results grid, header aside (the grid draws only the rows in view; it says how many)."""
    table = _grid(page, 0).locator("table").first
    expect(table).to_have_attribute("aria-rowcount", re.compile(r"\d+"))  # a grid is drawn once it is on screen
    return int(table.get_attribute("aria-rowcount")) - 1


def _summary(page) -> tuple[list[str], list[list[str]]]:  # noqa: ANN001
    grid = _grid(page, 1)
    grid.scroll_into_view_if_needed()
    expect(grid.locator("[role=columnheader]")).to_have_count(6)
    heads = grid.locator("[role=columnheader]").evaluate_all("els => els.map(e => e.textContent.trim())")
    cells = grid.locator("[role=gridcell]").evaluate_all("els => els.map(e => e.textContent.trim())")
    return heads, [cells[i : i + len(heads)] for i in range(0, len(cells), len(heads))]


def _paired_lines(page) -> list[str]:  # noqa: ANN001
    return [
        t
        for t in page.locator("[data-testid=stMain] [data-testid=stMarkdownContainer] li").evaluate_all(
            "els => els.map(e => e.textContent.trim())"
        )
        if "McNemar" in t
    ]


def _chart_drawn(page, rates: list[float]) -> None:  # noqa: ANN001
    """The statistics chart is on screen with one bar and one error bar per pattern, the bars as tall
    as their pass rates (plotly draws a bar as a path from the axis up to its top)."""
    chart = page.locator("[data-testid=stMain] [data-testid=stPlotlyChart]").last
    chart.scroll_into_view_if_needed()
    expect(chart.locator(".bars g.point path")).to_have_count(len(rates))
    expect(chart.locator(".bars g.errorbar path.yerror")).to_have_count(len(rates))
    errors = chart.locator(".bars g.errorbar path").evaluate_all("els => els.map(e => e.getAttribute('d'))")
    assert all(d and "V" in d for d in errors), errors
    heights = chart.locator(".bars g.point path").evaluate_all(
        "els => els.map(e => { const b = e.getBBox(); return b.height; })"
    )
    tallest = max(heights)
    assert tallest > 20, heights
    for height, rate in zip(heights, rates, strict=True):
        assert height / tallest == pytest.approx(rate / max(rates), abs=0.02), (heights, rates)


def _reads_the_cores_figures(page, measured, lang: str) -> None:  # noqa: ANN001
    summaries, pairs = measured
    w, label = words("eval_stats", lang), words("eval.patterns", lang)
    expect(page.get_by_role("heading", name=w["title"])).to_be_visible()
    wanted = [w[k] for k in ("pattern", "n", "passed", "rate", "ci", "per_solved")]
    for _ in range(30):  # the grid redraws its header a moment after the page's language changed
        heads, lines = _summary(page)
        if heads == wanted:
            break
        page.wait_for_timeout(500)
    assert heads == wanted
    assert [line[:5] for line in lines] == [
        [label[s.pattern], str(s.n), str(s.passed), f"{s.pass_rate:.0%}", f"{s.ci_low:.0%} – {s.ci_high:.0%}"]
        for s in summaries
    ]
    for line in lines:  # an interval a person can read: low <= rate <= high, in percent
        low, high = (int(x) for x in re.findall(r"(\d+)%", line[4]))
        assert low <= int(line[3].rstrip("%")) <= high
    assert _paired_lines(page) == [eval_stats.sentence(p, label, lang) for p in pairs]
    _chart_drawn(page, [s.pass_rate for s in summaries])


def _wait_finished(page) -> None:  # noqa: ANN001
    expect(page.locator(STOP)).to_be_disabled(timeout=120_000)
    expect(page.locator(RUN)).to_be_enabled(timeout=120_000)
    settle(page, timeout=60_000)


def test_the_self_critique_preset_with_repeats_reads_the_same_after_a_stop_a_page_switch_a_rerun_and_in_zh(
    page, app_url, measured
) -> None:  # noqa: ANN001
    total = len(samples.load_sample("gsm8k-style").tasks) * len(FINDING.patterns) * REPEATS
    page.goto(f"{app_url}/eval")
    page.locator(RUN).wait_for(timeout=60_000)
    settle(page)
    page.locator(f".st-key-ev_preset_{FINDING.id} button").click()
    settle(page)
    expect(page.locator(".st-key-ev_patterns")).to_contain_text(FINDING.patterns[1])
    repeats = page.locator(".st-key-ev_repeats input")
    repeats.fill(str(REPEATS))
    repeats.press("Enter")
    settle(page)

    # slowly, so there is time to stop part-way: the finished runs stay, the table and summary say so
    page.locator(SPEED).press("End")
    settle(page)
    page.locator(RUN).click()
    expect(page.get_by_text(re.compile(r"\d+/\d+ done · \d+ running"))).to_be_visible(timeout=60_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stDataFrame] "
        "table')].some(t => +t.getAttribute('aria-rowcount') >= 3)",
        timeout=90_000,
    )
    page.locator(STOP).click()
    _wait_finished(page)
    note = page.get_by_text(re.compile(r"Stopped: \d+ finished runs kept"))
    expect(note).to_be_visible()
    kept = int(re.search(r"Stopped: (\d+)", note.text_content()).group(1))
    assert 2 <= kept < total and _row_count(page) == kept
    assert sum(int(line[1]) for line in _summary(page)[1]) == kept  # the summary counts every kept run

    # the whole set, at once: every row, the core's figures
    page.locator(SPEED).press("Home")  # instant
    settle(page)
    page.locator(RUN).click()
    _wait_finished(page)
    assert _row_count(page) == total
    _reads_the_cores_figures(page, measured, "en")
    shot(page, "eval-stats-en")

    # away and back: nothing lost
    page.locator("[data-testid=stSidebarNav] a", has_text="Home").click()
    settle(page)
    page.locator("[data-testid=stSidebarNav] a", has_text="Eval").click()
    page.locator(RUN).wait_for(timeout=60_000)
    settle(page)
    assert _row_count(page) == total
    _reads_the_cores_figures(page, measured, "en")

    # run again: the same rows, not twice as many and not fewer (on a loaded machine the click's run may
    # not have begun when Run next reads enabled: wait for the grid to hold them all, then for the end)
    page.locator(RUN).click()
    try:
        expect(page.locator(STOP)).to_be_enabled(timeout=15_000)  # the run has begun (a quick one may be missed)
    except AssertionError:
        pass
    _wait_finished(page)
    for _ in range(120):
        if _row_count(page) == total:
            break
        page.wait_for_timeout(500)
    assert _row_count(page) == total
    _reads_the_cores_figures(page, measured, "en")

    page.locator(".st-key-sb_lang button", has_text="中文").click()
    settle(page)
    expect(page.get_by_role("heading", name=words("eval_stats", "zh")["title"])).to_be_visible()
    assert _row_count(page) == total
    _reads_the_cores_figures(page, measured, "zh")
    same = [line for line, p in zip(_paired_lines(page), measured[1], strict=True) if not p.distinguishable]
    assert same and all("在当前样本量下无法区分" in line for line in same)  # what the room should take home
    shot(page, "eval-stats-zh")
