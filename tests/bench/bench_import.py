"""Import and start: `import agent_core` in fresh interpreters beside the peers, and `streamlit run
app.py` until the page is rendered in headless Chromium, beside a one-line Streamlit app.

    python tests/bench/bench_import.py [--quick]

Imports are timed inside each fresh interpreter (median of 10), so interpreter start-up is left out;
the modules an import loads are listed from `sys.modules`. For the start, each trial spawns
`python -m streamlit run <script>` (headless, 127.0.0.1, a free port) and records when
`/_stcore/health` first answers ok, when `/` is served, and when a fresh Chromium page shows the
script's output with the first script run finished (`stApp` reports `notRunning`) and every
Graphviz chart drawn. The app and the
one-line app take turns, so drift hits both alike. App-side figures use the app's own interpreter,
not .bench-venv.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench._util import REPO, app_python, fresh, machine, median, met, table, version  # noqa: E402
from tests.browser.harness import free_port, stop  # noqa: E402

#: Packages `import agent_core` must leave out: the UI, the SDK and the dataframe stack.
FORBIDDEN = ("streamlit", "openai", "httpx2", "httpx", "pandas", "plotly", "numpy")
START_LIMIT = 1.5
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
BARE_APP = 'import streamlit as st\nst.write("hi")\n'
#: What each page shows once its first script run has rendered: the one-line app's text, and the
#: title of app.py's default page (Home).
BARE_READY = '[data-testid="stMain"] >> text="hi"'
APP_READY = '[data-testid="stMain"] h1'
FINISHED = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: Graphviz charts are drawn by a lazily loaded script after their element appears.
GRAPHS_DRAWN = (
    "() => [...document.querySelectorAll('[data-testid=\"stGraphVizChart\"]')]"
    ".every(chart => chart.querySelector('svg'))"
)

_PROBE = """import sys, time
before = set(sys.modules)
start = time.perf_counter()
{statement}
elapsed = time.perf_counter() - start
print(elapsed * 1000)
print(" ".join(sorted(set(sys.modules) - before)))"""


# --- imports ---------------------------------------------------------------------------------------


@dataclass
class ImportFigure:
    label: str
    ms: float
    modules: set[str]

    @property
    def packages(self) -> list[str]:
        """Third-party top-level packages the import loaded."""
        tops = {m.split(".")[0] for m in self.modules}
        return sorted(
            t
            for t in tops - set(sys.stdlib_module_names) - {"agent_core", "tests"}
            if not t.startswith("_") and "__mypyc" not in t
        )

    def package_list(self, shown: int = 6) -> str:
        names = self.packages
        if not names:
            return "none"
        return f"{len(names)}: " + ", ".join(names[:shown]) + (", …" if len(names) > shown else "")


def import_figure(label: str, statement: str, python: str, repeats: int) -> ImportFigure:
    times, modules = [], set()
    for _ in range(repeats):
        ms, names = fresh(_PROBE.format(statement=statement), python).splitlines()
        times.append(float(ms))
        modules = set(names.split())
    return ImportFigure(label, median(times), modules)


def interpreter_start_ms(python: str, repeats: int) -> float:
    """Wall time of `python -c pass`, for scale."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        times.append((time.perf_counter() - start) * 1000)
    return median(times)


def report_imports(repeats: int) -> str:
    app = app_python()
    ours = import_figure("`import agent_core` (ours)", "import agent_core", app, repeats)
    rows = [["`python -c pass` (interpreter start, wall time)", f"{interpreter_start_ms(app, repeats):,.0f}", "—", "—"]]
    figures = [ours, import_figure("`import streamlit` (the app's UI, for scale)", "import streamlit", app, repeats)]
    peers = {
        "langgraph": (
            "LangGraph: `from langgraph.prebuilt import create_react_agent`",
            "from langgraph.prebuilt import create_react_agent",
        ),
        "smolagents": (
            "smolagents: `from smolagents import ToolCallingAgent`",
            "from smolagents import ToolCallingAgent",
        ),
    }
    for dist, (label, statement) in peers.items():
        if version(dist) is None:
            rows.append([label, "not installed", "—", "see tests/bench/requirements.txt"])
        else:
            figures.append(import_figure(label, statement, sys.executable, repeats))
    for f in figures:
        rows.append([f.label, f"{f.ms:,.0f}", f"{len(f.modules):,}", f.package_list()])

    loaded = sorted(set(FORBIDDEN) & {m.split(".")[0] for m in ours.modules})
    ours_modules = sorted(m for m in ours.modules if m.startswith("agent_core"))
    targets = [
        [
            "`import agent_core` leaves out " + ", ".join(FORBIDDEN),
            "none loaded",
            ", ".join(loaded) or "none loaded",
            met(not loaded),
        ]
    ]
    return "\n".join(
        [
            f"Import time inside a fresh interpreter (median of {repeats}), and what the import loads:",
            "",
            table(["import", "ms", "modules loaded", "third-party packages loaded"], rows),
            "",
            table(["figure", "target", "ours", "met"], targets),
            "",
            f"`import agent_core` loads {len(ours_modules)} of its own modules: "
            + ", ".join(m.removeprefix("agent_core.") for m in ours_modules)
            + ". "
            + "Slowest by own time (`-X importtime`, one run): "
            + slowest_imports(app)
            + ".",
        ]
    )


def slowest_imports(python: str, shown: int = 5) -> str:
    """The modules whose own import time is largest when `agent_core` is imported."""
    out = subprocess.run(
        [python, "-X", "importtime", "-c", "import agent_core"], cwd=REPO, capture_output=True, text=True, check=True
    ).stderr
    rows = []
    for line in out.splitlines()[1:]:
        self_us, _cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        rows.append((int(self_us), name))
    return ", ".join(f"{name} {us / 1000:.1f} ms" for us, name in sorted(rows, reverse=True)[:shown])


# --- streamlit start -------------------------------------------------------------------------------


@dataclass
class Start:
    health_s: float
    index_s: float
    shown_s: float
    rendered_s: float


def start_once(script: Path, ready: str, browser) -> Start:  # noqa: ANN001 - a Playwright Browser
    """Spawn `streamlit run script`, wait until it answers and a fresh page has rendered, then stop it."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [
        app_python(),
        "-m",
        "streamlit",
        "run",
        str(script),
        "--server.headless=true",
        "--server.address=127.0.0.1",
        f"--server.port={port}",
        "--browser.gatherUsageStats=false",
    ]
    with tempfile.TemporaryFile() as log:
        started = time.perf_counter()
        # from the repository, as a user starts it, so both apps get the project's .streamlit/config.toml
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
        try:
            health = _poll(f"{url}/_stcore/health", started, proc, log)
            with urllib.request.urlopen(f"{url}/", timeout=10) as response:
                response.read()
            index = time.perf_counter() - started
            context = browser.new_context()
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector(ready, state="visible", timeout=30_000)
            shown = time.perf_counter() - started
            page.wait_for_selector(FINISHED, state="attached", timeout=30_000)
            page.wait_for_function(GRAPHS_DRAWN, timeout=30_000)
            rendered = time.perf_counter() - started
            context.close()
        finally:
            stop(proc)
    return Start(health, index, shown, rendered)


def _poll(url: str, started: float, proc: subprocess.Popen, log) -> float:  # noqa: ANN001 - a file
    deadline = started + 60
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"streamlit exited with {proc.returncode}: {log.read().decode()[-500:]}")
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.read().strip() == b"ok":
                    return time.perf_counter() - started
        except OSError:
            pass
        time.sleep(0.01)
    raise TimeoutError(f"{url} did not answer ok within 60 s")


def report_start(repeats: int) -> str:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "Streamlit start: Playwright is not installed; not measured."
    if not Path(CHROMIUM).exists():
        return f"Streamlit start: no Chromium at {CHROMIUM} (apt-get install chromium); not measured."
    app = REPO / "app.py"
    runs: dict[str, list[Start]] = {"bare": []} | ({"app": []} if app.exists() else {})

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        bare = Path(tmp) / "hi.py"
        bare.write_text(BARE_APP)
        scripts = {"bare": (bare, BARE_READY), "app": (app, APP_READY)}
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name in runs:  # warm-up: bytecode caches and the OS file cache
            start_once(*scripts[name], browser)
        for _ in range(repeats):
            for name in runs:
                runs[name].append(start_once(*scripts[name], browser))
        browser.close()

    def col(name: str, field: str, pick=median) -> float | None:  # noqa: ANN001 - median or min
        return pick(getattr(s, field) for s in runs[name]) if name in runs else None

    def cell(name: str, field: str) -> str:
        if name not in runs:
            return "app.py not there yet"
        return f"{col(name, field):.2f} ({col(name, field, min):.2f})"

    rows = []
    for label, field in (
        ("`/_stcore/health` answers ok", "health_s"),
        ("`/` served", "index_s"),
        ('in Chromium: the first content visible ("hi"; the Home title)', "shown_s"),
        ("in Chromium: first script run finished, charts drawn", "rendered_s"),
    ):
        ratio = f"{col('app', field) / col('bare', field):.2f}×" if "app" in runs else "—"
        rows.append([label, cell("app", field), cell("bare", field), ratio])
    if "app" in runs:
        ratio = col("app", "rendered_s") / col("bare", "rendered_s")
        best = col("app", "rendered_s", min) / col("bare", "rendered_s", min)
        target = [f"{ratio:.2f}× (best trials {best:.2f}×)", met(ratio <= START_LIMIT)]
    else:
        target = ["—", "not measured"]
    return "\n".join(
        [
            f"From spawning `streamlit run` to each point, seconds: median (best) of {repeats} trials each, "
            "taking turns; every trial a fresh server and a fresh browser context:",
            "",
            table(["point", "app.py", 'one-line app (`st.write("hi")`)', "app / one-line (medians)"], rows),
            "",
            table(
                ["figure", "target", "ours", "met"],
                [["time to a rendered page, app.py / one-line app", f"≤ {START_LIMIT}×", *target]],
            ),
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 imports and 2 starts instead of 10 and 7 (a smoke run)")
    args = parser.parse_args()
    print(machine() + f" streamlit {version('streamlit')}.\n")
    print(report_imports(3 if args.quick else 10))
    print()
    print(report_start(2 if args.quick else 7))
    return 0


if __name__ == "__main__":
    sys.exit(main())
