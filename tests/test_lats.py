"""LATS: UCT picks where the tree grows, each candidate is valued (the evaluator's reply grammar, or the
unit tests), failures are reflected on and carried into later expansions, the search stops on a
solution or at the node budget, and the bound max_nodes · (2 + r) is reached and never passed. Step
mode pauses at the evaluator (a person's PASS, the room's poll), forks are exact, and the tree_node
events survive a trace and an OTLP round trip and reach every consumer through their view."""

from __future__ import annotations

import json
import math

import pytest

import agent_core as ac
from agent_core import event_views, metrics, otel, trace
from agent_core import events as ev
from agent_core.fork import Reply, fork
from agent_core.offline import OfflineModel
from agent_core.otel import importing
from agent_core.patterns import registry
from agent_core.patterns.lats import SPEC
from agent_core.patterns.lats.loop import FALLBACK_VALUE, call_bound
from agent_core.patterns.lats.roles import parse_value
from agent_core.patterns.lats.tree import Tree
from agent_core.report import markdown_report
from agent_core.stepping import Breakpoints, RunHandle
from agent_core.testing import ScriptedModel
from tests.waits import wait_for

EVALUATOR = registry.get("lats").role("evaluator")


def config(**options):
    return ac.configure("lats", **options)


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def value(v, reason="because"):
    return json.dumps({"value": v, "reason": reason})


def nodes(events, status=None):
    return [e for e in of(events, ev.TreeNode) if status is None or e.status == status]


# --- UCT ------------------------------------------------------------------------------------------


def test_uct_is_the_mean_value_plus_the_exploration_bonus_and_backtracks_when_a_branch_keeps_failing():
    tree = Tree()
    a, b = tree.add(tree.root), tree.add(tree.root)
    tree.backpropagate(a, 0.4)
    tree.backpropagate(b, 0.2)
    leaf, score = tree.select(1.0)
    assert leaf is a and score == pytest.approx(0.4 + math.sqrt(math.log(2) / 1))
    for v in (0.6, 0.6):  # a's two children: better than a, no solution
        tree.backpropagate(tree.add(a), v)
    assert (tree.root.visits, a.visits, a.mean) == (4, 3, pytest.approx(1.6 / 3))
    # a's mean is still the higher, but b was visited once against a's three: UCT goes back to b
    assert tree.uct(a, 1.0) == pytest.approx(1.6 / 3 + math.sqrt(math.log(4) / 3))
    assert tree.uct(b, 1.0) == pytest.approx(0.2 + math.sqrt(math.log(4) / 1))
    assert tree.select(1.0)[0] is b
    # with little exploration the search stays in a's branch, on its older best child
    assert tree.select(0.5)[0] is a.children[0]
    assert tree.select(0.0)[0] is a.children[0], "c = 0: the best mean value, ties to the older node"


def test_solved_and_pruned_children_are_never_selected_and_a_node_with_only_those_is_a_leaf_again():
    tree = Tree()
    dead, good = tree.add(tree.root), tree.add(tree.root)
    tree.backpropagate(dead, 0.0)
    tree.backpropagate(good, 0.1)
    dead.status = "pruned"
    assert tree.select(0.0)[0] is good
    good.status = "pruned"
    assert tree.select(1.0) == (tree.root, None)


# --- the evaluator's reply grammar ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"value": 0.6, "reason": "close"}', (0.6, "close")),
        ('```json\n{"value": 7, "reason": "out of ten"}\n```', (0.7, "out of ten")),
        ('{"score": "85", "feedback": "percent"}', (0.85, "percent")),
        ("0.7 — the sign is right", (0.7, "the sign is right")),
        ("Value: 70%", (0.7, "")),
        ("7/10: almost", (0.7, "almost")),
        ("评分：0.8，不错", (0.8, "不错")),
    ],
)
def test_an_evaluators_value_is_read_tolerantly(reply, expected):
    found = parse_value(reply)
    assert (found.value, found.reason) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "1. The code is wrong",
        "I would say 0.5",
        '{"value": true}',
        '{"value": "high"}',
        '{"reason": "no value"}',
        "150",
        "",
        '{"value": NaN}',
    ],
)
def test_a_reply_without_a_value_is_no_value(reply):
    assert parse_value(reply) is None


def test_the_evaluators_role_is_verdict_like_and_turns_a_persons_line_into_a_value():
    assert EVALUATOR.verdicts == ("PASS", "REVISE") and EVALUATOR.verdict_at == "draft"
    assert json.loads(EVALUATOR.verdict_reply("pass: every test holds")) == {"value": 1.0, "reason": "every test holds"}
    assert json.loads(EVALUATOR.verdict_reply("REVISE: floats"))["value"] == 0.0
    assert EVALUATOR.verdict_reply("0.6: close") == "0.6: close", "a value of one's own goes as written"
    assert EVALUATOR.read("0.6: close", ()) == ("0.60", None) and EVALUATOR.read("looks fine", ())[1]
    assert registry.role("evaluator") is EVALUATOR and registry.role("self_reflector").verdicts == ()


# --- the loop -------------------------------------------------------------------------------------


def scripted(values, drafts=None):
    """A model whose evaluator gives `values` in order; the expander writes "candidate <n>"."""
    values = list(values)

    def reply(request):
        if request.role == "evaluator":
            return values.pop(0)
        if request.role == "self_reflector":
            return f"reflection on {request.context.version}"
        return (drafts or {}).get(request.context.version, f"candidate {request.context.version}")

    return ScriptedModel.forever(reply)


def test_a_failed_candidates_reflection_reaches_every_later_expansion_and_the_solution_ends_the_search():
    model = scripted([value(0.5), value(0.3), value(0.95, "right")])
    events = list(ac.stream("task", config(branching=2, max_nodes=6), model))
    expands = [r for r in model.requests if r.role == "expander"]
    assert "reflection on 1" in expands[1].messages[-1].content, "the sibling sees the first one's reflection"
    assert "candidate 1" in expands[1].messages[-1].content, "... and is asked for a different approach"
    assert all(f"reflection on {n}" in expands[2].messages[-1].content for n in (1, 2))
    assert [(e.node, e.status) for e in nodes(events) if e.status in ("expanded", "solved", "failed")] == [
        (0, "expanded"),
        (1, "failed"),
        (2, "failed"),
        (1, "expanded"),
        (3, "solved"),
    ]
    assert [e.node for e in nodes(events, "chosen")] == [0, 1, 3]
    assert events[-1].reason == "pass" and of(events, ev.FinalAnswer)[0].text == "candidate 3"
    assert [(v.role, v.verdict) for v in of(events, ev.VerdictEvent)] == [
        ("evaluator", "REVISE"),
        ("evaluator", "REVISE"),
        ("evaluator", "PASS"),
    ]
    assert model.roles() == ["expander", "evaluator", "self_reflector"] * 2 + ["expander", "evaluator"]


def test_a_candidate_valued_zero_is_pruned_and_never_grown():
    model = scripted([value(0.0, "hopeless"), value(0.4), value(0.95)])
    events = list(ac.stream("task", config(branching=2), model))
    assert [e.node for e in nodes(events, "pruned")] == [1]
    assert [e.node for e in nodes(events, "expanded")] == [0, 2], "UCT passed the pruned node by"


@pytest.mark.parametrize("threshold", [50, 90])
def test_the_threshold_decides_what_solves(threshold):
    events = list(ac.stream("task", config(threshold=threshold, max_nodes=2), scripted([value(0.6), value(0.6)])))
    assert events[-1].reason == ("pass" if threshold == 50 else "cap")


def test_a_malformed_value_is_asked_again_then_counts_at_the_fallback_and_the_run_goes_on():
    model = scripted(["I like it.", "Still no number, sorry.", value(0.95)])
    events = list(ac.stream("task", config(), model))
    unread, read = of(events, ev.VerdictEvent)
    assert not unread.parsed and unread.verdict == "REVISE" and "gave no value" in unread.analysis
    assert [r.context.repair for r in model.requests if r.role == "evaluator"] == [False, True, False]
    first = next(e for e in nodes(events, "evaluated") if e.node == 1)
    assert first.value == FALLBACK_VALUE, "neither solved nor pruned"
    assert read.parsed and read.verdict == "PASS" and events[-1].reason == "pass"


def test_without_the_repair_re_ask_a_malformed_value_falls_back_at_once():
    model = scripted(["no idea", value(0.95)])
    events = list(ac.stream("task", config(repair_reask=False), model))
    assert [v.parsed for v in of(events, ev.VerdictEvent)] == [False, True] and events[-1].reason == "pass"


def test_the_node_budget_stops_the_search_with_the_best_valued_candidate():
    model = scripted([value(v) for v in (0.3, 0.7, 0.5, 0.2, 0.6)])
    events = list(ac.stream("task", config(branching=2, max_nodes=5), model))
    (limit,) = of(events, ev.LimitReached)
    assert (limit.limit, limit.value) == ("max_nodes", 5) and "node 2" in limit.message
    assert events[-1].reason == "cap" and of(events, ev.FinalAnswer)[0].text == "candidate 2"
    assert [e.node for e in nodes(events, "chosen")] == [0, 2]
    assert len({e.node for e in nodes(events)} - {0}) == 5


def test_the_run_wide_budget_stops_cleanly_with_the_best_candidate_so_far():
    model = scripted([value(0.3), value(0.7)])
    events = list(ac.stream("task", config(max_llm_calls=5), model))
    assert events[-1].reason == "budget" and of(events, ev.FinalAnswer)[0].text == "candidate 2"


# --- the bound ------------------------------------------------------------------------------------


def never_solved(request):
    """The worst case: no evaluator reply ever parses, so every candidate is re-asked and reflected on."""
    if request.role == "evaluator":
        return "hmm"
    return f"{request.role} {request.context.version}"


@pytest.mark.parametrize("max_nodes", [1, 5, 8])
@pytest.mark.parametrize("branching", [1, 2, 3])
@pytest.mark.parametrize("reask", [False, True])
def test_the_call_bound_is_reached_and_never_passed(max_nodes, branching, reask):
    cfg = config(max_nodes=max_nodes, branching=branching, repair_reask=reask)
    model = ScriptedModel.forever(never_solved)
    events = list(ac.stream("t", cfg, model))
    assert model.calls == call_bound(cfg) == max_nodes * (2 + (2 if reask else 1)) == ac.call_bound(cfg)
    assert of(events, ev.RunStarted)[0].max_llm_calls == call_bound(cfg) and events[-1].llm_calls == model.calls


@pytest.mark.parametrize("max_nodes", [1, 4])
def test_with_unit_tests_a_candidate_costs_two_calls_at_most(max_nodes):
    cfg = config(max_nodes=max_nodes, test_evaluator=True, tests="assert f() == 1")
    model = ScriptedModel.forever(lambda r: "def f():\n    return 0" if r.role == "expander" else "it returns 0")
    events = list(ac.stream("t", cfg, model))
    assert model.calls == call_bound(cfg) == 2 * max_nodes and "evaluator" not in model.roles()
    assert len(of(events, ev.ToolResult)) == max_nodes and all(e.is_error for e in of(events, ev.ToolResult))


@pytest.mark.parametrize(("tests", "message"), [("", "no tests"), ("assert (", "do not parse")])
def test_the_test_evaluator_refuses_missing_or_broken_tests_before_any_call(tests, message):
    with pytest.raises(ac.ConfigError, match=message):
        registry.validate(config(test_evaluator=True, tests=tests))


# --- step mode, the poll, forks -------------------------------------------------------------------


def free_run():
    return ac.configure("lats", lang="en"), "Write a short welcome note for the new hires."


def test_step_mode_pauses_before_the_evaluator_and_a_persons_pass_solves_the_candidate():
    cfg, task = free_run()
    handle = RunHandle.for_run(task, cfg, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"evaluator"})))
    handle.start()
    wait_for(lambda: handle.paused or not handle.alive)
    pending = handle.pending
    assert (pending.at, pending.role, pending.call) == ("call", "evaluator", 2)
    assert pending.grammar is EVALUATOR and "candidate 1" in pending.grammar.about(pending.request.context)("en")
    handle.answer(EVALUATOR.verdict_reply("PASS: good enough for a first week"))
    assert handle.join(10)
    events = [e for e in handle.drain() if not isinstance(e, ev.Token)]
    (verdict,) = of(events, ev.VerdictEvent)
    assert (verdict.verdict, verdict.feedback) == ("PASS", "good enough for a first week")
    assert events[-1].reason == "pass" and events[-1].llm_calls == 2
    assert [e.model for e in of(events, ev.LlmCall)][-1] == "person"


def test_a_verdict_breakpoint_pauses_at_each_of_the_evaluators_verdicts():
    cfg, task = free_run()
    handle = RunHandle.for_run(task, cfg, OfflineModel(), breakpoints=Breakpoints(verdicts=True)).start()
    seen = []
    while True:
        wait_for(lambda: handle.paused or not handle.alive)
        if not handle.alive:
            break
        seen.append((handle.pending.at, handle.pending.role, handle.pending.event.verdict))
        handle.resume()
    assert seen == [
        ("verdict", "evaluator", "REVISE"),
        ("verdict", "evaluator", "REVISE"),
        ("verdict", "evaluator", "PASS"),
    ]


def test_the_rooms_poll_opens_on_the_evaluator_and_its_verdict_answers_it():
    from types import SimpleNamespace

    from agent_core.rooms import MemoryStore, Rooms
    from pages.ui.room_cast import Cast

    room = Rooms(MemoryStore())
    code, secret = room.open()
    for seat in ("participant-1", "sceptic-22"):
        room.join(code, seat)
    cfg, task = free_run()
    run = SimpleNamespace(
        run_id="run-lats", task=task, config=cfg.to_dict(), models={}, bound=20, fork=None, handle=None
    )
    cast = Cast(room, code, secret, run).start()  # the trainer's run on the room, as the Playground casts it
    handle = RunHandle.for_run(
        task, cfg, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"evaluator"})), on_event=cast.in_run
    )
    run.handle = handle.start()
    wait_for(lambda: handle.paused or not handle.alive)
    opened = room.open_poll(code, secret, "run-lats", handle.pending.call, handle.pending.role, ("PASS", "REVISE"))
    room.vote(code, "participant-1", opened.id, "PASS")
    room.vote(code, "sceptic-22", opened.id, "REVISE")
    handle.resume()
    wait_for(lambda: room.poll(code).answer is not None)  # the first verdict answers it; the run pauses again after
    state = room.poll(code)
    assert state.answer == "REVISE" and state.tally == {"PASS": 1, "REVISE": 1} and not state.is_open
    handle.stop()
    assert handle.join(10)
    wait_for(lambda: room.run(code)["ended"])


def timeless(events):
    drop = {"t", "latency_ms", "elapsed_ms"}
    return [{k: v for k, v in e.to_dict().items() if k not in drop} for e in events if not isinstance(e, ev.Token)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_fork_at_any_call_without_an_edit_is_exact(lang):
    cfg, task = ac.for_scenario("round-half-up", lang)
    parent = list(ac.stream(task, cfg, OfflineModel()))
    calls = len(of(parent, ev.LlmCall))
    for at in range(1, calls + 1):
        stream, recorded = fork(parent, at, cfg, OfflineModel())
        assert timeless(stream) == timeless(parent), f"fork at call {at}"
        assert recorded.first_difference is None


def test_a_fork_at_the_first_expansion_with_the_right_code_solves_at_the_root():
    from agent_core.patterns.lats.offline import HALF_UP

    cfg, task = ac.for_scenario("round-half-up", "en")
    parent = list(ac.stream(task, cfg, OfflineModel()))
    stream, _ = fork(parent, 1, cfg, OfflineModel(), reply=Reply(f"```python\n{HALF_UP.strip()}\n```"))
    forked = [e for e in stream if not isinstance(e, ev.Token)]
    assert forked[-1].reason == "pass" and forked[-1].llm_calls == 1
    assert [e.node for e in nodes(forked, "chosen")] == [0, 1] and of(forked, ev.LlmCall)[0].model == "person"


def test_a_fork_at_the_third_expansion_keeps_the_search_in_the_float_branch_one_node_longer():
    # the recorded prefix serves the task's two children and the reflections on them; from call 5 (the
    # first child of node 1) the fork goes on live under a smaller exploration weight
    cfg, task = ac.for_scenario("round-half-up", "en")
    parent = list(ac.stream(task, cfg, OfflineModel()))
    narrow = cfg.replace(exploration=30)
    stream, _ = fork(parent, 5, narrow, OfflineModel())
    forked = [e for e in stream if not isinstance(e, ev.Token)]
    grown = [e.node for e in nodes(forked, "expanded")]
    assert grown[:2] == [0, 1] and grown[2] != 2, "c = 0.3: UCT does not go back to node 2 yet"


# --- tree_node through traces, OTLP and the consumers -----------------------------------------------


def test_tree_nodes_round_trip_through_a_trace_and_an_otlp_export_and_import():
    cfg, task = ac.for_scenario("round-half-up", "zh")
    events = list(ac.stream(task, cfg, OfflineModel()))
    tr = trace.Trace.of(cfg.to_dict(), events)
    loaded = trace.loads(tr.dumps())
    assert nodes(loaded.events) == nodes(events) and len(nodes(events)) == 20
    (imported,) = importing.loads(otel.dumps(loaded))
    back = imported[1].events
    assert [(e.node, e.parent, e.status, e.value, e.uct, e.note) for e in nodes(back)] == [
        (e.node, e.parent, e.status, e.value, e.uct, e.note) for e in nodes(events)
    ]
    spans = json.loads(otel.dumps(loaded))["resourceSpans"][0]["scopeSpans"][0]["spans"]
    named = [x["name"] for s in spans for x in s.get("events", [])]
    assert named.count("agent_patterns.tree_node") == 20


def test_every_consumer_words_a_tree_node_through_its_view():
    from agent_core.cli import describe
    from pages.ui.player import describe as caption

    solved = ev.TreeNode(step=3, node=5, parent=2, depth=2, value=1.0, status="solved", note="all 5 tests passed")
    assert event_views.view_of("tree_node") is SPEC.event_views["tree_node"]
    assert describe(solved) == "  Node 5 solves the task (value 1.00): all 5 tests passed"
    assert caption(solved, "zh") == "节点 5 解决了任务（价值 1.00）：all 5 tests passed"
    cfg, task = ac.for_scenario("round-half-up", "en")
    events = list(ac.stream(task, cfg, OfflineModel()))
    report = markdown_report(cfg.to_dict(), events, {"default": "offline"})
    assert "UCT chose node 2 to grow" in report and "Node 5 solves the task" in report
    assert metrics.summary(events).counts == {"tree_nodes": 5, "tree_solved": 1, "tree_pruned": 0, "tree_depth": 2}
    assert event_views.count_label("tree_pruned", "zh") == "剪枝"


def test_the_tree_figure_lights_the_chosen_path_and_dims_the_failed_branch():
    cfg, task = ac.for_scenario("round-half-up", "en")
    figure = SPEC.event_views["tree_node"].figure(list(ac.stream(task, cfg, OfflineModel())))
    states = {n.id: n.state for n in figure.nodes}
    assert states == {"0": "chosen", "1": "expanded", "2": "chosen", "3": "failed", "4": "failed", "5": "answer"}
    edges = {(e.source, e.target): e.state for e in figure.edges}
    assert edges == {
        ("0", "1"): "",
        ("0", "2"): "chosen",
        ("1", "3"): "dimmed",
        ("1", "4"): "dimmed",
        ("2", "5"): "chosen",
    }
    labels = {n.id: n.label("en") for n in figure.nodes}
    assert labels["1"].startswith("#1 · value 0.40\nmean 0.53 · visits 3") and labels["0"] == "Task\nvisits 5"
    assert {figure.states[s].tone for s in ("chosen", "answer", "failed", "dimmed")} == {"lit", "good", "bad", "dim"}


def test_a_hostile_tree_is_drawn_bounded_and_its_loops_add_nothing():
    looped = [ev.TreeNode(node=n, parent=(n + 1) % 500, depth=n % 7, value=0.5, status="failed") for n in range(500)]
    figure = SPEC.event_views["tree_node"].figure(looped)
    assert len(figure.nodes) == 60 and figure.hidden == 440
