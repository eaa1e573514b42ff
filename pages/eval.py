"""Eval: run patterns over a task set with ground truth (code tasks with unit tests) and read pass
rate against cost, beside published reference points. Rows are stored as they arrive, so a Stop or
a page switch keeps what was measured."""

import contextlib
import dataclasses
import hashlib
import time
import uuid
from contextlib import closing

import pandas as pd
import streamlit as st

from agent_core import sandbox
from agent_core.errors import AgentError
from agent_core.evaluation import (
    DEFAULT_CONCURRENCY,
    EVAL_PATTERNS,
    MAX_CONCURRENCY,
    PATTERN_HELP,
    REFERENCE_POINTS,
    TEST_FEEDBACK_NOTE,
    EvalProgress,
    EvalRow,
    backend_choice,
    backends,
    bundled_tasks,
    evaluate,
    rows_to_csv,
    samples,
    scores_figure,
    summarize,
    tasksets,
    worst_case,
)
from agent_core.evaluation.harness import SEES_TESTS
from agent_core.evaluation.rows import ResultRow
from agent_core.evaluation.scorers import SCORERS
from agent_core.offline.model import MODEL_NAME
from agent_core.sandbox import admission
from pages.ui import (
    costs,
    eval_details,
    eval_entries,
    eval_rounds,
    eval_stats,
    live,
    runs,
    shell,
    sidebar,
    text,
    trace_problems,
)
from pages.ui.i18n import t, words

shell.require("eval")
P = "ev"
lang = sidebar.current_lang()
state = st.session_state
state.setdefault(f"{P}_patterns", list(EVAL_PATTERNS))  # the reference, every pattern and the baseline
state.setdefault(f"{P}_rows", [])
state.setdefault(f"{P}_job", None)  # the id of the evaluation this session is running, if any
state.setdefault(f"{P}_concurrency", DEFAULT_CONCURRENCY)
state.setdefault(f"{P}_repeats", 1)
state.setdefault(f"{P}_backend", "local")

WORDS = words("eval", lang)
#: pattern ids (the rows' own) and sandbox statuses, as this page shows them
LABELS, STATUSES = words("eval.patterns", lang), words("eval.status", lang)


def _label(pattern: str) -> str:
    return LABELS.get(pattern, pattern)


st.title(t("eval.title"))
st.caption(t("eval.intro"))
if sandbox.unsafe_local_enabled():
    st.warning(t("eval.unsafe"), icon=":material/warning:")


def _uploaded() -> None:
    """Parse an upload once, when it arrives, keyed by its content: the tasks, or why they cannot be
    used. Reruns read what was kept; the same bytes uploaded again are not parsed again."""
    upload = state.get(f"{P}_upload")
    if upload is None:
        state[f"{P}_upload_tasks"], state[f"{P}_upload_error"], state[f"{P}_upload_digest"] = [], None, None
    else:
        data = upload.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        if digest != state.get(f"{P}_upload_digest"):
            state[f"{P}_upload_tasks"], state[f"{P}_upload_error"] = [], None
            try:  # every format (HumanEval, MBPP, GSM8K, questions) through the one bounded loader
                state[f"{P}_upload_set"] = tasksets.load_task_set(data, name=upload.name)
                state[f"{P}_upload_tasks"] = list(state[f"{P}_upload_set"].tasks)
            except AgentError as exc:  # (why, in the reader's language; the core's words name the line)
                state[f"{P}_upload_error"] = (getattr(exc, "reason", "invalid"), str(exc), getattr(exc, "detail", ""))
            state[f"{P}_upload_digest"] = digest
    _run_all(state[f"{P}_upload_tasks"])


def _run_all(tasks: list) -> None:
    """A new task set runs in full unless the user lowers the count."""
    state[f"{P}_limit"] = max(1, len(tasks))


def _sample(name: str) -> tasksets.TaskSet:
    return samples.load_sample(name)  # read once per process


def _source_changed() -> None:
    chosen = state[f"{P}_source"]
    _run_all(
        bundled_tasks()
        if chosen == "bundled"
        else list(_sample(chosen).tasks)
        if chosen in samples.SAMPLES
        else state.get(f"{P}_upload_tasks") or []
    )


SOURCES = {
    "bundled": WORDS["bundled"],
    **{s.id: s.title[lang] for s in samples.SAMPLES.values() if s.id != "bundled"},
    "upload": WORDS["upload"],
}
source = st.radio(
    WORDS["task_set"],
    list(SOURCES),
    horizontal=True,
    key=f"{P}_source",
    format_func=SOURCES.__getitem__,
    disabled=state[f"{P}_job"] is not None,
    persist_state="session",
    on_change=_source_changed,
)
tasks, problem = [], None
task_set = None
if source == "bundled":
    tasks = bundled_tasks()
elif source in samples.SAMPLES:
    task_set = _sample(source)
    tasks = list(task_set.tasks)
else:
    # max_upload_size: 5 MB, the most load_tasks reads; the uploader refuses a bigger file before sending it
    st.file_uploader(
        WORDS["uploader"],
        type=["jsonl", "gz", "json", "csv"],
        key=f"{P}_upload",
        on_change=_uploaded,
        help=WORDS["uploader_help"],
        max_upload_size=5,
    )
    tasks, problem = state.get(f"{P}_upload_tasks") or [], state.get(f"{P}_upload_error")
    task_set = state.get(f"{P}_upload_set") if tasks else None
    if problem:
        reason, message, *detail = problem
        said = trace_problems.said("task_problems", reason, message, "".join(detail), lang)
        st.error(WORDS["bad_upload"].format(detail=text.escape(said)), icon=":material/error:")
#: a question set (answers scored by a scorer, not code judged by tests) runs through agent_core.evaluation.backends
questions = task_set is not None and not task_set.is_code
STATS = words("eval_stats", lang)
if questions:
    st.caption(
        STATS["questions"].format(
            n=len(tasks), format=task_set.format, scorer=", ".join(dict.fromkeys(t.scorer for t in tasks))
        )
    )
if tasks:
    st.caption(
        WORDS["tasks"].format(n=len(tasks))
        + ", ".join(text.code_span(task.task_id) for task in tasks[:12])
        + (" …" if len(tasks) > 12 else "")
    )

offered = [p for p in EVAL_PATTERNS if not (questions and p in SEES_TESTS)]  # a question has no unit tests
state[f"{P}_patterns"] = [p for p in state[f"{P}_patterns"] if p in offered]
left, middle, right, far = st.columns([3, 1, 1, 1])
patterns = left.multiselect(
    WORDS["pattern_pick"],
    offered,
    key=f"{P}_patterns",
    format_func=_label,
    disabled=state[f"{P}_job"] is not None,
    persist_state="session",
    placeholder=t("choose.patterns", lang),
    help="\n\n".join(f"**{_label(p)}** — {PATTERN_HELP[p][lang]}" for p in EVAL_PATTERNS),
)
#: a room's submissions and the default prompts, handed over as named entries (pages/ui/eval_entries.py)
named = eval_entries.show(lang, disabled=state[f"{P}_job"] is not None)
state.setdefault(f"{P}_limit", max(1, len(tasks)))
state[f"{P}_limit"] = min(state[f"{P}_limit"], max(1, len(tasks)))
limit = middle.number_input(
    WORDS["limit"],
    min_value=1,
    max_value=max(1, len(tasks)),
    key=f"{P}_limit",
    disabled=state[f"{P}_job"] is not None,
    persist_state="session",
)
concurrency = right.number_input(
    WORDS["concurrency"],
    min_value=1,
    max_value=MAX_CONCURRENCY,
    step=1,
    key=f"{P}_concurrency",
    help=WORDS["concurrency_help"],
    disabled=state[f"{P}_job"] is not None,
    persist_state="session",
)
repeats = far.number_input(
    STATS["repeats"],
    min_value=1,
    max_value=backends.MAX_REPEATS,
    step=1,
    key=f"{P}_repeats",
    help=STATS["repeats_help"],
    disabled=state[f"{P}_job"] is not None,
    persist_state="session",
)
scorer = None
if questions:
    picked = st.selectbox(
        STATS["scorer"],
        ["", *SCORERS],
        key=f"{P}_scorer",
        help=STATS["scorer_help"],
        format_func=lambda s: s or STATS["scorer_default"],
        disabled=state[f"{P}_job"] is not None,
        persist_state="session",
    )
    scorer = picked or None
#: where the runs go, the CLI's --backend choice: offered only where Ray's optional extra is installed
RAY = words("eval_backend", lang)
if backend_choice.ray_installed():
    backend = st.radio(
        RAY["label"],
        backend_choice.BACKENDS,
        horizontal=True,
        key=f"{P}_backend",
        format_func=lambda b: RAY[b],
        help=RAY["help"],
        disabled=state[f"{P}_job"] is not None,
        persist_state="session",
    )
    if backend == "ray":
        st.caption(RAY["ray_note"])
else:
    backend = "local"
    st.caption(RAY["missing"].format(install=backend_choice.RAY_INSTALL))
#: question sets, repeats and Ray run through the backends (rows per task x pattern x repeat); a single local
#: run of a code set keeps the harness's rows (the rounds view reads them)
repeated = questions or int(repeats) > 1 or backend == "ray" or bool(named)
if SEES_TESTS & set(patterns):
    st.info(TEST_FEEDBACK_NOTE[lang], icon=":material/info:")


def _start() -> None:
    state[f"{P}_rows"] = []
    state[f"{P}_started"] = time.monotonic()
    state[f"{P}_note"] = None
    state[f"{P}_job"] = uuid.uuid4().hex[:8]
    eval_entries.started()


def _stop() -> None:
    """End every run under way, and keep every finished row (also rows that finished ahead of a
    slower earlier task, which the page has not shown yet)."""
    job, pool = state.get(f"{P}_pool") or (None, None)
    if pool is not None and job == state[f"{P}_job"]:
        pool.stop(timeout=1.0)  # workers close their runs at their next event; the rows are kept either way
        state[f"{P}_rows"] = [_kept(r) for r in pool.finished_rows()]
        state[f"{P}_note"] = ("info", WORDS["stopped"].format(rows=len(state[f"{P}_rows"])))
    state[f"{P}_job"] = None


def _kept(row: EvalRow | ResultRow) -> dict:  # stored as a dict with its kind
    return {**dataclasses.asdict(row), "_kind": "result" if isinstance(row, ResultRow) else "eval"}


blocked = not tasks or not (patterns or named) or bool(problem) or runs.any_active()
buttons = st.container(horizontal=True)
buttons.button(
    WORDS["run"],
    key=f"{P}_run",
    type="primary",
    icon=":material/play_arrow:",
    on_click=_start,
    disabled=blocked or state[f"{P}_job"] is not None,
)
buttons.button(
    WORDS["stop"], key=f"{P}_stop", icon=":material/stop_circle:", on_click=_stop, disabled=state[f"{P}_job"] is None
)
worst = None
if tasks and (patterns or named) and not problem and not questions:
    # worked out once per task set (its content digest), patterns, count and language, not on every rerun
    asked = (
        "bundled" if source == "bundled" else state.get(f"{P}_upload_digest"),
        tuple(patterns),
        tuple((e.label, repr(e.config)) for e in named),
        int(limit),
        lang,
    )
    kept = state.get(f"{P}_worst")
    if kept is None or kept[0] != asked:
        try:
            bound = worst_case(tasks, patterns, limit=int(limit), lang=lang, entries=[e.config for e in named])
            kept = (asked, bound, None)
        except AgentError as exc:
            kept = (asked, None, str(exc))
        state[f"{P}_worst"] = kept
    worst = kept[1]
    if kept[2] is not None:
        st.error(text.escape(kept[2]), icon=":material/error:")
    else:
        buttons.caption(
            WORDS["bound"].format(calls=worst.calls, worst=costs.worst_case_text(worst, sidebar.model_router(), lang))
        )

progress = st.empty()
in_line = st.empty()
gauge = st.empty()
table = st.empty()


def _frame(rows: list[dict]) -> pd.DataFrame:
    if rows and rows[0].get("_kind") == "result":
        frame = pd.DataFrame(
            rows, columns=["task_id", "pattern", "repeat", "passed", "status", "calls", "tokens", "cost", "detail"]
        )
        return frame.rename(columns={"calls": "llm_calls", "cost": "cost_usd", "detail": "summary"})
    columns = [
        "task_id",
        "pattern",
        "passed",
        "status",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "summary",
    ]
    return pd.DataFrame(rows, columns=columns)


def _table(rows: list[dict]) -> None:
    frame = _frame(rows)
    frame["pattern"] = [_label(p) for p in frame["pattern"]]
    frame["status"] = [STATUSES.get(s, s) for s in frame["status"]]
    frame["summary"] = [eval_details.said(s, lang) for s in frame["summary"]]
    cols = words("eval.col", lang)
    table.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        column_config={
            **{name: st.column_config.Column(cols[name]) for name in frame.columns if name in cols},
            **{
                name: st.column_config.Column(STATS[f"col_{name}"])
                for name in ("repeat", "tokens")
                if name in frame.columns
            },
            "cost_usd": st.column_config.NumberColumn(
                costs.words(lang)["cost"], format="$%.4f", help=costs.words(lang)["cost_help"]
            ),
        },
    )


def _gauge(rows: list[dict]) -> None:
    """Spend so far (the finished rows' costs) against the evaluation's worst case."""
    router = sidebar.model_router()
    price, _ = costs.model_price(router, costs.price_table()[0])
    ceiling = worst.cost(price) if worst is not None else None
    paid = [r.get("cost_usd", r.get("cost")) for r in rows]
    spent = None if any(c is None for c in paid) else sum(paid)
    words = costs.words(lang)
    if spent is None:
        gauge.caption(words["spend_unknown"].format(models=", ".join(dict.fromkeys(router.names().values()))))
    else:
        gauge.progress(
            min(1.0, spent / ceiling) if ceiling else 0.0,
            text=words["spend"].format(spent=costs.money(spent, lang), worst=costs.money(ceiling, lang)),
        )


def _in_line(line: admission.QueueState) -> None:
    """Where this evaluation's runs wait for one of the server's judge slots (shared by every session)."""
    if line.position is None:
        in_line.empty()
        return
    queue = words("eval.queue", lang)
    n = line.position
    place = queue.get(
        f"place_{n % 10}" if n % 10 in (1, 2, 3) and n % 100 not in (11, 12, 13) else "place", queue["place"]
    ).format(n=n)
    in_line.caption(queue["waiting"].format(place=place, running=line.running))


job = state[f"{P}_job"]
if job is not None:
    pool = None
    try:
        if not questions:
            sandbox.check_available()  # no sandbox, no judging: SandboxUnavailable says why and how to fix it
        alive = live.session_alive()  # a closed tab's runs leave the judge queue (None under AppTest)
        with admission.cancelled_when(None if alive is None else (lambda: not alive())):
            if repeated:
                chosen = (task_set or tasksets.TaskSet("humaneval", tuple(tasks))).with_scorer(scorer)
                plan = backends.plan(chosen, patterns, repeats=int(repeats), limit=int(limit), lang=lang, entries=named)
                with st.spinner(RAY["starting"]) if backend == "ray" else contextlib.nullcontext():
                    pool = backend_choice.start(
                        plan,
                        sidebar.model_router(),
                        backend=backend,
                        concurrency=int(concurrency),
                        prices=costs.price_table()[0],
                    )
            else:
                pool = evaluate(
                    tasks,
                    patterns,
                    sidebar.model_router(),
                    limit=int(limit),
                    lang=lang,
                    concurrency=int(concurrency),
                    prices=costs.price_table()[0],
                )
        state[f"{P}_pool"] = (job, pool)  # for Stop's callback, which runs in another script run
        latest: EvalProgress | ResultRow | None = None
        with closing(pool):  # a page switch or the toolbar's Stop ends every run under way
            for item in pool:
                if state.get(f"{P}_job") != job:
                    break  # stopped, or superseded by a newer evaluation
                if isinstance(item, admission.QueueState):
                    _in_line(item)
                    continue
                if isinstance(item, (EvalRow, ResultRow)):
                    state[f"{P}_rows"].append(_kept(item))
                    _table(state[f"{P}_rows"])
                    _gauge(state[f"{P}_rows"])
                    if not isinstance(latest, EvalProgress):  # Ray says only which run finished
                        latest = item
                else:
                    latest = item
                if latest is not None:  # counted from the pool: rows may finish ahead of the table
                    done = len(pool.finished_rows())
                    eta = eval_stats.eta_text(done, pool.total, time.monotonic() - state[f"{P}_started"], lang)
                    progress.progress(
                        done / pool.total,
                        text=WORDS["progress"].format(
                            done=done,
                            total=pool.total,
                            running=max(0, pool.in_flight),
                            pattern=_label(latest.pattern)
                            if latest.pattern in LABELS
                            else text.inline(latest.pattern, 60),  # an entry's label: participant text
                            task=latest.task_id,
                        )
                        + (f" · {eta}" if eta else ""),
                    )
        if pool.gate.refusals:
            state[f"{P}_note"] = ("warning", WORDS["waited"].format(n=pool.gate.refusals, s=pool.gate.waited_s))
    except AgentError as exc:
        state[f"{P}_note"] = (
            "error",
            exc.message(lang)
            if isinstance(exc, (sandbox.SandboxUnavailable, admission.QueueFull, eval_entries.named.EntryError))
            else WORDS["failed"].format(detail=exc),
        )
    finally:
        if state.get(f"{P}_job") == job:
            if pool is not None:  # ended here (finished, page switch): every finished row, in order
                state[f"{P}_rows"] = [_kept(r) for r in pool.finished_rows()]
            state[f"{P}_job"] = None
        if (state.get(f"{P}_pool") or (None,))[0] == job:
            state[f"{P}_pool"] = None
    st.rerun()

note = state.get(f"{P}_note")
if note:
    kind, message = note
    {"error": st.error, "warning": st.warning}.get(kind, st.info)(text.escape(message))


def _row(kept: dict) -> EvalRow | ResultRow:
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in kept.items() if k != "_kind"}
    return ResultRow(**fields) if kept.get("_kind") == "result" else EvalRow(**fields)


stored = [_row(r) for r in state[f"{P}_rows"]]
rows = [r for r in stored if isinstance(r, EvalRow)]
results = [r for r in stored if isinstance(r, ResultRow)]
if results:
    progress.empty()
    _table(state[f"{P}_rows"])
    eval_stats.show(results, lang, P, LABELS)
if rows:
    progress.empty()
    _table(state[f"{P}_rows"])
    scores = summarize(rows)

    def _cost_per_task(pattern: str) -> str:
        mine = [r.cost_usd for r in rows if r.pattern == pattern]
        return costs.money(None if None in mine else sum(mine) / len(mine), lang)

    st.subheader(WORDS["scores"])
    st.plotly_chart(eval_rounds.relabel(scores_figure(scores, lang), lang), key=f"{P}_chart")
    head = words("eval.score", lang)
    st.dataframe(
        pd.DataFrame(
            [
                {
                    head["pattern"]: _label(s.pattern),
                    head["tasks"]: s.tasks,
                    head["passed"]: s.passed,
                    head["rate"]: f"{s.pass_rate:.0%}",
                    head["calls"]: round(s.calls_per_task, 2),
                    head["tokens"]: round(s.tokens_per_task),
                    head["seconds"]: round(s.seconds_per_task, 2),
                    head["cost"].format(cost=costs.words(lang)["cost"]): _cost_per_task(s.pattern),
                    head["saw_tests"]: s.sees_tests,
                }
                for s in scores
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    st.download_button(
        WORDS["download"],
        rows_to_csv(rows),
        file_name="eval-results.csv",
        mime="text/csv",
        key=f"{P}_csv",
        icon=":material/download:",
    )
    eval_stats.show(eval_stats.from_eval_rows(rows), lang, P, LABELS)
    eval_rounds.show(rows, lang, P)


def _preset(finding: samples.Finding, offline: bool) -> None:
    state[f"{P}_source"] = finding.sample_for(offline)
    state[f"{P}_patterns"] = list(finding.patterns)
    _source_changed()


st.subheader(STATS["presets"])
offline = all(name == MODEL_NAME for name in sidebar.model_router().names().values())
for finding in samples.FINDINGS:
    st.button(
        STATS["preset_run"].format(claim=finding.claim[lang]),
        key=f"{P}_preset_{finding.id}",
        on_click=_preset,
        args=(finding, offline),
        disabled=state[f"{P}_job"] is not None,
        icon=":material/science:",
    )
    sample = samples.SAMPLES[finding.sample_for(offline)]
    st.caption(
        STATS["preset_source"].format(
            source=text.escape(finding.source),
            url=finding.url,
            sample=text.escape(f"{sample.title[lang]} — {sample.source[lang]}"),
        )
    )
if offline:
    st.info(STATS["preset_offline"], icon=":material/smart_toy:")

st.subheader(WORDS["references"])
#: the reference points' names, benchmarks and baselines in the page's language (the core holds them in English)
NAMED = words("eval.reference", lang)
for point in REFERENCE_POINTS:
    score = (
        WORDS["ref_score"].format(
            score=f"{point.score:.0%}",
            base=f"{point.baseline_score:.0%}",
            baseline=NAMED.get(point.baseline, point.baseline),
        )
        if point.score
        else ""
    )
    st.markdown(
        f"**{text.escape(NAMED.get(point.method, point.method))}** · "
        f"{text.escape(NAMED.get(point.benchmark, point.benchmark))}{text.escape(score)}  \n"
        f"{text.escape(point.claim[lang])}  \n_[{text.escape(point.source)}]({point.url})_"
    )
