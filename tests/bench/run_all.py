"""Run every benchmark in tests/bench and write the results into docs/benchmarks.md.

    python tests/bench/run_all.py [--quick] [--only core import ...] [--no-docs] [--no-venv]

It creates (or reuses) .bench-venv, a virtualenv with the system site packages, installs the peer
frameworks of tests/bench/requirements.txt into it, and runs each bench_*.py with its interpreter,
so the app's own environment never sees the peers. The known benchmarks run in a fixed order and
any other bench_*.py after them; a known one that is absent is skipped with a note.

A bench's output replaces the text between `<!-- results: bench_x.py -->` and
`<!-- /results: bench_x.py -->` in docs/benchmarks.md, inside the section its owner wrote. A bench
without such markers gets a marked block of its own in the generated "Latest full run" section at
the end, so prose written by hand is never overwritten.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VENV = REPO / ".bench-venv"
DOC = REPO / "docs" / "benchmarks.md"
KNOWN = (
    "bench_core.py",
    "bench_import.py",
    "bench_adapter.py",
    "bench_ui.py",
    "bench_compare.py",
    "bench_load.py",
    "bench_classroom.py",
    "bench_memory.py",
)
LATEST_HEADING = "## Latest full run"
LATEST_INTRO = (
    "Written by `python tests/bench/run_all.py`: the output of each benchmark whose own section "
    "has no results markers yet, and the benchmarks that were skipped."
)
SKIPPED = "skipped"
TIMEOUT_S = 30 * 60


def begin(name: str) -> str:
    return f"<!-- results: {name} -->"


def end(name: str) -> str:
    return f"<!-- /results: {name} -->"


def bench_python(use_venv: bool) -> str:
    """The interpreter to run benchmarks with: .bench-venv's, set up on first use."""
    if not use_venv:
        return sys.executable
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"== creating {VENV.name} (system site packages + the peers)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(VENV)], check=True)
    print("== installing tests/bench/requirements.txt into .bench-venv", flush=True)
    pip = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "-r",
            str(HERE / "requirements.txt"),
        ],
        capture_output=True,
        text=True,
    )
    if pip.returncode:
        # the benchmarks still run: a peer that is missing is reported as such in its table
        print(
            "   pip failed; peers that are not installed will be reported as missing:\n"
            + "\n".join(pip.stderr.strip().splitlines()[-5:]),
            flush=True,
        )
    return str(python)


def scripts(only: list[str] | None) -> tuple[list[Path], list[str]]:
    """The benchmarks to run, in order, and notes for the known ones that are absent."""
    found = {p.name: p for p in HERE.glob("bench_*.py")}
    order = [n for n in KNOWN if n in found] + sorted(set(found) - set(KNOWN))
    everything = set(KNOWN) | set(found)
    wanted = {f"bench_{n.removeprefix('bench_').removesuffix('.py')}.py" for n in only} if only else everything
    absent = [f"{n}: skipped, not present in tests/bench" for n in KNOWN if n not in found and n in wanted]
    return [found[n] for n in order if n in wanted], absent


def run(script: Path, python: str, quick: bool) -> tuple[str, bool]:
    """Run one benchmark; returns its Markdown output (or a failure note) and whether it succeeded."""
    cmd = [python, str(script)]
    if quick and "--quick" in script.read_text():
        cmd.append("--quick")
    print(f"== {script.name}", flush=True)
    started = time.perf_counter()
    try:
        out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"{script.name} did not finish within {TIMEOUT_S // 60} minutes; no results.", False
    took = time.perf_counter() - started
    print(out.stdout, flush=True)
    if out.returncode:
        tail = "\n".join(out.stderr.strip().splitlines()[-8:])
        print(tail, file=sys.stderr)
        return f"{script.name} failed (exit {out.returncode}) after {took:.0f} s:\n\n```\n{tail}\n```", False
    print(f"   ({took:.0f} s)", flush=True)
    return out.stdout.strip(), True


def update_doc(text: str, results: dict[str, str], notes: list[str] | None) -> str:
    """Put each result between its markers, adding a block to the "Latest full run" section for a
    bench that has none yet. `notes` (what was skipped) is None for a partial run."""
    blocks = dict(results)
    if notes is not None and (notes or begin(SKIPPED) in text):
        blocks[SKIPPED] = "\n".join(f"- {n}" for n in notes) or "- none: every known benchmark is present"
    for name, output in blocks.items():
        block = f"{begin(name)}\n{output}\n{end(name)}"
        pattern = re.compile(re.escape(begin(name)) + r".*?" + re.escape(end(name)), re.DOTALL)
        if pattern.search(text):
            text = pattern.sub(lambda _m, block=block: block, text)  # a function: no backslash escapes
            continue
        if LATEST_HEADING not in text:
            text = text.rstrip() + f"\n\n{LATEST_HEADING}\n\n{LATEST_INTRO}\n"
        text = text.rstrip() + f"\n\n### {name}\n\n{block}\n"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, for benchmarks that support it")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these, e.g. core import")
    parser.add_argument("--no-docs", action="store_true", help="print only; leave docs/benchmarks.md alone")
    parser.add_argument("--no-venv", action="store_true", help="use this interpreter (peers reported missing)")
    args = parser.parse_args()

    python = bench_python(not args.no_venv)
    todo, notes = scripts(args.only)
    results, failed = {}, []
    for script in todo:
        output, ok = run(script, python, args.quick)
        results[script.name] = output
        if not ok:
            failed.append(script.name)
    for note in notes:
        print(f"== {note}")
    if not args.no_docs and results:
        doc = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
        DOC.write_text(update_doc(doc, results, None if args.only else notes))
        print(f"== results written to {DOC.relative_to(REPO)}")
    if failed:
        print("== failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
