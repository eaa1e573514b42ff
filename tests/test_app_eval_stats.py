"""The Eval page's statistics, question sets, repeats and presets under AppTest, in English and Chinese."""

from __future__ import annotations

import json

import pytest

from agent_core.evaluation import samples
from tests.app_pages import open_page


def _texts(at) -> str:
    return "\n".join([*(m.value for m in at.markdown), *(c.value for c in at.caption), *(i.value for i in at.info)])


@pytest.mark.parametrize(
    ("lang", "title", "same"),
    [
        ("en", "Pass rate with 95% intervals", "not distinguishable at this n"),
        ("zh", "通过率及 95% 置信区间", "在当前样本量下无法区分"),
    ],
)
def test_the_self_critique_preset_runs_offline_and_says_what_it_measured(lang: str, title: str, same: str) -> None:
    at = open_page("pages/eval.py", sb_lang=lang)
    finding = next(f for f in samples.FINDINGS if f.sample == "gsm8k-style")
    at.button(key=f"ev_preset_{finding.id}").click().run()
    assert at.session_state["ev_source"] == "gsm8k-style"
    assert at.session_state["ev_patterns"] == list(finding.patterns)
    page = _texts(at)
    assert finding.url in page and ("NOT GSM8K" in page or "不是 GSM8K" in page)  # its source, and what the sample is
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    assert any(s.value == title for s in at.subheader)
    page = _texts(at)
    assert same in page  # 8/12 vs 9/12: McNemar p = 1
    frames = [d.value for d in at.dataframe]
    # one call, self-critique, and the vote at about self-critique's budget: the vote keeps what one call got
    summary = next(f for f in frames if f.shape[0] == 3 and f.shape[1] == 6)
    assert list(summary.iloc[:, 1]) == [12, 12, 12] and list(summary.iloc[:, 2]) == [9, 8, 9]
    assert "–" in summary.iloc[0, 4]  # the interval
    keys = {b.key for b in at.get("download_button")}
    assert {"ev_rows_csv", "ev_summary_csv"} <= keys
    assert len(at.get("plotly_chart")) >= 1


def test_a_code_run_gets_intervals_beside_todays_view() -> None:
    at = open_page("pages/eval.py", ev_patterns=["direct", "reflection+tests"])
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    assert any(s.value == "Pass rate with 95% intervals" for s in at.subheader)
    assert "Wilson" in _texts(at)
    assert "ev_csv" in {b.key for b in at.get("download_button")}  # today's download stays


def test_an_uploaded_question_csv_runs_with_repeats_and_a_chosen_scorer() -> None:
    data = b"id,question,answer\nq1,Capital of France?,Paris\nq2,2+2?,4\n"
    at = open_page("pages/eval.py", sb_lang="zh", ev_patterns=["reference", "direct"])
    at.radio(key="ev_source").set_value("upload").run()
    at.get("file_uploader")[0].set_value(("mine.csv", data, "text/csv")).run()
    assert not at.exception and not at.error
    at.selectbox(key="ev_scorer").set_value("contains").run()
    at.number_input(key="ev_repeats").set_value(2).run()
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    results = at.session_state["ev_rows"]
    assert len(results) == 2 * 2 * 2 and {r["repeat"] for r in results} == {0, 1}
    assert all(r["scorer"] == "contains" for r in results)
    assert "自助法" in _texts(at)  # with repeats: a bootstrap over tasks, said so


def test_a_bad_question_upload_is_explained_not_raised() -> None:
    bad = (json.dumps({"id": "q", "question": "x", "answer": "(a+)+", "scorer": "regex"}) + "\n").encode()
    at = open_page("pages/eval.py")
    at.radio(key="ev_source").set_value("upload").run()
    at.get("file_uploader")[0].set_value(("bad.jsonl", bad, "application/json")).run()
    assert not at.exception
    assert at.error and "nests a repeat" in at.error[0].value


def test_the_reflexion_preset_runs_the_bundled_set_offline_and_says_where_humaneval_comes_from() -> None:
    finding = next(f for f in samples.FINDINGS if f.id == "reflexion-tests")
    assert finding.sample_for(offline=False) == "humaneval-sample" and finding.sample_for(offline=True) == "bundled"
    at = open_page("pages/eval.py")
    at.button(key=f"ev_preset_{finding.id}").click().run()
    assert at.session_state["ev_source"] == "bundled" and at.session_state["ev_patterns"] == list(finding.patterns)
    assert "scripted model" in _texts(at)
    at.button(key="ev_run").click().run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    rows = at.session_state["ev_rows"]
    passed = {p: sum(r["passed"] for r in rows if r["pattern"] == p) for p in finding.patterns}
    assert passed[finding.patterns[1]] > passed[finding.patterns[0]]  # the scripted direction: tests help


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_paired_sentence_says_more_less_or_not_distinguishable(lang: str) -> None:
    from agent_core.evaluation import stats
    from pages.ui import eval_stats

    verdicts = {}
    for i in range(12):  # b fixes 8 tasks a fails, breaks none: McNemar p = 2 / 2^8
        verdicts[(f"t{i}", "a", 0)] = i >= 8
        verdicts[(f"t{i}", "b", 0)] = True
    higher = stats.paired("a", "b", verdicts)
    lower = stats.paired("b", "a", verdicts)
    close = stats.paired("a", "a2", {**verdicts, **{(f"t{i}", "a2", 0): i >= 7 for i in range(12)}})
    assert higher.p_value == pytest.approx(2 / 256) and higher.distinguishable and close.p_value == 1.0
    said = [eval_stats.sentence(p, {"a": "A", "b": "B", "a2": "A2"}, lang) for p in (higher, lower, close)]
    assert all(said) and len(set(said)) == 3
    assert ("not distinguishable at this n" in said[2]) if lang == "en" else ("无法区分" in said[2])
    assert (
        ("more than" in said[0] and "less than" in said[1]) if lang == "en" else ("高" in said[0] and "低" in said[1])
    )


def test_the_eta_reads_the_pace_so_far() -> None:
    from pages.ui import eval_stats

    assert eval_stats.eta_text(0, 10, 5.0, "en") == "" and eval_stats.eta_text(10, 10, 5.0, "en") == ""
    assert eval_stats.eta_text(5, 10, 10.0, "en") == "about 10 s left"
    assert eval_stats.eta_text(1, 100, 60.0, "zh") == "约剩 99 分钟"
