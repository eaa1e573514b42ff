"""The Compare page under AppTest: lanes set up with the Playground's controls, run at the same time on
the offline model, then compared — a table per lane, cost charts, a diff of two answers, one export
that Replay opens. The seeds' stories: order 99999 through every pattern and the baseline (lanes set
by hand: offline, that one-click comparison is offered only where scripts play every lane), and the
goal-blind executor sent back on the two long-haired cats where the goal-aware one is not.

AppTest sees only the final tree (the lanes redrawn from their stored events); the live columns are
checked in a real browser (tests/browser/test_compare_browser.py).
"""

from __future__ import annotations

import functools
import json
import threading

from streamlit.testing.v1 import AppTest

from agent_core import events as ev
from agent_core.calls import MessageTable
from agent_core.patterns import registry
from agent_core.scenarios import SCENARIOS
from agent_core.trace import VERSION as TRACE_VERSION
from pages.ui import setup_state
from pages.ui.player import open_file
from tests.app_pages import connect, keyed, open_page
from tests.fake_openai_server import FakeOpenAIServer, Reply

open_compare = functools.partial(open_page, "pages/compare.py")


def click(at: AppTest, key: str) -> None:
    at.button(key=key).click().run()
    assert not at.exception, [e.message for e in at.exception]


def lanes(at: AppTest):
    return at.session_state["cmp_comparison"].lanes


def kinds(record) -> list[str]:
    return [e.kind for e in record.events if e.kind != "token"]


def verdicts(record) -> list[str]:
    return [e.verdict for e in record.events if e.kind == "verdict"]


def calls(record) -> int:
    return sum(1 for e in record.events if e.kind == "llm_call")


def answer_diff(at: AppTest) -> str:
    return next(c.value for c in keyed(at.main, "cmp_answer_diff").code if c.language == "diff")


def table(at: AppTest):
    return next(d for d in at.dataframe if "lane" in d.value.columns).value


# --- every pattern and the baseline on order 99999 ------------------------------------------------


def set_lanes(at: AppTest, scenario: str, variants: list[str]) -> None:
    """Lanes set up by hand, as a person does where no one-click comparison is offered."""
    at.selectbox(key="cmp_scenario").set_value(scenario).run()
    at.segmented_control(key="cmp_count").set_value(len(variants)).run()
    for i, variant in enumerate(variants):
        at.selectbox(key=f"cmp{i}_variant").set_value(variant).run()
    assert not at.exception, [e.message for e in at.exception]


def test_every_pattern_and_the_baseline_on_order_99999_run_to_the_end_and_are_compared():
    at = open_compare()
    # offline the one-click "every pattern" comparison is not offered here (only Plan-and-Execute has a
    # script for order 99999): the same four lanes, set up by hand, play and say so
    assert at.button(key="cmp_preset_patterns").disabled
    set_lanes(at, "order-99999", ["react-advisor", "plan-execute-reflector", "reflection", "direct"])
    click(at, "cmp_run")

    react, plan, reflection, direct = lanes(at)
    assert [r.status for r in (react, plan, reflection, direct)] == ["finished"] * 4
    assert [r.config["pattern"] for r in (react, plan, reflection, direct)] == [
        "react",
        "plan-execute",
        "reflection",
        "direct",
    ]
    # the baseline: one tool turn on the task's tool, then one call with tools off
    assert calls(direct) == 2 and direct.config["tools"] == ["query_order"]
    # the scenario's own pattern plays seed 03's run; the others get the task and its tool, off-script
    assert plan.config["scenario"] == "order-99999" and verdicts(plan) == ["REPLAN", "RETRY", "PASS"]
    assert calls(plan) == 9
    assert react.config["scenario"] is None and react.config["tools"] == ["query_order"]
    assert "query_order" in [e.name for e in react.events if e.kind == "tool_call"]
    assert verdicts(reflection) == ["REVISE", "PASS"]
    assert {r.task for r in (react, plan, reflection)} == {SCENARIOS["order-99999"].task.en}

    shown = table(at)
    assert list(shown["lane"]) == [
        "A · ReAct + reflection advisor",
        "B · Plan-and-Execute + Reflector",
        "C · Reflection",
        "D · Direct — one call (baseline)",
    ]
    assert list(shown["llm_calls"]) == [calls(r) for r in (react, plan, reflection, direct)]
    # offline, only Plan-and-Execute has a script for order 99999: the others play placeholder text that
    # their judges pass, and the table does not call that passed
    assert list(shown["ended"]) == [
        "placeholder (no script)",
        "passed",
        "placeholder (no script)",
        "placeholder (no script)",
    ]
    assert shown["by_role"][1] == "planner 2, executor 2, reflector 3, synthesizer 2"
    assert shown["verdict_counts"][1] == "REPLAN 1 · RETRY 1 · PASS 1"

    cost = json.loads(at.get("plotly_chart")[0].proto.spec)
    bars = [trace for trace in cost["data"] if trace["type"] == "bar"]
    assert len(bars) == 3 and all(list(b["x"]) == list(shown["lane"]) for b in bars)
    assert list(bars[0]["y"]) == list(shown["llm_calls"])
    assert len(at.get("plotly_chart")) == 1 + 4  # the costs, and one timeline per lane

    diff = at.session_state["cmp_diff_a"], at.session_state["cmp_diff_b"]
    assert diff == (0, 1)
    assert answer_diff(at).startswith("--- A · ReAct + reflection advisor\n+++ B · Plan-and-Execute + Reflector")
    assert any("<ins " in h.proto.body for h in keyed(at.main, "cmp_answer_diff").get("html"))  # word diff
    assert not at.button(key="cmp_run").disabled and at.button(key="cmp_stop").disabled


def test_the_answer_diff_follows_the_lanes_picked():
    at = open_compare()
    click(at, "cmp_run")
    at.selectbox(key="cmp_diff_a").select_index(2).run()
    assert answer_diff(at).startswith("--- C · Reflection\n+++ B · Plan-and-Execute + Reflector")
    at.selectbox(key="cmp_diff_b").select_index(2).run()
    assert "Pick two different lanes." in [c.value for c in at.caption]


def test_the_export_holds_every_lane_and_replay_opens_each_one():
    from pages.ui.lane_results import export_json

    at = open_compare()
    click(at, "cmp_run")
    comparison = at.session_state["cmp_comparison"]
    exported = export_json(comparison)
    data = json.loads(exported)
    assert data["version"] == TRACE_VERSION and data["kind"] == "comparison" and len(data["lanes"]) == 4
    opened = open_file(exported.encode())
    assert [name for name, _trace in opened] == comparison.names
    for (_name, trace), record in zip(opened, comparison.lanes, strict=True):
        assert trace.config["pattern"] == record.config["pattern"]
        assert [e.kind for e in trace.events] == kinds(record)  # tokens are not exported


# --- the other comparisons ------------------------------------------------------------------------


def test_the_goal_blind_executor_is_sent_back_where_the_goal_aware_one_is_not():
    at = open_compare()
    click(at, "cmp_preset_executor")
    assert at.selectbox(key="cmp_scenario").value == "vacuum-cats"
    assert at.session_state["cmp_count"] == 2
    assert [at.toggle(key=f"cmp{i}_opt_goal_aware_executor").value for i in range(2)] == [False, True]
    click(at, "cmp_run")
    blind, aware = lanes(at)
    assert verdicts(blind) == ["RETRY", "PASS", "PASS"] and verdicts(aware) == ["PASS", "PASS"]
    assert (calls(blind), calls(aware)) == (9, 6)
    assert (blind.config["goal_aware_executor"], aware.config["goal_aware_executor"]) == (False, True)
    assert list(table(at)["lane"]) == ["A · Goal-blind executor", "B · Goal-aware executor"]


def test_the_lenient_critic_passes_the_report_the_strict_one_sends_back_for_its_owners():
    at = open_compare()
    click(at, "cmp_preset_critic")
    strict_key = setup_state.prompt_key("cmp0", "reflection", "critic")
    assert at.text_area(key=strict_key).value.endswith("list every remaining problem.")
    assert [at.toggle(key=f"cmp{i}_opt_lenient_critic").value for i in range(2)] == [False, True]
    click(at, "cmp_run")
    strict, lenient = lanes(at)
    assert strict.config["scenario"] == lenient.config["scenario"] == "report-criteria"
    assert list(strict.config["prompts"]) == ["critic"] and "Be strict." in strict.config["prompts"]["critic"]
    assert lenient.config["prompts"] == {} and lenient.config["lenient_critic"]
    # the switch's sentence reaches the model; the offline critic plays the switch, not the sentence
    typed = lenient.typed_events()
    critic_call = next(e for e in typed if isinstance(e, ev.LlmCall) and e.role == "critic")
    assert "Be lenient." in MessageTable(typed).request(critic_call)[-1]["content"]
    assert verdicts(strict) == ["REVISE", "REVISE", "PASS"] and verdicts(lenient) == ["REVISE", "PASS"]
    assert (calls(strict), calls(lenient)) == (6, 4)
    answers = [next(e.text for e in r.events if e.kind == "final_answer") for r in (strict, lenient)]
    assert "owner:" in answers[0] and "owner:" not in answers[1]


def test_a_lane_is_a_limit_setting_edited_in_its_own_card():
    at = open_compare()
    at.segmented_control(key="cmp_count").set_value(2).run()
    at.selectbox(key="cmp0_variant").select("plan-execute-reflector").run()
    at.number_input(key="cmp1_limit_max_replans").set_value(0).run()
    assert at.number_input(key="cmp0_limit_max_replans").value == 2
    click(at, "cmp_run")
    free, capped = lanes(at)
    assert verdicts(free) == ["REPLAN", "RETRY", "PASS"]
    assert verdicts(capped) == ["REPLAN", "PASS"]
    assert [e.limit for e in capped.events if e.kind == "limit_reached"] == ["max_replans"]
    assert list(table(at)["ended"]) == ["passed", "limit reached"]


def test_a_free_task_with_tools_goes_to_every_lane_and_an_empty_one_blocks_run():
    at = open_compare()
    at.selectbox(key="cmp_scenario").select("__free__").run()
    assert at.button(key="cmp_run").disabled
    assert any("Type a task to run." in e.value for e in at.error)
    at.text_area(key="cmp_free_task").input("Check order 12345 for me.").run()
    at.multiselect(key="cmp_tools").select("query_order").run()
    click(at, "cmp_run")
    assert all(r.status == "finished" for r in lanes(at))
    assert {r.task for r in lanes(at)} == {"Check order 12345 for me."}
    assert [r.config["tools"] for r in lanes(at)] == [["query_order"]] * 4
    assert all(r.config["scenario"] is None for r in lanes(at))


def test_each_lane_can_ask_its_own_model_on_the_sidebars_endpoint():
    def reply(request):  # noqa: ANN001, ANN202 - the fake server's script
        body = request.body
        if '"verdict"' in json.dumps(body["messages"]):
            return Reply('{"verdict": "PASS", "analysis": "fine", "feedback": "no improvement needed"}')
        return Reply(f"A draft by {body['model']}.")

    with FakeOpenAIServer(reply) as server:
        at = open_compare()
        connect(at, server.url)
        at.segmented_control(key="cmp_count").set_value(2).run()
        for i in range(2):
            at.selectbox(key=f"cmp{i}_variant").select("reflection").run()
        at.text_input(key="cmp1_model").input("other-model").run()
        click(at, "cmp_run")
        asked = sorted({b["model"] for b in server.bodies})
    first, second = lanes(at)
    assert asked == ["fake-model", "other-model"]
    assert first.models == {"default": "fake-model"} and second.models == {"default": "other-model"}
    assert [e.text for e in second.events if e.kind == "final_answer"] == ["A draft by other-model."]
    assert at.session_state["cmp_comparison"].names[1] == "B · Reflection · other-model"


# --- stopping -------------------------------------------------------------------------------------


def _run_then_stop() -> None:
    import threading
    import time

    import streamlit as st

    from pages.ui import lane_state as lv
    from pages.ui.render import RunView

    st.session_state["sb_offline_speed"] = "slow"  # 20 tokens a second: every lane is mid-call at the Stop
    lv.init_state("en")
    lv.start()
    comparison = lv.current()
    assert lv.claim(comparison) and not lv.claim(comparison)
    holders = [st.container() for _ in comparison.lanes]
    views = []
    for i, (holder, record) in enumerate(zip(holders, comparison.lanes, strict=True)):
        with holder:
            views.append(RunView(record.config, bound=record.bound, key=lv.view_key(i), compact=True))
    threading.Timer(1.0, lv.stop_lanes, args=(comparison,)).start()  # the Stop button, from another run
    began = time.perf_counter()
    lv.drive(comparison, views, holders)
    st.session_state["result"] = (time.perf_counter() - began, comparison)


def test_stop_ends_every_lane_at_once_and_keeps_what_each_recorded():
    at = AppTest.from_function(_run_then_stop, default_timeout=60)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    took, comparison = at.session_state["result"]
    assert took < 2.0
    assert not [t for t in threading.enumerate() if t.name.startswith("lane-") and t.is_alive()]
    for record in comparison.lanes:
        assert record.status == "stopped"
        assert record.events[0].kind == "run_started" and record.events[-1].kind == "run_finished"
        assert record.events[-1].reason == "stop"
        assert "token" in [e.kind for e in record.events]  # it had started streaming
        assert sum(1 for e in record.events if e.kind == "run_finished") == 1  # nothing after the stop


def test_lanes_cut_short_are_redrawn_as_stopped_with_their_events_and_unlock_the_page():
    """The toolbar's Stop or a page switch leaves lanes marked running: the next run settles them."""
    at = open_compare()
    click(at, "cmp_run")
    kept = []
    for record in lanes(at):
        record.status, record.events = "running", record.events[:5]
        kept.append([e.kind for e in record.events])
    at.run()
    assert not at.exception
    for record, before in zip(lanes(at), kept, strict=True):
        assert record.status == "stopped" and kinds(record)[:-1] == [k for k in before if k != "token"]
        assert record.events[-1].reason == "stop"
    assert list(table(at)["ended"]) == ["stopped"] * 4
    assert not at.button(key="cmp_run").disabled and at.button(key="cmp_stop").disabled
    assert not at.selectbox(key="cmp0_variant").disabled


def test_a_rerun_redraws_the_lanes_from_their_events():
    at = open_compare()
    click(at, "cmp_run")
    events_before = [list(r.events) for r in lanes(at)]
    labels = [e.label for e in at.expander]
    at.run()
    assert [list(r.events) for r in lanes(at)] == events_before
    assert [e.label for e in at.expander] == labels
    assert sum(1 for m in at.markdown if m.value == "#### Final answer") == 4


def test_every_one_click_comparison_fits_compares_lanes():
    # each preset is one lane a variant and Compare draws four: a pattern that brings its own presets
    # stays out of the classic one, or the seventh pattern would push the baseline off the page
    from pages.ui.lane_presets import PRESETS
    from pages.ui.lane_state import MAX_LANES

    for preset in PRESETS.values():
        assert 2 <= len(preset.lanes) <= MAX_LANES, (preset.id, [lane.variant for lane in preset.lanes])
    assert PRESETS["patterns"].lanes[-1].variant == registry.baseline().compare_variant
