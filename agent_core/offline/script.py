"""What an offline script sees and says: `Call` (a read-only view of one request), `Reply`, and the
`script` decorator that registers a scenario's script. The scripts (scripts/, and each pattern's
folder's offline.py) import this; the model (model.py) plays them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..messages import ChatRequest, Message


@dataclass(frozen=True)
class Reply:
    """What a script says: text, and optionally tool calls as (name, arguments-json) pairs."""

    text: str = ""
    tool_calls: tuple[tuple[str, str], ...] = ()


class Call:
    """A read-only view of one request, with the questions scripts ask of it."""

    def __init__(self, request: ChatRequest) -> None:
        self.request = request
        self.role = request.role
        self.ctx = request.context
        self.messages = request.messages
        self.lang = self.ctx.lang if self.ctx.pattern else _guess_lang(request.messages)

    def input(self, name: str) -> str:
        """A value the call's prompt was rendered from ("" when it has none)."""
        return self.ctx.input(name)

    @property
    def zh(self) -> bool:
        return self.lang == "zh"

    def t(self, en: str, zh: str) -> str:
        return zh if self.zh else en

    @property
    def task(self) -> str:
        """The first user message (the task, for most roles)."""
        return next((m.content for m in self.messages if m.role == "user"), "")

    @property
    def text(self) -> str:
        """Every message's content, joined: for scripts that look for a phrase anywhere."""
        return "\n".join(m.content for m in self.messages)

    @property
    def last(self) -> Message | None:
        return self.messages[-1] if self.messages else None

    def tool_results(self) -> list[Message]:
        """Tool observations so far (native tool messages or text-protocol Observation lines)."""
        return [
            m for m in self.messages if m.role == "tool" or (m.role == "user" and m.content.startswith("Observation:"))
        ]

    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.request.tools]


#: A script returns None for a call it does not cover (e.g. a role its scenario never uses), and the
#: generic script answers instead.
Script = Callable[[Call], "Reply | None"]

#: Every scenario's script, by scenario id ("generic" answers everything else).
SCRIPTS: dict[str, Script] = {}


ScriptT = TypeVar("ScriptT", bound=Script)


def script(scenario_id: str) -> Callable[[ScriptT], ScriptT]:
    """Register the script of a scenario (the function keeps its own type: the generic one never says None)."""

    def register(fn: ScriptT) -> ScriptT:
        SCRIPTS[scenario_id] = fn
        return fn

    return register


def _guess_lang(messages: tuple[Message, ...]) -> str:
    text = " ".join(m.content for m in messages if m.role == "user")
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
