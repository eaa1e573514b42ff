"""Does a real viewer nobody here wrote accept our runs? Arize Phoenix, over OTLP/HTTP.

Not part of .ci/run: it installs arize-phoenix (large) in its own venv and starts a server.

    python3 tests/integration/phoenix.py [--venv /tmp/phoenix-venv] [--port 6006]

It installs `arize-phoenix` in the venv (once), starts `phoenix serve` on 127.0.0.1, runs one bundled
scenario of each pattern on the offline model with live export to Phoenix (agent_core.otel.live, the
app's own path, which needs requirements-otel.txt in *this* Python), then reads the spans back through
Phoenix's REST API (GET /v1/projects/default/spans) and checks, per run: the span count, the span
names, and the gen_ai.* attributes. Exit status 0 when every run came back whole.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import agent_core as ac  # noqa: E402
from agent_core.otel import live  # noqa: E402
from agent_core.otel.mapping import spans_of  # noqa: E402
from agent_core.scenarios import SCENARIOS  # noqa: E402


def ensure_phoenix(venv: Path) -> Path:
    phoenix = venv / "bin" / "phoenix"
    if not phoenix.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "arize-phoenix"], check=True)
    return phoenix


def wait_up(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"Phoenix did not answer at {url} within {seconds:.0f} s")


def flat(attributes: object, prefix: str = "") -> dict:
    """Phoenix may give attributes nested ({"gen_ai": {"operation": {"name": ...}}}) or dotted."""
    out: dict = {}
    if isinstance(attributes, dict):
        for key, value in attributes.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, dict):
                out.update(flat(value, name))
            else:
                out[name] = value
    elif isinstance(attributes, list):  # [{"key": ..., "value": ...}]
        for item in attributes:
            if isinstance(item, dict) and "key" in item:
                value = item.get("value")
                out[item["key"]] = next(iter(value.values())) if isinstance(value, dict) and value else value
    return out


def read_spans(base: str) -> list[dict]:
    spans, cursor = [], None
    while True:
        url = f"{base}/v1/projects/default/spans?limit=1000" + (f"&cursor={cursor}" if cursor else "")
        with urllib.request.urlopen(url, timeout=10) as response:
            page = json.load(response)
        spans += page.get("data", [])
        cursor = page.get("next_cursor")
        if not cursor:
            return spans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", default=str(Path(tempfile.gettempdir()) / "phoenix-venv"))
    parser.add_argument("--port", type=int, default=6006)
    args = parser.parse_args()
    if not live.sdk_available():
        raise SystemExit(live.SDK_MISSING)
    phoenix = ensure_phoenix(Path(args.venv))
    base = f"http://127.0.0.1:{args.port}"
    workdir = tempfile.mkdtemp(prefix="phoenix-")
    env = {
        **os.environ,
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(args.port),
        "PHOENIX_WORKING_DIR": workdir,
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    server = subprocess.Popen([str(phoenix), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_up(f"{base}/healthz", 180)
        expected = {}
        for pattern in ac.PATTERNS:
            scenario = next((s for s in SCENARIOS.values() if s.pattern == pattern), None)
            if scenario is None:
                continue
            config, task = ac.for_scenario(scenario.id)
            run_id = f"phoenix-{pattern}"
            exporter, why_not = live.exporter_for(base, run_id, config.to_dict())
            if exporter is None:
                raise SystemExit(why_not)
            events = []
            for event in ac.stream(task, config, ac.OfflineModel()):
                events.append(event)
                exporter.add(event)
            expected[pattern] = spans_of(events, run_id, config.to_dict(), exporter.builder.start_ns)
            if not live.flush(base, 10):
                raise SystemExit(f"export to Phoenix failed: {live.problem(base)}")
        # Phoenix writes spans to its database in batches, later under load: read until all are in (or 90 s)
        sent = sum(len(spans) for spans in expected.values())
        deadline = time.monotonic() + 90
        while len(got := read_spans(base)) < sent and time.monotonic() < deadline:
            time.sleep(2)
        failures = 0
        print(f"{'pattern':<14} {'sent':>5} {'read':>5}  names  gen_ai.*")
        for pattern, spans in expected.items():
            trace_id = spans[0].trace_id
            back = [s for s in got if (s.get("context") or {}).get("trace_id", "").replace("0x", "") == trace_id]
            by_id = {(s.get("context") or {}).get("span_id", "").replace("0x", ""): s for s in back}
            names_ok = sorted(s.name for s in spans) == sorted(s.get("name") for s in back)
            genai_ok = True
            for want in spans:
                have = flat(by_id.get(want.span_id, {}).get("attributes"))
                for key, value in want.attributes.items():
                    if key.startswith("gen_ai.") and value is not None:
                        same = (
                            have.get(key) == value
                            or str(have.get(key)) == str(value)
                            or (isinstance(value, list) and have.get(key) == list(value))
                        )
                        genai_ok &= same
            ok = len(back) == len(spans) and names_ok and genai_ok
            failures += not ok
            print(
                f"{pattern:<14} {len(spans):>5} {len(back):>5}  {'ok' if names_ok else 'DIFF':<5}  "
                f"{'ok' if genai_ok else 'DIFF'}"
            )
        print("phoenix:", "every run came back whole" if not failures else f"{failures} run(s) differ")
        return 1 if failures else 0
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    sys.exit(main())
