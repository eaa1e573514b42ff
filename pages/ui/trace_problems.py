"""Why a file cannot be replayed, in the reader's language: the core raises TraceFormatError with a
`reason` (agent_core.errors.TRACE_PROBLEMS) and an English message; the page names the reason from
the catalogue's `trace_problems` table and keeps the message as the technical detail."""

from __future__ import annotations

from agent_core.errors import TraceFormatError

from .i18n import t


def say(problem: TraceFormatError, lang: str | None = None) -> str:
    """The reason in `lang` (default: the page's), then the core's message as the detail."""
    return t("trace_problems.shown", lang, problem=t(f"trace_problems.{problem.reason}", lang), detail=str(problem))
