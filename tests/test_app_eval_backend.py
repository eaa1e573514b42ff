"""The Eval page offers the CLI's choice of backend: this server's pool, or Ray where Ray's optional
extra is installed (the same rows either way), and a note saying how to get it where it is not.

The GSM8K-style sample (12 word problems, Direct against self-critique) is the trainer's preset:
on Ray each of its runs is a Ray task, and the table a room reads must not depend on where they ran.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from agent_core.errors import ConfigError
from agent_core.evaluation import backend_choice, backends, samples
from agent_core.offline.model import OfflineModel
from tests.app_pages import open_page

HAS_RAY = importlib.util.find_spec("ray") is not None
SETUP = {"ev_source": "gsm8k-style", "ev_patterns": ["direct", "reflection"], "ev_limit": 3, "ev_repeats": 2}


def _same(kept: list[dict]) -> list[tuple]:
    """What a row says, its clock readings aside, in the order of a sequential run."""
    return sorted(
        (
            r["task_id"],
            r["pattern"],
            r["repeat"],
            r["passed"],
            r["status"],
            r["score"],
            r["calls"],
            r["tokens"],
            r["answer"],
            tuple(r["rounds"]),
            tuple(r["round_calls"]),
        )
        for r in kept
    )


def _notes(at) -> str:  # noqa: ANN001
    return "\n".join(c.value for c in at.caption)


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray as on a machine without the extra: `import ray` fails, and nothing finds it."""
    monkeypatch.setitem(sys.modules, "ray", None)
    assert not backend_choice.ray_installed()


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance bounded to 2 CPUs, which the page joins (it starts one only when none runs)."""
    from agent_core.evaluation import ray_backend

    ray = ray_backend._ray()
    if not ray.is_initialized():
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": ray_backend._ROOT}},
        )
    yield ray
    ray.shutdown()


@pytest.mark.skipif(not HAS_RAY, reason="the Ray backend is an optional extra: pip install -r requirements-ray.txt")
@pytest.mark.parametrize(
    ("lang", "label", "local", "ray"),
    [
        ("en", "Where the runs go", "This server (a pool of threads)", "Ray (every run a Ray task)"),
        ("zh", "在哪里运行", "本服务器（线程池）", "Ray（每次运行都是一个 Ray 任务）"),
    ],
)
def test_with_ray_installed_the_page_offers_the_clis_two_backends(lang: str, label: str, local: str, ray: str) -> None:
    at = open_page("pages/eval.py", sb_lang=lang)
    choice = at.radio(key="ev_backend")
    assert (choice.label, choice.options, choice.value) == (label, [local, ray], "local")
    assert "requirements-ray.txt" not in _notes(at)
    choice.set_value("ray").run()
    assert ("RAY_ADDRESS" in _notes(at)) and (
        ("Ray task" in _notes(at)) if lang == "en" else ("Ray 任务" in _notes(at))
    )


@pytest.mark.skipif(not HAS_RAY, reason="the Ray backend is an optional extra: pip install -r requirements-ray.txt")
def test_the_preset_on_ray_gives_the_rows_of_the_pool(local_ray, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    started = []  # what the page's runs went to, through the CLI's own function
    real = backend_choice.start

    def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        runs = real(*args, **kwargs)
        started.append(type(runs).__name__)
        return runs

    monkeypatch.setattr(backend_choice, "start", spy)
    at = open_page("pages/eval.py", **SETUP)
    at.button(key="ev_run").click().run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    on_pool = at.session_state["ev_rows"]
    assert len(on_pool) == 3 * 2 * 2

    at.radio(key="ev_backend").set_value("ray").run()
    at.button(key="ev_run").click().run(timeout=300)
    assert not at.exception, [e.message for e in at.exception]
    on_ray = at.session_state["ev_rows"]
    assert _same(on_ray) == _same(on_pool)
    # rows come back as they finish on Ray; the page keeps them in the order of a sequential run
    assert [(r["task_id"], r["pattern"], r["repeat"]) for r in on_ray] == [
        (r["task_id"], r["pattern"], r["repeat"]) for r in on_pool
    ]
    assert any(s.value == "Pass rate with 95% intervals" for s in at.subheader)
    assert at.session_state["ev_job"] is None and at.session_state["ev_pool"] is None
    assert started == ["Evaluation", "RayEvaluation"]


@pytest.mark.parametrize(("lang", "said"), [("en", "Ray is not installed here"), ("zh", "此处未安装 Ray")])
def test_without_ray_the_page_says_how_to_get_it_and_runs_on_the_pool(no_ray, lang: str, said: str) -> None:
    # a session that chose Ray earlier (say, before the extra was removed) runs on the pool all the same
    at = open_page("pages/eval.py", sb_lang=lang, ev_backend="ray", **SETUP)
    assert not [r for r in at.radio if r.key == "ev_backend"]
    note = next(c.value for c in at.caption if said in c.value)
    assert "pip install -r requirements-ray.txt" in note
    at.button(key="ev_run").click().run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    assert len(at.session_state["ev_rows"]) == 3 * 2 * 2
    assert at.session_state["ev_rows"][0]["_kind"] == "result"  # the backends' rows, from the local pool


def test_the_shared_choice_refuses_ray_without_the_extra_and_an_unknown_backend(no_ray) -> None:
    plan = backends.plan(samples.load_sample("gsm8k-style"), ["direct"], limit=1)
    with pytest.raises(ConfigError, match="requirements-ray.txt"):
        backend_choice.start(plan, OfflineModel(), backend="ray")
    with pytest.raises(ConfigError, match="unknown backend 'spark'"):
        backend_choice.start(plan, OfflineModel(), backend="spark")
    assert len([r for r in backend_choice.start(plan, OfflineModel()) if hasattr(r, "repeat")]) == 1
