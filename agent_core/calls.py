"""The call record: the exact messages every model call was sent and its raw reply, stored linearly.

A 30-round ReAct run re-sends its whole history on every call, so storing each call's messages would
grow a trace quadratically. Instead a `CallLog` gives each distinct message an id the first time it
is sent, and each `llm_call` event carries only the messages that are new (`new_messages`) and the
ids of all it sent as ranges (`messages`: ``[[0, 7]]`` means ids 0..7) — a history re-sent in order
is one range. The reply is interned as an assistant message too, so when the pattern sends it back
it costs nothing. `MessageTable` rebuilds every call's full request from a trace's events.

System and user messages rendered from a prompt template remember which one (`template`), whether
the person had edited it (`edited`) and where the values filled into its placeholders stand
(`fills`: placeholder, start, end), so a
Prompt view can mark edited text and highlight `{task}`, `{draft}` and the like.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import events as ev
from .messages import Completion, Message, ToolCall, assistant


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a rendered message came from: its prompt template, whether it was edited, what was filled in."""

    template: str
    edited: bool
    #: (placeholder, start, end): where each filled-in value stands in the rendered text
    fills: tuple[tuple[str, int, int], ...] = ()


def message_dict(message: Message, mid: int | None = None) -> dict[str, Any]:
    """A message as it is stored in a trace (only the fields it uses), led by its id when it has one."""
    out: dict[str, Any] = (
        {"role": message.role, "content": message.content}
        if mid is None
        else {"id": mid, "role": message.role, "content": message.content}
    )
    if message.tool_calls:
        out["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        out["name"] = message.name
    return out


def message_of(data: Mapping[str, Any]) -> Message:
    """The inverse of `message_dict` (for replaying a recorded request)."""
    calls = tuple(
        ToolCall(str(c.get("id", "")), str(c.get("name", "")), str(c.get("arguments", "")))
        for c in data.get("tool_calls") or ()
    )
    return Message(
        data.get("role", "user"), str(data.get("content", "")), calls, data.get("tool_call_id"), data.get("name")
    )


def expand(pairs: Iterable[Iterable[int]]) -> list[int]:
    """((0, 2), (5, 6)) -> [0, 1, 2, 5, 6]."""
    ids: list[int] = []
    for a, b in pairs:
        ids.extend(range(a, b + 1))
    return ids


class CallLog:
    """Interns the messages of one run and describes each call as new messages plus id ranges."""

    def __init__(self, provenance: Mapping[str, Provenance] | None = None) -> None:
        self._ids: dict[Message, int] = {}
        #: rendered prompt text -> where it came from (filled by PromptSet.render)
        self.provenance: Mapping[str, Provenance] = provenance if provenance is not None else {}
        self._last: tuple[Message, ...] = ()
        self._last_ranges: tuple[tuple[int, int], ...] = ()
        #: the latest reply and its id: a pattern sends it back next, and comparing it costs less than hashing
        self._reply: tuple[Message | None, int] = (None, -1)

    def _intern(self, message: Message, new: list[dict[str, Any]]) -> int:
        mid = self._ids.get(message)
        if mid is None:
            mid = self._ids[message] = len(self._ids)
            item = message_dict(message, mid)
            source = self.provenance.get(message.content) if message.role in ("system", "user") else None
            if source is not None:
                item.update(template=source.template, edited=source.edited, fills=[list(f) for f in source.fills])
            new.append(item)
        return mid

    def request(self, messages: tuple[Message, ...]) -> tuple[tuple[tuple[int, int], ...], list[dict[str, Any]]]:
        """(id ranges of everything sent, the messages sent for the first time)."""
        new: list[dict[str, Any]] = []
        last, n = self._last, len(self._last)
        # The common case is the previous request plus a few messages: extend its ranges without
        # hashing the whole history again (patterns build new lists; they never edit a message in place).
        if n and len(messages) >= n and messages[n - 1] is last[-1] and messages[0] is last[0]:
            pairs = list(self._last_ranges)
            tail = messages[n:]
        else:
            pairs, tail = [], messages
        reply, reply_id = self._reply
        for m in tail:
            i = reply_id if m == reply else self._intern(m, new)
            if pairs and pairs[-1][1] + 1 == i:
                pairs[-1] = (pairs[-1][0], i)
            else:
                pairs.append((i, i))
        self._last, self._last_ranges = messages, tuple(pairs)
        return self._last_ranges, new

    def reply(self, completion: Completion) -> tuple[int, list[dict[str, Any]]]:
        """The id of the reply as the assistant message a pattern would send back, and its record if new."""
        new: list[dict[str, Any]] = []
        message = assistant(completion.text, completion.tool_calls)
        mid = self._intern(message, new)
        self._reply = (message, mid)
        return mid, new


class MessageTable:
    """Every message of a recorded run by id, rebuilt from its `llm_call` events."""

    def __init__(self, events: Iterable[ev.Event] = ()) -> None:
        self.messages: dict[int, dict[str, Any]] = {}
        self.calls: list[ev.LlmCall] = []
        self._ids: list[int] = []  # every message id, in order unless `_unsorted`
        self._unsorted = False
        for e in events:
            self.add(e)

    def add(self, event: ev.Event) -> int | None:
        """Take in one event (a live view feeds them as they come); the call's 1-based number, if a call."""
        if not isinstance(event, ev.LlmCall):
            return None
        self.calls.append(event)
        for item in event.new_messages:
            if isinstance(item, dict) and isinstance(item.get("id"), int):  # a hostile file may hold anything
                mid = item["id"]
                if mid not in self.messages:
                    if self._ids and mid < self._ids[-1]:
                        self._unsorted = True
                    self._ids.append(mid)
                self.messages[mid] = item
        return len(self.calls)

    @property
    def complete(self) -> bool:
        """True when every call carries its record (a v1 trace has none)."""
        return bool(self.calls) and all(c.reply_message is not None for c in self.calls)

    def request(self, call: ev.LlmCall) -> list[dict[str, Any]]:
        """The messages a call was sent, in order: the ids its ranges name that the record holds.

        A range is walked only where the record holds ids: `[[0, 10**9]]` from an uploaded file costs
        what the messages in it do, not a billion steps."""
        out: list[dict[str, Any]] = []
        for a, b in call.messages:
            if b - a < len(self.messages):
                out += [self.messages[i] for i in range(a, b + 1) if i in self.messages]
            else:
                ids = self._sorted()
                out += [self.messages[i] for i in ids[bisect.bisect_left(ids, a) : bisect.bisect_right(ids, b)]]
        return out

    def count(self, call: ev.LlmCall) -> int:
        """How many messages `request(call)` returns, without building them (a label needs only this)."""
        ids = self._sorted()
        return sum(bisect.bisect_right(ids, b) - bisect.bisect_left(ids, a) for a, b in call.messages)

    def _sorted(self) -> list[int]:
        if self._unsorted:  # ids arrive in order from a run; only a hand-made file mixes them
            self._ids.sort()
            self._unsorted = False
        return self._ids

    def reply(self, call: ev.LlmCall) -> dict[str, Any] | None:
        return self.messages.get(call.reply_message) if call.reply_message is not None else None

    def completion(self, call: ev.LlmCall) -> Completion:
        """The recorded reply as the Completion the model returned."""
        from .messages import Usage

        reply = self.reply(call) or {}
        message = message_of(reply) if reply else Message("assistant")
        return Completion(
            message.content,
            message.tool_calls,
            Usage(call.prompt_tokens, call.completion_tokens, call.usage_estimated),
            call.model,
            call.latency_ms,
            call.finish_reason,
        )
