"""The Playground page under AppTest: every control, a full offline run of every pattern as the seeds
tell it, broken prompts blocking Run, an endpoint failing mid-run, and the one renderer drawing a
run the same way live and from storage.

AppTest sees only the final element tree of each run, i.e. the redrawn run after the live one ends;
the live states are checked in a real browser (tests/browser).
"""

from __future__ import annotations

import functools
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

import agent_core as ac
from agent_core import events as ev
from agent_core.llm import PRESETS
from agent_core.patterns.registry import LIMITS, specs_for
from agent_core.scenarios import SCENARIOS
from pages.ui import i18n, setup_state
from pages.ui.blocks import final_looks
from pages.ui.catalogue import VARIANTS
from pages.ui.controls import short_title
from pages.ui.summary import report_markdown, trace_json
from tests.app_pages import badges, connect, keyed, open_page
from tests.fake_openai_server import Fail, FakeCall, FakeOpenAIServer, Reply

P = "pg"


open_playground = functools.partial(open_page, "pages/playground.py")


def choose(at: AppTest, variant: str, scenario: str | None = None) -> None:
    """Pick a variant, and a scenario by its (full) title or the free task's label."""
    at.selectbox(key=f"{P}_variant").select(variant).run()
    if scenario is not None:
        # the box shows short titles (controls.short_title): pick by id
        sid = next((s.id for s in SCENARIOS.values() if scenario in (s.title.en, s.title.zh)), None)
        box = at.selectbox(key=f"{P}_scenario")
        (box.set_value(sid) if sid else box.select(scenario)).run()
    assert not at.exception


def run(at: AppTest) -> None:
    at.button(key=f"{P}_run").click().run()
    assert not at.exception, [e.message for e in at.exception]


def verdicts(at: AppTest) -> list[str]:
    return [label for _color, label in badges(at) if label in ev.VERDICTS]


def record(at: AppTest):
    return at.session_state[f"{P}_runs"][-1]


def blocks(at: AppTest, key: str = f"{P}_view-flow") -> list[tuple[str, str]]:
    """(label, icon) of every step block of the run view, whether live (st.status) or redrawn."""
    flow = keyed(at.main, key)
    return [(b.label, b.icon) for b in flow.children.values()] if flow is not None else []


def labels(at: AppTest) -> list[str]:
    return [label for label, _icon in blocks(at)]


def kinds(at: AppTest) -> list[str]:
    return [e.kind for e in record(at).events if e.kind != "token"]


# --- controls -------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_control_of_every_pattern_is_there(variant):
    at = open_playground()
    choose(at, variant)
    v = VARIANTS[variant]
    assert at.selectbox(key=f"{P}_scenario").options == [short_title(s, "en") for s in setup_state.scenarios_of(v)] + [
        "Free task — type your own"
    ]
    for name in setup_state.limits_of(v):
        box = at.number_input(key=f"{P}_limit_{name}")
        assert box.min >= LIMITS[name].low and box.max == LIMITS[name].high
    for name in setup_state.switches_of(v):
        assert at.toggle(key=f"{P}_opt_{name}") is not None
    for key in specs_for(v.pattern):
        assert at.text_area(key=setup_state.prompt_key(P, v.pattern, key)).value
    assert not at.button(key=f"{P}_run").disabled and at.button(key=f"{P}_stop").disabled
    bound = next(m for m in at.metric if m.label == i18n.t("fits.bound_label", "en"))
    config, _task = ac.for_scenario(setup_state.default_scenario(v))
    config = config.replace(
        **{
            **{n: at.number_input(key=f"{P}_limit_{n}").value for n in setup_state.limits_of(v)},
            **{n: at.toggle(key=f"{P}_opt_{n}").value for n in setup_state.switches_of(v)},
            **v.forced,
        }
    )
    assert int(bound.value) == ac.call_bound(config)


def test_the_hidden_limits_are_the_ones_a_variant_cannot_use():
    at = open_playground()
    choose(at, "react")
    assert not [n for n in at.number_input if n.key == f"{P}_limit_max_reflection_rounds"]
    choose(at, "react-advisor")
    assert at.number_input(key=f"{P}_limit_max_reflection_rounds").min == 1


def test_the_limits_shown_change_the_bound_shown():
    at = open_playground()
    choose(at, "reflection")
    before = next(m for m in at.metric if m.label == i18n.t("fits.bound_label", "en")).value
    at.number_input(key=f"{P}_limit_max_iterations").set_value(5).run()
    after = next(m for m in at.metric if m.label == i18n.t("fits.bound_label", "en")).value
    assert (int(before), int(after)) == (1 + 2 * 3, 1 + 5 * 3)


def test_a_scenario_applies_its_options():
    at = open_playground()
    choose(at, "reflection", SCENARIOS["code-review"].title.en)
    assert at.toggle(key=f"{P}_opt_graph_style").value is True
    assert at.number_input(key=f"{P}_limit_max_iterations").value == 3
    choose(at, "reflection", SCENARIOS["primes"].title.en)
    assert at.toggle(key=f"{P}_opt_graph_style").value is False
    assert at.number_input(key=f"{P}_limit_max_iterations").value == 2


def test_the_sidebar_offers_the_offline_model_and_every_provider():
    at = open_playground()
    assert at.sidebar.selectbox(key="sb_provider").value == "offline"
    assert any("Scripted offline model" in label for _c, label in badges(at))
    assert at.sidebar.select_slider(key="sb_offline_speed") is not None
    assert at.sidebar.selectbox(key="sb_provider").options[1:] == [p.label for p in PRESETS.values()]
    at.sidebar.selectbox(key="sb_provider").select("Ollama (local)").run()
    assert at.sidebar.text_input(key="sb_base_url").value == PRESETS["ollama"].base_url
    assert at.sidebar.text_input(key="sb_model").value == PRESETS["ollama"].default_model
    assert at.sidebar.text_input(key="sb_api_key").value == ""
    assert at.sidebar.number_input(key="sb_temperature").value is None
    assert {t.key for t in at.sidebar.text_input} >= {f"sb_role_{r}" for r in ("planner", "executor", "critic")}


def test_test_connection_names_the_endpoint_that_does_not_answer():
    at = open_playground()
    connect(at, "http://127.0.0.1:9/v1", "m")
    at.sidebar.button(key="sb_test").click().run()
    assert "cannot reach http://127.0.0.1:9/v1" in at.sidebar.error[0].value


def test_a_paid_provider_without_a_key_blocks_run_and_says_why(monkeypatch):
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    at = open_playground()
    at.sidebar.selectbox(key="sb_provider").select("DeepSeek").run()
    assert at.button(key=f"{P}_run").disabled
    assert any("DeepSeek needs an API key" in e.value for e in at.error)


# --- prompts --------------------------------------------------------------------------------------


def test_a_broken_template_blocks_run_and_names_the_placeholder():
    at = open_playground()
    choose(at, "react-advisor")
    key = setup_state.prompt_key(P, "react", "judge")
    at.text_area(key=key).set_value(at.text_area(key=key).value.replace("{answer}", "{answr}")).run()
    assert at.button(key=f"{P}_run").disabled
    assert any("{answr}" in e.value for e in at.error)
    at.button(key=f"{key}__reset").click().run()
    assert not at.button(key=f"{P}_run").disabled
    assert not any("answr" in e.value for e in at.error)


def test_an_edited_prompt_shows_its_diff_and_runs():
    at = open_playground()
    choose(at, "reflection")
    key = setup_state.prompt_key(P, "reflection", "critic")
    at.text_area(key=key).set_value(at.text_area(key=key).value + "\nBe brief.").run()
    assert any(c.language == "diff" and "+Be brief." in c.value for c in at.code)
    run(at)
    assert record(at).config["prompts"]["critic"].endswith("Be brief.")


def test_unedited_prompts_follow_the_language():
    at = open_playground()
    choose(at, "reflection")
    key = setup_state.prompt_key(P, "reflection", "critic")
    at.sidebar.segmented_control(key="sb_lang").set_value("zh").run()
    assert at.text_area(key=key).value == specs_for("reflection")["critic"].zh


# --- full offline runs, as the seeds tell them ----------------------------------------------------


def test_react_books_the_dentist_over_the_text_protocol():
    at = open_playground()
    choose(at, "react", SCENARIOS["dentist-booking"].title.en)
    run(at)
    tools = [e.name for e in record(at).events if e.kind == "tool_call"]
    assert tools == ["find_dentist", "book_appointment", "add_calendar_event"]
    assert [label.split(" — ")[0] for label in labels(at)][:3] == ["Round 1", "Round 2", "Round 3"]
    assert verdicts(at) == []
    assert ("green", "Ended · answered") in badges(at)
    _assert_finished_page(at)


def test_react_with_the_advisor_is_sent_back_twice_then_capped():
    at = open_playground()
    choose(at, "react-advisor", SCENARIOS["weather-report"].title.en)
    run(at)
    assert verdicts(at) == ["REVISE", "REVISE"]
    assert ("orange", "REVISE") in badges(at)
    assert any("Limit reached · Max judge rounds = 2" in w.value for w in at.warning)  # the limit by its label
    assert ("orange", "Ended · limit reached") in badges(at)
    assert [label for label in labels(at) if label.startswith("Judge")] == [
        "Judge · the answer of round 2 — REVISE",
        "Judge · the answer of round 4 — REVISE",
    ]
    _assert_finished_page(at)


def test_plan_and_execute_without_the_reflector_lets_the_syncing_shell_through():
    at = open_playground()
    choose(at, "plan-execute", SCENARIOS["order-99999"].title.en)
    run(at)
    assert verdicts(at) == []
    assert "step_finished" in kinds(at) and "plan" in kinds(at)
    assert ("green", "Ended · answered") in badges(at)
    assert record(at).config["reflector"] is False
    _assert_finished_page(at)


def test_plan_and_execute_with_the_reflector_replans_retries_then_passes_in_chinese():
    at = open_playground(sb_lang="zh")
    choose(at, "plan-execute-reflector", SCENARIOS["order-99999"].title.zh)
    run(at)
    assert verdicts(at) == ["REPLAN", "RETRY", "PASS"]
    # a re-plan is the pattern at work: amber like RETRY, never red (red is for real errors)
    assert [c for c, label in badges(at) if label in ev.VERDICTS] == ["orange", "orange", "green"]
    shown = labels(at)
    assert shown[0].startswith("计划") and any(label.startswith("重新规划 #1") for label in shown)
    assert any("第 2 次尝试 — PASS" in label for label in shown)
    assert blocks(at)[1] == (shown[1], ":material/alt_route:")  # step 1, sent back by REPLAN
    assert not at.error and any("第 1 步失败" in w.value for w in at.warning)  # amber, not an error box
    assert "查询中" in "".join(c.value for c in at.code)
    assert record(at).task == SCENARIOS["order-99999"].task.zh
    assert sum(1 for k in kinds(at) if k == "llm_call") == 9  # seed 03's "about 9 LLM calls"
    _assert_finished_page(at)


def test_reflection_turns_trial_division_into_a_sieve():
    at = open_playground()
    choose(at, "reflection", SCENARIOS["primes"].title.en)
    run(at)
    assert verdicts(at) == ["REVISE", "PASS"]
    assert [label for _c, label in badges(at) if label.startswith("Draft")] == ["Draft 0", "Draft 1"]
    line_diffs = [c.value for c in at.code if c.language == "diff"]
    assert line_diffs and "--- draft 0" in line_diffs[0] and "+++ draft 1" in line_diffs[0]
    assert any("<ins " in h.proto.body for h in at.get("html"))  # the word-level diff (pages/ui/diff_view.py)
    assert ("green", "Ended · passed") in badges(at)
    _assert_finished_page(at)


def test_side_by_side_diffs_show_both_drafts():
    at = open_playground()
    choose(at, "reflection")
    run(at)
    at.segmented_control(key=f"{P}_diff_layout").set_value("side by side").run()
    diffs = [h.proto.body for h in at.get("html") if "apg-diff" in h.proto.body]
    assert any("<del " in d and "<ins " not in d for d in diffs)  # the old draft, deletions struck through
    assert any("<ins " in d and "<del " not in d for d in diffs)  # the new one, insertions underlined
    # both sides named, in the draft's block and again in the latest diff at the head of the view
    assert [c.value for c in at.caption if c.value in ("Draft 0", "Draft 1")] == ["Draft 0", "Draft 1"] * 2


@pytest.mark.parametrize("variant", ["react", "plan-execute-reflector", "reflection"])
def test_a_free_task_runs_offline_and_says_it_is_scripted(variant):
    at = open_playground()
    choose(at, variant, "Free task — type your own")
    assert at.button(key=f"{P}_run").disabled  # no task yet
    assert any("Type a task" in e.value for e in at.error)
    at.text_area(key=f"{P}_free_task").input("Plan a picnic for six people.").run()
    run(at)
    assert record(at).task == "Plan a picnic for six people." and record(at).config["scenario"] is None
    final = next(e.text for e in record(at).events if e.kind == "final_answer")
    assert "Scripted offline demo" in final
    _assert_finished_page(at)


def test_edit_as_a_free_task_copies_the_scenario_task_and_tools():
    at = open_playground()
    choose(at, "react-advisor", SCENARIOS["weather-report"].title.en)
    at.button(key=f"{P}_to_free").click().run()
    assert at.selectbox(key=f"{P}_scenario").value == setup_state.FREE
    assert at.text_area(key=f"{P}_free_task").value == SCENARIOS["weather-report"].task.en
    assert at.multiselect(key=f"{P}_tools").value == ["weather", "search"]


def _keyed(node, key: str):  # noqa: ANN001, ANN202 - an AppTest block
    """The block with widget/container key `key` under `node`, or None."""
    if getattr(node, "key", None) == key:
        return node
    return next((found for c in getattr(node, "children", {}).values() if (found := _keyed(c, key)) is not None), None)


def _assert_finished_page(at: AppTest) -> None:
    """What every finished run shows: answer, end, metrics, charts, unlocked inputs, valid exports."""
    rec = record(at)
    assert rec.status == "finished" and kinds(at)[-2:] == ["final_answer", "run_finished"]
    lang = at.session_state["sb_lang"]  # the run view speaks the page's language
    assert any(m.value == f"#### {i18n.t('render.final', lang)}" for m in at.markdown)
    calls = next(m for m in at.metric if m.label == i18n.t("render.calls", lang)).value
    assert calls == str(kinds(at).count("llm_call"))  # the count is the figure, the bound its worst case
    assert i18n.t("fits.worst_case", lang, bound=rec.bound) in [c.value for c in at.caption]
    # an HTML table that wraps at 1280×720, in its keyed container
    by_role = _keyed(at.main, f"{P}_costs-by-role").table[0].value
    # one row per role that was called (named in the page's language)
    assert len(set(by_role.iloc[:, 0])) == len({e.role for e in rec.events if e.kind == "llm_call"})
    assert len(at.get("plotly_chart")) == 2
    assert not at.button(key=f"{P}_run").disabled and at.button(key=f"{P}_stop").disabled
    assert not at.selectbox(key=f"{P}_variant").disabled
    trace = ac.trace.loads(trace_json(rec))
    assert [e.kind for e in trace.events] == kinds(at)
    assert trace.result["reason"] == rec.events[-1].reason
    assert "## " in report_markdown(rec)


# --- ends that are not answers ----------------------------------------------------------------------


def test_an_endpoint_failing_mid_run_keeps_the_partial_run():
    with FakeOpenAIServer() as server:
        server.push(
            Reply("Let me check the weather.", tool_calls=(FakeCall("weather", '{"city": "Beijing"}'),)),
            Fail(400, "the model is overloaded"),
        )
        at = open_playground()
        connect(at, server.url)
        choose(at, "react", "Free task — type your own")
        at.text_area(key=f"{P}_free_task").input("How warm is Beijing today?").run()
        at.multiselect(key=f"{P}_tools").set_value(["weather"]).run()
        run(at)
    assert kinds(at) == ["run_started", "llm_call", "thought", "tool_call", "tool_result", "run_failed", "run_finished"]
    assert blocks(at) == [
        ("Round 1 — calls `weather`", ":material/check:"),
        ("Model call — failed", ":material/error:"),
    ]
    # the kind of failure named in words, the endpoint's own message kept
    assert any("the model is overloaded" in e.value and "**Bad request**" in e.value for e in at.error)
    assert ("red", "Ended · failed") in badges(at)
    assert "Beijing" in "".join(c.value for c in at.code)  # the observation before the failure
    trace = ac.trace.loads(trace_json(record(at)))
    assert trace.result["reason"] == "error" and "overloaded" in trace.result["error"]
    assert [e.kind for e in trace.events][:5] == kinds(at)[:5]
    assert trace.config["models"] == {"default": "fake-model"}
    assert not at.button(key=f"{P}_run").disabled


def test_a_typed_key_never_reaches_the_page_or_the_exports():
    key = "sk-typed-in-the-sidebar-0123456789"
    with FakeOpenAIServer() as server:
        server.push(Fail(401, f"Incorrect API key provided: {key}"))
        at = open_playground()
        connect(at, server.url)
        at.sidebar.text_input(key="sb_api_key").input(key).run()
        choose(at, "reflection")
        run(at)
        headers = {k.lower(): v for k, v in server.requests[-1].headers.items()}
        assert headers["authorization"] == f"Bearer {key}"
    shown = [getattr(el, "value", "") for el in (*at.markdown, *at.error, *at.code, *at.caption)]
    assert not [s for s in shown if isinstance(s, str) and key in s]
    assert key not in trace_json(record(at), [key]) and key not in report_markdown(record(at), [key])
    assert "**Authentication failed**" in "".join(e.value for e in at.error)


def test_a_run_whose_driver_vanished_is_settled_as_stopped_and_unlocks_the_page():
    """The toolbar's Stop or a page switch leaves a run marked running: the next run must unlock."""
    at = open_playground()
    choose(at, "reflection")
    run(at)
    rec = record(at)
    assert [e.kind for e in rec.events[:5]] == ["run_started", "token", "llm_call", "draft", "token"]
    # as if cut while the critic was streaming, its driver gone (a run's thread ends only by Stop,
    # its idle time or its end; this is the state a crash of that thread would leave)
    rec.status, rec.events, rec.handle = "running", rec.events[:5], None
    at.run()
    assert rec.status == "stopped" and rec.events[-1].kind == "run_finished"
    assert rec.events[-1].reason == "stop"
    assert ("gray", "Ended · stopped") in badges(at)
    assert not at.button(key=f"{P}_run").disabled and at.button(key=f"{P}_stop").disabled
    assert any(m.value.startswith("#### Latest draft") for m in at.markdown)
    assert any(c.value == "The reply so far: the run ended before this call did." for c in at.caption)
    assert labels(at)[-1] == "Critique 1 — stopped"


def _stop_midway() -> None:
    import streamlit as st

    from agent_core import events as ev
    from pages.ui import runs

    record = runs.begin("t", "task", {"pattern": "reflection"}, {"default": "m"}, 7)
    assert runs.claim("t") is record and runs.claim("t") is None
    assert runs.append(record, ev.RunStarted(pattern="reflection", task="task", max_llm_calls=7))
    for piece in ("def ", "f(", "): ..."):
        assert runs.append(record, ev.Token(step=0, role="actor", text=piece))
    runs.stop("t")  # the Stop button's callback, from the next script run
    late = runs.append(record, ev.LlmCall(step=0, role="actor", model="m"))  # the old run's next event
    st.session_state["result"] = (late, record.status, [(e.kind, getattr(e, "text", None)) for e in record.events])


def test_stop_keeps_what_was_recorded_and_refuses_the_old_runs_late_events():
    at = AppTest.from_function(_stop_midway, default_timeout=30)
    at.run()
    assert not at.exception
    late, status, stored = at.session_state["result"]
    assert (late, status) == (False, "stopped")
    assert stored == [("run_started", None), ("token", "def f(): ..."), ("run_finished", None)]


# --- blocks: what each box of the run view is called ---------------------------------------------


def test_order_99999_is_told_as_plan_replan_retry_pass():
    config, task = ac.for_scenario("order-99999", "zh")
    looks = final_looks(config.to_dict(), ac.stream(task, config, ac.OfflineModel()))
    assert [(label.split(" · ")[0], label.rsplit(" — ", 1)[-1], state) for label, state in looks] == [
        ("Plan — 3 steps", "3 steps", "complete"),
        ("Step 1", "REPLAN", "sent_back"),  # amber, not red: a re-plan is no error
        ("Re-plan #1 — 4 steps", "4 steps", "complete"),
        ("Step 4", "RETRY", "complete"),
        ("Step 4", "PASS", "complete"),
    ]
    assert looks[4][0].endswith("attempt 2 — PASS")


def test_a_react_round_is_named_by_the_tools_it_called_or_its_answer():
    config, task = ac.for_scenario("weather-report")
    looks = final_looks(config.to_dict(), ac.stream(task, config, ac.OfflineModel()))
    assert [label for label, _state in looks] == [
        "Round 1 — calls `weather`, `search`",
        "Round 2 — final answer",
        "Judge · the answer of round 2 — REVISE",
        "Round 3 — calls `search`",
        "Round 4 — final answer",
        "Judge · the answer of round 4 — REVISE",
    ]


def test_a_stopped_run_names_the_block_it_was_cut_in():
    config, task = ac.for_scenario("primes")
    events = list(ac.stream(task, config, ac.OfflineModel()))
    cut = [e for e in events if e.kind != "token"][:5] + [ev.RunFinished(reason="stop")]
    assert final_looks(config.to_dict(), cut)[-1] == ("Critique 1 — REVISE · stopped", "complete")
    cut = [e for e in events if e.kind != "token"][:3] + [ev.RunFinished(reason="stop")]
    assert final_looks(config.to_dict(), cut) == [("Draft 0 · first attempt — stopped", "complete")]


# --- one renderer -----------------------------------------------------------------------------------


def _draw(events_json: str, live: bool, code: bool) -> None:
    import json

    import streamlit as st

    from agent_core import events as ev
    from pages.ui.render import RunView, draw_run

    events = [ev.event_from_dict(d) for d in json.loads(events_json)]
    config = {"pattern": events[0].pattern, "code_task": code}
    if live:
        view = RunView(config, bound=7, key="v", task=events[0].task)
        for event in events:
            view.add(event)
        view.close()
    else:
        draw_run(config, events, bound=7, key="v", task=events[0].task)
    st.session_state["done"] = True


def _tree(at: AppTest) -> dict[str, list]:
    return {
        "blocks": blocks(at, "v-flow"),
        "markdown": [m.value for m in at.markdown],
        "code": [(c.language, c.value) for c in at.code],
        "caption": [c.value for c in at.caption],
        "error": [e.value for e in at.error],
        "warning": [w.value for w in at.warning],
        "metric": [(m.label, m.value) for m in at.metric],
    }


def test_a_stored_run_redraws_exactly_like_the_live_one():
    config, task = ac.for_scenario("primes")
    live_events = list(ac.stream(task, config, ac.OfflineModel()))
    stored: list[dict] = []
    for e in live_events:  # stored the way the page stores them: tokens merged per call
        d = e.to_dict()
        if d["kind"] == "token" and stored and stored[-1]["kind"] == "token" and stored[-1]["role"] == d["role"]:
            stored[-1]["text"] += d["text"]
        else:
            stored.append(d)
    assert len(stored) < len(live_events)
    trees = []
    for events, live in ((live_events, True), (stored, False)):
        at = AppTest.from_function(
            _draw,
            args=(json.dumps([e.to_dict() if isinstance(e, ev.Event) else e for e in events]), live, True),
            default_timeout=30,
        )
        at.run()
        assert not at.exception and at.session_state["done"]
        trees.append(_tree(at))
    assert trees[0] == trees[1]
    assert [label for label, _icon in trees[0]["blocks"]] == [
        "Draft 0 · first attempt",
        "Critique 1 — REVISE",
        "Refine · draft 1",
        "Critique 2 — PASS",
    ]


def test_model_text_is_shown_as_text_never_as_markup():
    hostile = "<script>alert(1)</script> ![pixel](http://evil.example/p.png) $x$ :red[boom] **bold**"
    events = [
        ev.RunStarted(pattern="react", task=hostile, max_llm_calls=3),
        ev.Token(step=1, role="actor", text=hostile),
        ev.LlmCall(step=1, role="actor", model="m"),
        ev.Thought(step=1, text=hostile),
        ev.ToolCallEvent(step=1, name="search", arguments={"query": hostile}, call_id="c1"),
        ev.ToolResult(step=1, name="search", output=hostile, is_error=True, call_id="c1"),
        ev.VerdictEvent(step=1, role="judge", verdict="REVISE", feedback=hostile, parsed=False),
        ev.FinalAnswer(text=hostile),
        ev.RunFinished(reason="answer"),
    ]
    at = AppTest.from_function(_draw, args=(json.dumps([e.to_dict() for e in events]), True, False), default_timeout=30)
    at.run()
    assert not at.exception
    rendered = [m for m in (*at.markdown, *at.error) if "script" in m.value]
    assert rendered and all(not m.proto.allow_html for m in at.markdown)
    for m in rendered:
        outside_code = re.sub(r"(`+).*?\1", "", m.value)  # code spans show their text verbatim
        assert "<script>" not in outside_code and "![pixel]" not in outside_code and ":red[" not in outside_code
    assert any("\\<script\\>" in m.value for m in rendered)
