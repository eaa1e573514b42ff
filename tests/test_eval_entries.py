"""Eval over named entries: a room's submissions (a label and a whole run config each) scored beside
the patterns by name, every row under the entry's label and naming the pattern it ran.

The story: two participants submit the one-call Direct pattern with their own system prompt; one of
them asks the model to be careful. A model that writes the right function only when asked to be
careful fails every task for the plain prompt: the rows, the summary and the paired comparison say so
per entry.
"""

from __future__ import annotations

import importlib.util

import pytest

import agent_core as ac
from agent_core.errors import ConfigError
from agent_core.evaluation import backends, bundled_tasks, entries, rows, samples
from agent_core.evaluation.tasksets import TaskSet
from agent_core.offline import OfflineModel
from agent_core.patterns.registry import configure, specs_for
from agent_core.testing import ScriptedModel

CAREFUL = "Be careful: handle every edge case."
TASKS = TaskSet("humaneval", tuple(bundled_tasks()))


def direct(extra: str = "", lang: str = "en") -> dict:
    """A Direct submission as a seat sends it: the config's dict, its system prompt edited."""
    prompts = {"system": specs_for("direct")["system"].default(lang) + extra} if extra else {}
    return configure("direct", lang=lang, prompts=prompts, scenario="umbrella", max_llm_calls=3).to_dict()


def careful_only(request) -> str:
    """The right function when the system prompt asks for care, a wrong one otherwise."""
    system = request.messages[0].content if request.messages else ""
    asked = request.messages[-1].content
    task = next(t for t in bundled_tasks() if t.prompt.strip() in asked)
    body = task.canonical_solution if CAREFUL in system else "    return None\n"
    return f"```python\n{task.prompt}{body}```"


def test_entries_with_different_prompts_give_rows_per_entry_with_their_label_and_pattern():
    plan = backends.plan(TASKS, ["reference"], entries=[("Plain", direct()), ("Careful", direct(CAREFUL))])
    assert plan.patterns == ("reference", "Plain", "Careful")
    got = [r for r in backends.local(plan, ScriptedModel.forever(careful_only)) if isinstance(r, rows.ResultRow)]
    assert len(got) == 3 * len(TASKS.tasks)
    by = {label: [r for r in got if r.pattern == label] for label in plan.patterns}
    assert all(r.passed for r in by["Careful"]) and not any(r.passed for r in by["Plain"])
    assert {r.runs for r in by["Plain"] + by["Careful"]} == {"direct"} and {r.runs for r in by["reference"]} == {""}
    assert all(r.calls == 1 for r in by["Careful"])  # Direct: one call a task
    summary = {s.pattern: s for s in rows.summarize_rows(got)}
    assert summary["Careful"].pass_rate == 1.0 and summary["Plain"].pass_rate == 0.0
    assert summary["Careful"].ci_low > summary["Plain"].ci_high  # Wilson: apart at n = 7
    (pair,) = rows.comparisons(got)  # the reference is no pattern to compare with; Plain is the first
    assert (pair.a, pair.b, pair.b_only, pair.a_only) == ("Plain", "Careful", 7, 0) and pair.distinguishable
    text = rows.rows_to_csv(got)
    assert text.splitlines()[0].startswith("task_id,pattern,runs,repeat,")
    assert "bundled/fizzbuzz,Careful,direct,0,True" in text


def test_an_entry_keeps_its_prompts_and_limits_and_runs_as_eval_runs_its_pattern():
    config, _task = ac.for_scenario("primes", "en")
    edited = config.replace(prompts={"critic": specs_for("reflection")["critic"].default("en") + "\nBe strict."})
    (entry,) = entries.parse([("Strict critic", edited.replace(max_llm_calls=9, test_evaluator=True))])
    ran = entry.config
    assert ran.prompts == edited.prompts and ran.max_llm_calls == 9 and ran.pattern == "reflection"
    # no scenario or tools, code mode on, the task's unit tests hidden (they judge): as Eval runs reflection
    assert ran.scenario is None and ran.tools == () and ran.options.code_task is True
    assert ran.options.test_evaluator is False and ran.options.tests == ""
    assert entries.drafts_scored("reflection") and not entries.drafts_scored("direct")


def test_a_reflection_entry_scores_its_drafts_offline_like_the_pattern_by_name():
    config, _task = ac.for_scenario("primes", "en")
    plan = backends.plan(TASKS, ["reflection"], limit=3, entries=[("Default prompts", config.replace(prompts={}))])
    got = [r for r in backends.local(plan, OfflineModel(), concurrency=2) if isinstance(r, rows.ResultRow)]
    mine = {(r.task_id, r.pattern): r for r in got}
    for task in TASKS.tasks[:3]:
        named, entry = mine[(task.task_id, "reflection")], mine[(task.task_id, "Default prompts")]
        assert entry.runs == named.runs == "reflection"
        assert entry.rounds and len(entry.rounds) == len(entry.round_calls)


def test_labels_are_cleaned_bounded_and_made_unique():
    got = entries.parse(
        [
            ("  Ann\x1b[31m\u202e\n  the\tgreat ", direct()),
            ("Ann[31m the great", direct()),  # the same label once cleaned
            ("direct", direct()),  # a pattern's name, run by name beside it
            ("ж" * 500, direct()),
            ("ж" * 500, direct()),
        ],
        taken=["direct"],
    )
    labels = [e.label for e in got]
    assert labels[:3] == ["Ann[31m the great", "Ann[31m the great (2)", "direct (2)"]
    assert labels[3] == "ж" * entries.MAX_LABEL_CHARS
    assert labels[4] == "ж" * (entries.MAX_LABEL_CHARS - 4) + " (2)"
    assert all(len(label) <= entries.MAX_LABEL_CHARS for label in labels)
    with pytest.raises(entries.EntryError) as empty:
        entries.parse([("\x00\u200f ", direct())])
    assert empty.value.message("zh") == "每个条目都需要一个名称"
    with pytest.raises(entries.EntryError, match="at most 8"):
        entries.parse([(f"e{i}", direct()) for i in range(entries.MAX_ENTRIES + 1)])


@pytest.mark.parametrize(
    ("config", "en", "zh"),
    [
        ({"pattern": "direct", "prompts": {"system": "Answer {nothing}"}}, "cannot run in Eval", "无法在评测中运行"),
        ({"pattern": "no-such-pattern"}, "does not parse", "无法解析"),
        ({"pattern": "direct", "max_llm_calls": -4}, "does not parse", "无法解析"),
        ("not a mapping", "does not parse", "无法解析"),
        ({"pattern": "direct", "prompts": {"system": "x" * 40_000}}, "the limit is 32,000", "上限为 32,000"),
    ],
)
def test_a_bad_config_is_refused_when_planned_before_anything_runs(config, en, zh):
    with pytest.raises(ConfigError) as refused:
        backends.plan(TASKS, ["direct"], entries=[("Good", direct()), ("Bad", config)])
    assert isinstance(refused.value, entries.EntryError)
    assert en in refused.value.message("en") and zh in refused.value.message("zh")


def test_patterns_by_name_are_unchanged_and_old_rows_files_resume(tmp_path):
    plan = backends.plan(TASKS, ["reference", "direct"], limit=2)
    assert plan.patterns == ("reference", "direct") and plan.entries == {}
    got = [r for r in backends.local(plan, OfflineModel()) if isinstance(r, rows.ResultRow)]
    assert [(r.pattern, r.runs) for r in got] == [("reference", ""), ("direct", "direct")] * 2
    with pytest.raises(ConfigError, match="choose at least one pattern"):
        backends.plan(TASKS, [])
    # a file written before rows said what they ran: read, and rewritten in today's columns before appending
    old = ",".join(c for c in rows.ROW_COLUMNS if c != "runs") + "\n"
    line = rows.row_line(got[1]).split(",")
    del line[2]
    path = tmp_path / "old.csv"
    path.write_text(old + ",".join(line), encoding="utf-8")
    assert [r.key for r in rows.read_rows(path)] == [got[1].key]
    rows.upgrade_file(path)
    assert path.read_text(encoding="utf-8").splitlines()[0] == ",".join(rows.ROW_COLUMNS)
    assert rows.read_rows(path)[0].runs == ""


def test_entries_run_on_a_question_set_without_the_code_options():
    config, _task = ac.for_scenario("primes", "en")
    plan = backends.plan(samples.load_sample("gsm8k-style"), [], limit=2, entries=[("Mine", config)])
    assert plan.configs["Mine"].options.code_task is False
    got = [r for r in backends.local(plan, OfflineModel()) if isinstance(r, rows.ResultRow)]
    assert [(r.pattern, r.runs) for r in got] == [("Mine", "reflection")] * 2


@pytest.mark.xdist_group("ray")
@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is an optional extra")
def test_ray_carries_entries_as_the_pool_does():
    from agent_core.evaluation import ray_backend

    ray = ray_backend._ray()
    started = not ray.is_initialized()
    if started:
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": ray_backend._ROOT}},
        )
    try:
        plan = backends.plan(TASKS, ["direct"], limit=2, entries=[("Careful", direct(CAREFUL))])
        local = [r for r in backends.local(plan, OfflineModel()) if isinstance(r, rows.ResultRow)]
        remote = list(ray_backend.RayEvaluation(plan, OfflineModel(), concurrency=2))
        key = sorted((r.key, r.runs, r.passed, r.calls, r.answer) for r in local)
        assert sorted((r.key, r.runs, r.passed, r.calls, r.answer) for r in remote) == key
        assert {r.runs for r in remote if r.pattern == "Careful"} == {"direct"}
    finally:
        if started:
            ray.shutdown()
