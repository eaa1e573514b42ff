"""A room's submissions scored in Eval: the trainer picks two, presses Evaluate, Eval runs them and the
default prompts offline over the bundled code tasks, and the Room page's leaderboard ranks them by
Eval's pass rate with its 95 % interval, next to what Compare measured.

The story: two participants edit Reflection's critic on primes (one strict, one lenient) and submit
it. Offline, every critic plays the same script for a task (the offline model follows the task, not
the prompt), so the three score alike: the board says "not distinguishable at this n", which is
what seven tasks can say about three equal pass rates.
"""

from __future__ import annotations

import pytest

from agent_core.evaluation import bundled_tasks
from agent_core.patterns.registry import specs_for
from agent_core.rooms import rooms
from pages.ui.i18n import t
from tests.test_app_room_seat import LENIENT, ROOM, STRICT, seat_with_critic, submit, trainer_opens
from tests.waits import fresh_rooms  # noqa: F401 - fresh_rooms: a fixture

pytestmark = pytest.mark.usefixtures("fresh_rooms")
LANGS = ["en", "zh"]


def picked(trainer, names: list[str]) -> None:
    """The trainer's pick of the submissions named, made as the Compare story makes it."""
    code, secret = trainer.session_state["room_code"], trainer.session_state["room_secret"]
    trainer.session_state["room_sub_picked"] = [s.id for s in rooms().submissions(code, secret) if s.name in names]
    trainer.run()
    assert not trainer.button(key="room_sub_eval").disabled


def texts(at) -> str:
    return "\n".join([*(m.value for m in at.markdown), *(c.value for c in at.caption)])


@pytest.mark.parametrize("lang", LANGS)
def test_the_trainer_evaluates_two_submissions_and_the_leaderboard_ranks_them(lang):
    trainer, code = trainer_opens(lang)
    submit(seat_with_critic(lang, code, STRICT), "Strict critic")
    submit(seat_with_critic(lang, code, LENIENT), "Lenient <b>critic</b>")
    picked(trainer, ["Strict critic", "Lenient <b>critic</b>"])
    trainer.button(key="room_sub_eval").click().run()
    assert not trainer.exception, [e.message for e in trainer.exception]
    assert [x.value for x in trainer.title] == [t("eval.title", lang)]  # the page switched to Eval
    state = trainer.session_state
    default = t("room_seat.default_lane", lang)
    assert [e["label"] for e in state["ev_entries"]] == [default, "Strict critic", "Lenient <b>critic</b>"]
    critic = specs_for("reflection")["critic"].default(lang)
    assert [e["config"]["prompts"].get("critic", critic) for e in state["ev_entries"]] == [
        critic,
        critic + STRICT,
        critic + LENIENT,
    ]
    assert state["ev_source"] == "bundled" and state["ev_patterns"] == []  # code tasks, for a code pattern
    assert state["ev_limit"] == len(bundled_tasks())
    shown = texts(trainer)
    assert t("room_eval.head", lang, n=3) in shown
    assert "<b>" not in shown and "Lenient \\<b\\>critic\\</b\\>" in shown  # participant text, escaped

    trainer.switch_page("pages/eval.py").run()  # (AppTest's next run goes to the page it last opened)
    assert not trainer.button(key="ev_run").disabled
    trainer.button(key="ev_run").click().run(timeout=240)
    assert not trainer.exception, [e.message for e in trainer.exception]
    results = [r for r in state["ev_rows"] if r["_kind"] == "result"]
    n = len(bundled_tasks())
    assert len(results) == 3 * n
    assert {r["pattern"] for r in results} == {default, "Strict critic", "Lenient <b>critic</b>"}
    assert {r["runs"] for r in results} == {"reflection"}
    assert any(s.value == t("eval_stats.title", lang) for s in trainer.subheader)  # intervals, as for patterns
    summary = next(d.value for d in trainer.dataframe if d.value.shape == (3, 6))
    assert list(summary.iloc[:, 0]) == [default, "Strict critic", "Lenient <b>critic</b>"]
    assert all("–" in cell for cell in summary.iloc[:, 4])
    same_n = "not distinguishable at this n" if lang == "en" else "在当前样本量下无法区分"
    # the paired comparison in plain words: each submission against the default prompts
    assert sum(same_n in m.value and default in m.value for m in trainer.markdown) == 2
    assert {"ev_rows_csv", "ev_summary_csv"} <= {b.key for b in trainer.get("download_button")}

    trainer.switch_page(ROOM).run()
    assert not trainer.exception, [e.message for e in trainer.exception]
    head = t("room_eval.board_head", lang, tasks=n, set=t("room_eval.code_set", lang))
    assert any(head in m.value for m in trainer.markdown)
    board = next(d.value for d in trainer.dataframe if t("room_eval.board_ci", lang) in d.value.columns)
    assert list(board.iloc[:, 0]) == [1, 2, 3]
    assert sorted(board.iloc[:, 1]) == sorted([default, "Strict critic", "Lenient <b>critic</b>"])
    rates = [int(cell.split("%")[0]) for cell in board.iloc[:, 2]]
    assert rates == sorted(rates, reverse=True) and all(f"/{n})" in cell for cell in board.iloc[:, 2])
    assert all("–" in cell for cell in board.iloc[:, 3])
    assert board.iloc[0, 4] == t("room_eval.top", lang)
    same = t("room_eval.same", lang, p="1")
    assert list(board.iloc[1:, 4]) == [same, same]  # equal verdicts on every task: McNemar p = 1
    assert list(board.iloc[:, 5]) == [t("room_eval.compare_none", lang)] * 3  # Compare has not run them


def test_the_board_puts_what_compare_measured_beside_evals_rates():
    trainer, code = trainer_opens("en")
    submit(seat_with_critic("en", code, STRICT), "Strict critic")
    picked(trainer, ["Strict critic"])
    trainer.button(key="room_sub_open").click().run()  # Compare first: the default lane and the submission
    trainer.switch_page("pages/compare.py").run()
    trainer.button(key="cmp_run").click().run()
    trainer.switch_page(ROOM).run()
    trainer.button(key="room_sub_eval").click().run()
    trainer.switch_page("pages/eval.py").run()
    trainer.session_state["ev_limit"] = 2
    trainer.run()
    trainer.button(key="ev_run").click().run(timeout=240)
    assert not trainer.exception, [e.message for e in trainer.exception]
    trainer.switch_page(ROOM).run()
    board = next(d.value for d in trainer.dataframe if "95% interval" in d.value.columns)
    assert len(board) == 2 and all("/2)" in cell for cell in board.iloc[:, 2])
    measured = list(board["In Compare"])
    assert all(cell.startswith(("passed · ", "not passed · ")) and cell.endswith(" calls") for cell in measured)
    # the Compare board is still there, above it
    assert any(t("room_seat.board_head", "en") in m.value for m in trainer.markdown)


def test_a_trainer_who_drops_the_entries_runs_patterns_and_the_board_stays_away():
    trainer, code = trainer_opens("en")
    submit(seat_with_critic("en", code, STRICT), "Strict critic")
    picked(trainer, ["Strict critic"])
    trainer.button(key="room_sub_eval").click().run()
    trainer.switch_page("pages/eval.py").run()
    assert trainer.button(key="ev_run").disabled is False
    trainer.button(key="ev_entries_drop").click().run()
    assert trainer.button(key="ev_run").disabled  # no pattern picked, no entry: nothing to run
    trainer.session_state["ev_patterns"] = ["direct"]
    trainer.session_state["ev_limit"] = 2
    trainer.run()
    trainer.button(key="ev_run").click().run(timeout=120)
    assert not trainer.exception, [e.message for e in trainer.exception]
    trainer.switch_page(ROOM).run()
    assert not any("95% interval" in d.value.columns for d in trainer.dataframe)
