"""Task sets in every format Eval reads, through one bounded loader: questions with answers, and code.

Formats (JSONL, one object a line, plain or gzipped; or CSV with a header row, in a file named .csv):

- **generic** questions: `id` (or `task_id`), `question` (or `input`), `answer` (or `expected`),
  optional `choices` (a JSON array, or in CSV a `|`-separated cell), optional `scorer` (one of
  scorers.SCORERS) and `tolerance` (numeric). Default scorer: `choice` for a task with choices, else `exact`.
- **GSM8K**: `question` and `answer`, the answer's working ending in `#### N`; the expected answer is N
  and the default scorer `numeric`. Ids are `gsm8k/<line>` unless the line has one.
- **MBPP**: `task_id`, `text`, `code`, `test_list` (asserts), optional `test_setup_code`: a code task,
  judged in the sandbox like HumanEval's, with `code` as its canonical solution.
- **HumanEval**: `task_id`, `prompt`, `entry_point`, `test` — read by tasks.load_tasks, as before.

The byte, task and field bounds are tasks.py's (5 MB read or unpacked, 500 tasks, 256 KB a field),
every line is parsed once, and a bad line is refused with its number. `--scorer NAME` (or a page's
choice) overrides the per-task and default scorers of a question set.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .. import untrusted
from ..errors import TaskSetError
from . import scorers, tasks
from .tasks import MAX_FIELD_CHARS, MAX_TASKS, EvalTask

FORMATS = ("generic", "gsm8k", "mbpp", "humaneval")
#: the scorer a format implies (code sets are judged by their unit tests)
DEFAULT_SCORER = {"generic": "exact", "gsm8k": "numeric", "mbpp": "tests", "humaneval": "tests"}
MAX_CHOICES = 26


def gsm8k_final(working: str) -> str | None:
    """What follows GSM8K's last `####`, when it is the last line of the working (found without a regex)."""
    at = working.rfind("####")
    if at < 0:
        return None
    final = working[at + 4 :].strip()
    return final if final and "\n" not in final else None


@dataclass(frozen=True)
class QuestionTask:
    """A question with its expected answer, scored by a scorer (not by unit tests)."""

    task_id: str
    question: str
    answer: str
    choices: tuple[str, ...] = ()
    #: a scorer name from scorers.SCORERS
    scorer: str = "exact"
    tolerance: float = scorers.DEFAULT_TOLERANCE
    #: GSM8K's worked solution (kept for reading; never shown to the model)
    working: str = ""


@dataclass(frozen=True)
class TaskSet:
    """A loaded task set: its format, and either code tasks (EvalTask) or question tasks."""

    format: str
    tasks: tuple[EvalTask | QuestionTask, ...] = field(default_factory=tuple)

    @property
    def is_code(self) -> bool:
        return self.format in ("mbpp", "humaneval")

    @property
    def default_scorer(self) -> str:
        return DEFAULT_SCORER[self.format]

    def with_scorer(self, name: str | None) -> TaskSet:
        """Every question scored by `name` (None: as loaded); a code set keeps its tests."""
        if not name:
            return self
        if name not in scorers.SCORERS:
            raise TaskSetError(f"unknown scorer {name!r}; choose from {', '.join(scorers.SCORERS)}", reason="invalid")
        if self.is_code:
            raise TaskSetError(
                f"a {self.format} set is judged by its unit tests; --scorer applies to question sets", reason="invalid"
            )
        if name == "regex":
            for t in self.tasks:
                scorers.check_regex(t.answer)  # type: ignore[union-attr]
        return replace(self, tasks=tuple(replace(t, scorer=name) for t in self.tasks))  # type: ignore[arg-type]


def load_task_set(source: bytes | str | os.PathLike[str], *, name: str = "") -> TaskSet:
    """Read any supported format from bytes (an upload; `name` is its file name) or a path."""
    text, data, name = tasks.read_text(source, name)
    base = name.removesuffix(".gz")
    try:
        if base.lower().endswith(".csv"):
            return TaskSet("generic", tuple(_from_csv(text)))
        return _from_jsonl(text, data)
    except TaskSetError as exc:
        if isinstance(source, (bytes, bytearray, memoryview)):
            raise
        raise TaskSetError(f"{name}: {exc}", exc.reason, detail=exc.detail) from None


# --- JSONL ------------------------------------------------------------------------------------------


def _from_jsonl(text: str, data: bytes) -> TaskSet:
    rows = list(_json_lines(text))
    if not rows:
        raise TaskSetError("no tasks: expected one JSON object a line", reason="empty")
    lineno, first = rows[0]
    if "entry_point" in first and "test" in first:
        return TaskSet("humaneval", tuple(tasks.load_tasks(data)))
    if "test_list" in first and "code" in first:
        return TaskSet("mbpp", tuple(_unique(_mbpp(raw, n) for n, raw in rows)))
    if "question" in first and "answer" in first and gsm8k_final(_text(first, "answer", lineno)) is not None:
        return TaskSet("gsm8k", tuple(_unique(_gsm8k(raw, n) for n, raw in rows)))
    return TaskSet("generic", tuple(_unique(_generic(raw, n) for n, raw in rows)))


def _json_lines(text: str) -> Any:
    count = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        count += 1
        if count > MAX_TASKS:
            raise TaskSetError(
                f"more than {MAX_TASKS} tasks (line {lineno}); evaluate a smaller set", reason="too_many"
            )
        try:
            raw = untrusted.loads(line, max_depth=8)
        except untrusted.JSONTooDeep:
            raise TaskSetError(f"line {lineno}: the JSON is nested too deeply", reason="not_json") from None
        except ValueError as exc:
            raise TaskSetError(
                f"line {lineno}: not JSON ({getattr(exc, 'msg', exc)}); expected one object a line",
                reason="not_json",
                detail=f"line {lineno}: {getattr(exc, 'msg', exc)}",
            ) from None
        if not isinstance(raw, dict):
            raise TaskSetError(f"line {lineno}: expected a JSON object, got {tasks._json_type(raw)}", reason="not_task")
        yield lineno, raw


def _text(raw: dict[str, Any], key: str, lineno: int, *, required: bool = True) -> str:
    value = raw.get(key)
    if value is None:
        if required:
            raise TaskSetError(f"line {lineno}: missing field {key!r}", reason="not_task")
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise TaskSetError(
            f"line {lineno}: field {key!r} must be a string, got {tasks._json_type(value)}", reason="not_task"
        )
    value = str(value)
    if len(value) > MAX_FIELD_CHARS:
        raise TaskSetError(
            f"line {lineno}: field {key!r} is {len(value):,} characters; a field is limited to {MAX_FIELD_CHARS:,}",
            reason="too_large",
        )
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise TaskSetError(f"line {lineno}: field {key!r} holds a lone surrogate", reason="not_text") from None
    return value


def _first(raw: dict[str, Any], keys: Sequence[str], lineno: int, what: str) -> str:
    for key in keys:
        if raw.get(key) is not None:
            return _text(raw, key, lineno)
    raise TaskSetError(f"line {lineno}: missing the {what} ({' or '.join(map(repr, keys))})", reason="not_task")


def _generic(raw: dict[str, Any], lineno: int, *, choices: tuple[str, ...] | None = None) -> QuestionTask:
    task_id = _first(raw, ("id", "task_id"), lineno, "id").strip()
    question = _first(raw, ("question", "input"), lineno, "question")
    answer = _first(raw, ("answer", "expected"), lineno, "answer")
    if choices is None:
        choices = _choices(raw.get("choices"), lineno)
    scorer = _text(raw, "scorer", lineno, required=False).strip() or ("choice" if choices else "exact")
    if scorer not in scorers.SCORERS:
        raise TaskSetError(
            f"line {lineno}: unknown scorer {scorer!r}; choose from {', '.join(scorers.SCORERS)}", reason="not_task"
        )
    if scorer == "regex":
        try:
            scorers.check_regex(answer)
        except TaskSetError as exc:
            raise TaskSetError(f"line {lineno}: {exc}", reason="not_task") from None
    if scorer == "choice" and not choices:
        raise TaskSetError(f"line {lineno}: the choice scorer needs the task's choices", reason="not_task")
    tolerance = _tolerance(raw.get("tolerance"), lineno)
    if not task_id:
        raise TaskSetError(f"line {lineno}: the id is empty", reason="not_task")
    return QuestionTask(task_id, question, answer, choices, scorer, tolerance)


def _choices(value: Any, lineno: int) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = [c.strip() for c in value.split("|")]
    if not isinstance(value, list) or not all(
        isinstance(c, (str, int, float)) and not isinstance(c, bool) for c in value
    ):
        raise TaskSetError(f"line {lineno}: choices must be an array of strings", reason="not_task")
    if not 2 <= len(value) <= MAX_CHOICES:
        raise TaskSetError(f"line {lineno}: a task has 2 to {MAX_CHOICES} choices, got {len(value)}", reason="not_task")
    out = tuple(str(c) for c in value)
    if any(len(c) > MAX_FIELD_CHARS for c in out):
        raise TaskSetError(f"line {lineno}: a choice is longer than {MAX_FIELD_CHARS:,} characters", reason="too_large")
    return out


def _tolerance(value: Any, lineno: int) -> float:
    if value is None or value == "":
        return scorers.DEFAULT_TOLERANCE
    try:
        tol = float(value)
    except (TypeError, ValueError, OverflowError):
        tol = -1.0
    if not 0.0 <= tol < float("inf"):
        raise TaskSetError(f"line {lineno}: tolerance must be a non-negative number, got {value!r}", reason="not_task")
    return tol


def _gsm8k(raw: dict[str, Any], lineno: int) -> QuestionTask:
    question = _text(raw, "question", lineno)
    working = _text(raw, "answer", lineno)
    final = gsm8k_final(working)
    if final is None or scorers.number_of(final) is None:
        raise TaskSetError(f"line {lineno}: a GSM8K answer ends in '#### N' with a number N", reason="not_task")
    task_id = (
        _text(raw, "id", lineno, required=False) or _text(raw, "task_id", lineno, required=False) or f"gsm8k/{lineno}"
    )
    return QuestionTask(
        task_id.strip(), question, final, (), "numeric", _tolerance(raw.get("tolerance"), lineno), working
    )


def _mbpp(raw: dict[str, Any], lineno: int) -> EvalTask:
    text = _text(raw, "text", lineno)
    code = _text(raw, "code", lineno)
    tests = raw.get("test_list")
    if not isinstance(tests, list) or not tests or not all(isinstance(t, str) for t in tests):
        raise TaskSetError(
            f"line {lineno}: test_list must be a non-empty array of assert statements", reason="not_task"
        )
    if sum(map(len, tests)) > MAX_FIELD_CHARS:
        raise TaskSetError(
            f"line {lineno}: the tests are longer than {MAX_FIELD_CHARS:,} characters", reason="too_large"
        )
    setup = _text(raw, "test_setup_code", lineno, required=False)
    # whitespace collapsed first (linear), so the pattern's blanks never meet a long run of them
    entry = re.match(
        r"\s*assert\s+(?:not\s+)?\(?\s*(?:set\(|sorted\(|math\.isclose\()?\s*([A-Za-z_]\w*)\s*\(",
        " ".join(tests[0].split()),
    )
    if entry is None:
        raise TaskSetError(f"line {lineno}: cannot tell the function's name from the first test", reason="not_task")
    task_id = f"mbpp/{_text(raw, 'task_id', lineno)}"
    # the task as MBPP states it: the description and one test as an example of the signature
    prompt = f'"""\n{text.strip()}\nYour code should pass this test:\n{tests[0].strip()}\n"""\n'
    test = "\n".join([setup, *tests]).strip() + "\n"
    line = {
        "task_id": task_id,
        "prompt": prompt,
        "entry_point": entry.group(1),
        "test": test,
        "canonical_solution": code,
    }
    return tasks._task(untrusted.dumps(line) or "", lineno)


def _unique(items: Any) -> list[Any]:
    out, seen = [], set()
    for item in items:
        if item.task_id in seen:
            raise TaskSetError(f"task id {item.task_id!r} appears twice", reason="not_task")
        seen.add(item.task_id)
        out.append(item)
    if not out:
        raise TaskSetError("no tasks", reason="empty")
    return out


# --- CSV --------------------------------------------------------------------------------------------


def _from_csv(text: str) -> list[QuestionTask]:
    csv.field_size_limit(MAX_FIELD_CHARS + 1)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        fieldnames = reader.fieldnames  # reads the header row: a field past the limit is a csv.Error here too
    except csv.Error as exc:
        raise TaskSetError(f"line 1: not CSV ({exc})", reason="not_task") from None
    if not fieldnames:
        raise TaskSetError("the CSV has no header row", reason="empty")
    header = [h.strip().casefold() for h in fieldnames]
    out = []
    try:
        for n, row in enumerate(reader, start=2):
            if n - 1 > MAX_TASKS:
                raise TaskSetError(f"more than {MAX_TASKS} tasks (line {n}); evaluate a smaller set", reason="too_many")
            raw = {h: v for h, v in zip(header, row.values(), strict=False) if isinstance(v, str) and v != ""}
            if not raw:
                continue
            out.append(_generic(raw, reader.line_num))
    except csv.Error as exc:
        raise TaskSetError(f"line {reader.line_num}: not CSV ({exc})", reason="not_task") from None
    return _unique(out)
