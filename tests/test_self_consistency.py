"""Self-consistency: k independent samples, each final answer read and normalised, the vote (majority, the
tie rule), the optional arbiter and its reply grammar, the bound, the temperature on the call record,
step mode at the arbiter with the room's poll, exact forks, and the blocks drawn as lanes."""

from __future__ import annotations

import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.fork import Reply, fork, reply_problem
from agent_core.offline import OfflineModel
from agent_core.patterns import registry
from agent_core.patterns.self_consistency import SPEC
from agent_core.patterns.self_consistency.loop import call_bound
from agent_core.patterns.self_consistency.roles import parse_pick
from agent_core.patterns.self_consistency.vote import ballot, extract, tally
from agent_core.stepping import Breakpoints, RunHandle
from agent_core.testing import ScriptedModel
from tests.waits import wait_for

ARBITER = registry.get("self-consistency").role("arbiter")


def config(**options):
    return ac.configure("self-consistency", **options)


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def pick(verdict, choice="", feedback="because"):
    return json.dumps({"verdict": verdict, "choice": choice, "feedback": feedback})


# --- reading a sample's final answer ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "key", "rule"),
    [
        ("Natalia sold 48 + 24 = 72 clips.\n#### 72", "72", "gsm8k"),
        ("So 12 + 15 = 27, and 50 - 27 = 23.\nAnswer: 23 yuan", "23", "answer"),
        ("3 × 4 = 12 …\nThe answer is $1,250.00.", "1250", "answer"),
        ("先算 3 × 129 = 387。\n答案：408 元", "408", "answer"),
        ("最终答案是 7", "7", "answer"),
        ("<think>maybe 5?</think>She has 3 + 4 = 7 apples left.", "7", "number"),
        ("```python\ndef f(x):\n    return x * 2\n```", "def f(x): return x * 2", "code"),
        ("Paris.", "paris", "text"),
        ("Answer: Paris.", "paris", "answer"),
    ],
)
def test_a_samples_final_answer_is_read_by_the_first_rule_that_applies(reply, key, rule):
    cast = ballot(1, reply)
    assert cast is not None and (cast.key, cast.rule) == (key, rule)


def test_answers_that_mean_the_same_number_are_one_answer_and_an_empty_reply_abstains():
    votes = [ballot(i, text) for i, text in enumerate(["Answer: 1,250", "#### 1250.00", "答案：1250 元"], 1)]
    assert len({b.key for b in votes}) == 1
    assert ballot(4, "") is None and ballot(5, "<think>hmm</think>") is None and extract("   ") is None


# --- the vote ---------------------------------------------------------------------------------------


def test_the_vote_overturns_one_wrong_sample_and_its_verdict_shows_the_tally():
    model = ScriptedModel(["3 × 129 = 377 … Answer: 398", "… Answer: 408", "… so 408.\nAnswer: 408"])
    result = ac.run("What does the customer pay?", config(num_samples=3), model)
    assert result.final_answer == "… Answer: 408" and result.llm_calls == 3 == call_bound(config(num_samples=3))
    (vote,) = of(result.events, ev.VerdictEvent)
    assert (vote.role, vote.verdict, vote.step) == ("vote", "PASS", None)
    assert vote.feedback == "408: 2 of 3 samples (2, 3); 398: 1 of 3 (1)"
    assert vote.analysis == "Majority: 408 (2 of 3)."
    assert [t.step for t in of(result.events, ev.Thought)] == [1, 2, 3]
    assert [c.context.attempt for c in of(result.events, ev.LlmCall)] == [1, 2, 3]


def test_a_tie_goes_to_the_answer_that_came_first_and_is_no_majority():
    model = ScriptedModel(["Answer: 6", "Answer: 5", "Answer: 5", "Answer: 6"])
    result = ac.run("task", config(num_samples=4), model)
    (vote,) = of(result.events, ev.VerdictEvent)
    assert result.final_answer == "Answer: 6", "6 and 5 have two each; 6 came first"
    assert vote.verdict == "REVISE" and "tie between 6, 5" in vote.analysis and "sample 1" in vote.analysis
    flipped = ac.run("task", config(num_samples=4), ScriptedModel(["Answer: 5", "Answer: 6", "Answer: 6", "Answer: 5"]))
    assert flipped.final_answer == "Answer: 5"


def test_a_plurality_wins_without_a_majority_and_the_tally_names_every_answer():
    replies = ["Answer: 1", "Answer: 2", "Answer: 2", "Answer: 3", "Answer: 4"]
    result = ac.run("task", config(num_samples=5), ScriptedModel(replies))
    (vote,) = of(result.events, ev.VerdictEvent)
    assert result.final_answer == "Answer: 2" and vote.verdict == "REVISE"
    assert vote.feedback == "2: 2 of 5 samples (2, 3); 1: 1 of 5 (1); 3: 1 of 5 (4); 4: 1 of 5 (5)"


def test_no_sample_answering_ends_with_an_empty_answer_and_says_so():
    result = ac.run("task", config(num_samples=2, use_arbiter=True), ScriptedModel(["", "  "]))
    (vote,) = of(result.events, ev.VerdictEvent)
    assert result.final_answer == "" and result.llm_calls == 2, "nothing to arbitrate"
    assert vote.verdict == "REVISE" and vote.analysis == "No sample gave an answer."
    assert vote.feedback == "2 gave no answer"


def test_the_tally_speaks_chinese_in_a_chinese_run():
    model = ScriptedModel(["答案：398", "答案：408", "答案：408"])
    result = ac.run("顾客要付多少钱？", config(num_samples=3, lang="zh"), model)
    (vote,) = of(result.events, ev.VerdictEvent)
    assert vote.feedback == "408：3 次采样中 2 次（第 2, 3 次）；398：3 次采样中 1 次（第 1 次）"
    assert vote.analysis == "多数：408（3 次中 2 次）。"


def test_tally_orders_its_answers_by_first_appearance_and_finds_the_winner():
    counted = tally(3, [b for b in (ballot(1, "Answer: 9"), ballot(2, "Answer: 8"), ballot(3, "Answer: 8")) if b])
    assert [g.shown for g in counted.groups] == ["9", "8"] and counted.winner.shown == "8" and counted.majority


def test_the_vote_is_a_role_no_model_is_called_in_named_the_vote_in_both_languages():
    from agent_core.errors import ConfigError
    from pages.ui import i18n

    vote = registry.role("vote")
    assert vote is SPEC.role("vote") and (vote.label.en, vote.label.zh) == ("vote", "投票") and not vote.model
    # nothing binds a model to it, caps it, pauses before it or answers as it: only its verdict carries it
    assert "vote" not in SPEC.role_names() and "vote" not in registry.role_names()
    assert SPEC.role_names() == ("sampler", "arbiter") and {p.role for p in SPEC.prompts} <= set(SPEC.role_names())
    with pytest.raises(ConfigError, match="unknown role 'vote'"):
        config(max_output_tokens_by_role={"vote": 64})
    assert i18n.role_labels("en")["vote"] == "vote" and i18n.role_labels("zh")["vote"] == "投票"


def test_opentelemetry_carries_the_vote_as_the_verdicts_role():
    from agent_core import examples, otel

    request = otel.export_request(examples.load("parcel-time-arbiter", "en"))
    spans = [s for rs in request["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    verdicts = [
        {a["key"]: next(iter(a["value"].values())) for a in item.get("attributes", [])}
        for span in spans
        for item in span.get("events", [])
        if item["name"] == "agent_patterns.verdict"
    ]
    assert [(v["agent_patterns.role"], v["agent_patterns.verdict"]) for v in verdicts] == [
        ("vote", "REVISE"),
        ("arbiter", "REVISE"),
    ]


# --- the arbiter ------------------------------------------------------------------------------------


def test_the_arbiter_is_not_called_when_it_is_off_or_every_sample_agrees():
    off = ScriptedModel(["Answer: 1", "Answer: 2", "Answer: 3"])
    assert ac.run("t", config(num_samples=3), off).llm_calls == 3
    agree = ScriptedModel(["Answer: 7", "Answer: 7", "Answer: 7"])
    result = ac.run("t", config(num_samples=3, use_arbiter=True), agree)
    assert result.llm_calls == 3 and agree.roles() == ["sampler"] * 3
    assert [v.role for v in of(result.events, ev.VerdictEvent)] == ["vote"]


def test_the_arbiter_chooses_another_answer_by_its_letter_and_its_verdict_follows_the_vote():
    model = ScriptedModel(["Answer: 225", "Answer: 215", "Answer: 205", pick("REVISE", "B", "a clock has 60 minutes")])
    result = ac.run("How many minutes?", config(num_samples=3, use_arbiter=True), model)
    assert model.roles() == ["sampler"] * 3 + ["arbiter"] and result.final_answer == "Answer: 215"
    vote, review = of(result.events, ev.VerdictEvent)
    assert (vote.role, review.role, review.verdict) == ("vote", "arbiter", "REVISE")
    assert review.feedback == "a clock has 60 minutes" and review.analysis == "Chooses B: 215 over the vote's A: 225."
    prompt = model.requests[-1].messages[-1].content
    assert "### A · 225" in prompt and "### C · 205" in prompt and "A · 225 —" in prompt.split("## The vote's pick")[1]


@pytest.mark.parametrize("reply", [pick("PASS"), pick("REVISE", "A"), pick("", "225"), pick("REVISE", "(a)")])
def test_the_arbiter_keeping_the_pick_by_pass_its_letter_or_the_answer_itself_is_a_pass(reply):
    model = ScriptedModel(["Answer: 225", "Answer: 215", "Answer: 205", reply])
    result = ac.run("t", config(num_samples=3, use_arbiter=True), model)
    review = of(result.events, ev.VerdictEvent)[-1]
    assert review.verdict == "PASS" and review.parsed and result.final_answer == "Answer: 225"


def test_a_malformed_arbiter_reply_is_asked_again_then_survives_as_an_unparsed_verdict():
    model = ScriptedModel(["Answer: 1", "Answer: 2", "I like the second one", pick("REVISE", "Z")])
    result = ac.run("t", config(num_samples=2, use_arbiter=True), model)
    assert model.roles() == ["sampler", "sampler", "arbiter", "arbiter"]
    assert model.requests[-1].context.repair, "the second arbiter call is the repair re-ask"
    review = of(result.events, ev.VerdictEvent)[-1]
    assert review.role == "arbiter" and not review.parsed and review.verdict == "PASS"
    assert "names no answer" in review.analysis and result.final_answer == "Answer: 1"
    assert result.reason == "answer" and result.llm_calls == 4 == call_bound(config(num_samples=2, use_arbiter=True))


def test_without_the_repair_re_ask_a_malformed_arbiter_reply_falls_back_at_once():
    model = ScriptedModel(["Answer: 1", "Answer: 2", "{not json"])
    result = ac.run("t", config(num_samples=2, use_arbiter=True, repair_reask=False), model)
    assert result.llm_calls == 3 and not of(result.events, ev.VerdictEvent)[-1].parsed


def test_the_arbiters_grammar_reads_replies_and_turns_a_persons_line_into_one():
    assert ARBITER.verdicts == ("PASS", "REVISE") and ARBITER.read(pick("REVISE", "B"), ())[1] is None
    assert json.loads(ARBITER.verdict_reply("revise: B the clock is not decimal")) == {
        "verdict": "REVISE",
        "choice": "B",
        "feedback": "the clock is not decimal",
    }
    assert json.loads(ARBITER.verdict_reply("PASS"))["verdict"] == "PASS"
    assert reply_problem(ARBITER, "B, I think") is not None and reply_problem(ARBITER, pick("REVISE")) is not None
    assert parse_pick('{"verdict": "MAYBE", "choice": "A"}') is None
    assert parse_pick('```json\n{"choice": "c"}\n```').choice == "C"


# --- the bound and the temperature ---------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 3, 8])
@pytest.mark.parametrize("arbiter", [False, True])
@pytest.mark.parametrize("reask", [False, True])
def test_the_call_bound_is_never_exceeded_and_is_reached(k, arbiter, reask):
    cfg = config(num_samples=k, use_arbiter=arbiter, repair_reask=reask)
    # every sample differs and the arbiter never says anything readable: the worst case
    distinct = ScriptedModel.forever(lambda r: "nonsense" if r.role == "arbiter" else f"Answer: {r.context.attempt}")
    events = list(ac.stream("t", cfg, distinct))
    assert distinct.calls == call_bound(cfg) == k + ((2 if reask else 1) if arbiter else 0)
    assert of(events, ev.RunStarted)[0].max_llm_calls == call_bound(cfg) and events[-1].llm_calls == distinct.calls
    assert ac.call_bound(cfg) == call_bound(cfg), "the registry's bound is the pattern's"


def test_samples_go_at_the_patterns_temperature_unless_the_run_sets_one_and_the_record_keeps_it():
    model = ScriptedModel.forever(lambda r: "Answer: 1" if r.role == "sampler" else pick("PASS"))
    events = list(ac.stream("t", config(num_samples=2), model))
    assert [r.temperature for r in model.requests] == [0.7, 0.7]
    assert [c.temperature for c in of(events, ev.LlmCall)] == [0.7, 0.7], "the call record says what was sent"
    hotter = ScriptedModel.forever(lambda r: f"Answer: {r.context.attempt}" if r.role == "sampler" else pick("PASS"))
    list(ac.stream("t", config(num_samples=2, use_arbiter=True, sample_temperature=1.1), hotter))
    assert [r.temperature for r in hotter.requests] == [1.1, 1.1, None], "the arbiter goes at the run's"
    set_by_person = ScriptedModel.forever(lambda r: "Answer: 1")
    list(ac.stream("t", config(num_samples=2, temperature=0.2), set_by_person))
    assert [r.temperature for r in set_by_person.requests] == [0.2, 0.2]


@pytest.mark.parametrize("bad", [-0.1, 2.5, True, "hot"])
def test_a_sample_temperature_out_of_range_is_refused_before_any_call(bad):
    with pytest.raises(ac.ConfigError, match="sample_temperature must be a number from 0 to 2"):
        config(sample_temperature=bad)


def test_no_tools_are_offered_even_when_the_config_names_some():
    model = ScriptedModel.forever(lambda r: "Answer: 1")
    list(ac.stream("t", config(num_samples=2, tools=("weather",)), model))
    assert all(not r.tools for r in model.requests) and not SPEC.uses_tools


def test_a_traces_config_with_another_patterns_fields_loads_its_own():
    loaded = ac.config_from_dict({"pattern": "self-consistency", "num_samples": 4, "max_rounds": 3})
    assert loaded.options.num_samples == 4 and "max_rounds" not in loaded.to_dict()


# --- step mode, the poll, forks ---------------------------------------------------------------------


def test_step_mode_pauses_before_the_arbiter_and_a_persons_verdict_is_read():
    cfg, task = ac.for_scenario("parcel-time-arbiter", "en")
    handle = RunHandle.for_run(task, cfg, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"arbiter"})))
    handle.start()
    wait_for(lambda: handle.paused or not handle.alive)
    pending = handle.pending
    assert (pending.at, pending.role, pending.call) == ("call", "arbiter", 4)
    assert pending.grammar is ARBITER and "arbiter" in pending.grammar.about(pending.request.context)("en")
    assert "### B · 215" in pending.messages[-1].content
    handle.answer(ARBITER.verdict_reply("REVISE: C the ten minutes are right"))  # a person overrules the arbiter
    assert handle.join(10)
    events = [e for e in handle.drain() if not isinstance(e, ev.Token)]
    review = of(events, ev.VerdictEvent)[-1]
    assert review.role == "arbiter" and review.verdict == "REVISE" and review.feedback == "the ten minutes are right"
    assert of(events, ev.FinalAnswer)[0].text.endswith("Answer: 205")
    assert [e.model for e in of(events, ev.LlmCall)][-1] == "person" and events[-1].llm_calls == 4


def test_a_verdict_breakpoint_pauses_at_the_vote_and_at_the_arbiters_verdict():
    cfg, task = ac.for_scenario("parcel-time-arbiter", "en")
    handle = RunHandle.for_run(task, cfg, OfflineModel(), breakpoints=Breakpoints(verdicts=True)).start()
    seen = []
    while True:
        wait_for(lambda: handle.paused or not handle.alive)
        if not handle.alive:
            break
        seen.append((handle.pending.at, handle.pending.role, handle.pending.event.verdict))
        handle.resume()
    assert seen == [("verdict", "vote", "REVISE"), ("verdict", "arbiter", "REVISE")]
    vote = registry.get("self-consistency").role("vote")
    assert not vote.verdicts and vote.answer is None, "a pause at the vote offers no verdict for a person to give"


def test_the_rooms_poll_opens_on_the_arbiter_and_its_verdict_answers_it():
    from types import SimpleNamespace

    from agent_core.rooms import MemoryStore, Rooms
    from pages.ui.room_cast import Cast

    room = Rooms(MemoryStore())
    code, secret = room.open()
    for seat in ("participant-1", "sceptic-22"):
        room.join(code, seat)
    cfg, task = ac.for_scenario("parcel-time-arbiter", "en")
    run = SimpleNamespace(run_id="run-1", task=task, config=cfg.to_dict(), models={}, bound=9, fork=None, handle=None)
    cast = Cast(room, code, secret, run).start()  # the trainer's run on the room, as the Playground casts it
    handle = RunHandle.for_run(
        task, cfg, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"arbiter"})), on_event=cast.in_run
    )
    run.handle = handle.start()
    wait_for(lambda: handle.paused or not handle.alive)
    opened = room.open_poll(code, secret, "run-1", handle.pending.call, handle.pending.role, ("PASS", "REVISE"))
    wait_for(lambda: room.pause(code) is not None)
    assert room.poll(code).is_open, "the vote before it did not answer it"
    room.vote(code, "participant-1", opened.id, "REVISE")
    room.vote(code, "sceptic-22", opened.id, "PASS")
    handle.resume()
    assert handle.join(10)
    wait_for(lambda: room.run(code)["ended"])
    state = room.poll(code)
    assert state.answer == "REVISE" and state.tally == {"REVISE": 1, "PASS": 1}


def timeless(events):
    drop = {"t", "latency_ms", "elapsed_ms"}
    return [{k: v for k, v in e.to_dict().items() if k not in drop} for e in events if not isinstance(e, ev.Token)]


@pytest.mark.parametrize("scenario", ["order-total-vote", "parcel-time-arbiter"])
def test_a_fork_at_any_sample_or_the_arbiter_without_an_edit_is_exact(scenario):
    cfg, task = ac.for_scenario(scenario, "zh")
    parent = list(ac.stream(task, cfg, OfflineModel()))
    calls = len(of(parent, ev.LlmCall))
    for at in range(1, calls + 1):
        stream, recorded = fork(parent, at, cfg, OfflineModel())
        assert timeless(stream) == timeless(parent), f"fork at call {at}"
        assert recorded.first_difference is None


def test_a_fork_at_the_slipping_sample_with_the_right_sum_makes_the_vote_unanimous():
    cfg, task = ac.for_scenario("order-total-vote", "en")
    parent = list(ac.stream(task, cfg, OfflineModel()))
    stream, _ = fork(
        parent, 1, cfg, OfflineModel(), reply=Reply("3 × 129 = 387; 387 + 59 - 50 + 12 = 408.\nAnswer: 408")
    )
    forked = [e for e in stream if not isinstance(e, ev.Token)]
    (vote,) = of(forked, ev.VerdictEvent)
    assert vote.feedback == "408: 3 of 3 samples (1, 2, 3)" and forked[-1].llm_calls == 3
    assert of(forked, ev.LlmCall)[0].model == "person"


def test_a_fork_at_the_arbiter_with_a_persons_pass_keeps_the_tie_rules_pick():
    cfg, task = ac.for_scenario("parcel-time-arbiter", "en")
    parent = list(ac.stream(task, cfg, OfflineModel()))
    stream, _ = fork(parent, 4, cfg, OfflineModel(), reply=Reply(ARBITER.verdict_reply("PASS")))
    forked = [e for e in stream if not isinstance(e, ev.Token)]
    assert of(forked, ev.VerdictEvent)[-1].verdict == "PASS" and of(forked, ev.FinalAnswer)[0].text.endswith("225")


# --- blocks: each sample a lane, the vote and the arbiter below ------------------------------------


def test_each_sample_is_its_own_block_drawn_as_a_lane_and_the_vote_has_its_own():
    from pages.ui.blocks import final_blocks

    cfg, task = ac.for_scenario("parcel-time-arbiter", "en")
    shown = cfg.to_dict()
    blocks = final_blocks(shown, ac.stream(task, cfg, OfflineModel()), "en")
    assert [b.title for b in blocks] == [
        "Sample 1 of 3",
        "Sample 2 of 3",
        "Sample 3 of 3",
        "Vote",
        "Arbiter · reviews the vote",
    ]
    assert [b.suffix for b in blocks[3:]] == ["REVISE", "REVISE"]
    assert [SPEC.block_lane(b.ident, shown) for b in blocks] == [
        (("samples", 0), 0, 3),
        (("samples", 0), 1, 3),
        (("samples", 0), 2, 3),
        None,
        None,
    ]
    wide = {**shown, "num_samples": 6}
    assert [SPEC.block_lane(("sampler", i), wide) for i in (4, 5)] == [(("samples", 0), 3, 4), (("samples", 1), 0, 4)]
    zh = final_blocks(shown, ac.stream(task, cfg, OfflineModel()), "zh")
    assert [zh[0].title, zh[3].title, zh[4].title] == ["第 1 次采样（共 3 次）", "投票", "仲裁者 · 审查投票"]


def test_the_graph_walks_samples_and_the_vote_then_the_arbiter():
    from pages.ui import graphs

    cfg, task = ac.for_scenario("parcel-time-arbiter", "en")
    shown, trail, active = cfg.to_dict(), [], None
    for event in ac.stream(task, cfg, OfflineModel()):
        node = graphs.node_for(event, shown, active)
        if node is not None and node != active:
            trail.append(node)
            active = node
    assert trail == ["samples", "vote", "samples", "vote", "samples", "vote", "arbiter", "end"]
    assert set(trail) <= {n for edge in SPEC.edges(shown) for n in edge[:2]}
