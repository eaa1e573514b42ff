"""Task sets in every format through one bounded loader: generic JSONL and CSV, GSM8K, MBPP, HumanEval;
hostile files are refused with a line number, in bounded time."""

from __future__ import annotations

import gzip
import json
import time

import pytest

from agent_core.errors import TaskSetError
from agent_core.evaluation import samples, tasksets
from agent_core.evaluation.tasks import BUNDLED_PATH, MAX_BYTES, MAX_TASKS, EvalTask


def jsonl(*objects) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode()


def test_generic_jsonl_with_both_spellings_choices_and_per_task_scorers() -> None:
    data = jsonl(
        {"id": "q1", "question": "Capital of France?", "answer": "Paris"},
        {"task_id": "q2", "input": "Pick a pet", "expected": "dog", "choices": ["cat", "dog"]},
        {"id": "q3", "question": "Roughly pi?", "answer": "3.14", "scorer": "numeric", "tolerance": 0.01},
        {"id": "q4", "question": "Say yes", "answer": r"\byes\b", "scorer": "regex"},
    )
    ts = tasksets.load_task_set(data, name="mine.jsonl")
    assert ts.format == "generic" and not ts.is_code
    q1, q2, q3, q4 = ts.tasks
    assert (q1.scorer, q2.scorer, q3.scorer, q4.scorer) == ("exact", "choice", "numeric", "regex")
    assert q2.choices == ("cat", "dog") and q2.question == "Pick a pet" and q3.tolerance == 0.01
    assert {t.scorer for t in ts.with_scorer("contains").tasks} == {"contains"}


def test_csv_with_pipe_separated_choices() -> None:
    data = b'id,question,answer,choices,scorer\nq1,Which is a pet?,B,cat|dog,\nq2,"2+2, in words?",four,,\n'
    ts = tasksets.load_task_set(data, name="set.csv")
    assert ts.format == "generic" and [t.task_id for t in ts.tasks] == ["q1", "q2"]
    assert ts.tasks[0].choices == ("cat", "dog") and ts.tasks[0].scorer == "choice"
    assert ts.tasks[1].question == "2+2, in words?"


def test_gsm8k_takes_the_number_after_the_hashes_and_scores_numerically() -> None:
    data = jsonl({"question": "How many?", "answer": "12 * 100 = 1200\n1200 + 34 = 1234\n#### 1,234"})
    ts = tasksets.load_task_set(data)
    assert ts.format == "gsm8k" and ts.default_scorer == "numeric"
    (task,) = ts.tasks
    assert (task.task_id, task.answer, task.scorer) == ("gsm8k/1", "1,234", "numeric")
    with pytest.raises(TaskSetError, match="line 2"):
        tasksets.load_task_set(data + jsonl({"question": "q", "answer": "no final line"}))


def test_mbpp_becomes_a_code_task_judged_by_its_tests() -> None:
    line = {
        "task_id": 2,
        "text": "Write a function to find the shared elements of two lists.",
        "code": "def similar_elements(a, b):\n    return tuple(set(a) & set(b))",
        "test_list": ["assert set(similar_elements((3, 4, 5, 6), (5, 7, 4, 10))) == set((4, 5))"],
        "test_setup_code": "",
    }
    ts = tasksets.load_task_set(jsonl(line))
    assert ts.format == "mbpp" and ts.is_code
    (task,) = ts.tasks
    assert isinstance(task, EvalTask) and task.entry_point == "similar_elements" and task.task_id == "mbpp/2"
    assert "similar_elements((3, 4, 5, 6)" in task.test and task.canonical_solution.startswith("def similar")
    with pytest.raises(TaskSetError, match="unit tests"):
        ts.with_scorer("exact")


def test_humaneval_goes_through_todays_loader() -> None:
    ts = tasksets.load_task_set(BUNDLED_PATH)
    assert ts.format == "humaneval" and len(ts.tasks) == 7 and ts.tasks[0].task_id.startswith("bundled/")
    gz = tasksets.load_task_set(gzip.compress(BUNDLED_PATH.read_bytes()), name="x.jsonl.gz")
    assert gz.tasks == ts.tasks


def test_the_bundled_samples_load() -> None:
    for sample in samples.SAMPLES.values():
        assert tasksets.load_task_set(sample.path).tasks
        assert sample.source["en"] and sample.source["zh"]
    assert "NOT GSM8K" in samples.SAMPLES["gsm8k-style"].source["en"]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (jsonl({"id": "q1", "question": "x"}), "missing the answer"),
        (jsonl({"id": "q1", "question": "x", "answer": "y", "scorer": "vibes"}), "unknown scorer"),
        (jsonl({"id": "q1", "question": "x", "answer": "(a+)+", "scorer": "regex"}), "nests a repeat"),
        (jsonl({"id": "q1", "question": "x", "answer": "y", "scorer": "choice"}), "needs the task's choices"),
        (jsonl({"id": "q1", "question": "x", "answer": "y", "choices": [["nested"]]}), "choices must be"),
        (jsonl({"id": "q1", "question": "x", "answer": "y", "tolerance": "-1"}), "tolerance"),
        (jsonl({"id": "q1", "question": "x", "answer": "y"}, {"id": "q1", "question": "z", "answer": "w"}), "twice"),
        (jsonl({"id": "q1", "question": ["x"], "answer": "y"}), "must be a string"),
        (b'{"id": "q1", "question": "x", "answer": "\\ud800"}\n', "surrogate"),
        (b'{"id": "q1", "question": ' + b"[" * 100 + b"]" * 100 + b"}\n", "nested too deeply"),
        (b"\xff\xfe garbage", "not UTF-8"),
        (b"", "no tasks"),
    ],
)
def test_bad_files_are_refused_with_a_reason(data: bytes, says: str) -> None:
    with pytest.raises(TaskSetError, match=says):
        tasksets.load_task_set(data, name="bad.jsonl")


def test_bounds_are_todays() -> None:
    with pytest.raises(TaskSetError, match="limited to 5 MB"):
        tasksets.load_task_set(b" " * (MAX_BYTES + 1))
    many = jsonl(*({"id": f"q{i}", "question": "x", "answer": "y"} for i in range(MAX_TASKS + 1)))
    with pytest.raises(TaskSetError, match="more than 500"):
        tasksets.load_task_set(many)
    rows = "id,question,answer\n" + "".join(f"q{i},x,y\n" for i in range(MAX_TASKS + 1))
    with pytest.raises(TaskSetError, match="more than 500"):
        tasksets.load_task_set(rows.encode(), name="big.csv")
    bomb = gzip.compress(b"{" + b" " * (MAX_BYTES + 10))
    with pytest.raises(TaskSetError, match="unpacks to more than"):
        tasksets.load_task_set(bomb, name="bomb.jsonl.gz")


@pytest.mark.parametrize(
    "make",
    [
        lambda: jsonl({"question": "q", "answer": "x" + " " * 200_000 + "\n#### 1"}),
        lambda: jsonl({"question": "q", "answer": "####" * 60_000 + " 1"}),
        lambda: jsonl({"task_id": 1, "text": "t", "code": "c", "test_list": ["assert" + " " * 200_000 + "f("]}),
        lambda: ("id,question,answer\n" + "q," + '"' * 200_000 + ",y\n").encode(),
    ],
)
def test_adversarial_fields_load_or_fail_in_bounded_time(make) -> None:
    data = make()
    started = time.perf_counter()
    try:
        tasksets.load_task_set(data, name="x.csv" if data.startswith(b"id,") else "x.jsonl")
    except TaskSetError:
        pass
    assert time.perf_counter() - started < 2.0
