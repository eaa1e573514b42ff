"""Orchestrator–workers on the offline model: the Tuesday errands, in both languages. Three workers, one
per errand; the booking worker asks for a slot the dentist does not have and its calls run out; the
orchestrator's review re-dispatches it with the free slot; the reply cites all three. Then the same run
in step mode with a person at the review, forked at a worker's call, on the CLI, drawn and reported."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import examples, report
from agent_core.fork import Reply, fork
from agent_core.messages import ToolCall
from agent_core.offline import OfflineModel
from agent_core.patterns import registry
from agent_core.patterns.orchestrator.replies import parse_review
from agent_core.stepping import Breakpoints, RunHandle

SCENARIO = "tuesday-errands"
LANGS = ["en", "zh"]


def play(lang="en", **overrides):
    config, task = ac.for_scenario(SCENARIO, lang, **overrides)
    return ac.run(task, config, OfflineModel())


def of(events, cls):
    return [e for e in (events.events if hasattr(events, "events") else events) if isinstance(e, cls)]


def statuses(result):
    return [(f.step_id, f.status) for f in of(result, ev.StepFinished)]


def timeless(events):
    drop = {"t", "latency_ms", "elapsed_ms"}
    return [
        {k: v for k, v in e.to_dict().items() if k not in drop}
        for e in events
        if e.kind not in ("token", "paused", "resumed")
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_the_failed_booking_is_re_dispatched_with_the_free_slot_and_the_reply_cites_all_three(lang):
    result = play(lang)
    (split, revised) = of(result, ev.PlanEvent)
    assert [s["tool"] for s in split.steps] == ["weather", "find_dentist", "query_order"]
    assert statuses(result) == [(1, "done"), (2, "failed"), (3, "done"), (2, "done")]
    assert [v.verdict for v in of(result, ev.VerdictEvent)] == ["REDISPATCH", "DONE"]
    # the first attempt: the tool's error, at the worker's step cap (its third call has tools off)
    booking = [r for r in of(result, ev.ToolResult) if r.name == "book_appointment"]
    assert [r.is_error for r in booking] == [True, False]
    worker2 = [c for c in of(result, ev.LlmCall) if c.role == "worker" and c.context.step_id == 2]
    assert [(c.context.attempt, c.context.round, bool(c.tools)) for c in worker2] == [
        (1, 1, True),
        (1, 2, True),
        (1, 3, False),
        (2, 1, True),
        (2, 2, True),
    ]
    # the sharper instruction names the slot, and the second attempt books it without searching again
    again = of(result, ev.StepStarted)[-1]
    assert (again.step_id, again.attempt) == (2, 2) and "Tue 14:00" in again.description
    assert revised.revision == 1 and [s["status"] for s in revised.steps] == ["done", "pending", "done"]
    assert [c.name for c in of(result, ev.ToolCallEvent) if c.step == 2] == [
        "find_dentist",
        "book_appointment",
        "book_appointment",
    ]
    answer = result.final_answer
    assert "BK-4821" in answer and "10001" in answer and "2026-11-27 15:20" in answer
    assert (
        ("umbrella" in answer.lower() and "light rain" in answer)
        if lang == "en"
        else ("带伞" in answer and "小雨" in answer)
    )
    assert result.reason == "pass" and result.llm_calls == 13 <= ac.call_bound(result_config(lang)) == 34


def result_config(lang):
    return ac.for_scenario(SCENARIO, lang)[0]


def test_with_two_calls_per_worker_the_booking_is_found_not_made_and_the_review_still_sends_it_back():
    result = play(worker_steps=2)
    assert statuses(result) == [(1, "done"), (2, "done"), (3, "done"), (2, "done")]
    assert [v.verdict for v in of(result, ev.VerdictEvent)] == ["REDISPATCH", "DONE"]
    assert "BK-4821" in result.final_answer and result.reason == "pass"


@pytest.mark.parametrize("lang", LANGS)
def test_without_the_review_the_failure_is_reported_honestly(lang):
    result = play(lang, review=False)
    assert not of(result, ev.VerdictEvent) and not of(result, ev.LimitReached) and result.llm_calls == 9
    assert ("could not book" in result.final_answer) if lang == "en" else ("没能帮您约上" in result.final_answer)
    assert "BK-" not in result.final_answer and "10001" in result.final_answer, "what succeeded is still answered"


def test_with_one_call_per_worker_no_tool_runs_and_after_two_rounds_the_reply_says_nothing_was_booked():
    result = play(max_dispatches=2, worker_steps=1)  # a worker's only call has tools off
    assert not of(result, ev.ToolCallEvent) and [v.verdict for v in of(result, ev.VerdictEvent)] == ["REDISPATCH"]
    assert statuses(result)[-1] == (2, "done") and result.reason == "answer"
    assert "BK-" not in result.final_answer and "could not book" in result.final_answer


def test_with_two_subtasks_the_split_is_cut_and_the_order_is_not_answered():
    result = play(max_subtasks=2)
    assert [(e.limit, e.value) for e in of(result, ev.LimitReached)] == [("max_subtasks", 2)]
    assert "BK-4821" in result.final_answer and "10001" not in result.final_answer


# --- step mode: a person at the review ---------------------------------------------------------------


def wait_paused(handle, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not (handle.paused or not handle.alive):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)
    return handle.pending


@pytest.mark.parametrize("lang", LANGS)
def test_step_mode_pauses_at_the_review_and_reads_a_persons_redispatch(lang):
    config, task = ac.for_scenario(SCENARIO, lang)
    handle = RunHandle.for_run(
        task, config, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"orchestrator_review"}))
    ).start()
    role = registry.get("orchestrator").role("orchestrator_review")
    pending = wait_paused(handle)
    assert (pending.at, pending.role, pending.call) == ("call", "orchestrator_review", 9)
    assert pending.grammar.verdicts == ("DONE", "REDISPATCH")
    assert "round 1" in pending.grammar.about(pending.request.context).en
    assert "FAILED" in pending.messages[-1].content or "失败" in pending.messages[-1].content
    handle.answer(role.verdict_reply("REDISPATCH: book Bright Smile Dental at Tue 14:00, exactly as listed"))
    pending = wait_paused(handle)
    assert (pending.role, pending.call) == ("orchestrator_review", 12)
    handle.answer(role.verdict_reply("DONE"))
    assert handle.join(10)
    events = [e for e in handle.drain() if not isinstance(e, ev.Token)]
    humans = [e for e in events if isinstance(e, ev.HumanReply)]
    assert [parse_review(h.text).decision for h in humans] == ["REDISPATCH", "DONE"]
    assert [v.verdict for v in of(events, ev.VerdictEvent)] == ["REDISPATCH", "DONE"]
    # the person named no subtask: the failed one runs again, with the person's words as its note
    again = of(events, ev.StepStarted)[-1]
    assert (again.step_id, again.attempt) == (2, 2) and "Tue 14:00" not in again.description
    note = next(c for c in of(events, ev.LlmCall) if c.role == "worker" and c.context.attempt == 2)
    assert note.context.has_hint
    assert "BK-4821" in events[-2].text and events[-1].reason == "pass" and events[-1].llm_calls == 13


def test_a_verdict_breakpoint_pauses_after_the_review_with_its_grammar():
    config, task = ac.for_scenario(SCENARIO)
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(verdicts=True)).start()
    pending = wait_paused(handle)
    assert (pending.at, pending.role, pending.event.verdict) == ("verdict", "orchestrator_review", "REDISPATCH")
    assert pending.grammar.verdicts == ("DONE", "REDISPATCH")
    handle.resume()
    wait_paused(handle)
    handle.resume()
    assert handle.join(10)


def test_the_room_can_poll_the_review():
    from agent_core.rooms import MemoryStore, RoomError, Rooms

    room = Rooms(MemoryStore())
    code, secret = room.open()
    room.join(code, "participant-1")
    room.start_run(code, secret, {"run_id": "run-1", "task": "t", "config": {}, "models": {}, "bound": 9})
    room.heartbeat(code, secret)
    choices = registry.role("orchestrator_review").verdicts  # what the pause bar offers the room
    held = room.open_poll(code, secret, "run-1", 9, "orchestrator_review", choices)
    assert held.choices == ("DONE", "REDISPATCH")
    room.vote(code, "participant-1", held.id, "REDISPATCH")
    with pytest.raises(RoomError):
        room.vote(code, "participant-1", held.id, "PASS")
    room.reveal(code, secret, held.id, "REDISPATCH")  # what the run's verdict event reveals
    assert room.poll(code).answer == "REDISPATCH" and room.poll(code).tally == {"REDISPATCH": 1}
    assert not registry.role("orchestrator").verdicts, "a split is no verdict to poll: no Ask the room"


# --- exact forks -------------------------------------------------------------------------------------


def test_forked_at_the_hasty_booking_call_with_the_right_slot_no_re_dispatch_is_needed():
    config, task = ac.for_scenario(SCENARIO)
    parent = list(ac.stream(task, config, OfflineModel()))
    calls = of(parent, ev.LlmCall)
    at = next(
        n for n, c in enumerate(calls, 1) if c.role == "worker" and c.context.step_id == 2 and c.context.round == 2
    )
    right = ToolCall("call_fork", "book_appointment", json.dumps({"dentist_id": "D-17", "slot": "Tue 14:00"}))
    stream, recorded = fork(parent, at, config, OfflineModel(), reply=Reply("", (right,)))
    forked = [e for e in stream if not isinstance(e, ev.Token)]
    assert recorded.first_difference is None
    assert [v.verdict for v in of(forked, ev.VerdictEvent)] == ["DONE"]
    assert [(f.step_id, f.status) for f in of(forked, ev.StepFinished)] == [(1, "done"), (2, "done"), (3, "done")]
    assert "BK-4821" in forked[-2].text and forked[-1].llm_calls == 10 and forked[-1].reason == "pass"
    # the same fork point without an edit plays the recorded run again, exactly
    stream, _ = fork(parent, at, config, OfflineModel())
    assert timeless(list(stream)) == timeless(parent)


# --- the CLI, the views, the report --------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_cli_lists_and_runs_the_scenario(lang):
    listed = subprocess.run(
        [sys.executable, "-m", "agent_core", "scenarios"], capture_output=True, text=True, timeout=60
    )
    assert any(line.split()[:2] == [SCENARIO, "orchestrator"] for line in listed.stdout.splitlines())
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core",
            "run",
            "--pattern",
            "orchestrator",
            "--scenario",
            SCENARIO,
            "--lang",
            lang,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "verdict orchestrator_review REDISPATCH" in proc.stdout and "finished (pass): 13 LLM calls" in proc.stdout
    assert "BK-4821" in proc.stdout


def test_a_person_answers_the_review_from_the_cli(tmp_path):
    out = tmp_path / "t.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core",
            "run",
            "--pattern",
            "orchestrator",
            "--scenario",
            SCENARIO,
            "--human",
            "orchestrator_review",
            "--trace-out",
            str(out),
        ],
        input="REDISPATCH: the slot must be Tue 14:00\nDONE\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    events = json.loads(out.read_text(encoding="utf-8"))["events"]
    assert [json.loads(e["text"])["decision"] for e in events if e["kind"] == "human_reply"] == ["REDISPATCH", "DONE"]
    assert "finished (pass)" in proc.stdout


def test_the_graph_lights_each_worker_on_its_own_branch():
    from pages.ui import graphs

    config, task = ac.for_scenario(SCENARIO)
    result = ac.run(task, config, OfflineModel())
    shown = config.to_dict()
    trail, active = [], None
    for event in result.events:
        node = graphs.node_for(event, shown, active)
        if node is not None and node != active:
            trail.append(node)
            active = node
    # the results meet in the review, which sends the booking back, then passes the round to the synthesizer
    assert trail == [
        "orchestrator",
        "worker1",
        "worker2",
        "worker3",
        "review",
        "orchestrator",
        "worker2",
        "review",
        "synthesizer",
        "end",
    ]
    spec = registry.get("orchestrator")
    drawn = {n for edge in spec.edges(shown) for n in edge[:2]}
    assert set(trail) <= drawn and {"worker1", "worker2", "worker3"} <= drawn and "worker4" not in drawn
    for n in range(1, 7):  # a branch per subtask the run may hold, each with a label
        assert {f"worker{i}" for i in range(1, n + 1)} <= {b for a, b, _ in spec.edges({"max_subtasks": n})}
    assert all(b == "synthesizer" for a, b, _ in spec.edges({"review": False}) if a.startswith("worker"))
    assert "rankdir=LR" in graphs.dot(shown, "worker2", trail)


@pytest.mark.parametrize("lang", LANGS)
def test_one_block_per_worker_dispatch_under_its_round(lang):
    from pages.ui.blocks import final_blocks, final_looks

    tr = examples.load(SCENARIO, lang)
    titles = [label.split(" — ")[0] for label, _state in final_looks(tr.config, tr.events, lang)]
    if lang == "en":
        assert titles[0] == "Orchestrator · split into subtasks"
        assert [t.split(" · ")[0] for t in titles[1:4]] == ["Step 1", "Step 2", "Step 3"]
        assert titles[4:6] == ["Orchestrator · review", "Orchestrator · re-dispatch, round 2"]
        assert titles[6].startswith("Step 2 · Book Bright Smile Dental") and titles[6].endswith("attempt 2")
        assert titles[7:] == ["Orchestrator · review", "Synthesis"]
    else:
        assert titles[0] == "编排者 · 拆分子任务" and titles[-1] == "综合" and "编排者 · 重新分派，第 2 轮" in titles
    states = [state for _label, state in final_looks(tr.config, tr.events, lang)]
    assert states[2] == "sent_back", "the failed booking is drawn amber, not red"
    # each worker's block in its subtask's lane (one lane per subtask the run may hold); the rest below
    spec = registry.get("orchestrator")
    lanes = [spec.block_lane(b.ident, tr.config) for b in final_blocks(tr.config, tr.events, lang)]
    row = [("workers", i, 3) for i in range(3)]
    assert lanes == [None, *row, None, None, row[1], None, None]
    assert spec.block_lane(("step", 9, 1), {**tr.config, "max_subtasks": 4}) == ("workers", 3, 4)


def test_the_report_tells_the_run():
    tr = examples.load(SCENARIO, "en")
    text = report.markdown_report(tr.config, tr.events)
    assert "`REDISPATCH`" in text and "`DONE`" in text and "Started (attempt 2)" in text
    assert "| orchestrator_review |" in text and "BK-4821" in text


def test_learn_and_the_compare_preset_find_the_pattern_through_its_spec():
    spec = registry.get("orchestrator")
    assert spec.lesson.scenario == SCENARIO and spec.lesson.variant in registry.variants()
    assert registry.variant_of({"pattern": "orchestrator"}) == "orchestrator"
    assert registry.variant_of({"pattern": "orchestrator", "review": False}) == "orchestrator-one-round"
    preset = registry.presets()["orchestrator-review"]
    assert preset.scenario == SCENARIO and not spec.compare_variant, "it brings its own comparison"
    from agent_core.offline import covers

    calls = []
    for lane in preset.lanes:
        variant = registry.variants()[lane.variant]
        assert covers(SCENARIO, registry.pattern_of_variant(lane.variant).name)
        calls.append(play(**variant.forced, **lane.switches).llm_calls)
    assert calls == [9, 13], "two reviews and a second booking attempt: four calls, and the dentist is booked"


# --- the Playground -----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_playground_runs_the_errands_offline_and_draws_each_dispatch(lang):
    from tests.app_pages import badges, keyed, open_page

    at = open_page("pages/playground.py", sb_lang=lang)
    at.selectbox(key="pg_variant").select("orchestrator").run()
    at.selectbox(key="pg_scenario").set_value(SCENARIO).run()
    assert not at.exception and not [t for t in at.toggle if t.key == "pg_opt_review"], "the variant fixes it"
    assert at.number_input(key="pg_limit_max_dispatches").value == 3
    at.button(key="pg_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert [label for _color, label in badges(at) if label in ev.VERDICTS] == ["REDISPATCH", "DONE"]
    # a round reads split -> its workers side by side, one lane per subtask -> review; the booking sent back
    # runs again in its own lane of the second round's row, under the re-dispatch
    flow = keyed(at.main, "pg_view-flow")
    drawn = [
        [[e.label for e in lane.expander] for lane in child.children.values()] if child.type != "expander" else child
        for child in flow.children.values()
    ]
    kinds = ["row" if isinstance(d, list) else "block" for d in drawn]
    assert kinds == ["block", "row", "block", "block", "row", "block", "block"], kinds
    first, second = drawn[1], drawn[4]
    assert [len(lane) for lane in first] == [1, 1, 1] and [len(lane) for lane in second] == [0, 1, 0]
    again = second[1][0]
    assert ("attempt 2" in again if lang == "en" else "第 2 次尝试" in again) and "book_appointment" in again
    assert not any("attempt" in t or "尝试" in t for lane in first for t in lane)
    record = at.session_state["pg_runs"][-1]
    assert record.events[-1].reason == "pass" and "BK-4821" in record.events[-2].text
