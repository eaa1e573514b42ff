"""What a pattern is and how it is shown, in one value: `PatternSpec`.

Each pattern's folder exports one `SPEC` from its `__init__.py`; `registry.py` lists the folders. The
runner, CLI, config ranges, Playground controls, graphs, step blocks, Learn, Compare presets and Eval
read the specs, so a new pattern is a new folder, never an `if` elsewhere. Every text a person reads is
a `Text` with English and Chinese. `LimitSpec` and `Text` are re-exported here for the patterns' modules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config import LimitSpec as LimitSpec  # re-exported for the patterns' modules
from ..config import Options
from ..event_views import EventView
from ..roles import Role
from ..text import Text as Text

if TYPE_CHECKING:
    from .. import events as ev
    from ..config import RunConfig
    from ..models import ModelRouter
    from ..prompts import PromptSpec
    from ..tools import ToolRegistry


@dataclass(frozen=True)
class SwitchSpec:
    """A boolean option of a pattern."""

    name: str
    label: Text
    help: Text


@dataclass(frozen=True)
class TextFieldSpec:
    """A free-text option (quality criteria, unit tests), shown while `when` (a switch) is on, or always."""

    name: str
    label: Text
    help: Text
    when: str | None = None
    height: int = 90


@dataclass(frozen=True)
class VariantSpec:
    """A pattern as a person picks it: the pattern plus the options that define the variant."""

    id: str
    label: Text
    blurb: Text
    #: the scenario it opens with (the one that shows its mechanism best)
    scenario: str = ""
    forced: Mapping[str, Any] = field(default_factory=dict)
    #: limits and switches that do nothing in this variant
    hidden: frozenset[str] = frozenset()
    #: lowest allowed value of a limit in this variant (above the limit's own)
    floors: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class EvalEntry:
    """A way Eval runs a pattern: an id for its rows, config options, and what it tests."""

    id: str
    options: Mapping[str, Any]
    help: Text
    #: True when its drafts are scored round by round (a multi-draft pattern)
    rounds: bool = False
    #: its colour in Eval's charts ("" = the pattern's)
    color: str = ""
    #: True when its runs see the task's own unit tests (the Reflexion-style setting)
    tests: bool = False
    #: True when it is a baseline beside the baseline pattern's own (the same budget spent on a vote)
    baseline: bool = False


@dataclass(frozen=True)
class LaneSpec:
    """One lane of a Compare preset: its variant, name, switches and prompt additions."""

    variant: str
    name: Text
    switches: Mapping[str, bool] = field(default_factory=dict)
    #: prompt key -> text appended to the default prompt
    prompt_tails: Mapping[str, Text] = field(default_factory=dict)


@dataclass(frozen=True)
class Preset:
    """A one-click comparison on the Compare page."""

    id: str
    label: Text
    icon: str
    help: Text
    lanes: tuple[LaneSpec, ...]
    #: the task the preset is about; None keeps the current one
    scenario: str | None = None


@dataclass(frozen=True)
class Lesson:
    """What the Learn page says about a pattern."""

    variant: str
    scenario: str
    title: Text
    what: Text
    use_when: tuple[Text, ...]
    avoid_when: tuple[Text, ...]
    cost: Text


@dataclass(frozen=True)
class Scenario:
    """A built-in task that shows its pattern's mechanism, in English and Chinese, with its tools."""

    id: str
    pattern: str  # the pattern whose mechanism it shows (a name in patterns/registry.py)
    seed: str
    title: Text
    task: Text
    tools: tuple[str, ...] = ()
    #: limit/option overrides that make the scenario show its mechanism (e.g. reflection rounds)
    options: dict[str, Any] = field(default_factory=dict)
    #: what to watch for, shown in the UI
    watch: Text = Text("", "")
    #: other patterns whose runs its offline script plays too (a Compare preset puts them side by side on it)
    also: tuple[str, ...] = ()

    def task_text(self, lang: str) -> str:
        return self.task(lang)

    @property
    def patterns(self) -> tuple[str, ...]:
        """Every pattern its offline script plays: its own, then `also`."""
        return (self.pattern, *self.also)


#: (from node, to node, edge label)
Edge = tuple[str, str, Text | None]


@dataclass(frozen=True)
class PatternSpec:
    """One pattern: what it does (stream, bound, roles, prompts, options) and how it is shown."""

    name: str
    label: Text
    #: position in pickers, tables and charts
    order: int
    #: its typed options (a frozen dataclass in its options.py); RunConfig.options is one of these
    options: type[Options]
    stream: Callable[[str, RunConfig, ModelRouter, ToolRegistry | None], Iterator[ev.Event]]
    call_bound: Callable[[RunConfig], int]
    #: a one-line formula of the bound, for people
    bound_formula: str
    #: its roles, each with its reply grammar (its roles.py)
    roles: tuple[Role, ...]
    prompts: tuple[PromptSpec, ...]
    limits: tuple[LimitSpec, ...] = ()
    switches: tuple[SwitchSpec, ...] = ()
    #: free-text options (criteria, tests...)
    text_fields: tuple[TextFieldSpec, ...] = ()
    variants: tuple[VariantSpec, ...] = ()
    #: whether the pattern can call the scenario's tools
    uses_tools: bool = True
    #: graph: its edges for a config, the label of every node, and the node of a role
    edges: Callable[[Mapping[str, Any]], list[Edge]] = lambda config: []
    nodes: Mapping[str, Text] = field(default_factory=dict)
    #: the graph node a model call of `role` lights, given the node the run is in before it (`after`)
    role_node: Callable[[str, Mapping[str, Any], str | None], str] = lambda role, config, after: role
    #: the node a final answer lands in
    answer_node: str = "end"
    #: whether a run's drafts and answer are code (shown and reported as Python), from its config
    code_answers: Callable[[Mapping[str, Any]], bool] = lambda config: False
    #: what a report shows of its free-text options: (heading, text, "python" or "" for a quote)
    report_texts: Callable[[Mapping[str, Any], str], list[tuple[Text, str, str]]] = lambda config, lang: []
    #: the node an event of one of the pattern's own kinds moves the graph to, by kind (its views.py)
    event_nodes: Mapping[str, str] = field(default_factory=dict)
    #: how each event kind the pattern adds is shown (words, graph node, figure, counts), by kind (its views.py)
    event_views: Mapping[str, EventView] = field(default_factory=dict)
    #: the node a tool call or result lights, by tool name (its views.py: e.g. unit tests have their own)
    tool_node: Callable[[str], str] = lambda name: "tools"
    #: parallel branches: the node an event at `step` lights in place of the `node` its role, tool or kind
    #: names (one worker among several drawn side by side lights its own branch); None: the node as named
    step_node: Callable[[str, int | None, Mapping[str, Any]], str] | None = None
    #: step blocks: the block a model call of `role` at `step` goes in, and a block's title
    block_of: Callable[[str, int | None], tuple[Any, ...]] = lambda role, step: (role, step)
    block_title: Callable[[tuple[Any, ...], Mapping[str, Any], str], str | None] = lambda ident, config, lang: None
    #: the block an event that is no model call opens (None: it goes in the block under way)
    event_block: Callable[[ev.Event], tuple[Any, ...] | None] = lambda event: None
    #: blocks drawn side by side: a block's (row, column, columns), or None to draw it below the last one; a
    #: block drawn below ends the rows above it, so the same row named after it opens a new row under it
    block_lane: Callable[[tuple[Any, ...], Mapping[str, Any]], tuple[Any, int, int] | None] = lambda ident, config: None
    #: what one `step` of the pattern's events is called
    step_word: Text = Text("step", "步骤")
    #: the summary table a finished run shows: plan, drafts or tools
    summary: str = "tools"
    color: str = "#4C78A8"
    eval_entries: tuple[EvalEntry, ...] = ()
    presets: tuple[Preset, ...] = ()
    lesson: Lesson | None = None
    #: the variant this pattern puts in Compare's preset of the classic loops and the baseline; that preset
    #: is one lane each and Compare has four, so a pattern that brings its own presets leaves this empty
    compare_variant: str = ""
    #: checks a config needs beyond its ranges and prompts (raises ConfigError), before any model call
    check: Callable[[RunConfig], None] | None = None
    #: the baseline the other patterns are compared with at the same call budget (Eval, Compare)
    baseline: bool = False
    #: Eval: the options every run of this pattern starts from, the options the harness alone sets, and
    #: how a run takes the task's unit tests (None: it never sees them)
    eval_defaults: Mapping[str, Any] = field(default_factory=dict)
    eval_owned: tuple[str, ...] = ()
    take_tests: Callable[[RunConfig, str], RunConfig] | None = None
    #: the built-in tasks that show this pattern's mechanism
    scenarios: tuple[Scenario, ...] = ()
    #: the module whose import registers the offline model's scripts for this pattern
    offline: str = ""

    def limit_names(self) -> tuple[str, ...]:
        return tuple(lim.name for lim in self.limits)

    def switch_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.switches)

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.text_fields)

    def role_names(self) -> tuple[str, ...]:
        """The roles a model is called in: the ones a person binds a model to, caps, pauses before or
        answers as (a role with `model=False` only labels the pattern's own verdicts)."""
        return tuple(r.name for r in self.roles if r.model)

    def role(self, name: str) -> Role | None:
        """This pattern's role called `name`, or None."""
        return next((r for r in self.roles if r.name == name), None)

    def prompt_specs(self) -> dict[str, PromptSpec]:
        """Every prompt of this pattern, keyed by prompt key."""
        return {p.key: p for p in self.prompts}

    def option_names(self) -> tuple[str, ...]:
        """Every field of this pattern's options."""
        return self.options.names()
