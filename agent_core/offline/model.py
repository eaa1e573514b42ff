"""The embedded offline model: deterministic, no network, streams at a configurable speed.

It plays scripts. Each call is routed to the script of the run's scenario (from the request's call
context, or by matching the task text), else to the generic script for free-text tasks. A script is
a pure function of the request — role, call context (messages.CallContext: labels and the values the
prompt was rendered from) and messages — so a run replays the same way every time, reacts sensibly
when the user changes limits (fewer retries, more rounds), and never depends on a prompt's wording.
Its model name says it is scripted, and its free-text replies say so in their text.
"""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Iterable, Iterator

from ..messages import ChatRequest, Completion, ToolCall, Usage, estimate_prompt_tokens, estimate_tokens
from .script import SCRIPTS, Call, Reply, Script

MODEL_NAME = "offline-scripted"


class OfflineModel:
    """A ChatModel that plays the scenarios' scripts.

    `tokens_per_second` paces the stream (0 = as fast as possible); `first_token_s` adds a pause
    before the first delta, like a real endpoint's time to first token.
    """

    def __init__(self, tokens_per_second: float = 0.0, first_token_s: float = 0.0, name: str = MODEL_NAME):
        self.name = name
        self.tokens_per_second = tokens_per_second
        self.first_token_s = first_token_s

    def stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        from . import scripts  # noqa: F401  (registers every scenario's script)
        from .scripts.generic import generic

        started = time.perf_counter()
        call = Call(request)
        reply = self._script_for(request)(call) or generic(call)
        reply, cut = _capped(reply, request.max_tokens)
        if self.first_token_s:
            time.sleep(self.first_token_s)
        delay = 1.0 / self.tokens_per_second if self.tokens_per_second else 0.0
        due = time.perf_counter()
        for piece in _chunks(reply.text):
            if delay:
                # each piece is due at its place in the model's own schedule, as an endpoint's tokens are:
                # a consumer that was slow to take the last ones (a busy server) finds the next ready,
                # and the reply takes the model's time, not the model's plus the consumer's
                due += delay
                if (left := due - time.perf_counter()) > 0:
                    time.sleep(left)
            yield piece
        calls = tuple(
            ToolCall(f"call_{i}_{zlib.crc32((name + args).encode()):08x}", name, args)
            for i, (name, args) in enumerate(reply.tool_calls)
        )
        usage = Usage(
            estimate_prompt_tokens(request.messages),
            estimate_tokens(reply.text) + sum(estimate_tokens(a) for _, a in reply.tool_calls),
            estimated=True,
        )
        yield Completion(
            reply.text,
            calls,
            usage,
            self.name,
            (time.perf_counter() - started) * 1000,
            "length" if cut else "tool_calls" if calls else "stop",
        )

    @staticmethod
    def _script_for(request: ChatRequest) -> Script:
        from ..scenarios import SCENARIOS, find_by_task

        scenario = request.context.scenario
        if scenario not in SCRIPTS:
            first_user = next((m.content for m in request.messages if m.role == "user"), "")
            found = find_by_task(first_user)
            scenario = found.id if found else None
        # a scenario's script plays its own pattern (and those it names in `also`); another pattern on the
        # same task gets the generic run
        pattern = request.context.pattern
        if scenario in SCENARIOS and pattern and pattern not in SCENARIOS[scenario].patterns:
            scenario = None
        return SCRIPTS.get(scenario or "", SCRIPTS["generic"])


def covers(scenario: str | None, pattern: str) -> bool:
    """Whether the scripts play `scenario` under `pattern` as its documented run (its own pattern, or one
    it names in `also`). Anything else — a free task, or a scenario under another pattern — gets the
    generic run: placeholder text, labelled as scripted, whose judges pass it because there is nothing
    real to judge."""
    from ..scenarios import SCENARIOS
    from . import scripts  # noqa: F401  (registers every scenario's script)

    return scenario in SCRIPTS and scenario in SCENARIOS and pattern in SCENARIOS[scenario].patterns


def placeholder(scenario: str | None, pattern: str, models: Iterable[str]) -> bool:
    """Whether a run on these models (by name) plays only the generic placeholder run: every model
    is the scripted one, and no script covers the scenario under this pattern."""
    names = list(models)
    return bool(names) and all(name == MODEL_NAME for name in names) and not covers(scenario, pattern)


def _capped(reply: Reply, max_tokens: int | None) -> tuple[Reply, bool]:
    """The reply as a server honouring `max_tokens` sends it: cut at the cap (tool calls, which
    come after the text, are then lost), and whether it was cut."""
    size = estimate_tokens(reply.text) + sum(estimate_tokens(a) for _, a in reply.tool_calls)
    if not max_tokens or size <= max_tokens:
        return reply, False
    kept = ""
    for piece in _chunks(reply.text):
        if estimate_tokens(kept + piece) > max_tokens:
            break
        kept += piece
    return Reply(kept), True


_PIECE = re.compile(r"\s*\S+|\s+")


def _chunks(text: str) -> Iterator[str]:
    """Word-sized deltas for Latin text, a few characters at a time for CJK."""
    for piece in _PIECE.findall(text):
        if len(piece) > 6 and re.search(r"[\u4e00-\u9fff]", piece):
            for i in range(0, len(piece), 3):
                yield piece[i : i + 3]
        else:
            yield piece
