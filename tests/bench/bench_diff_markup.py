"""What the readable word diff costs to build: the HTML of pages/ui/diff_view.py (struck
through / underlined, escaped piece by piece) against the coloured Markdown it replaced
(pages/ui/text.py's word_diff_inline at commit e3850a0, loaded from git), side by side.

Both sides get the same word-diff segments (agent_core.diffing.word_diff, computed once outside the
timing), so only the markup is timed: seed 04's primes drafts, a 2,000-line report with an edit in
every 50th line, and a one-paragraph Chinese answer rewritten in part. Each figure is the median of
7 batches (tests/bench/_util.per_call), the two sides taking turns, with the min-max.

    python tests/bench/bench_diff_markup.py
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import agent_core as ac  # noqa: E402
from agent_core import events as ev  # noqa: E402
from agent_core.diffing import word_diff  # noqa: E402
from pages.ui import diff_view  # noqa: E402
from tests.bench._util import REPO, machine, median, per_call, table  # noqa: E402

BASE = "e3850a0"
REPEATS = 7


def old_markdown() -> types.ModuleType:
    """pages/ui/text.py as it was at BASE, whose word diff was coloured Markdown."""
    source = subprocess.run(
        ["git", "show", f"{BASE}:pages/ui/text.py"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType("text_at_base")
    exec(compile(source, "text_at_base.py", "exec"), module.__dict__)  # noqa: S102 - our own file from git
    return module


def cases() -> dict[str, tuple[str, str]]:
    config, task = ac.for_scenario("primes")
    drafts = [e.text for e in ac.run(task, config, ac.OfflineModel()).events if isinstance(e, ev.Draft)]
    report = [f"Line {i}: the branch in district {i % 17} sold {i * 3} loaves and {i % 7} cakes." for i in range(2000)]
    edited = [line.replace("sold", "moved") if i % 50 == 0 else line for i, line in enumerate(report)]
    zh_old = "北京今天晴，风力较大，最高气温三十一度。空气质量良好，适合户外活动。" * 8
    zh_new = zh_old.replace("风力较大", "西北风五到六级").replace("适合户外活动", "外出注意防风")
    return {
        "primes drafts (seed 04)": (drafts[0], drafts[1]),
        "report, 2,000 lines, 40 edited": ("\n".join(report), "\n".join(edited)),
        "Chinese paragraph, partly rewritten": (zh_old, zh_new),
    }


def main() -> None:
    old = old_markdown()
    rows = []
    for name, (a, b) in cases().items():
        segments = word_diff(a, b)
        # the old side's own segment pass, with the diff already made (its word_diff_inline re-diffs)
        markdown = lambda segments=segments: "".join(old._mark(tag, text) for tag, text in segments)  # noqa: E731
        html = lambda segments=segments: diff_view.diff_html(segments)  # noqa: E731
        times: dict[str, list[float]] = {"md": [], "html": []}
        for _ in range(REPEATS):
            times["md"].append(per_call(markdown))
            times["html"].append(per_call(html))
        md, ht = median(times["md"]), median(times["html"])
        rows.append(
            [
                name,
                f"{len(a) + len(b):,}",
                f"{md * 1e6:,.0f} µs ({min(times['md']) * 1e6:,.0f}–{max(times['md']) * 1e6:,.0f})",
                f"{ht * 1e6:,.0f} µs ({min(times['html']) * 1e6:,.0f}–{max(times['html']) * 1e6:,.0f})",
                f"{ht / md:.2f}×",
                f"{len(markdown()):,} → {len(html()):,}",
            ]
        )
    print(machine() + f" Medians of {REPEATS} batches with min–max; the Markdown side is {BASE}'s.")
    print()
    print(
        table(["drafts", "characters", "Markdown (before)", "HTML (now)", "HTML / Markdown", "markup characters"], rows)
    )


if __name__ == "__main__":
    main()
