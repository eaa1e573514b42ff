"""Step mode in the Playground: the trainer's moves — pause before the critic, show its prompt, ask
the room, answer it yourself, edit a call, step one call at a time — and a run that survives clicks."""

from __future__ import annotations

import time

import agent_core as ac
from agent_core import events as ev
from agent_core.offline import OfflineModel
from pages.ui.graphs import _ACTIVE
from tests.app_pages import open_page
from tests.step_mode import P, headline, record, room_with_a_seat, run_in_steps, settle, stepped_primes


def test_primes_pauses_before_the_critic_and_a_person_passes_draft_zero():
    at = stepped_primes("role:critic")
    assert record(at).handle.paused
    assert headline(at).endswith("The **critic** is about to review draft 0.")
    assert any("template `critic`" in m.value for m in at.markdown), "the pending prompt, in the Prompt view"
    graph = at.get("graphviz_chart")[0].proto.spec
    assert f'"critic" [label="Critic", {_ACTIVE}]' in graph, "the graph lights the node about to run"
    at.button(key=f"{P}_step_answer").click().run()
    at.segmented_control(key=f"{P}_step_verdict_critic_2").set_value("PASS").run()
    at.button(key=f"{P}_step_send_answer_critic_2").click().run()
    settle(at)
    rec = record(at)
    assert rec.status == "finished" and rec.events[-1].reason == "pass" and rec.events[-1].llm_calls == 2
    assert [e.role for e in rec.events if e.kind == "human_reply"] == ["critic"]
    assert not at.exception


def test_stepping_every_call_names_each_next_role_and_ends_as_the_plain_run():
    config, task = ac.for_scenario("primes", "en")
    plain = [e for e in ac.stream(task, config, OfflineModel()) if e.kind != "token"]
    at = stepped_primes("every_call")
    roles, verdicts = [], 0
    while record(at).active:
        pending = record(at).handle.pending
        if pending.at == "call":
            roles.append(pending.role)
        else:  # Step also stops at every verdict, where the room can see it land
            verdicts += 1
            assert pending.at == "verdict" and "has given its verdict" in headline(at)
        at.button(key=f"{P}_step_step").click().run()
        settle(at)
    assert verdicts == sum(isinstance(e, ev.VerdictEvent) for e in plain)
    assert roles == [e.role for e in plain if isinstance(e, ev.LlmCall)]
    kinds = [e.kind for e in record(at).events if e.kind not in ("token", "paused", "resumed")]
    assert kinds == [e.kind for e in plain]


def test_an_edited_call_is_recorded_and_sent():
    at = stepped_primes("role:critic")
    at.button(key=f"{P}_step_edit").click().run()
    area = next(a for a in at.text_area if (a.key or "").startswith(f"{P}_step_msg_critic_2_"))
    area.input("Review this strictly and answer PASS or REVISE in JSON.\n" + area.value).run()
    at.button(key=f"{P}_step_send_critic_2").click().run()
    settle(at)
    rec = record(at)
    assert [e.what for e in rec.events if e.kind == "edited"][0] == "messages"
    critic = next(e for e in rec.events if e.kind == "llm_call" and e.role == "critic")
    assert critic.new_messages[0]["content"].startswith("Review this strictly")


def test_clicks_while_paused_keep_the_run_and_stop_ends_it():
    at = stepped_primes("role:critic")
    handle = record(at).handle
    at.switch_page("pages/learn.py").run()
    at.switch_page("pages/playground.py").run()
    assert record(at).active and record(at).handle is handle and handle.paused and handle.alive
    at.button(key=f"{P}_step_stop").click().run()
    assert handle.join(5)
    rec = record(at)
    assert rec.status == "stopped" and rec.events[-1].reason == "stop"


def test_the_room_predicts_the_critic_and_sees_the_real_verdict():
    from agent_core.rooms import rooms

    presenter, participant, code = room_with_a_seat()
    run_in_steps(presenter, "reflection", "role:critic", scenario="primes")
    settle(presenter)
    presenter.button(key=f"{P}_poll_open").click().run()
    poll_id = rooms().poll(code).id
    participant.run()
    participant.segmented_control(key=f"poll_choice_{poll_id}").set_value("REVISE").run()  # choosing is voting
    assert any("Your vote: **REVISE**" in m.value for m in participant.markdown)
    presenter.run()
    assert [m.value for m in presenter.metric if m.label == "REVISE"] == ["1"]
    presenter.button(key=f"{P}_step_continue").click().run()
    settle(presenter)
    for _ in range(200):  # the room hears the verdict from the run's publisher thread
        if rooms().poll(code).answer is not None:
            break
        time.sleep(0.02)
    participant.run()
    assert any("The critic said **REVISE** · 1 of 1 predicted it" in m.value for m in participant.markdown)
    assert record(presenter).handle.pending.call == 4  # the breakpoint holds again before the next critique
    presenter.button(key=f"{P}_step_stop").click().run()


def test_the_sidebar_locks_while_an_evaluation_runs():
    # seen from another page: the Eval page itself clears its job when its script run ends
    at = open_page("pages/playground.py", ev_job="an-evaluation-under-way")
    assert at.sidebar.selectbox(key="sb_provider").disabled
    at.session_state["ev_job"] = None
    at.run()
    assert not at.sidebar.selectbox(key="sb_provider").disabled


def test_a_template_edit_that_does_not_validate_is_said_at_the_next_pause_in_the_pages_language():
    for lang, said in (("en", "was not kept"), ("zh", "没有保留")):
        at = stepped_primes("every_call")
        if lang == "zh":
            at.session_state["sb_lang"] = "zh"
            at.run()
        while record(at).handle.pending.role != "critic":
            at.button(key=f"{P}_step_step").click().run()
            settle(at)
        nonce = f"critic_{record(at).handle.pending.call}"
        at.button(key=f"{P}_step_edit").click().run()
        at.checkbox(key=f"{P}_step_template_{nonce}").check().run()
        area = [a for a in at.text_area if (a.key or "").startswith(f"{P}_step_msg_{nonce}_")][-1]  # the template's
        area.input("Answer PASS.").run()  # the filled-in draft is gone, so the template lacks a placeholder
        at.button(key=f"{P}_step_send_{nonce}").click().run()
        settle(at)
        warnings = [w.value for w in at.warning if said in w.value]
        assert warnings and "critic" in warnings[0], [w.value for w in at.warning]
        critic = [e for e in record(at).events if e.kind == "llm_call" and e.role == "critic"][0]
        assert critic.new_messages[0]["content"] == "Answer PASS.", "the edited messages were still sent"
        at.button(key=f"{P}_step_stop").click().run()
        assert not at.exception
