"""Why a file cannot be used, in the reader's language, said once. The core raises TraceFormatError
or TaskSetError with a `reason` (agent_core.errors), an English message that already names the
problem, and sometimes a `detail` (what the message adds to the reason: the parser's words, the
line). A page names the reason from its catalogue table (`trace_problems`, `task_problems`) and puts
the detail beside it; without a detail, an English page shows the core's message alone (it names the
reason itself: wrapping it in the reason again read "the file is not JSON (not a JSON file (…))"),
and a Chinese page the reason with the message as its technical detail."""

from __future__ import annotations

from agent_core.errors import TraceFormatError

from .i18n import lang as page_lang
from .i18n import t


def said(table: str, reason: str, message: str, detail: str = "", lang: str | None = None) -> str:
    """One message for a problem of `table`'s kind: its reason, and what the core adds to it."""
    lang = lang or page_lang()
    if not detail and lang == "en":
        return message
    return t(f"{table}.shown", lang, problem=t(f"{table}.{reason}", lang), detail=detail or message)


def say(problem: TraceFormatError, lang: str | None = None) -> str:
    """Why a trace cannot be replayed, in `lang` (default: the page's)."""
    return said("trace_problems", problem.reason, str(problem), problem.detail, lang)
