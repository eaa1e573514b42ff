"""LATS's scenario plays its run on the offline model, in both languages: rounding halves up, the tree
backtracks from a dead-end branch (every draft that rounds the binary float fails 1.005 and 0.285) to
the decimal one, whose child passes every test. Compare's "Reflection vs self-consistency vs LATS" plays
all three lanes on it and they end differently; the CLI, the Playground, Replay and Eval run it."""

from __future__ import annotations

import io
import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.cli import main
from agent_core.evaluation import EvalRow, bundled_tasks, evaluate
from agent_core.patterns import registry
from agent_core.patterns.lats.offline import FLOOR, HALF_UP
from agent_core.sandbox import run_python_tests


def play(lang="en", pattern=None, **overrides):
    config, task = ac.for_scenario("round-half-up", lang, **({"pattern": pattern} if pattern else {}), **overrides)
    return config, ac.run(task, config, ac.OfflineModel())


def of(result, cls):
    return [e for e in result.events if isinstance(e, cls)]


def tree(result, status=None):
    return [e for e in of(result, ev.TreeNode) if status is None or e.status == status]


@pytest.mark.parametrize(
    ("lang", "why"), [("en", "already below the half before any rounding rule sees it"), ("zh", "它就已经小于 .5 了")]
)
def test_the_tree_backtracks_from_the_float_branch_to_the_decimal_one_which_passes(lang, why):
    config, result = play(lang)
    valued = {e.node: e.value for e in tree(result, "evaluated")}
    assert valued == {1: 0.4, 2: 0.2, 3: 0.6, 4: 0.6}, "both children of the task fail; node 1 is the better"
    grown = tree(result, "expanded")
    assert [(e.node, e.uct) for e in grown] == [(0, None), (1, 1.2326), (2, 1.3774)]
    assert grown[2].note.endswith("= 0.20 + 1.00·√(ln 4 / 1) = 1.38"), "the note shows UCT's working"
    failed = {e.node: e.note for e in tree(result, "failed")}
    assert set(failed) == {1, 2, 3, 4} and why in failed[3], "the reflection names why the float branch fails"
    (solved,) = tree(result, "solved")
    assert (solved.node, solved.parent, solved.value) == (5, 2, 1.0)
    assert [e.node for e in tree(result, "chosen")] == [0, 2, 5]
    assert result.reason == "pass" and result.final_answer == HALF_UP.strip()
    assert run_python_tests(result.final_answer, config.options.tests).passed
    assert [c.role for c in of(result, ev.LlmCall)] == ["expander", "self_reflector"] * 4 + ["expander"]
    assert result.llm_calls == 9 < ac.call_bound(config) == 16
    # the decimal branch's expansion carries every reflection so far, the float branch's among them
    last = of(result, ev.LlmCall)[-1]
    assert last.context.version == 5 and last.context.attempt == 1


def test_a_wider_expansion_prunes_the_builtin_round_and_still_backtracks():
    _, result = play(branching=3, max_nodes=10)
    (pruned,) = tree(result, "pruned")
    assert pruned.node == 3 and pruned.value == 0.0 and "half to even" in pruned.note
    assert 3 not in [e.node for e in tree(result, "expanded")], "UCT never grows a pruned node"
    assert result.reason == "pass" and result.final_answer == HALF_UP.strip()


def test_with_little_exploration_the_search_stays_in_the_dead_end_until_the_budget():
    _, result = play(exploration=20)
    assert 2 not in [e.node for e in tree(result, "expanded")], "c = 0.2: the decimal branch is never grown"
    (limit,) = of(result, ev.LimitReached)
    assert limit.limit == "max_nodes" and result.reason == "cap"
    assert run_python_tests(result.final_answer, ac.for_scenario("round-half-up")[0].options.tests).passed is False


def test_without_the_tests_the_evaluator_values_each_candidate_and_the_story_holds():
    _, result = play(test_evaluator=False)
    verdicts = of(result, ev.VerdictEvent)
    assert [v.verdict for v in verdicts] == ["REVISE"] * 4 + ["PASS"] and all(v.role == "evaluator" for v in verdicts)
    assert {e.node: e.value for e in tree(result, "evaluated")} == {1: 0.5, 2: 0.3, 3: 0.6, 4: 0.6}
    assert result.final_answer == HALF_UP.strip() and result.llm_calls == 14
    strict = play(test_evaluator=False, threshold=100)[1]
    assert strict.reason == "cap", "the evaluator's 0.95 does not reach a threshold of 1.0"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compares_preset_plays_reflection_self_consistency_and_lats_differently(lang):
    preset = registry.presets()["search"]
    assert preset.scenario == "round-half-up" and [lane.variant for lane in preset.lanes] == [
        "reflection",
        "self-consistency",
        "lats",
    ]
    seen = []
    for lane in preset.lanes:
        spec = registry.pattern_of_variant(lane.variant)
        config, task = ac.for_scenario(
            preset.scenario, lang, pattern=spec.name, **registry.variants()[lane.variant].forced
        )
        result = ac.run(task, config, ac.OfflineModel())
        code = result.final_answer.replace("```python", "").replace("```", "").strip()
        seen.append(
            (
                spec.name,
                result.reason,
                result.llm_calls,
                run_python_tests(code, config.options.tests).passed
                if spec.name != "self-consistency"
                else code == FLOOR.strip(),
            )
        )
    # Reflection revises the float draft to its cap; the vote picks the common float draft; the tree passes
    assert seen == [("reflection", "cap", 7, False), ("self-consistency", "answer", 3, True), ("lats", "pass", 9, True)]


def test_a_free_task_grows_a_small_generic_tree_labelled_as_scripted():
    result = ac.run("Name a colour for the bakery's sign.", ac.configure("lats"), ac.OfflineModel())
    assert result.reason == "pass" and "Scripted offline demo" in result.final_answer
    assert [e.node for e in tree(result, "chosen")] == [0, 1, 3]


def cli(*argv):
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_the_cli_lists_and_runs_the_scenario_in_both_languages(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code, listed = cli("scenarios")
    assert code == 0 and "round-half-up" in {line.split()[0] for line in listed.splitlines() if line.strip()}
    path = tmp_path / "tree.json"
    code, out = cli("run", "--pattern", "lats", "--scenario", "round-half-up", "--trace-out", str(path))
    assert code == 0 and "UCT chose node 2 to grow" in out and "Node 5 solves the task (value 1.00)" in out
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["config"]["max_nodes"] == 8 and saved["result"]["reason"] == "pass"
    code, out = cli("run", "--scenario", "round-half-up", "--lang", "zh", "--branching", "3", "--max-nodes", "10")
    assert code == 0 and "Node 3 is pruned (value 0.00: never grown)" in out
    assert "带符号地加 0.5" in out, "the reflections speak Chinese in a Chinese run"


def test_eval_runs_lats_on_the_bundled_tasks_and_the_tests_fix_every_bug():
    rows = [r for r in evaluate(bundled_tasks(), ["lats", "lats+tests"], ac.OfflineModel()) if isinstance(r, EvalRow)]
    failed = {p: {r.task_id for r in rows if r.pattern == p and not r.passed} for p in ("lats", "lats+tests")}
    # the evaluator alone passes running_max's empty-list bug and takes the sieve its review asked for on
    # primes_up_to, bug and all (a review finds what it looks for); the tests catch all three
    assert failed == {"lats": {"bundled/running_max", "bundled/primes_up_to"}, "lats+tests": set()}
    calls = {r.task_id: r.llm_calls for r in rows if r.pattern == "lats+tests"}
    assert calls["bundled/fizzbuzz"] == 3 and calls["bundled/is_palindrome"] == 1, "draft, reflection, fix"
    assert registry.eval_entries()["lats+tests"][1].tests


def test_the_playground_grows_the_tree_live_and_draws_it_under_the_graph():
    from tests.app_pages import badges, keyed, open_page

    at = open_page("pages/playground.py")
    at.selectbox(key="pg_variant").select("lats").run()
    assert at.number_input(key="pg_limit_max_nodes").value == 8 and at.number_input(key="pg_limit_branching").value == 2
    at.button(key="pg_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    flow = keyed(at.main, "pg_view-flow")
    assert [b.label for b in flow.children.values()] == [
        "Iteration 1 — growing the task",
        "Iteration 2 — growing node 1 \\(UCT 1\\.23\\)",
        "Iteration 3 — node 5 solves the task",
    ]
    charts = [g.proto.spec for g in at.get("graphviz_chart")]
    assert len(charts) == 2 and '"2" -> "5" [color="#4338CA", penwidth=2.8]' in charts[1]
    assert any("Search tree" in c.value for c in at.caption)
    assert ("green", "Ended · passed") in badges(at)


def test_replay_draws_the_bundled_chinese_tree_with_its_reflections():
    from tests.app_pages import open_page

    at = open_page("pages/replay.py")
    at.selectbox(key="rp_example").select("round-half-up.zh").run()
    assert not at.exception, [e.message for e in at.exception]
    tree_chart = [g.proto.spec for g in at.get("graphviz_chart") if '"5"' in g.proto.spec]
    assert tree_chart and "#5 · value 1.00" in tree_chart[0] and any("Search tree" in c.value for c in at.caption)
    assert any("Node 3 failed" in c.value and "二进制浮点数" in c.value for c in at.caption)


def test_the_playground_pauses_before_the_evaluator_and_a_persons_pass_solves_the_first_candidate():
    from tests.app_pages import open_page
    from tests.step_mode import headline, record, settle

    at = open_page("pages/playground.py")
    at.selectbox(key="pg_variant").select("lats").run()
    at.toggle(key="pg_opt_test_evaluator").set_value(False).run()  # the evaluator values the candidates
    at.toggle(key="pg_step").set_value(True).run()
    at.multiselect(key="pg_step_breaks").set_value(["role:evaluator"]).run()
    at.button(key="pg_run").click().run()
    assert record(at).handle.paused and headline(at).endswith("The **evaluator** is about to value candidate 1.")
    at.button(key="pg_step_answer").click().run()
    at.segmented_control(key="pg_step_verdict_evaluator_2").set_value("PASS").run()
    at.button(key="pg_step_send_answer_evaluator_2").click().run()
    settle(at)
    rec = record(at)
    assert rec.status == "finished" and rec.events[-1].reason == "pass" and rec.events[-1].llm_calls == 2
    assert [e.role for e in rec.events if e.kind == "human_reply"] == ["evaluator"] and not at.exception
