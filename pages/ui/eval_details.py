"""Eval's details column in the reader's language. The judge writes its summaries in English, for the
refiner model and for the CSV (agent_core/sandbox/guarded.py and inside.py: "all N tests passed", "K of
N tests failed: <the failing tests>"; agent_core/evaluation/harness.py: "the answer holds no code…",
"the run failed: …"). The page says those in its own language and keeps what they quote (the failing
tests' source, the error) as written; any other summary is shown as the core wrote it."""

from __future__ import annotations

import re

from .i18n import words

_PASSED = re.compile(r"all (\d+) tests passed")
_FAILED = re.compile(r"(\d+) of (\d+) tests failed: (.*)", re.DOTALL)
_NO_CODE = "the answer holds no code: no code block, function or function body"
_RUN_FAILED = "the run failed: "


def said(summary: str, lang: str) -> str:
    """A row's summary as the details column shows it in `lang`."""
    if lang == "en" or not isinstance(summary, str):
        return summary
    w = words("eval_details", lang)
    if found := _PASSED.fullmatch(summary):
        return w["passed"].format(n=found[1])
    if found := _FAILED.fullmatch(summary):
        return w["failed"].format(k=found[1], n=found[2], tests=found[3])
    if summary == _NO_CODE:
        return w["no_code"]
    if summary.startswith(_RUN_FAILED):
        return w["run_failed"].format(error=summary[len(_RUN_FAILED) :])
    return summary
