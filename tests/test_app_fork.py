"""The call record and forks in the pages: every call's Prompt and Reply, "Fork from here" in the
Playground and in Replay, the fork drawn with its recorded prefix marked, and original vs fork in
Compare. AppTest sees each script run's final tree; the live streaming of the fork is a browser test.
"""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.app_pages import badges, open_page

PASS_CRITIQUE = json.dumps({"verdict": "PASS", "feedback": "no improvement needed"})
PASS_STEP = json.dumps({"verdict": "PASS", "analysis": "the order was found", "suggestion": ""})


def run_primes() -> AppTest:
    at = open_page("pages/playground.py")
    at.selectbox(key="pg_variant").select("reflection").run()
    at.selectbox(key="pg_scenario").select("primes").run()
    at.button(key="pg_run").click().run()
    assert not at.exception
    return at


def fork_with(at: AppTest, button: str, reply: str | None) -> None:
    at.button(key=button).click().run()
    nonce = at.session_state["fork_target"]["nonce"]
    if reply is None:
        at.toggle(key=f"fork_live_{nonce}").set_value(True).run()
    else:
        at.text_area(key=f"fork_reply_{nonce}").input(reply).run()
    at.button(key=f"fork_run_{nonce}").click().run()
    assert not at.exception, [e.message for e in at.exception]


def popovers(at: AppTest) -> list[str]:
    """The labels of every popover on the page (AppTest has no element class for them)."""
    found = []

    def walk(node):  # noqa: ANN001, ANN202
        proto = getattr(node, "proto", None)
        if getattr(node, "type", None) == "popover" and proto is not None:
            found.append(proto.popover.label)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


def runs(at: AppTest, prefix: str = "pg"):
    return at.session_state[f"{prefix}_runs"]


def _open_call_views(events: list[dict]) -> None:
    """Every call's Prompt and Reply bodies, as open popovers draw them."""
    from agent_core import events as ev
    from agent_core.calls import MessageTable
    from pages.ui import call_views

    table = MessageTable(ev.event_from_dict(e) for e in events)
    for call in table.calls:
        call_views.draw_prompt(table.request(call), call, "en")
        call_views.draw_reply(table.reply(call), call, "en")


def test_every_call_has_its_prompt_and_reply_with_the_template_and_filled_values_marked():
    at = run_primes()
    labels = popovers(at)
    assert sum(label.startswith("Prompt") for label in labels) == 4
    assert sum(label == "Reply" for label in labels) == 4
    # closed, a popover draws nothing (a long run's redraw stays light); opening one reruns the page,
    # which AppTest cannot do to a popover: their bodies are drawn here as an open one draws them
    assert not any('"verdict": "REVISE"' in c.value for c in at.code)
    at = AppTest.from_function(_open_call_views, args=([e.to_dict() for e in runs(at)[-1].events],), default_timeout=30)
    at.run()
    assert not at.exception
    shown = [m.value for m in at.markdown]
    assert any(":blue-background[" in v and "find\\_primes" in v for v in shown), "the filled-in {task} is marked"
    assert any("template `critic`" in v for v in shown)
    assert any('"verdict": "REVISE"' in c.value for c in at.code), "the critic's raw reply"


def test_forking_primes_at_the_first_critique_with_a_pass_ends_on_draft_zero():
    at = run_primes()
    parent = runs(at)[-1]
    at.button(key="pg_view-fork-2").click().run()
    nonce = at.session_state["fork_target"]["nonce"]
    assert json.loads(at.text_area(key=f"fork_reply_{nonce}").value)["verdict"] == "REVISE"  # the recorded reply
    at.text_area(key=f"fork_reply_{nonce}").input(PASS_CRITIQUE).run()
    assert "The pattern reads this as **PASS**." in [s.value for s in at.success]
    at.button(key=f"fork_run_{nonce}").click().run()

    forked = runs(at)[-1]
    assert forked.fork["run_id"] == parent.run_id and forked.fork["at"] == 2 and forked.fork["edited"]
    assert forked.events[-1].reason == "pass" and forked.events[-1].llm_calls == 2
    drafts = [e.text for e in parent.events if e.kind == "draft"]
    assert [e.text for e in forked.events if e.kind == "final_answer"] == [drafts[0]]
    assert ("gray", "recorded") in badges(at) or any(b.value == "recorded" for b in at.get("badge"))
    assert any(f"Forked from run `{parent.run_id}` at call 2" in c.value for c in at.caption)
    exported = json.loads(forked.trace().dumps())
    assert exported["fork"] == {"run_id": parent.run_id, "at": 2, "edited": True}

    at.button(key="pg_fork_compare").click().run()
    assert "Original vs fork" in [h.value for h in at.subheader]
    assert any(c.value.startswith("--- original\n+++ fork") for c in at.code if c.language == "diff")
    assert any("**The answers, original → fork**" == m.value for m in at.markdown)


def test_a_reply_the_pattern_cannot_parse_says_so_before_the_run():
    at = run_primes()
    at.button(key="pg_view-fork-2").click().run()
    nonce = at.session_state["fork_target"]["nonce"]
    at.text_area(key=f"fork_reply_{nonce}").input("   ").run()
    assert any("cannot parse" in w.value for w in at.warning)


def test_replay_forks_order_99999_at_the_replan_and_the_shell_sails_through():
    at = open_page("pages/replay.py")
    assert at.selectbox(key="rp_example").value == "order-99999.en"  # the first visit opens it
    forks = [b.key for b in at.button if (b.key or "").startswith("rp_view-fork-")]
    assert len(forks) == 9, "a format-2 bundled trace offers a fork on every call"
    at.button(key="rp_view-fork-4").click().run()  # planner, executor, executor, then the Reflector's REPLAN
    assert at.session_state["fork_target"]["role"] == "reflector"
    nonce = at.session_state["fork_target"]["nonce"]
    at.text_area(key=f"fork_reply_{nonce}").input(PASS_STEP).run()
    at.button(key=f"fork_run_{nonce}").click().run()
    assert not at.exception, [e.message for e in at.exception]
    forked = runs(at, "rp")[-1]  # run on Replay itself, in place of the trace
    assert forked.status == "finished" and forked.fork["at"] == 4
    verdicts = [e.verdict for e in forked.events if e.kind == "verdict"]
    assert verdicts[0] == "PASS" and "REPLAN" not in verdicts
    answer = next(e.text for e in forked.events if e.kind == "final_answer")
    parent_answer = next(e.text for e in forked.parent if e.kind == "final_answer")
    assert answer != parent_answer and "syncing" in answer
    # Replay draws the fork where the trace was: its banner, its three recorded calls, its answer
    assert any("Forked from run" in c.value and "at call 4" in c.value for c in at.caption)
    assert [label for _, label in badges(at)].count("recorded") == 3
    assert any("syncing" in m.value for m in at.markdown)
    assert not [b for b in at.button if b.key == "rp_play"], "the player gives way to the fork"
    # Back to the trace: the player again; the fork is kept
    at.button(key="rp_fork_back").click().run()
    assert [b for b in at.button if b.key == "rp_play"] and runs(at, "rp")[-1] is forked
    # a fork's configuration opens in the Playground
    at.session_state["rp_fork_shown"] = forked.run_id
    at.run()
    at.button(key="rp_fork_open").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="pg_variant").value == "plan-execute-reflector", "the setup shows what the fork ran"
    assert at.selectbox(key="pg_scenario").value == "order-99999"


def test_a_format_1_trace_replays_but_says_it_cannot_be_forked():
    from agent_core import examples

    data = json.loads(examples.path_of("primes", "en").read_text(encoding="utf-8"))
    data["version"] = 1
    for e in data["events"]:
        if e["kind"] == "llm_call":
            for key in ("messages", "new_messages", "reply_message", "tools"):
                e.pop(key, None)
    at = open_page("pages/replay.py")
    at.segmented_control(key="rp_source").set_value("upload").run()
    at.file_uploader(key="rp_upload").set_value(("old.json", json.dumps(data).encode(), "application/json")).run()
    assert not at.exception, [e.message for e in at.exception]
    assert any(m.value == "#### Final answer" for m in at.markdown), "it replays"
    assert not [b for b in at.button if (b.key or "").startswith("rp_view-fork-")]
    assert not [label for label in popovers(at) if label.startswith("Prompt")]
    assert any("trace format 1" in c.value for c in at.caption)


def test_a_replay_fork_gives_way_when_another_trace_is_opened():
    at = open_page("pages/replay.py")
    at.button(key="rp_view-fork-4").click().run()
    nonce = at.session_state["fork_target"]["nonce"]
    at.text_area(key=f"fork_reply_{nonce}").input(PASS_STEP).run()
    at.button(key=f"fork_run_{nonce}").click().run()
    assert at.button(key="rp_fork_back") and not [b for b in at.button if b.key == "rp_play"]
    other = next(o for o in at.selectbox(key="rp_example").options if o != at.selectbox(key="rp_example").value)
    at.selectbox(key="rp_example").select(other).run()
    assert not at.exception, [e.message for e in at.exception]
    assert [b for b in at.button if b.key == "rp_play"], "the newly opened trace is shown, not the old fork"
    assert "rp_fork_shown" not in at.session_state
