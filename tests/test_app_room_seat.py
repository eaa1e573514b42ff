"""A seat's and the trainer's room tools: the join card (the code, the ?room= link, its QR code), a
participant taking the trainer's run from the call it is at into their own Playground, and the room's
submissions — bounded, escaped, opened beside the default prompts in Compare.

The story: the trainer runs Reflection on primes in step mode, paused before the critic's second
verdict (call 4: the actor drafted, the critic said REVISE, the actor revised). A participant takes it
from there: calls 1-3 are the trainer's to the byte, call 4 on is their own run.
"""

from __future__ import annotations

import base64

import pytest
from streamlit.testing.v1 import AppTest

import agent_core as ac
from agent_core import events as ev
from agent_core.fork import ForkError, fork, fork_inputs, recorded_reply
from agent_core.offline import OfflineModel
from agent_core.rooms import rooms
from agent_core.stepping import Breakpoints, RunHandle
from pages.ui import room_fork, room_join
from pages.ui.i18n import t
from tests.app_pages import open_page
from tests.waits import wait_for

LANGS = ["en", "zh"]


def trainer_at_second_critic(lang: str = "en") -> tuple[dict, list[ev.Event]]:
    """The trainer's primes run, paused before the critic's second call, as a seat has it: the
    room's run meta and the events streamed so far."""
    config, task = ac.for_scenario("primes", lang)
    handle = RunHandle.for_run(task, config, OfflineModel(), breakpoints=Breakpoints(roles=frozenset({"critic"})))
    handle.start()
    wait_for(lambda: handle.paused)
    assert handle.pending.call == 2
    handle.resume()
    wait_for(lambda: handle.paused and handle.pending.call == 4)
    events = handle.drain()
    handle.stop()
    handle.join(10)
    run = {"run_id": "trainer-run-1", "task": task, "config": config.to_dict(), "models": {}, "bound": 7}
    return run, events


def calls(events: list[ev.Event]) -> list[ev.LlmCall]:
    return [e for e in events if isinstance(e, ev.LlmCall)]


def served(call: ev.LlmCall) -> tuple:
    """What makes a call the same call: who made it, on which model, what it was sent and what it got."""
    return (call.role, call.model, call.messages, call.new_messages, call.reply_message)


# --- where a seat's fork starts ---------------------------------------------------------------------


def test_a_paused_run_forks_at_the_call_it_waits_before():
    _run, events = trainer_at_second_critic()
    assert len(calls(events)) == 3 and not any(isinstance(e, ev.RunFinished) for e in events)
    assert room_fork.fork_point(events) == room_fork.Point(4, "critic", True)
    assert recorded_reply(events, 4).text == ""  # no reply recorded yet: the editor starts empty
    with pytest.raises(ForkError, match="calls 1 to 4"):
        fork_inputs(events, 5)


def test_a_finished_run_forks_at_its_last_call_and_nothing_after_it():
    config, task = ac.for_scenario("primes", "en")
    events = list(ac.stream(task, config, OfflineModel()))
    made = calls(events)
    assert room_fork.fork_point(events) == room_fork.Point(len(made), made[-1].role, False)
    with pytest.raises(ForkError, match=f"no call {len(made) + 1}"):
        fork_inputs(events, len(made) + 1)


def test_before_its_first_call_there_is_nothing_to_fork():
    config, task = ac.for_scenario("primes", "en")
    started = next(iter(ac.stream(task, config, OfflineModel())))
    assert room_fork.fork_point([started]) is None


def test_the_core_fork_of_a_paused_run_serves_every_recorded_call_and_goes_on_live():
    run, events = trainer_at_second_critic()
    stream, recorded = fork(events, 4, ac.config_from_dict(run["config"]), OfflineModel())
    forked = list(stream)
    assert [served(c) for c in calls(forked)[:3]] == [served(c) for c in calls(events)]
    assert recorded.first_difference is None  # the prefix's requests are the trainer's
    assert calls(forked)[3].role == "critic" and forked[-1].reason == "pass"


# --- "Take it from here" into the participant's Playground ---------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_take_it_from_here_runs_the_trainers_prefix_in_the_participants_playground(lang):
    run, events = trainer_at_second_critic(lang)
    target = room_fork.fork_target(run, events, room_fork.fork_point(events))
    at = open_page("pages/playground.py", sb_lang=lang, fork_target=target)
    nonce = at.session_state["fork_target"]["nonce"]
    assert at.toggle(key=f"fork_live_{nonce}").value is True  # the pending critic call goes to their model
    at.button(key=f"fork_run_{nonce}").click().run()
    assert not at.exception, [e.message for e in at.exception]
    wait_for(lambda: not at.session_state["pg_runs"][-1].active)
    at.run()
    record = at.session_state["pg_runs"][-1]
    assert record.fork["run_id"] == "trainer-run-1" and record.fork["at"] == 4 and not record.fork["edited"]
    mine = record.typed_events()
    assert [served(c) for c in calls(mine)[:3]] == [served(c) for c in calls(events)]
    assert calls(mine)[3].role == "critic" and len(calls(mine)) > 3
    assert mine[-1].reason == "pass"


# --- the Room page: the trainer's join card, a seat's take-it-from-here, submissions ----------------

ROOM = "pages/room.py"


def page(lang: str, page_: str = ROOM, **state: object) -> AppTest:
    at = open_page(page_, sb_lang=lang, **state)
    assert not at.exception, [e.message for e in at.exception]
    return at


def trainer_opens(lang: str) -> tuple[AppTest, str]:
    trainer = page(lang)
    trainer.button(key="room_open").click().run()
    assert not trainer.exception, [e.message for e in trainer.exception]
    return trainer, trainer.session_state["room_code"]


def seat_joins(lang: str, code: str, **state: object) -> AppTest:
    seat = page(lang, **state)
    seat.text_input(key="room_typed").input(code).run()
    seat.button(key="room_join").click().run()
    assert not seat.exception, [e.message for e in seat.exception]
    assert seat.session_state["room_role"] == "participant"
    return seat


@pytest.mark.parametrize("lang", LANGS)
def test_the_join_card_shows_the_code_the_link_with_the_room_and_its_qr_code(lang):
    trainer, code = trainer_opens(lang)
    assert f"# {code}" in [m.value for m in trainer.markdown]
    (link,) = [c.value for c in trainer.code]
    assert link.endswith(f"/room?room={code}") and link.startswith("http")
    (image,) = trainer.get("image")
    url = image.proto.imgs[0].url
    assert url.startswith("data:image/svg+xml;base64,")  # drawn here: nothing fetched from anywhere
    svg = base64.b64decode(url.split(",", 1)[1]).decode()
    assert room_join.qr_svg(link).split('class="segno"', 1)[1] in svg  # the QR code of that very link
    assert image.proto.imgs[0].caption == t("room_seat.qr_caption", lang)
    seat_joins(lang, code)
    trainer.run()
    joined = t("room_seat.status", lang, n=1, left="").split("**1**")[0] + "**1**"
    assert any(m.value.startswith(joined) for m in trainer.markdown), [m.value for m in trainer.markdown]
    assert any(t("room_seat.hours_minutes", lang, h=7, m=59) in m.value for m in trainer.markdown)


def test_the_join_link_is_the_pages_own_address_with_the_room():
    assert (
        room_join.join_link("K7M2QX", "https://ws.example.org/base/room")
        == "https://ws.example.org/base/room?room=K7M2QX"
    )
    assert room_join.join_link("K7M2QX", "http://10.0.0.5:8501/room?x=1#top") == "http://10.0.0.5:8501/room?room=K7M2QX"


def cast(code: str, secret: str, run: dict, events: list[ev.Event]) -> None:
    """The trainer's run on the room, as the Playground publishes it (paused before call 4)."""
    rooms().start_run(code, secret, run)
    rooms().publish(code, secret, run["run_id"], [e.to_dict() for e in events])
    rooms().set_pause(code, secret, run["run_id"], {"at": "call", "role": "critic", "call": 4, "messages": []})


@pytest.mark.parametrize("lang", LANGS)
def test_a_seat_takes_the_trainers_run_from_the_call_it_is_at_into_its_playground(lang):
    trainer, code = trainer_opens(lang)
    run, events = trainer_at_second_critic(lang)
    cast(code, trainer.session_state["room_secret"], run, events)
    seat = seat_joins(lang, code)
    button = seat.button(key="room_take")
    assert button.label == t("room_seat.take", lang) and t("room_seat.take_help_pending", lang, k=4) == button.help
    button.click().run()
    assert not seat.exception, [e.message for e in seat.exception]
    target = seat.session_state["fork_target"]
    assert target["at"] == 4 and target["role"] == "critic" and target["run_id"] == run["run_id"]
    assert seat.session_state["pg_variant"] == "reflection" and seat.session_state["pg_scenario"] == "primes"
    nonce = target["nonce"]  # the Playground's fork editor is open: the participant runs it
    seat.button(key=f"fork_run_{nonce}").click().run()
    wait_for(lambda: not seat.session_state["pg_runs"][-1].active)
    seat.run()
    mine = seat.session_state["pg_runs"][-1].typed_events()
    assert [served(c) for c in calls(mine)[:3]] == [served(c) for c in calls(events)]  # the trainer's prefix
    assert len(calls(mine)) > 3 and mine[-1].reason == "pass"  # and on from there, on this seat's model


STRICT = "\nBe strict: answer REVISE unless every edge case (0, 1, 2, negatives) is handled."
LENIENT = "\nBe lenient: PASS any draft that returns the right primes for small n."
HOSTILE_NAME = "**Bold** <b>x</b> [a](http://e.x) \x1b\u202e\x00"  # the name box takes 40 characters


def seat_with_critic(lang: str, code: str, extra: str) -> AppTest:
    """A participant whose Playground runs Reflection on primes with the critic's prompt edited, as a
    person edits it there, who then joins the room."""
    from pages.ui.setup_state import prompt_key

    seat = page(lang, "pages/playground.py")
    seat.selectbox(key="pg_variant").select("reflection").run()
    seat.selectbox(key="pg_scenario").select("primes").run()
    box = seat.text_area(key=prompt_key("pg", "reflection", "critic"))
    box.input(box.value + extra).run()
    seat.switch_page(ROOM).run()
    seat.text_input(key="room_typed").input(code).run()
    seat.button(key="room_join").click().run()
    assert not seat.exception, [e.message for e in seat.exception]
    return seat


def submit(seat: AppTest, name: str, note: str = "") -> None:
    # through the boxes' state: AppTest on this app's navigation drops a typed value of a box whose
    # key the session did not hold before (the browser sends it like any other)
    seat.session_state["room_sub_name"], seat.session_state["room_sub_note"] = name, note
    seat.button(key="room_sub_submit").click().run()
    assert not seat.exception, [e.message for e in seat.exception]


@pytest.mark.parametrize("lang", LANGS)
def test_a_hostile_submission_is_bounded_and_drawn_as_text(lang):
    trainer, code = trainer_opens(lang)
    huge = seat_with_critic(lang, code, "\n" + "x" * 100_000)  # a 100 KB prompt
    submit(huge, "big")
    assert any(("too large" if lang == "en" else "过大") in e.value for e in huge.error), [e.value for e in huge.error]
    seat = seat_with_critic(lang, code, STRICT)
    submit(seat, HOSTILE_NAME, note="# Heading\n<script>alert(1)</script> $x$ :red[no]\x07")
    (sent,) = rooms().submissions(code, trainer.session_state["room_secret"])
    assert sent.name == "**Bold** <b>x</b> [a](http://e.x)"  # control and format characters dropped
    long = rooms().submit(code, seat.session_state["room_me"], "ж" * 500, {"config": {}, "task": "", "note": ""})
    assert long.name == "ж" * 40  # a name sent past the box is cut
    said = [s.value for s in seat.success]
    assert said and "<b>" not in said[0] and "\\*\\*Bold\\*\\*" in said[0] and "\\<b\\>" in said[0]
    trainer.run()
    table = trainer.dataframe[0].value  # the newest first: the long name's, then the hostile one
    assert list(table.iloc[:, 0]) == [long.name, sent.name]  # a table cell shows the text as text
    assert "\x07" not in table.iloc[1, 3] and "<script>" in table.iloc[1, 3]
    assert table.iloc[1, 2] == t("room_seat.prompt_change", lang, key="critic", added=1, removed=0)
    shown = " ".join(m.value for m in trainer.markdown)
    assert "<script>" not in shown and "**Bold**" not in shown


@pytest.mark.parametrize("lang", LANGS)
def test_the_trainer_opens_two_submissions_in_compare_beside_the_default_prompts(lang):
    from agent_core.patterns.registry import specs_for
    from pages.ui.setup_state import prompt_key

    trainer, code = trainer_opens(lang)
    submit(seat_with_critic(lang, code, STRICT), "Strict critic")
    submit(seat_with_critic(lang, code, LENIENT), "Lenient critic")
    ids = [s.id for s in rooms().submissions(code, trainer.session_state["room_secret"])]
    # the pick, made before the panel first lists them (AppTest on this app's navigation drops a value
    # set on a box it has drawn; the browser sends it like any other)
    trainer.session_state["room_sub_picked"] = ids
    trainer.run()
    assert trainer.multiselect(key="room_sub_picked").value == ids
    assert not trainer.button(key="room_sub_open").disabled
    trainer.button(key="room_sub_open").click().run()
    assert not trainer.exception, [e.message for e in trainer.exception]
    state = trainer.session_state
    assert state["cmp_count"] == 3 and state["cmp_scenario"] == "primes"
    names = [state[f"cmp{i}_name"] for i in range(3)]
    assert names == [t("room_seat.default_lane", lang), "Strict critic", "Lenient critic"]
    critic = [state[prompt_key(f"cmp{i}", "reflection", "critic")] for i in range(3)]
    default = specs_for("reflection")["critic"].default(lang)
    assert critic == [default, default + STRICT, default + LENIENT]
    assert [state[f"cmp{i}_variant"] for i in range(3)] == ["reflection"] * 3
    assert [c.value for c in trainer.text_input if c.key and c.key.endswith("_name")][
        :3
    ] == names  # Compare's lane cards
    assert [x.value for x in trainer.title] == [t("compare.title", lang)]  # the page switched to Compare
    trainer.switch_page("pages/compare.py").run()  # (AppTest's next run goes to the page it last opened)
    trainer.button(key="cmp_run").click().run()  # Compare runs them; back in the room, the leaderboard
    assert [r.status for r in state["cmp_comparison"].lanes] == ["finished"] * 3
    trainer.switch_page(ROOM).run()
    board = trainer.dataframe[0].value
    assert sorted(board.iloc[:, 1]) == sorted(names) and list(board.iloc[:, 0]) == [1, 2, 3]
    assert list(board.iloc[:, 4]) == sorted(board.iloc[:, 4]) or not all(board.iloc[:, 2])
