"""Clean fits on a projector: at 1280×720 nothing a room reads is cut off — the scenario
and pattern boxes, the plan's step table and the cost table (its "est." column too), the word and
line diffs, the prompt editor's diff, and Learn's "Open in the Playground" button. Deleted words are
struck through and inserted ones underlined, not told apart by colour alone.

"Cut off" is measured, not eyeballed: an element whose content is wider than its box
(scrollWidth > clientWidth) clips it or spills it. Screenshots go to test-artifacts/fits-*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from agent_core.scenarios import SCENARIOS
from pages.ui.catalogue import VARIANTS
from pages.ui.controls import short_title
from tests.browser.harness import ARTIFACTS, open_playground, pick, settle

VIEWPORT = {"width": 1280, "height": 720}
RUN, FINAL = ".st-key-pg_run button", ".st-key-pg_view-final"

#: every element under `selector` (itself included) whose content is wider than its box, as
#: "tag.class: text (scrollWidth > clientWidth)"; 1 px of rounding is allowed
_CLIPPED = """
(roots) => roots.flatMap(root => [root, ...root.querySelectorAll('*')])
  .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.tagName.toLowerCase()}.${(e.className || '').toString().slice(0, 40)}: `
            + `${(e.value || e.innerText || '').slice(0, 60)} (${e.scrollWidth} > ${e.clientWidth})`)
"""


def choose(page, key: str, option: str) -> None:  # noqa: ANN001
    """harness.pick, trying the box again when its list did not open (a loaded machine can swallow
    the first click while the page is still settling)."""
    for attempt in range(3):
        page.locator(f".st-key-{key}").click()
        page.keyboard.type(option)  # a long list draws only the options in its window
        wanted = page.get_by_role("option", name=option, exact=True)
        try:
            wanted.wait_for(timeout=10_000)
        except Exception:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            settle(page)
            continue
        wanted.click()
        settle(page)
        return


def clipped(page, selector: str) -> list[str]:  # noqa: ANN001
    """What is cut off under `selector` (which must match something)."""
    found = page.locator(selector)
    assert found.count(), f"nothing matches {selector}"
    return found.evaluate_all(_CLIPPED)


def shot(page, name: str) -> None:  # noqa: ANN001
    """A screenshot of what the 1280×720 screen shows (the viewport, not the whole page)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"fits-{name}.png"))


@pytest.fixture
def page(browser):  # noqa: ANN001, ANN201
    """This module's page: its own browser context at 1280×720 (a projector's), closed after the test."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


def instant(page) -> None:  # noqa: ANN001
    """The offline model at its fastest: these tests look at the finished page."""
    page.locator(".st-key-sb_offline_speed input[type=range]").press("Home")
    settle(page)


def finished_run(page, url: str, variant: str) -> None:  # noqa: ANN001
    """The Playground with `variant` (its label) run to its end on the instant offline model."""
    open_playground(page, url)
    instant(page)
    choose(page, "pg_variant", variant)
    page.locator(RUN).click()
    expect(page.locator(FINAL)).to_be_visible(timeout=120_000)
    settle(page, timeout=60_000)


def test_every_scenario_and_pattern_name_fits_its_box(page, app_url):
    open_playground(page, app_url)
    for variant, pattern in (
        ("ReAct + reflection advisor", "react"),
        ("Plan-and-Execute + Reflector", "plan-execute"),
        ("Reflection", "reflection"),
        ("Direct — one call (baseline)", "direct"),
    ):
        pick(page, "pg_variant", variant)
        assert clipped(page, ".st-key-pg_variant input") == [], variant
        for scenario in (s for s in SCENARIOS.values() if s.pattern == pattern):
            pick(page, "pg_scenario", short_title(scenario.id, "en"))
            assert clipped(page, ".st-key-pg_scenario input") == [], scenario.id
    shot(page, "playground-setup")
    page.locator("[data-testid=stSidebar]").get_by_text("中文", exact=True).click()
    settle(page)
    for scenario in SCENARIOS.values():  # every scenario, in Chinese, under its own pattern
        pick(page, "pg_variant", next(v.label_in("zh") for v in VARIANTS.values() if v.pattern == scenario.pattern))
        pick(page, "pg_scenario", short_title(scenario.id, "zh"))
        assert clipped(page, ".st-key-pg_scenario input") == [], scenario.id
        assert clipped(page, ".st-key-pg_variant input") == [], scenario.pattern
    shot(page, "playground-setup-zh")


def test_the_step_table_and_the_cost_table_show_every_word_and_column(page, app_url):
    finished_run(page, app_url, "Plan-and-Execute + Reflector")
    steps = ".st-key-pg_run_area [data-testid=stTable]"
    expect(page.locator(steps).first).to_contain_text("replanned")
    assert clipped(page, steps) == []
    page.locator(steps).first.scroll_into_view_if_needed()
    shot(page, "step-table")

    costs = ".st-key-pg_costs-by-role"
    page.locator(costs).scroll_into_view_if_needed()
    expect(page.locator(costs)).to_contain_text("est.")
    assert clipped(page, costs) == []
    # the last column lies inside the table's box, not past its right edge
    inside = page.evaluate(
        """(sel) => {
        const box = document.querySelector(sel).getBoundingClientRect();
        const heads = [...document.querySelectorAll(sel + ' th')];
        return heads.length > 0 && heads.every(h => h.getBoundingClientRect().right <= box.right + 1);
    }""",
        costs,
    )
    assert inside, "a column of the cost table runs past its right edge"
    shot(page, "cost-table")


def test_diffs_wrap_and_mark_changes_by_more_than_colour(page, app_url):
    finished_run(page, app_url, "Reflection")
    diff = page.locator(".st-key-pg_view-diff-1")
    diff.get_by_role("tab", name="Changes · words").click()
    words = diff.locator(".apg-diff")
    expect(words).to_be_visible()
    assert clipped(page, ".st-key-pg_view-diff-1 .apg-diff") == []
    looks = words.evaluate("""(box) => ({
        font: getComputedStyle(box).fontFamily, space: getComputedStyle(box).whiteSpace,
        del: [...box.querySelectorAll('del')].map(e => getComputedStyle(e).textDecorationLine),
        ins: [...box.querySelectorAll('ins')].map(e => getComputedStyle(e).textDecorationLine)})""")
    assert "monospace" in looks["font"] and looks["space"] == "pre-wrap", looks
    assert looks["del"] and all("line-through" in d for d in looks["del"]), looks
    assert looks["ins"] and all("underline" in d for d in looks["ins"]), looks
    words.scroll_into_view_if_needed()
    shot(page, "word-diff")

    diff.get_by_role("tab", name="Changes · lines").click()
    lines = ".st-key-pg_view-diff-1 [data-testid=stCode]"
    expect(page.locator(lines).first).to_be_visible()
    assert clipped(page, lines) == [], "the line diff wraps instead of cutting the key line off"
    expect(page.locator(lines).first).to_contain_text("Sieve of Eratosthenes")
    shot(page, "line-diff")


def test_the_prompt_editor_has_room_for_an_edited_line_and_its_diff(page, app_url):
    open_playground(page, app_url)
    pick(page, "pg_variant", "Reflection")
    page.get_by_role("tab", name="Prompts").click()
    editor = page.locator(".st-key-pg_prompt_reflection_critic")
    page.get_by_text("critic · ", exact=False).first.click()  # open the critic's expander
    area = editor.locator("textarea")
    long_line = (
        "Always answer PASS unless the draft is plainly wrong, and say in one sentence which of the "
        "criteria it meets best and which it meets worst."
    )
    area.fill(area.input_value() + "\n" + long_line)
    area.press("Control+Enter")
    settle(page)
    code = page.locator("[data-testid=stCode]", has_text="Always answer PASS")
    expect(code).to_be_visible()
    width, setup = page.evaluate("""() => [
        document.querySelector('.st-key-pg_prompt_reflection_critic').getBoundingClientRect().width,
        document.querySelector('.st-key-pg_variant').getBoundingClientRect().width]""")
    assert width > 1.5 * setup, f"the editor should have the wide column ({width:.0f} px; setup {setup:.0f} px)"
    assert code.evaluate_all(_CLIPPED) == [], "the edited line wraps in the prompt's diff"
    code.scroll_into_view_if_needed()
    shot(page, "prompt-editor")


def test_learns_open_in_the_playground_button_fits_in_both_languages(page, app_url):
    page.goto(f"{app_url}/learn")
    buttons = page.locator("[class*='st-key-learn_open_'] button")
    expect(buttons.first).to_be_visible()
    for lang in ("English", "中文"):
        page.locator("[data-testid=stSidebar]").get_by_text(lang, exact=True).click()
        settle(page)
        for tab in page.get_by_role("tab").all():
            tab.click()
            visible = page.locator("[class*='st-key-learn_open_'] button:visible")
            expect(visible).to_have_count(1)
            assert clipped(page, "[class*='st-key-learn_open_'] button") == [], (lang, tab.inner_text())
        shot(page, f"learn-{'zh' if lang == '中文' else 'en'}")


def test_compare_and_replay_name_every_scenario_in_full(page, app_url):
    from pages.ui.player import LANGS

    page.goto(f"{app_url}/compare")
    page.locator(".st-key-cmp_scenario").wait_for()
    settle(page)
    for scenario in SCENARIOS.values():
        choose(page, "cmp_scenario", scenario.title.en)
        assert clipped(page, ".st-key-cmp_scenario input") == [], scenario.id
    shot(page, "compare-task")
    page.goto(f"{app_url}/replay")
    page.locator(".st-key-rp_example").wait_for()
    settle(page)
    for scenario in SCENARIOS.values():
        choose(page, "rp_example", f"{short_title(scenario.id, 'en')} · {LANGS['en']}")
        assert clipped(page, ".st-key-rp_example input") == [], scenario.id
    shot(page, "replay-example")
    page.locator("[data-testid=stSidebar]").get_by_text("中文", exact=True).click()
    settle(page)
    for scenario in SCENARIOS.values():
        choose(page, "rp_example", f"{short_title(scenario.id, 'zh')} · {LANGS['zh']}")
        assert clipped(page, ".st-key-rp_example input") == [], scenario.id


#: the smallest graph label that reads at 1280×720 outside presenter mode (which draws 14 px and more);
#: stretched or squeezed to their columns, Home's, Learn's and a Plan-and-Execute run's were 3-8 px
LABEL_PX = 11


def _label_px(page) -> list[float]:  # noqa: ANN001
    """Every visible graph label's on-screen size: its font size in the SVG times the SVG's scale."""
    # every chart drawn, not just the first: graphviz lays each one out on its own, after the page settles
    page.wait_for_function("""() => {
      const charts = [...document.querySelectorAll('[data-testid=stGraphVizChart]')];
      return charts.length && charts.every(c => c.querySelector('svg g.node'));
    }""")
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid=stGraphVizChart] svg')]
      .filter(svg => svg.getBoundingClientRect().width > 0).flatMap(svg => {
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size')) * scale);
      })""")


def test_graph_labels_read_on_home_learn_and_a_plan_and_execute_run(page, app_url):
    page.goto(app_url)
    sizes = _label_px(page)
    assert len(sizes) > 20 and min(sizes) >= LABEL_PX, ("home", sorted(sizes)[:5])
    shot(page, "graph-home")
    page.goto(f"{app_url}/learn")
    sizes = _label_px(page)
    assert sizes and min(sizes) >= LABEL_PX, ("learn", sorted(sizes)[:5])
    finished_run(page, app_url, VARIANTS["plan-execute-reflector"].label_in("en"))
    sizes = _label_px(page)
    assert sizes and min(sizes) >= LABEL_PX, ("plan-and-execute run", sorted(sizes)[:5])
    page.locator("[data-testid=stGraphVizChart]").first.scroll_into_view_if_needed()
    shot(page, "graph-plan-execute-run")
