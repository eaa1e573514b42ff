"""The zh walk: a workshop switches to 中文 and visits every page at projector size (1280×720)
— Home; the Playground, running its default scenario to the end; Compare, running a one-click
comparison; Replay, on a bundled trace; Eval; Learn — and reads no Latin-script label on the way.

What is read is the page's visible text: every visible text node (SVG too: graph nodes, chart text)
and every select box's shown choice, outside code (`pre`, `code`, `.stCode`), outside typed text
(text fields and areas), outside
the task and the model's own replies (user text), and outside Streamlit's own header (its chrome, not
the app's). A word passes if it is a name shared by every language (tests/test_i18n.py NAMES: verdicts,
formats, products) or a model's name. A screenshot of each page goes to test-artifacts/zh-walk-*.png.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from agent_core.offline import MODEL_NAME
from tests.browser.harness import ARTIFACTS, settle
from tests.test_i18n import NAMES

#: names of the models a run on this server can show (the offline model's, word by word)
MODELS = set(re.findall(r"[A-Za-z]{2,}", MODEL_NAME))
#: Proper names the scenarios and the reference points use in every language: products (AirX earbuds,
#: the R7 Pro vacuum, waybill SF0000000, the AQI in a weather report), benchmarks, methods and authors.
PROPER = {
    "AirX",
    "WatchFit",
    "Pro",
    "SF",
    "AQI",
    "GPT",
    "GSM",
    "CommonSenseQA",
    "HotpotQA",
    "Reflexion",
    "Self",
    "Refine",
    "Huang",
    "Shinn",
    "Madaan",
    "Cobbe",
    "Wang",
    "Zhou",
    "Anthropic",
    "Ray",
}
#: Terms written in Latin letters in Chinese technical writing as well: "token" (as in Chinese providers'
#: own price lists), "vs" in a comparison's title, the Markdown file format, and MCP (the Model Context
#: Protocol, a name Chinese documentation keeps as it is).
TERMS = {"token", "Token", "vs", "Markdown", "MCP"}
#: units of measure, written in Latin letters in Chinese text too (a tool's product data: 4000 Pa, 65 dB)
UNITS = {"Pa", "dB", "ml", "mm", "cm", "km", "kg", "mAh", "Wh", "kWh"}
ALLOWED = NAMES | MODELS | PROPER | TERMS | UNITS
_WORD = re.compile(r"[A-Za-z]{2,}")

#: What is not a label: code, typed values, the task and what the model wrote, Streamlit's own chrome.
_NOT_LABELS = ", ".join(
    [
        "pre",
        "code",
        ".stCode",
        "textarea",
        "input",
        "[data-testid=stHeader]",
        "[data-testid=stToolbar]",
        "[data-testid=stStatusWidget]",
        "[data-testid=stSkipToContent]",
        # the language switch names each language in its own words (English, 中文), as such switches do
        ".st-key-sb_lang",
        # a citation's link text is the cited paper's own title and authors
        "a[href^='http']",
        # the task a run was given (scenario text or typed), and what the model wrote: user text
        "[class*='st-key-'][class*='task_box']",
        "[class*='-final']",
        "[class*='-draft-']",
        "[class*='-thought']",
        "[class*='-reply']",
        "[class*='-observation']",
        # Compare's answer diff shows the lanes' answers (the model's text) under their lane names (typed)
        ".st-key-cmp_answer_diff [role=tabpanel]",
    ]
)

_TEXT = """
notLabels => {
  const app = document.querySelector('[data-testid=stApp]');
  const walker = document.createTreeWalker(app, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest(notLabels)) continue;
    // icons are ligatures in a symbol font: "play_arrow" draws an arrow, nobody reads the word
    if (/Material Symbols/.test(getComputedStyle(el).fontFamily)) continue;
    // screen-reader-only text Streamlit adds to an icon button ("chevron_left icon") is clipped to 1 px
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue;
    if (el.checkVisibility && !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    const keyed = el.closest("[class*='st-key-']");
    const key = keyed ? [...keyed.classList].find(c => c.startsWith('st-key-')) : '';
    const id = el.closest('[data-testid]');
    out.push([text, [key, id ? id.dataset.testid : '', el.tagName.toLowerCase()].filter(Boolean).join(' ')]);
  }
  // a select box shows its choice as the value of its search field: a label, not typed text
  for (const box of app.querySelectorAll('[data-testid=stSelectbox]')) {
    const shown = box.querySelector('input');
    const keyed = box.closest("[class*='st-key-']");
    const key = keyed ? [...keyed.classList].find(c => c.startsWith('st-key-')) : '';
    if (shown && shown.value && box.checkVisibility()) out.push([shown.value, `${key} stSelectbox value`]);
  }
  return out;
}
"""


def latin_labels(page) -> dict[str, list[str]]:  # noqa: ANN001 - playwright Page
    """Every Latin word left in the page's labels, with where it was (widget key or element) and its text."""
    found: dict[str, list[str]] = {}
    for text, where in page.evaluate(_TEXT, _NOT_LABELS):
        for word in _WORD.findall(text):
            if word not in ALLOWED:
                found.setdefault(word, []).append(f"{where}: {text[:80]}")
    return found


def visit(page, label: str, ready: str) -> None:  # noqa: ANN001
    """Go to a page through the sidebar's navigation (a new URL would start a new session)."""
    page.locator("[data-testid=stSidebarNav] a", has_text=label).click()
    page.locator(ready).first.wait_for(timeout=30_000)
    settle(page)


def snap(page, name: str) -> None:  # noqa: ANN001
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"zh-walk-{name}.png"))


def _playground(page) -> None:  # noqa: ANN001
    visit(page, "实验场", ".st-key-pg_run button")
    page.locator(".st-key-pg_run button").click()
    expect(page.locator(".st-key-pg_view-final")).to_be_visible(timeout=120_000)
    expect(page.locator(".st-key-pg_run button")).to_be_enabled(timeout=30_000)
    settle(page)


def _compare(page) -> None:  # noqa: ANN001
    visit(page, "对比", ".st-key-cmp_run button")
    page.locator(".st-key-cmp_preset_executor button").first.click()  # offered offline: scripts play both lanes
    settle(page)
    page.locator(".st-key-cmp_run button").click()
    expect(page.locator(".st-key-cmp_answer_diff")).to_be_visible(timeout=180_000)
    settle(page)


#: every page of the walk, in order: its name, and how to get there and do what a workshop does on it
WALK = [
    ("home", lambda page: None),
    ("playground", _playground),
    ("compare", _compare),
    ("replay", lambda page: visit(page, "回放", ".st-key-rp_card")),
    ("eval", lambda page: visit(page, "评测", ".st-key-ev_run button")),
    ("learn", lambda page: visit(page, "学习", "[data-testid=stTabs]")),
]


def test_a_chinese_workshop_reads_no_english_label_on_any_page(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    expect.set_options(timeout=30_000)
    left: dict[str, dict[str, list[str]]] = {}
    broken: list[str] = []
    try:
        page.goto(app_url)
        page.locator(".st-key-sb_lang button", has_text="中文").wait_for()
        settle(page)
        page.locator(".st-key-sb_lang button", has_text="中文").click()
        settle(page)
        expect(page.locator("[data-testid=stSidebarNav]")).to_contain_text("首页")
        for name, go in WALK:
            try:
                go(page)
            except Exception as exc:  # noqa: BLE001 - one page's failure is reported, and the walk goes on
                broken.append(f"{name}: {str(exc).splitlines()[0]}")
            errors = page.locator("[data-testid=stException]")
            if errors.count():
                broken.append(f"{name}: an exception is shown: {errors.first.inner_text()[:300]}")
            left[name] = latin_labels(page)
            snap(page, name)
    finally:
        context.close()

    report = [
        f"{name}: {word} ×{len(seen)} — e.g. {seen[0]}"
        for name, words in left.items()
        for word, seen in sorted(words.items())
    ]
    assert not broken, "pages that did not work:\n" + "\n".join(broken) + "\n\n" + "\n".join(report)
    assert not report, f"{len(report)} Latin word(s) in 中文 labels:\n" + "\n".join(report)
