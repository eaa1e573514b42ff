"""The pattern registry: every pattern is one spec, nothing outside a pattern's own modules names it,
the `direct` baseline keeps its bound, and every llm_call records its typed call context."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import re
from pathlib import Path

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core.errors import ConfigError, TemplateError
from agent_core.messages import CallContext
from agent_core.patterns import registry
from agent_core.patterns.registry import LIMITS, PATTERNS, configure, specs_for, validate
from agent_core.testing import ScriptedModel, say, tool
from agent_core.trace import Trace, loads

ROOT = Path(__file__).resolve().parent.parent
#: the one module besides the patterns' folders that writes their names: the line that registers each
REGISTRATION = "agent_core/patterns/registry.py"


def _folders() -> dict[str, str]:
    """Each pattern's name -> its folder, as a path from the repository's root."""
    return {
        importlib.import_module(f"agent_core.patterns.{folder}").SPEC.name: f"agent_core/patterns/{folder}/"
        for folder in registry.REGISTERED
    }


def _quoted(name: str) -> re.Pattern[str]:
    return re.compile(rf"""(["']){re.escape(name)}\1""")


def test_no_code_outside_a_patterns_own_folder_names_a_pattern():
    folders = _folders()
    found = []
    for path in sorted([*ROOT.joinpath("agent_core").rglob("*.py"), *ROOT.joinpath("pages").rglob("*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        if rel == REGISTRATION:
            continue
        text = path.read_text(encoding="utf-8")
        for name, folder in folders.items():
            if rel.startswith(folder):
                continue
            for m in _quoted(name).finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{rel}:{line}: {text.splitlines()[line - 1].strip()}")
    assert not found, "pattern names outside their own folders (read the registry instead):\n" + "\n".join(found)


def test_the_grep_would_catch_a_branch_on_a_name(tmp_path):
    # the rule's own check: the same pattern finds a branch written the usual way
    line = 'if config.get("pattern") == "reflection":'
    assert re.search(rf"""(["']){re.escape("reflection")}\1""", line)


def test_every_pattern_module_exports_one_spec_in_display_order():
    specs = registry.specs()
    assert tuple(specs) == PATTERNS and len(PATTERNS) >= 4
    assert [s.order for s in specs.values()] == sorted(s.order for s in specs.values())
    for spec in specs.values():
        assert spec.variants and spec.roles and spec.prompts and spec.lesson is not None
        assert all(ev.ROLE_NAME.fullmatch(name) for name in spec.role_names())
        assert set(spec.role_names()) <= set(registry.role_names())
        assert {p.role for p in spec.prompts} <= set(spec.role_names())
        assert specs_for(spec.name) == {p.key: p for p in spec.prompts}
        for text in (
            spec.label,
            *(v.label for v in spec.variants),
            *(v.blurb for v in spec.variants),
            *(lim.label for lim in spec.limits),
            *(s.help for s in spec.switches),
            *spec.nodes.values(),
        ):
            assert text.en and text.zh, f"{spec.name}: every text in English and Chinese"
        edges = spec.edges({"pattern": spec.name})
        assert {n for a, b, _ in edges for n in (a, b)} <= set(spec.nodes), f"{spec.name}: a node without a label"


def test_limits_and_trace_fields_are_derived_from_the_specs():
    for spec in registry.specs().values():
        for lim in spec.limits:
            assert LIMITS[lim.name].patterns == (spec.name,) and (LIMITS[lim.name].low, LIMITS[lim.name].high) == (
                lim.low,
                lim.high,
            )
        shown = configure(pattern=spec.name).to_dict()
        for other in registry.specs().values():
            for option in set(other.option_names()) - set(spec.option_names()):
                assert option not in shown, f"{spec.name}'s trace holds {other.name}'s option {option}"
    assert "memory_window" not in LIMITS, "a control nothing read is gone"


def test_an_unknown_pattern_names_the_choices():
    with pytest.raises(ConfigError, match=re.escape("choose one of " + ", ".join(PATTERNS))):
        configure(pattern="tree-of-thought")


def test_validate_checks_what_a_run_would_refuse_without_calling_a_model():
    validate(configure(pattern="reflection", test_evaluator=True, tests="assert 1 == 1"))
    with pytest.raises(ConfigError, match="no tests"):
        validate(configure(pattern="reflection", test_evaluator=True, tests=""))
    with pytest.raises(TemplateError, match="unknown placeholder"):
        validate(configure(pattern="direct", prompts={"final": "Answer {nope}"}))


def test_variant_of_finds_each_variant_from_its_config():
    for variant in registry.variants().values():
        spec = registry.pattern_of_variant(variant.id)
        config = {"pattern": spec.name, **variant.forced, **variant.floors}
        assert registry.variant_of(config) == variant.id


# --- direct ---------------------------------------------------------------------------------------


def test_direct_answers_in_one_call_without_tools():
    model = ScriptedModel(["Four."])
    result = ac.run("What is 2 + 2?", configure(pattern="direct"), model)
    assert result.final_answer == "Four." and result.llm_calls == 1 == ac.call_bound(configure(pattern="direct"))
    assert [e.kind for e in result.events] == ["run_started", "token", "llm_call", "final_answer", "run_finished"]


def test_direct_runs_one_tool_turn_then_one_call_with_tools_off():
    config, task = ac.for_scenario("umbrella-one-call")
    result = ac.run(task, config, ac.OfflineModel())
    kinds = [e.kind for e in result.events if e.kind != "token"]
    assert kinds == [
        "run_started",
        "llm_call",
        "thought",
        "tool_call",
        "tool_result",
        "llm_call",
        "final_answer",
        "run_finished",
    ]
    assert result.llm_calls == 2 == ac.call_bound(config) and "umbrella" in result.final_answer
    first, last = [e for e in result.events if isinstance(e, ev.LlmCall)]
    assert (first.context.prompt, last.context.prompt, last.context.forced) == ("system", "final", True)


def test_direct_lights_its_final_call_node_after_the_tool_turn():
    """The graph walks task → one call → tools → final call → end, as the run did."""
    from pages.ui import graphs

    config, task = ac.for_scenario("umbrella-one-call")
    result = ac.run(task, config, ac.OfflineModel())
    shown = config.to_dict()
    trail, active = [], None
    for event in result.events:
        node = graphs.node_for(event, shown, active)
        if node is not None and node != active:
            trail.append(node)
            active = node
    assert trail == ["actor", "tools", "final", "end"]
    assert set(trail) <= {n for edge in registry.get("direct").edges(shown) for n in edge[:2]}


def test_direct_never_loops_even_when_the_model_asks_for_tools_again():
    # a model that would go on calling tools: the second call has none to call, and its reply is the answer
    model = ScriptedModel([say("", tool("weather", city="Shanghai")), say("Take one.")])
    config = configure(pattern="direct", tools=("weather",))
    result = ac.run("Umbrella?", config, model)
    assert result.llm_calls == 2 and sum(1 for e in result.events if e.kind == "tool_call") == 1
    assert result.reason == "answer" and result.final_answer == "Take one."
    assert model.requests[0].tools and not model.requests[1].tools


# --- the call context -----------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ["order-99999", "primes", "weather-report", "umbrella-one-call"])
def test_every_llm_call_records_where_it_stands_and_the_trace_keeps_it(scenario):
    config, task = ac.for_scenario(scenario)
    events = ac.run(task, config, ac.OfflineModel()).events
    calls = [e for e in events if isinstance(e, ev.LlmCall)]
    assert calls and all(c.context is not None and c.context.pattern == config.pattern for c in calls)
    back = loads(Trace.of(config.to_dict(), events).dumps()).events
    assert [e.context for e in back if isinstance(e, ev.LlmCall)] == [c.context for c in calls]
    recorded = json.loads(Trace.of(config.to_dict(), events).dumps())
    first = next(e for e in recorded["events"] if e["kind"] == "llm_call")
    assert "inputs" not in first["context"], "the prompt's values are in the messages, not repeated"


def test_plan_execute_calls_are_labelled_by_step_attempt_and_revision():
    config, task = ac.for_scenario("order-99999")
    calls = [e.context for e in ac.run(task, config, ac.OfflineModel()).events if isinstance(e, ev.LlmCall)]
    assert calls[0].prompt == "planner" and calls[0].revision == 0
    assert any(c.replan and c.revision == 1 for c in calls)
    retried = [c for c in calls if c.attempt == 2]
    assert retried and all(c.step_id == retried[0].step_id for c in retried)


def test_the_offline_scripts_do_not_depend_on_prompt_wording():
    # every heading and sentence of the Plan-and-Execute prompts reworded: the seed 03 run still plays
    config, task = ac.for_scenario("order-99999")
    reworded = {
        key: re.sub(r"##[^\n]*", "## Section", spec.default("en")).replace("Step", "Item")
        for key, spec in specs_for("plan-execute").items()
    }
    original = [e.verdict for e in ac.run(task, config, ac.OfflineModel()).events if isinstance(e, ev.VerdictEvent)]
    edited = ac.run(task, config.replace(prompts=reworded), ac.OfflineModel())
    assert (
        [e.verdict for e in edited.events if isinstance(e, ev.VerdictEvent)] == original == ["REPLAN", "RETRY", "PASS"]
    )


def test_a_trace_with_an_unknown_role_or_verdict_is_refused():
    good = ev.VerdictEvent(role="critic", verdict="PASS").to_dict()
    assert ev.event_from_dict(good) == ev.VerdictEvent(role="critic", verdict="PASS")
    # a role of a pattern this copy does not have (a newer version's trace) is a name, shown as written
    assert ev.event_from_dict({**good, "role": "wizard"}).role == "wizard"
    with pytest.raises(ev.EventFormatError, match="role's name"):
        ev.event_from_dict({**good, "role": "Wizard of Oz"})
    with pytest.raises(ev.EventFormatError, match="must be one of"):
        ev.event_from_dict({**good, "verdict": "MAYBE"})
    with pytest.raises(ev.EventFormatError, match="must be one of"):
        ev.event_from_dict({**ev.RunFinished().to_dict(), "reason": "tired"})
    with pytest.raises(ev.EventFormatError, match="context"):
        ev.event_from_dict({**ev.LlmCall().to_dict(), "context": "step 1"})


def test_a_context_from_a_newer_trace_drops_labels_it_does_not_know():
    ctx = CallContext.from_record({"pattern": "react", "round": 2, "mood": "cheerful"})
    assert ctx == CallContext(pattern="react", round=2) and ctx.inputs == ()
    assert CallContext("react", inputs=(("draft", "x"),)) == CallContext("react"), "inputs are not part of equality"


# --- one redaction --------------------------------------------------------------------------------


def test_traces_reports_and_settings_redact_with_one_function_longest_key_first():
    from agent_core.report import markdown_report
    from agent_core.settings import redact

    short, long = "sk-abcdefgh", "sk-abcdefgh-project-1234"  # the short key is a prefix of the long one
    config, task = ac.for_scenario("umbrella-one-call")
    events = ac.run(f"{task} {long} {short}", config, ac.OfflineModel()).events
    dumped = Trace.of(config.to_dict(), events).dumps(secrets=[short, long])
    assert long not in dumped and short not in dumped and "-project-1234" not in dumped, "the long key went whole"
    report = markdown_report(config.to_dict(), events, {"default": "m"}, secrets=[short, long])
    assert "-project-1234" not in report and short not in report
    assert redact(f"a {long} b", [short, long], "[x]") == "a [x] b"


# --- the Compare export and a trace's bound live in the core ---------------------------------------


def test_a_comparison_round_trips_through_the_core_format():
    from agent_core import exports

    lanes = []
    for name, sid in (("A", "primes"), ("B", "umbrella-one-call")):
        config, task = ac.for_scenario(sid)
        lanes.append((name, Trace.of(config.to_dict(), ac.run(task, config, ac.OfflineModel()).events)))
    raw = json.loads(exports.comparison_json("two tasks", lanes, secrets=["sk-never-there-1234"]))
    assert raw["kind"] == exports.EXPORT_KIND and [i["name"] for i in exports.lane_items(raw)] == ["A", "B"]
    assert exports.lane_items({"events": []}) is None
    with pytest.raises(Exception, match="export version 1 is not supported"):
        exports.lane_items({**raw, "version": 1})
    back = loads(json.dumps(exports.lane_items(raw)[1]))
    assert exports.bound_of(back.config, back.events) == 2  # direct with a tool: what run_started said
    assert exports.bound_of({"pattern": "no-such-pattern"}, back.events[1:]) == 2  # falls back to the calls made


def test_direct_is_one_call_again_and_a_trace_of_its_old_samples_still_loads():
    # the vote over several answers is the self-consistency pattern's; direct is the one-call yardstick
    config = configure(pattern="direct")
    assert ac.call_bound(config) == 1 and ac.call_bound(config.replace(tools=("weather",))) == 2
    with pytest.raises(ConfigError, match="no field 'samples'"):
        configure(pattern="direct", samples=3)
    old = ac.config_from_dict({"pattern": "direct", "samples": 3, "lang": "zh"})  # a trace saved with the option
    assert old.pattern == "direct" and old.lang == "zh" and "samples" not in old.to_dict()
    result = ac.run("Capital of France?", old, ScriptedModel(["Paris."]))
    assert result.final_answer == "Paris." and result.llm_calls == 1


# --- typed options, parsed at the border ----------------------------------------------------------


def test_a_config_holds_the_shared_fields_and_its_patterns_typed_options():
    config = ac.configure("react", max_rounds=3, lang="zh")
    assert type(config.options).__name__ == "ReactOptions" and config.options.max_rounds == 3
    assert not hasattr(config, "max_rounds"), "no pattern's field is left on RunConfig"
    assert config.replace(max_rounds=4).options.max_rounds == 4 and config.replace(lang="en").lang == "en"
    with pytest.raises(ConfigError, match="max_rounds must be an integer from 1 to 30"):
        ac.configure("react", max_rounds=0)
    with pytest.raises(ConfigError, match="no field 'max_roundz'"):
        ac.configure("react", max_roundz=3)
    for spec in registry.specs().values():
        fields = dataclasses.fields(spec.options)
        # (the one-call baseline reads no option of its own)
        assert (fields or spec.baseline) and {f.name for f in fields} == set(spec.option_names())
        for lim in spec.limits:
            assert lim.name in spec.option_names(), f"{spec.name}: a limit its options do not hold"


def test_every_options_field_has_a_docstring_under_it():
    for spec in registry.specs().values():
        source = inspect.getsource(spec.options)
        for f in dataclasses.fields(spec.options):
            assert re.search(rf"\n    {f.name}: [^\n]+\n    \"\"\"[^\n]+\"\"\"\n", source), f"{spec.name}.{f.name}"


def test_the_bundled_traces_and_a_flat_trace_of_every_field_load_and_run_again_exactly():
    for path in sorted(ROOT.joinpath("agent_core/data/traces").glob("*.json")):
        trace = loads(path.read_text(encoding="utf-8"))
        config = ac.config_from_dict(trace.config)
        recorded = {k: v for k, v in trace.config.items() if k != "models"}  # the models' names, beside it
        assert config.to_dict() == recorded, f"{path.name}: the flat fields round-trip"
        task = next(e.task for e in trace.events if isinstance(e, ev.RunStarted))
        again = ac.run(task, config, ac.OfflineModel(tokens_per_second=0, first_token_s=0))
        assert again.final_answer == trace.result["final_answer"] and again.reason == trace.result["reason"], path.name
    # a trace written when RunConfig held every pattern's fields: the others' are left out, its own kept
    flat = {"pattern": "reflection", "max_rounds": 3, "reflector": True, "max_iterations": 2, "code_task": True}
    config = ac.config_from_dict(flat)
    assert config.options.max_iterations == 2 and config.options.code_task and "max_rounds" not in config.to_dict()


# --- roles own their reply grammar ----------------------------------------------------------------


def test_a_role_reads_its_reply_lists_its_verdicts_and_turns_a_persons_line_into_a_reply():
    critic = registry.get("reflection").role("critic")
    assert critic.verdicts == ("PASS", "REVISE") and critic.read('{"verdict": "PASS"}', ())[1] is None
    assert json.loads(critic.verdict_reply("revise: name the sieve"))["verdict"] == "REVISE"
    assert critic.verdict_reply("looks fine") == "looks fine", "a line that is no verdict goes as written"
    planner = registry.get("plan-execute").role("planner")
    assert not planner.verdicts and planner.read("just do it", ())[1] is not None
    for spec in registry.specs().values():
        for role in spec.roles:
            assert role.label.en and role.label.zh, f"{spec.name}.{role.name}: a label in English and Chinese"
            assert bool(role.verdicts) == (role.answer is not None), f"{spec.name}.{role.name}: verdicts and answers"
            same = registry.role(role.name)
            assert (same.read, same.verdicts, same.answer) == (role.read, role.verdicts, role.answer), (
                f"{role.name}: a role of the same name reads and answers the same way in every pattern"
            )


# --- nothing outside a pattern's folder names its roles or options ---------------------------------

#: Modules that still name roles outside their patterns' folders, and why. The event contract types a
#: call's role (events.py; a trace with an unknown role is refused on load, below the registry), a
#: request defaults to the actor (messages.py), the eval sets' offline scripts answer every pattern's
#: roles on the bundled tasks and questions, and Eval's judge scorer calls its model in the judge role
#: (so a model bound to judges grades answers too). Nothing else may join this list.
ROLE_NAMES_ALLOWED_IN = {
    "agent_core/events.py",
    "agent_core/messages.py",
    "agent_core/offline/scripts/eval_tasks.py",
    "agent_core/offline/scripts/eval_questions.py",
    "agent_core/evaluation/scorers.py",
}


def _names_outside_their_folders(root: Path, extra: dict[str, str] | None = None) -> list[str]:
    """Every line outside the patterns' folders that names a role or an option of a pattern: a role
    compared or listed on a line about roles, an option read from a config, or an option's name quoted
    (names that are also plain words, like "tests", only where a config is read)."""
    roles = {r.name for spec in registry.specs().values() for r in spec.roles}  # a vote's too, no model's
    options = {o for spec in registry.specs().values() for o in spec.option_names()}
    folders = tuple(_folders().values())
    files = {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for base in ("agent_core", "pages")
        for p in root.joinpath(base).rglob("*.py")
    }
    files.update(extra or {})
    found = []
    for rel, text in sorted(files.items()):
        if rel.startswith(folders) or rel == REGISTRATION:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            hits = []
            if rel not in ROLE_NAMES_ALLOWED_IN and re.search(r"role", line, re.IGNORECASE):
                hits += [r for r in roles if _quoted(r).search(line)]
            for option in options:
                read = re.search(
                    rf"""(config|options|cfg)(\.get\(|\[)(["']){option}\3"""
                    rf"|\b(config|options|cfg)\.{option}\b",
                    line,
                )
                if read or ("_" in option and _quoted(option).search(line)):
                    hits.append(option)
            found += [f"{rel}:{number}: {name}: {line.strip()}" for name in sorted(set(hits))]
    return found


def test_no_code_outside_a_patterns_folder_names_its_roles_or_options():
    found = _names_outside_their_folders(ROOT)
    assert not found, "a pattern's role or option named outside its folder (ask its spec or role):\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        'if pending.role == "critic":',  # a branch on a role
        'CHOICES = {"judge": ("PASS", "REVISE")}  # by role',  # a table keyed by roles
        'if config.get("test_evaluator"):',  # an option read from a trace's config
        "rounds = config.options.max_rounds",  # an option read from a RunConfig
        'FLAGS = ("goal_aware_executor",)',  # an option's name quoted
    ],
)
def test_the_names_check_fails_on_a_violation(line):
    # the check itself, against a module that is not there: each usual way of naming one is caught
    assert _names_outside_their_folders(ROOT, {"agent_core/not_a_pattern.py": line + "\n"})
