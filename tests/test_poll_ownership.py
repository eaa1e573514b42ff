"""Nobody displaces, closes, reveals or votes twice in another's poll; a poll closes with its run.

Several AppTest sessions run in one process and share the poll module's dict, as the sessions of one
server do: a presenter with a paused run, a participant opening poll after poll, an observer who only
looks at the sidebar.
"""

from __future__ import annotations

import threading

import pytest

from pages.ui import poll
from tests.app_pages import connect, open_page
from tests.fake_openai_server import Fail, FakeOpenAIServer, Reply
from tests.test_app_step_mode import P, record, settle, stepped_primes


@pytest.fixture(autouse=True)
def empty_room():
    with poll._LOCK:
        poll._POLLS.clear()
    yield
    with poll._LOCK:
        poll._POLLS.clear()


def offered(at) -> list[str]:
    """The poll ids the sidebar lets this session vote in, in the order shown."""
    at.run()
    return [
        c.key.removeprefix("poll_choice_")
        for c in at.sidebar.get("button_group")
        if (c.key or "").startswith("poll_choice_")
    ]


def presenter_with_poll():
    presenter = stepped_primes("role:critic")
    presenter.button(key=f"{P}_poll_open").click().run()
    pid = f"{record(presenter).run_id}-2"
    assert [p.id for p in poll.held()] == [pid]
    return presenter, pid


# --- nobody displaces another's poll ----------------------------------------------------------------


def test_the_presenters_poll_survives_100_polls_a_participant_opens():
    presenter, pid = presenter_with_poll()
    participant = stepped_primes("role:critic")  # the participant's own paused run
    participant.button(key=f"{P}_poll_open").click().run()
    me = participant.session_state["poll_me"]
    run_over = record(participant).handle.finished
    for n in range(100):  # as a hundred pauses of the participant's own runs would
        assert poll.open_for(me, f"run{n:03d}", 2, "critic", run_over)
    mine = [p for p in poll.held() if p.owner == me]
    assert [p.run_id for p in mine] == ["run099"], "a session holds one poll: each new one closed the last"
    observer = open_page("pages/home.py")
    assert offered(observer) == [pid, "run099-2"], "the presenter's poll, opened first, is shown first"
    observer.segmented_control(key=f"poll_choice_{pid}").set_value("PASS").run()
    presenter.run()
    assert [m.value for m in presenter.metric if m.label == "PASS"] == ["1"]


def test_a_full_room_refuses_a_new_poll_instead_of_evicting_one_and_says_so():
    presenter, pid = presenter_with_poll()
    for n in range(poll.MAX_POLLS * 2):  # a hundred and twenty sessions (one person's tabs, say)
        poll.open_for(f"session{n:03d}", f"run{n:03d}", 2, "critic")
    held = poll.held()
    assert len(held) == poll.MAX_POLLS and pid in {p.id for p in held}
    for lang, said in (
        ("en", f"already holds {poll.MAX_POLLS} open polls"),
        ("zh", f"已有 {poll.MAX_POLLS} 个进行中的投票"),
    ):
        late = stepped_primes("role:critic")
        late.session_state["sb_lang"] = lang
        late.run()
        late.button(key=f"{P}_poll_open").click().run()
        assert any(said in w.value for w in late.warning), [w.value for w in late.warning]
        assert f"{record(late).run_id}-2" not in {p.id for p in poll.held()}
    # the presenter may still move its own poll on: it replaces its own, it takes no one's place
    presenter.button(key=f"{P}_step_continue").click().run()
    settle(presenter)
    presenter.button(key=f"{P}_poll_open").click().run()
    assert f"{record(presenter).run_id}-4" in {p.id for p in poll.held()}


def test_nobody_votes_in_their_own_poll_twice_in_anothers_or_outside_its_choices():
    presenter, pid = presenter_with_poll()
    owner = presenter.session_state["poll_me"]
    assert not poll.vote_for(owner, pid, "PASS"), "the presenter cannot vote in its own poll"
    assert pid not in offered(presenter)
    assert poll.vote_for("voter", pid, "PASS") and poll.vote_for("voter", pid, "REVISE")
    assert not poll.vote_for("voter", pid, "RETRY") and not poll.vote_for("voter", pid, ["PASS"])
    (held,) = poll.held()
    assert held.tally() == {"REVISE": 1}, "one vote per session: the last choice counts"


def test_no_run_but_the_polls_own_reveals_or_closes_it():
    presenter, pid = presenter_with_poll()
    owner, run_id = presenter.session_state["poll_me"], record(presenter).run_id
    participant = open_page("pages/home.py")
    intruder = participant.session_state["poll_me"]
    poll.RunPolls(intruder, run_id).reveal("PASS")  # another session naming the presenter's run
    poll.RunPolls(intruder, run_id).close()
    poll.RunPolls(owner, "another-run").reveal("PASS")  # the presenter's other runs
    poll.RunPolls(owner, "another-run").close()
    (held,) = poll.held()
    assert held.id == pid and held.is_open and held.answer is None
    # a poll under the presenter's id, opened by another session, would take its votes: refused
    assert not poll.open_for(intruder, run_id, 2, "critic")
    assert poll.vote_for("voter", pid, "PASS")
    assert [(p.owner, p.tally()) for p in poll.held()] == [(owner, {"PASS": 1})]


# --- a poll closes with its run ---------------------------------------------------------------------


def test_a_poll_closes_when_its_run_is_stopped():
    presenter, pid = presenter_with_poll()
    observer = open_page("pages/home.py")
    assert offered(observer) == [pid]
    handle = record(presenter).handle
    presenter.button(key=f"{P}_step_stop").click().run()
    assert handle.join(5)
    assert poll.held() == [] and offered(observer) == []


def test_an_answered_poll_stays_as_a_result_and_takes_no_more_votes_when_the_run_ends():
    presenter, pid = presenter_with_poll()
    observer = open_page("pages/home.py")
    observer.segmented_control(key=f"poll_choice_{pid}").set_value("PASS").run()
    presenter.button(key=f"{P}_step_continue").click().run()
    settle(presenter)  # the critic said REVISE; the run pauses before the next critique
    handle = record(presenter).handle
    presenter.button(key=f"{P}_step_stop").click().run()
    assert handle.join(5)
    (held,) = poll.held()
    assert held.answer == "REVISE" and not held.is_open
    assert not poll.vote_for("late-voter", pid, "REVISE")
    observer.run()
    assert any("The critic said **REVISE** · 0 of 1 predicted it" in m.value for m in observer.markdown)


def test_a_poll_closes_when_its_run_is_left_idle(monkeypatch):
    monkeypatch.setenv("AGENT_PLAYGROUND_STEP_IDLE_S", "1")
    presenter, _pid = presenter_with_poll()
    assert record(presenter).handle.join(10), "the paused run ended on its idle time"
    assert poll.held() == []


def test_a_poll_closes_when_its_run_fails():
    with FakeOpenAIServer(Fail(500, "the model crashed")) as server:
        server.push(Reply("A first draft."))
        at = open_page("pages/playground.py")
        connect(at, server.url)
        at.selectbox(key=f"{P}_variant").select("reflection").run()
        at.toggle(key=f"{P}_step").set_value(True).run()
        at.multiselect(key=f"{P}_step_breaks").set_value(["role:critic"]).run()
        at.button(key=f"{P}_run").click().run()
        settle(at)
        at.button(key=f"{P}_poll_open").click().run()
        assert len(poll.held()) == 1
        at.button(key=f"{P}_step_continue").click().run()
        assert record(at).handle.join(10)
    settle(at)
    assert record(at).events[-1].reason == "error"
    assert poll.held() == []


def test_a_poll_goes_when_its_owners_tab_is_gone_or_its_run_ended_unseen():
    tab = {"open": True}
    assert poll.open_for("owner", "run-a", 2, "critic", owner_alive=lambda: tab["open"])
    assert len(poll.held()) == 1
    tab["open"] = False
    assert poll.held() == []
    over = threading.Event()
    assert poll.open_for("owner", "run-b", 2, "critic", run_over=over)
    over.set()
    assert poll.held() == [] and not poll.open_for("owner", "run-b", 4, "critic", run_over=over)
