"""Tools: a JSON-schema'd function registry whose failures become observations, not exceptions.

An unknown tool, arguments that are not a JSON object, arguments over `MAX_ARGUMENT_CHARS`, or a
tool that raises all come back as an `Observation` with `is_error=True` that the model reads on its
next turn (seed 01's SimpleReactAgent does the same).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import untrusted

MAX_ARGUMENT_CHARS = 2000
MAX_OUTPUT_CHARS = 8000


@dataclass(frozen=True)
class Tool:
    """A callable the model may ask for. `fn` takes the parsed arguments as keyword arguments and
    returns anything JSON-serialisable (or a string)."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    fn: Callable[..., Any]
    description_zh: str = ""
    #: the MCP server that serves this tool ("" for a built-in tool); the run's trace names it
    server: str = ""

    def schema(self, lang: str = "en") -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool."""
        desc = self.description_zh if lang == "zh" and self.description_zh else self.description
        return {
            "type": "function",
            "function": {"name": self.name, "description": desc, "parameters": dict(self.parameters)},
        }


class Observation(NamedTuple):
    """What a tool call produced, as the model will read it (a NamedTuple: one per tool call)."""

    output: str
    is_error: bool = False
    arguments: Any = None


#: one encoder for every tool result: json.dumps with an option builds a new encoder on every call
_JSON = json.JSONEncoder(ensure_ascii=False)


def parse_arguments(raw: str | Mapping[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
    """Arguments as a dict, or (None, reason) when they cannot be used."""
    if raw is None or raw == "":
        return {}, None
    if type(raw) is dict:  # already parsed (the hot path: the loop parsed it once): no ABC check, no copy
        return raw, None  # (a tool gets its own copy anyway: it is called with **arguments)
    if isinstance(raw, Mapping):
        return dict(raw), None
    if len(raw) > MAX_ARGUMENT_CHARS:
        return None, f"arguments are {len(raw)} characters, over the {MAX_ARGUMENT_CHARS}-character limit; refused"
    try:
        value = untrusted.loads(raw, max_depth=None)  # RecursionError and a 5,000-digit number are ValueErrors too
    except ValueError as exc:
        where = f" at char {exc.pos}" if isinstance(exc, json.JSONDecodeError) else ""
        return None, f"arguments are not valid JSON ({getattr(exc, 'msg', exc)}{where})"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None


@dataclass
class ToolRegistry:
    tools: dict[str, Tool] = field(default_factory=dict)

    @classmethod
    def of(cls, tools: Iterable[Tool]) -> ToolRegistry:
        return cls({t.name: t for t in tools})

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def __len__(self) -> int:
        return len(self.tools)

    def names(self) -> list[str]:
        return list(self.tools)

    def schemas(self, lang: str = "en") -> tuple[dict[str, Any], ...]:
        return tuple(t.schema(lang) for t in self.tools.values())

    def describe(self, lang: str = "en") -> str:
        """One line per tool with its parameters, for text-protocol and planner prompts."""
        lines = []
        for t in self.tools.values():
            params = ", ".join(t.parameters.get("properties", {}))
            desc = t.description_zh if lang == "zh" and t.description_zh else t.description
            lines.append(f"- {t.name}({params}): {desc}")
        return "\n".join(lines) if lines else "(none)"

    def run(self, name: str, raw_arguments: str | Mapping[str, Any] | None) -> Observation:
        """Run a tool; every failure is an error observation."""
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(self.tools) or "none"
            return Observation(f"error: unknown tool {name!r}; available tools: {known}", True)
        args, problem = parse_arguments(raw_arguments)
        if args is None:
            return Observation(f"error: {problem}", True)
        try:
            result = tool.fn(**args)
        except TypeError as exc:
            return Observation(f"error: bad arguments for {name}: {exc}", True, args)
        except Exception as exc:  # a tool's own failure is something the model can react to
            return Observation(f"error: tool {name} failed: {type(exc).__name__}: {exc}", True, args)
        kind = type(result)
        if kind is Observation:  # a tool that already knows its verdict (an MCP server's isError): kept as is
            text = result.output
            if len(text) > MAX_OUTPUT_CHARS:
                text = text[:MAX_OUTPUT_CHARS] + f"... [truncated {len(text) - MAX_OUTPUT_CHARS} characters]"
            return Observation(text, result.is_error, args)
        # str and int are most tool results; for an int JSON is its str() (bool is not int here: type())
        text = result if kind is str else str(result) if kind is int else _JSON.encode(result)
        if len(text) > MAX_OUTPUT_CHARS:
            text = text[:MAX_OUTPUT_CHARS] + f"... [truncated {len(text) - MAX_OUTPUT_CHARS} characters]"
        is_error = kind is not str and kind is not int and isinstance(result, Mapping) and "error" in result
        return Observation(text, is_error, args)
