"""Evaluation task sets in HumanEval's JSONL format: loading, validation, and the bundled set.

One JSON object a line with `task_id`, `prompt` (imports, signature and docstring), `entry_point`
(the function's name) and `test` (code defining `check(candidate)`, or plain asserts), plus the
optional `canonical_solution` (the body that completes `prompt`). Plain or gzipped. Everything is
checked at load, so a bad upload is refused with a message naming its line, not found mid-run.

Loading runs in the server, so its cost is bounded: 5 MB of file (read or unpacked), 500 tasks,
256 KB per field; JSON lines parsed without recursion limits biting (a deep line is a TaskSetError,
not a RecursionError); each test compiled once, to bytecode (building Python's AST of a 5 MB test
held the GIL for 10 s), and whether it defines `check` read from that, not parsed again later.
"""

from __future__ import annotations

import functools
import gzip
import io
import os
import types
import zlib
from dataclasses import dataclass
from pathlib import Path

from .. import untrusted
from ..errors import TaskSetError

MAX_BYTES = 5 * 1024 * 1024
MAX_TASKS = 500
#: The longest prompt, test or solution a task may have, in characters (HumanEval's longest test is
#: under 10 KB): compiling one costs the server about 0.1 s, with the GIL held.
MAX_FIELD_CHARS = 256 * 1024
REQUIRED_FIELDS = ("task_id", "prompt", "entry_point", "test")
BUNDLED_PATH = Path(__file__).resolve().parent.parent / "data" / "eval_tasks.jsonl"

_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class EvalTask:
    """One task: complete `prompt` so that `test` passes against the function `entry_point`."""

    task_id: str
    prompt: str
    entry_point: str
    test: str
    canonical_solution: str = ""

    @functools.cached_property
    def defines_check(self) -> bool:
        """True for HumanEval-style tests, which define `check(candidate)` at top level rather than call
        the function. Worked out once per task (the loader does it as it checks the test)."""
        try:
            module = compile(self.test, "<test>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        return _defines_check(module)


def _defines_check(module: types.CodeType) -> bool:
    # a function defined at the top level of the module is a code object among the module's constants
    return any(isinstance(c, types.CodeType) and c.co_name == "check" for c in module.co_consts)


def bundled_tasks() -> list[EvalTask]:
    """The small task set shipped with the package (it runs on the offline model); read once."""
    return list(_bundled())


@functools.lru_cache(maxsize=1)
def _bundled() -> tuple[EvalTask, ...]:
    return tuple(load_tasks(BUNDLED_PATH))


def read_text(source: bytes | str | os.PathLike[str], name: str = "") -> tuple[str, bytes, str]:
    """A task file's text, its (unpacked) bytes and its name, from bytes (an upload) or a path: at most
    MAX_BYTES as given, gzip unpacked within its own bound, UTF-8; raises TaskSetError saying why not."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, name = bytes(source), name or "the task file"
    else:
        data, name = _read(Path(source)), Path(source).name
    if len(data) > MAX_BYTES:
        raise TaskSetError(
            f"{name} is {len(data) / 1e6:.1f} MB; task sets are limited to {_mb(MAX_BYTES)}", reason="too_large"
        )
    if data[:2] == _GZIP_MAGIC:
        data = _gunzip(data, name)
    elif name.endswith(".gz"):
        raise TaskSetError(f"{name} is named .gz but is not gzip-compressed", reason="not_gzip")
    try:
        return data.decode("utf-8-sig"), data, name
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TaskSetError(f"{name} is not UTF-8 text (line {line}, byte {exc.start})", reason="not_text") from None


def load_tasks(source: bytes | str | os.PathLike[str]) -> list[EvalTask]:
    """Parse and validate a task set given as bytes (an upload) or a path; raises TaskSetError."""
    text, _data, name = read_text(source)
    try:
        return _parse(text)
    except TaskSetError as exc:
        if isinstance(source, (bytes, bytearray, memoryview)):
            raise
        raise TaskSetError(f"{name}: {exc}", exc.reason, detail=exc.detail) from None


def _read(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:  # refused before reading it into memory
            raise TaskSetError(
                f"{path.name} is {size / 1e6:.1f} MB; task sets are limited to {_mb(MAX_BYTES)}", reason="too_large"
            )
        return path.read_bytes()
    except OSError as exc:
        raise TaskSetError(f"cannot read {path}: {exc.strerror or exc}", reason="unreadable") from None


def _gunzip(data: bytes, name: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            out = fh.read(MAX_BYTES + 1)  # a bounded read: a small bomb must not fill the memory
    except (OSError, EOFError, zlib.error) as exc:
        raise TaskSetError(f"{name} is not a valid gzip file ({exc})", reason="not_gzip", detail=str(exc)) from None
    if len(out) > MAX_BYTES:
        raise TaskSetError(
            f"{name} unpacks to more than {_mb(MAX_BYTES)}; task sets are limited to that", reason="too_large"
        )
    return out


def _parse(text: str) -> list[EvalTask]:
    tasks: list[EvalTask] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(tasks) == MAX_TASKS:
            raise TaskSetError(
                f"more than {MAX_TASKS} tasks (line {lineno}); evaluate a smaller set", reason="too_many"
            )
        task = _task(line, lineno)
        if task.task_id in seen:
            raise TaskSetError(
                f"line {lineno}: task_id {task.task_id[:80]!r} repeats line {seen[task.task_id]}", reason="not_task"
            )
        seen[task.task_id] = lineno
        tasks.append(task)
    if not tasks:
        raise TaskSetError("no tasks: expected one JSON object a line (HumanEval's JSONL format)", reason="empty")
    return tasks


def _task(line: str, lineno: int) -> EvalTask:
    try:
        raw = untrusted.loads(line, max_depth=None)  # a task's extra fields may nest; only json's own limit
    except untrusted.JSONTooDeep:
        raise TaskSetError(
            f"line {lineno}: the JSON is nested too deeply; expected one task object a line (HumanEval's JSONL format)",
            reason="not_json",
        ) from None
    except ValueError as exc:
        raise TaskSetError(
            f"line {lineno}: not JSON ({getattr(exc, 'msg', exc)}); expected one task object "
            "a line (HumanEval's JSONL format)",
            reason="not_json",
            detail=f"line {lineno}: {getattr(exc, 'msg', exc)}",
        ) from None
    if not isinstance(raw, dict):
        raise TaskSetError(f"line {lineno}: expected a JSON object, got {_json_type(raw)}", reason="not_task")
    missing = [f for f in REQUIRED_FIELDS if f not in raw]
    if missing:
        raise TaskSetError(
            f"line {lineno}: missing field(s) {', '.join(missing)}; a task needs {', '.join(REQUIRED_FIELDS)}",
            reason="not_task",
        )
    if raw.get("canonical_solution") is None:
        raw["canonical_solution"] = ""
    for field in (*REQUIRED_FIELDS, "canonical_solution"):
        value = raw[field]
        if not isinstance(value, str):
            raise TaskSetError(
                f"line {lineno}: field {field!r} must be a string, got {_json_type(value)}", reason="not_task"
            )
        if len(value) > MAX_FIELD_CHARS:
            raise TaskSetError(
                f"line {lineno}: field {field!r} is {len(value):,} characters; a field is limited "
                f"to {MAX_FIELD_CHARS:,}",
                reason="too_large",
            )
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:  # a lone surrogate (JSON's \ud800): no page or sandbox can carry it
                raise TaskSetError(
                    f"line {lineno}: field {field!r} holds an invalid character "
                    f"(a lone surrogate, {value[exc.start]!r}, at character {exc.start})",
                    reason="not_text",
                ) from None
    task = EvalTask(*(raw[f] for f in (*REQUIRED_FIELDS, "canonical_solution")))
    where = f"line {lineno} ({task.task_id[:80]})"
    if not task.task_id.strip():
        raise TaskSetError(f"line {lineno}: task_id is empty", reason="not_task")
    if not task.entry_point.isidentifier():
        raise TaskSetError(
            f"{where}: entry_point {task.entry_point[:80]!r} is not a Python function name", reason="not_task"
        )
    if not task.test.strip():
        raise TaskSetError(f"{where}: the test is empty", reason="bad_test")
    try:
        module = compile(task.test, "<test>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise TaskSetError(
            f"{where}: the test does not parse (its line {getattr(exc, 'lineno', '?')}: {getattr(exc, 'msg', exc)})",
            reason="bad_test",
        ) from None
    task.__dict__["defines_check"] = _defines_check(module)  # the cached property, from this compile
    return task


def _json_type(value: object) -> str:
    names = {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "true/false",
        int: "a number",
        float: "a number",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def _mb(n: int) -> str:
    return f"{n // (1024 * 1024)} MB"
