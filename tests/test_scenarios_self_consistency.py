"""The self-consistency scenarios play their runs on the offline model, in both languages: one chain of
thought slips on the order's total and the vote overturns it, where one call alone keeps the slip;
three chains disagree on the parcel's time and the arbiter reads their reasoning. The CLI lists and
runs them, and the Replay page draws the samples as lanes side by side."""

from __future__ import annotations

import io
import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.cli import main
from agent_core.patterns.self_consistency.offline import ORDER_SAMPLES, PARCEL_SAMPLES
from agent_core.testing import ScriptedModel


def play(scenario, lang="en", **overrides):
    config, task = ac.for_scenario(scenario, lang, **overrides)
    return ac.run(task, config, ac.OfflineModel())


def of(result, cls):
    return [e for e in result.events if isinstance(e, cls)]


@pytest.mark.parametrize(
    ("lang", "tally", "rule"),
    [
        ("en", "408: 2 of 3 samples (2, 3); 398: 1 of 3 (1)", "Majority: 408 (2 of 3)."),
        ("zh", "408：3 次采样中 2 次（第 2, 3 次）；398：3 次采样中 1 次（第 1 次）", "多数：408（3 次中 2 次）。"),
    ],
)
def test_the_vote_overturns_the_sample_that_slipped_on_the_order_total(lang, tally, rule):
    result = play("order-total-vote", lang)
    thoughts = of(result, ev.Thought)
    assert "377" in thoughts[0].text and thoughts[0].text.endswith("398"), "sample 1 multiplies wrong"
    assert all(t.text.endswith("408") for t in thoughts[1:])
    (vote,) = of(result, ev.VerdictEvent)
    assert (vote.role, vote.verdict, vote.feedback, vote.analysis) == ("vote", "PASS", tally, rule)
    assert result.final_answer == thoughts[1].text and result.final_answer.endswith("408")
    assert result.llm_calls == 3 == ac.call_bound(ac.for_scenario("order-total-vote", lang)[0])
    assert [c.role for c in of(result, ev.LlmCall)] == ["sampler"] * 3 and result.reason == "answer"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_call_alone_answers_with_the_slip_and_compares_preset_plays_all_three(lang):
    # the single-call baseline on the same task: the order's script plays its one call as the first draw
    from agent_core.patterns import registry

    preset = registry.presets()["vote"]
    seen = []
    for lane in preset.lanes:
        variant = registry.variants()[lane.variant]
        spec = registry.pattern_of_variant(lane.variant)
        config, task = ac.for_scenario(preset.scenario, lang, pattern=spec.name, **variant.forced)
        result = ac.run(task, config, ac.OfflineModel())
        seen.append(
            (
                spec.name,
                result.llm_calls,
                [v.verdict for v in of(result, ev.VerdictEvent)],
                result.final_answer.rsplit(" ", 1)[-1].rsplit("：", 1)[-1],
            )
        )
    assert seen == [
        ("direct", 1, [], "398"),
        ("self-consistency", 3, ["PASS"], "408"),
        ("self-consistency", 4, ["PASS", "PASS"], "408"),
    ]
    first = ORDER_SAMPLES[0][1 if lang == "zh" else 0]
    direct = ac.run(
        ac.for_scenario(preset.scenario, lang)[1], ac.configure("direct", lang=lang), ScriptedModel([first])
    )
    assert direct.final_answer == first, "the same chain from any model that draws it first"


@pytest.mark.parametrize(("lang", "why"), [("en", "60 minutes to the hour"), ("zh", "一小时是 60 分钟")])
def test_with_no_majority_the_arbiter_overrules_the_tie_rule_on_the_parcels_time(lang, why):
    result = play("parcel-time-arbiter", lang)
    vote, review = of(result, ev.VerdictEvent)
    assert vote.verdict == "REVISE" and "225" in vote.analysis, "a three-way tie: the tie rule would keep 225"
    assert (review.role, review.verdict) == ("arbiter", "REVISE") and why in review.feedback
    assert result.final_answer.endswith("215") and result.llm_calls == 4
    assert [c.role for c in of(result, ev.LlmCall)] == ["sampler"] * 3 + ["arbiter"]
    without = play("parcel-time-arbiter", lang, use_arbiter=False)
    assert without.final_answer.endswith("225") and without.llm_calls == 3, "the tie rule alone keeps the slip"


def test_more_samples_bring_more_of_the_right_answer():
    result = play("parcel-time-arbiter", use_arbiter=False, num_samples=5)
    (vote,) = of(result, ev.VerdictEvent)
    assert vote.feedback.startswith("215: 3 of 5 samples (2, 4, 5)") and vote.verdict == "PASS"
    assert result.final_answer == PARCEL_SAMPLES[1][0]


def test_a_free_task_plays_the_generic_samples_labelled_as_scripted():
    result = ac.run("Name a colour.", ac.configure("self-consistency", use_arbiter=True), ac.OfflineModel())
    (vote,) = of(result, ev.VerdictEvent)
    assert vote.verdict == "PASS" and "3 of 3" in vote.feedback and result.llm_calls == 3
    assert "Scripted offline demo" in result.final_answer


def cli(*argv):
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_the_cli_lists_and_runs_both_scenarios_in_both_languages(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code, listed = cli("scenarios")
    assert code == 0 and {"order-total-vote", "parcel-time-arbiter"} <= {
        line.split()[0] for line in listed.splitlines()
    }
    path = tmp_path / "vote.json"
    code, out = cli("run", "--pattern", "self-consistency", "--scenario", "order-total-vote", "--trace-out", str(path))
    assert code == 0 and "verdict vote PASS: Majority: 408 (2 of 3)." in out and out.count("llm  sampler") == 3
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["config"]["num_samples"] == 3 and saved["result"]["llm_calls"] == 3
    code, out = cli("run", "--pattern", "self-consistency", "--scenario", "parcel-time-arbiter", "--lang", "zh")
    assert code == 0 and "verdict arbiter REVISE: 改选 B：215" in out and "llm  arbiter" in out
    code, out = cli("run", "--scenario", "parcel-time-arbiter", "--no-use-arbiter", "--num-samples", "2")
    assert code == 0 and "llm  arbiter" not in out and out.count("llm  sampler") == 2


def test_the_replay_page_draws_the_samples_side_by_side_and_the_vote_below():
    from tests.app_pages import open_page

    at = open_page("pages/replay.py")
    at.selectbox(key="rp_example").select("parcel-time-arbiter.en").run()
    assert not at.exception, [e.message for e in at.exception]
    # the columns that hold samples and nothing else (the page's own columns hold the whole run)
    lanes = [c for c in at.main.columns if c.expander and all(e.label.startswith("Sample ") for e in c.expander)]
    assert [[e.label for e in c.expander] for c in lanes] == [["Sample 1 of 3"], ["Sample 2 of 3"], ["Sample 3 of 3"]]
    below = [e.label for e in at.main.expander if not e.label.startswith("Sample ")]
    assert [label for label in below if label.startswith(("Vote", "Arbiter"))] == [
        "Vote — REVISE",
        "Arbiter · reviews the vote — REVISE",
    ]
    # each verdict is named by its role: the vote (no model said it), then the arbiter
    named = [m.value for m in at.main.markdown if m.value in ("**vote**", "**arbiter**", "**sampler**")]
    assert named == ["**vote**", "**arbiter**"]


def test_the_replay_page_names_the_vote_in_chinese_and_its_scrubber_says_whose_verdict_it_is():
    from pages.ui import player
    from tests.app_pages import open_page

    at = open_page("pages/replay.py", sb_lang="zh")
    box = at.selectbox(key="rp_example")  # its options read in the page's language
    box.select_index(next(i for i, o in enumerate(box.options) if "包裹" in o and "中文" in o)).run()
    assert not at.exception, [e.message for e in at.exception]
    assert [m.value for m in at.main.markdown if m.value in ("**投票**", "**仲裁者**", "**采样者**")] == [
        "**投票**",
        "**仲裁者**",
    ]
    assert [e.label for e in at.main.expander if e.label.startswith("投票")] == ["投票 — REVISE"]
    config, task = ac.for_scenario("parcel-time-arbiter", "zh")
    vote = next(e for e in ac.stream(task, config, ac.OfflineModel()) if isinstance(e, ev.VerdictEvent))
    assert "投票" in player.describe(vote, "zh") and "vote" in player.describe(vote, "en")


@pytest.mark.parametrize(
    ("variant", "shown"),
    [("Self-consistency — majority vote", ["PASS"]), ("Self-consistency + arbiter", ["REVISE", "REVISE"])],
)
def test_the_playground_runs_each_variant_on_its_scenario_live_and_redrawn(variant, shown):
    from tests.app_pages import badges, open_page

    at = open_page("pages/playground.py")
    at.selectbox(key="pg_variant").select(variant).run()
    assert at.number_input(key="pg_limit_num_samples").value == 3
    at.button(key="pg_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert [label for _colour, label in badges(at) if label in ev.VERDICTS] == shown
    run = at.session_state["pg_runs"][-1]
    assert [e.kind for e in run.events if e.kind == "llm_call"] == ["llm_call"] * (3 + len(shown) - 1)
    lanes = [c for c in at.main.columns if c.expander and all(e.label.startswith("Sample ") for e in c.expander)]
    assert len(lanes) == 3


@pytest.mark.parametrize(
    ("lang", "story"),
    [
        ("en", ["### Sample 3", "### Vote", "**Verdict (vote):** `REVISE`", "**Verdict (arbiter):** `REVISE`"]),
        ("zh", ["### 采样 3", "### 投票", "**评审结论（投票）：** `REVISE`", "**评审结论（仲裁者）：** `REVISE`"]),
    ],
)
def test_the_report_tells_each_sample_then_the_vote_and_the_arbiter(lang, story):
    from agent_core.report import markdown_report

    config, task = ac.for_scenario("parcel-time-arbiter", lang)
    events = list(ac.stream(task, config, ac.OfflineModel()))
    report = markdown_report(config.to_dict(), events, {"default": "offline-scripted"})
    # the vote has a heading of its own (it is no part of the last sample) and is named in the report's language
    at = [report.find(line) for line in story]
    assert -1 not in at and at == sorted(at), list(zip(story, at, strict=True))
    assert report.count(story[1]) == 1 and "(sampler)" not in report and "（sampler）" not in report
    assert "`sample_temperature` | 0.7" in report and "`use_arbiter` | " in report


def test_in_step_mode_the_room_predicts_the_arbiter_and_a_persons_revise_picks_the_answer():
    import time

    from agent_core.rooms import forget_rooms, rooms
    from tests.step_mode import room_with_a_seat, run_in_steps

    presenter, participant, code = room_with_a_seat()
    run_in_steps(presenter, "self-consistency-arbiter", "role:arbiter")
    record = presenter.session_state["pg_runs"][-1]
    for _ in range(200):
        if record.handle is not None and record.handle.paused:
            break
        time.sleep(0.02)
    presenter.run()
    assert record.handle.pending.role == "arbiter" and record.handle.pending.call == 4
    presenter.button(key="pg_poll_open").click().run()
    participant.run()
    participant.segmented_control(key=f"poll_choice_{rooms().poll(code).id}").set_value("REVISE").run()
    presenter.button(key="pg_step_answer").click().run()
    presenter.segmented_control(key="pg_step_verdict_arbiter_4").set_value("REVISE").run()
    presenter.text_area(key="pg_step_feedback_arbiter_4").input("B: a clock has 60 minutes to the hour").run()
    presenter.button(key="pg_step_send_answer_arbiter_4").click().run()
    for _ in range(200):
        if not record.active and rooms().poll(code).answer is not None:
            break
        time.sleep(0.02)
    presenter.run()
    assert not presenter.exception, [e.message for e in presenter.exception]
    review = [e for e in record.events if e.kind == "verdict"][-1]
    assert (review.role, review.verdict) == ("arbiter", "REVISE") and "215" in review.analysis
    assert next(e.text for e in record.events if e.kind == "final_answer").endswith("215")
    participant.run()
    assert any("said **REVISE** · 1 of 1 predicted it" in m.value for m in participant.markdown)
    forget_rooms()
