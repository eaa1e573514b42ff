"""What the step-mode page tests share: a Playground run started in step mode on its breakpoints, the
run's record and a wait until it pauses again, and a room whose trainer is about to start such a run
while a participant watches. The stories themselves (what pauses where, who answers) stay in the
tests; this only drives the page as a trainer does."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from pages.ui.runs import RunRecord
from tests.app_pages import open_page

#: the Playground's widget-key prefix
P = "pg"


def record(at: AppTest) -> RunRecord:
    """The Playground's latest run."""
    return at.session_state[f"{P}_runs"][-1]


def settle(at: AppTest) -> None:
    """Rerun until the run is paused again or over (its thread may still be working)."""
    for _ in range(100):
        rec = record(at)
        if not rec.active or (rec.handle is not None and rec.handle.paused):
            at.run()
            return
        time.sleep(0.02)
        at.run()
    raise AssertionError("the run neither paused nor ended")


def headline(at: AppTest) -> str:
    """The pause bar's headline: what is about to happen."""
    return next(m.value for m in at.markdown if m.value.startswith("### :material/pause_circle:"))


def run_in_steps(
    at: AppTest, variant: str, *breaks: str, scenario: str | None = None, people: tuple[str, ...] = ()
) -> AppTest:
    """On the Playground `at` shows: choose `variant` (and `scenario`; else the variant's own), turn
    step mode on with the breakpoints `breaks` (none given: the page's default, every call) and the
    roles a person answers, `people`, and press Run."""
    at.selectbox(key=f"{P}_variant").select(variant).run()
    if scenario is not None:
        at.selectbox(key=f"{P}_scenario").select(scenario).run()
    at.toggle(key=f"{P}_step").set_value(True).run()
    if breaks:
        at.multiselect(key=f"{P}_step_breaks").set_value(list(breaks)).run()
    if people:
        at.multiselect(key=f"{P}_step_people").set_value(list(people)).run()
    at.button(key=f"{P}_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def stepped_primes(*breaks: str, people: tuple[str, ...] = ()) -> AppTest:
    """Reflection on the primes scenario in step mode, on a Playground of its own."""
    return run_in_steps(open_page("pages/playground.py"), "reflection", *breaks, scenario="primes", people=people)


def room_with_a_seat() -> tuple[AppTest, AppTest, str]:
    """(trainer, participant, room code): the trainer opened a room (a poll belongs to one) and is
    on the Playground; the participant joined by the room's link. The rooms are the test's own (a
    server holds at most 20)."""
    from agent_core.rooms import forget_rooms

    forget_rooms()
    trainer = open_page("pages/room.py")
    trainer.button(key="room_open").click().run()
    code = trainer.session_state["room_code"]
    participant = open_page("pages/room.py")
    participant.query_params["room"] = code
    participant.run()
    trainer.switch_page("pages/playground.py").run()
    return trainer, participant, code
