"""Offline coherence and clean fits in the pages, under AppTest: switches that belong to a
scenario follow it; Compare offers only the presets the offline scripts cover and never says
"passed" for placeholder text; the call bound reads as a worst case beside the count."""

from __future__ import annotations

import functools

from streamlit.testing.v1 import AppTest

from pages.ui.setup_state import FREE
from tests.app_pages import keyed, open_page

P = "pg"
open_playground = functools.partial(open_page, "pages/playground.py")


def on_primes() -> AppTest:
    at = open_playground()
    at.selectbox(key=f"{P}_variant").select("reflection").run()
    at.selectbox(key=f"{P}_scenario").set_value("primes").run()
    assert at.session_state[f"{P}_opt_code_task"] is True and at.session_state[f"{P}_tests"]
    return at


# --- (b) switches that belong to a scenario ----------------------------------------------------------


def test_leaving_primes_for_a_free_task_turns_the_code_switch_off():
    at = on_primes()
    at.selectbox(key=f"{P}_scenario").set_value(FREE).run()
    assert at.session_state[f"{P}_opt_code_task"] is False and not at.session_state[f"{P}_tests"]


def test_primes_edited_as_a_free_task_keeps_its_switches_until_the_task_is_replaced():
    at = on_primes()
    at.button(key=f"{P}_to_free").click().run()
    assert at.session_state[f"{P}_opt_code_task"] is True, "the same task, now editable, is still code"
    task = at.text_area(key=f"{P}_free_task").value
    at.text_area(key=f"{P}_free_task").input(task.replace("100", "500")).run()
    assert at.session_state[f"{P}_opt_code_task"] is True, "a small edit keeps it"
    at.text_area(key=f"{P}_free_task").input("Write a short welcome note for new hires at our bakery.").run()
    assert at.session_state[f"{P}_opt_code_task"] is False and not at.session_state[f"{P}_tests"]
    at.button(key=f"{P}_run").click().run()
    assert not at.exception
    final = next(e.text for e in at.session_state[f"{P}_runs"][-1].events if e.kind == "final_answer")
    assert not [c for c in at.code if c.language == "python" and c.value == final], "prose is not drawn as Python"


# --- (c) Compare's presets and placeholder lanes ------------------------------------------------------

open_compare = functools.partial(open_page, "pages/compare.py")


def _block(at: AppTest, key: str):  # noqa: ANN202 - an AppTest block
    return keyed(at.main, key)


def test_offline_a_comparison_is_offered_only_where_the_scripts_play_every_lane():
    at = open_compare()
    at.selectbox(key="cmp_scenario").set_value("order-99999").run()
    note = _block(at, "cmp_preset_patterns_offline")
    assert note is not None, "every pattern on order 99999: only Plan-and-Execute has a script for it"
    said = " ".join(c.value for c in note.caption)
    assert "Not offered offline" in said and "placeholder" in said
    assert "ReAct" in said and "Reflection" in said and "Plan-and-Execute" not in said
    assert at.button(key="cmp_preset_patterns").disabled
    assert "placeholder" in at.button(key="cmp_preset_patterns").help
    # a preset on its own scripted task is offered, with nothing to warn about
    for name in ("executor", "critic"):
        assert not at.button(key=f"cmp_preset_{name}").disabled
        assert _block(at, f"cmp_preset_{name}_offline") is None


def test_with_a_model_every_comparison_is_offered():
    at = open_compare(sb_provider="openai")
    at.selectbox(key="cmp_scenario").set_value("order-99999").run()
    assert not at.button(key="cmp_preset_patterns").disabled
    assert _block(at, "cmp_preset_patterns_offline") is None


def test_the_presets_notes_speak_chinese():
    at = open_page("pages/compare.py", sb_lang="zh")
    at.selectbox(key="cmp_scenario").set_value("order-99999").run()
    said = " ".join(c.value for c in _block(at, "cmp_preset_patterns_offline").caption)
    assert "占位" in said


def test_placeholder_lanes_are_never_called_passed():
    # lanes set by hand may still leave a script's task: they run, and say what they are
    at = open_compare()
    at.selectbox(key="cmp_scenario").set_value("order-99999").run()
    at.segmented_control(key="cmp_count").set_value(4).run()
    for i, variant in enumerate(["react-advisor", "plan-execute-reflector", "reflection", "direct"]):
        at.selectbox(key=f"cmp{i}_variant").set_value(variant).run()
    assert _block(at, "cmp0_placeholder") is not None and _block(at, "cmp1_placeholder") is None
    at.button(key="cmp_run").click().run()
    assert not at.exception
    shown = next(d for d in at.dataframe if "lane" in d.value.columns).value
    ended = dict(zip(shown["lane"], shown["ended"], strict=True))
    assert [name for name, end in ended.items() if end == "passed"] == ["B · Plan-and-Execute + Reflector"]
    assert any("placeholder" in c.value and "passed" in c.value for c in at.caption), "the table says why"
    # each placeholder lane says so in its card and above its own run
    notes = [c.value for c in at.caption if "no script plays this pattern" in c.value]
    assert len(notes) == 2 * 3


# --- the call bound reads as a worst case -------------------------------------------------------------


def test_the_call_count_is_the_figure_and_the_bound_its_worst_case_in_both_languages():
    from pages.ui import i18n

    for lang in ("en", "zh"):
        at = open_playground(sb_lang=lang)
        at.selectbox(key=f"{P}_variant").select("reflection").run()
        at.selectbox(key=f"{P}_scenario").set_value("primes").run()
        bound = next(m for m in at.metric if m.label == i18n.t("fits.bound_label", lang))
        assert bound.value == "7"  # 1 + 2·(2 + 1): max_iterations 2, one repair re-ask per verdict
        assert i18n.t("fits.bound_line", lang) in [c.value for c in at.caption]
        at.button(key=f"{P}_run").click().run()
        calls = next(m for m in at.metric if m.label == i18n.t("render.calls", lang))
        made = sum(1 for e in at.session_state[f"{P}_runs"][-1].events if e.kind == "llm_call")
        assert calls.value == str(made) == "4", "the count alone, not '4 / 7'"  # draft, critique, refine, critique
        worst = i18n.t("fits.worst_case", lang, bound=7)
        assert worst in [c.value for c in at.caption] and ("worst case" in worst or "最坏情况" in worst)
        assert "/" not in calls.value


def test_a_free_task_run_offline_says_its_verdicts_judge_placeholder_text():
    from pages.ui import i18n

    at = open_playground()
    at.selectbox(key=f"{P}_variant").select("reflection").run()
    at.selectbox(key=f"{P}_scenario").set_value(FREE).run()
    at.text_area(key=f"{P}_free_task").input("Plan a picnic for six people.").run()
    at.button(key=f"{P}_run").click().run()
    assert not at.exception
    assert i18n.t("fits.placeholder_run", "en") in [c.value for c in at.caption]
    # a scripted scenario has a real (documented) run: no such note
    at.selectbox(key=f"{P}_scenario").set_value("primes").run()
    at.button(key=f"{P}_run").click().run()
    assert i18n.t("fits.placeholder_run", "en") not in [c.value for c in at.caption]


def test_a_model_name_with_markup_stays_text_in_the_cost_table():
    """The cost table is an HTML table (it wraps at 1280×720), and st.table draws Markdown."""

    def page():  # noqa: ANN202 - an AppTest script
        import agent_core as ac
        from agent_core.testing import ScriptedModel, say
        from pages.ui import summary

        named = ScriptedModel([say("hello")], "![ATTACKIMG](http://attacker.invalid/x.png) **bold**")
        result = ac.run("hi", ac.configure(pattern="direct"), named)
        summary.costs(list(result.events), key="t")

    at = AppTest.from_function(page, default_timeout=30)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    cells = [str(v) for v in at.table[0].value.iloc[:, 1]]
    assert cells and all("ATTACKIMG" in c for c in cells), "the model's name is shown"
    assert all("![ATTACKIMG](" not in c and "**bold**" not in c for c in cells), cells
