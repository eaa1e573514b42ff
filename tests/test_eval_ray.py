"""The Ray backend gives the local pool's rows (latency aside), streamed as they finish, on a local
Ray instance with 2 CPUs. Skipped when Ray is not installed (pip install -r requirements-ray.txt)."""

from __future__ import annotations

import importlib.util
import io

import pytest

from agent_core.cli import main
from agent_core.evaluation import backends, ray_backend, rows, samples
from agent_core.offline.model import OfflineModel

# Ray is imported only when these tests run, never at collection
pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("ray") is None,
        reason="the Ray backend is an optional extra: pip install -r requirements-ray.txt",
    ),
    # one worker starts one local Ray for the whole file (under xdist, two would race for its ports)
    pytest.mark.xdist_group("ray"),
]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray = ray_backend._ray()
    if not ray.is_initialized():
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": ray_backend._ROOT}},
        )
    yield
    ray.shutdown()


def _same(found):
    return sorted(
        (r.key, r.passed, r.status, r.score, r.calls, r.tokens, r.cost, r.answer, r.rounds, r.round_calls, r.detail)
        for r in found
    )


@pytest.mark.parametrize(
    ("sample", "patterns"),
    [("bundled", ["reference", "direct", "reflection+tests"]), ("gsm8k-style", ["direct", "reflection"])],
)
def test_ray_gives_the_pools_rows(sample: str, patterns: list[str]) -> None:
    plan = backends.plan(samples.load_sample(sample), patterns, repeats=2, limit=3)
    local = [r for r in backends.local(plan, OfflineModel(), concurrency=4) if isinstance(r, rows.ResultRow)]
    on_ray = ray_backend.RayEvaluation(plan, OfflineModel(), concurrency=4)
    got = list(on_ray)
    assert len(got) == len(local) == 3 * len(patterns) * 2
    assert _same(got) == _same(local)
    assert on_ray.first_row_s is not None and on_ray.gate.refusals == 0


def test_the_cli_on_ray_resumes_like_the_pool(tmp_path) -> None:
    out = tmp_path / "rows.csv"
    args = [
        "eval",
        "--tasks",
        "gsm8k-style",
        "--limit",
        "2",
        "--pattern",
        "direct",
        "--backend",
        "ray",
        "--out",
        str(out),
    ]
    text = io.StringIO()
    assert main(args, out=text) == 0 and "on Ray" in text.getvalue()
    text = io.StringIO()
    assert main([*args, "--repeats", "2"], out=text) == 0
    assert "2 of 4 rows are there, 2 to run" in text.getvalue()
    assert len(rows.read_rows(out)) == 4


def test_models_travel_as_what_builds_them() -> None:
    from agent_core.llm import OpenAICompatibleModel

    model = OpenAICompatibleModel("http://127.0.0.1:9/v1", "m", api_key="k", timeout=5.0)
    made = ray_backend.portable(model)
    rebuilt = ray_backend.rebuild(made)
    assert isinstance(rebuilt, OpenAICompatibleModel) and (rebuilt.base_url, rebuilt.name) == (model.base_url, "m")
    offline = OfflineModel()
    assert ray_backend.portable(offline) is offline


def test_a_worker_builds_each_endpoints_model_once_and_keeps_a_few(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every job on a worker rebuilds its router: the same description gives the same model (its HTTP
    client and connections kept, as the pool keeps one model), another endpoint or key its own, and
    past MAX_BUILT the oldest is closed and let go."""
    from agent_core.llm import OpenAICompatibleModel

    monkeypatch.setattr(ray_backend, "_BUILT", {})
    made = ray_backend.portable(OpenAICompatibleModel("http://127.0.0.1:9/v1", "m", api_key="k", timeout=5.0))
    first = ray_backend.rebuild(made)
    assert ray_backend.rebuild(made) is first
    other = ray_backend.portable(OpenAICompatibleModel("http://127.0.0.1:9/v1", "m", api_key="k2", timeout=5.0))
    assert ray_backend.rebuild(other) is not first
    closed = []
    monkeypatch.setattr(first, "close", lambda: closed.append("first"))
    for i in range(ray_backend.MAX_BUILT - 1):
        ray_backend.rebuild(ray_backend.portable(OpenAICompatibleModel(f"http://127.0.0.1:{10 + i}/v1", "m")))
    assert closed == ["first"] and len(ray_backend._BUILT) == ray_backend.MAX_BUILT
    assert ray_backend.rebuild(made) is not first  # built again when it is needed again


def test_the_sandbox_starts_with_rays_vendored_directory_on_the_path() -> None:
    """Importing Ray puts site-packages/ray/thirdparty_files on sys.path, on the driver and on every
    worker; the sandbox masks site-packages whole, so a directory inside it needs no mount of its own."""
    import sys

    from agent_core.sandbox import run_python_tests

    ray_backend._ray()
    assert any("thirdparty_files" in entry for entry in sys.path), "Ray no longer does this: drop the test"
    assert run_python_tests("def f():\n    return 1\n", "assert f() == 1\n").passed


def test_a_429_on_one_worker_closes_the_gate_for_every_worker() -> None:
    ray = ray_backend._ray()
    actor = ray.remote(num_cpus=0)(ray_backend._Gate).remote()
    one, other = ray_backend.RemoteGate(actor), ray_backend.RemoteGate(actor)
    assert other.remaining() == 0.0  # open, and trusted as open for FRESH_S
    one.close_for(0.6)
    import time

    time.sleep(ray_backend.RemoteGate.FRESH_S + 0.01)
    assert 0.0 < other.remaining() <= 0.6  # the other worker sees the refusal on its next look
    started = time.monotonic()
    assert other.wait() and time.monotonic() - started > 0.1
    assert one.refusals == 1
