"""A workshop taught in Chinese: with the sidebar on 中文, a Reflection run on primes reads
Chinese from its step titles to its final-answer heading, and switching back to English redraws the
same run in English — the labels follow the page's language, the run's own text stays as it was."""

from __future__ import annotations

import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.scenarios import SCENARIOS
from pages.ui.i18n import t
from tests.app_pages import badges
from tests.test_app_playground import P, choose, labels, open_playground, record, run

sys.path.insert(0, str(Path(__file__).parent))
from test_i18n import _latin_words  # noqa: E402  (the catalogue test's notion of "an English word")


def _primes_in(lang: str) -> AppTest:
    at = open_playground(sb_lang=lang)
    choose(at, "reflection", SCENARIOS["primes"].title(lang))
    run(at)
    return at


def _shown(at: AppTest) -> list[str]:
    """Every short label a person reads in the main area: blocks, badges, metrics, tabs, buttons."""
    return [
        *labels(at),
        *(label for _c, label in badges(at)),
        *(m.label for m in at.metric),
        *(tab.label for tab in at.tabs),
        *(b.label for b in at.main.button),
    ]


def test_a_reflection_run_in_chinese_reads_chinese():
    at = _primes_in("zh")
    assert labels(at) == ["草稿 0 · 初稿", "反思 1 — REVISE", "优化 · 草稿 1", "反思 2 — PASS"]
    assert [(c, label) for c, label in badges(at) if label.startswith("草稿")] == [
        ("blue", "草稿 0"),
        ("blue", "草稿 1"),
    ]
    # the verdicts: the critic named in Chinese, its feedback and analysis under Chinese headings
    markdown = [m.value for m in at.markdown]
    assert markdown.count("**评审员**") == 2
    assert any(m.startswith("**反馈** · ") for m in markdown) and any(m.startswith("**分析** · ") for m in markdown)
    assert "#### 最终答案" in markdown and "#### Final answer" not in markdown
    assert ("green", "已结束 · 已通过") in badges(at)
    assert at.button(key=f"{P}_run").label == "运行" and at.button(key=f"{P}_stop").label == "停止"
    assert at.button(key=f"{P}_view-fork-1").label == "从这里分叉"
    assert {"改动 · 按词", "改动 · 按行", "提示词"} <= {tab.label for tab in at.tabs}
    assert "上限与开关" in {e.label for e in at.expander}  # the prompts moved to a wide tab
    assert [m.label for m in at.metric][1:] == ["LLM 调用", "Token 数（估算）", "用时"]
    # "token" stays as it is: Chinese materials on LLMs write it so (词元 is rare outside papers)
    english = {
        label: words for label in _shown(at) if (words := [w for w in _latin_words(label) if w.lower() != "token"])
    }
    assert not english, english


def test_switching_to_english_redraws_the_same_run_in_english():
    at = _primes_in("zh")
    task = record(at).task
    at.sidebar.segmented_control(key="sb_lang").set_value("en").run()
    assert not at.exception, [e.message for e in at.exception]
    assert labels(at) == ["Draft 0 · first attempt", "Critique 1 — REVISE", "Refine · draft 1", "Critique 2 — PASS"]
    assert f"#### {t('render.final', 'en')}" in [m.value for m in at.markdown]
    assert ("green", "Ended · passed") in badges(at)
    assert at.button(key=f"{P}_run").label == "Run"
    assert record(at).task == task == SCENARIOS["primes"].task.zh  # the run itself is not translated


def test_the_english_run_has_no_chinese_label():
    at = _primes_in("en")
    shown = _shown(at)
    assert not [label for label in shown if any("\u4e00" <= ch <= "\u9fff" for ch in label)], shown


def _limit_view(lang):  # AppTest runs this function's source alone: imports inside, no annotations
    import streamlit as st

    from agent_core import events as ev
    from pages.ui.render import draw_run

    st.session_state["sb_lang"] = lang
    events = [
        ev.RunStarted(pattern="react", task="Weather?", max_llm_calls=9),
        ev.LimitReached(
            t=1.0, limit="max_rounds", value=8, message="8 rounds used; forcing a final answer with tools disabled"
        ),
        ev.FinalAnswer(t=1.1, text="Sunny."),
        ev.RunFinished(t=1.1, reason="cap", llm_calls=9, total_tokens=900, elapsed_ms=1100.0),
    ]
    draw_run({"pattern": "react", "lang": "en"}, events, bound=9, key="t")


def test_a_limit_says_why_in_the_pages_language():
    """The core words its limit messages in English; a Chinese page says why in Chinese instead."""
    shown = {}
    for lang in ("en", "zh"):
        at = AppTest.from_function(_limit_view, args=(lang,), default_timeout=30).run()
        assert not at.exception, [e.message for e in at.exception]
        shown[lang] = [w.value for w in at.warning]
    assert shown["en"] == [
        "**Limit reached · Max rounds = 8** · 8 rounds used; forcing a final answer with tools disabled"
    ]
    assert shown["zh"] == ["**达到上限 · 最大轮次 = 8** · 轮次已用完，禁用工具后强制给出最终答案。"]


def test_a_broken_prompt_is_explained_in_the_pages_language():
    """The core's TemplateError says which kind of problem it is; the page says it in Chinese."""
    from agent_core.patterns.registry import specs_for
    from pages.ui import setup_state

    at = open_playground(sb_lang="zh")
    choose(at, "reflection", SCENARIOS["primes"].title.zh)
    key = setup_state.prompt_key(P, "reflection", "critic")
    at.text_area(key=key).input(specs_for("reflection")["critic"].zh.replace("{draft}", "{answr}")).run()
    shown = [e.value for e in at.error]
    assert any("未知的占位符" in e and "answr" in e for e in shown), shown
    assert not any("unknown placeholder" in e for e in shown), shown
    assert at.button(key=f"{P}_run").disabled
