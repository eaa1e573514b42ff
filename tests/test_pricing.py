"""Cost before you run: the worst case of a configuration is never below what a run that spends its
whole call bound actually uses; prices come from a dated, sourced table a user can extend; a model
without a price costs "unknown", never 0; the offline model costs 0."""

import itertools
import json

import pytest

import agent_core as ac
from agent_core import events as ev
from agent_core import metrics
from agent_core.errors import ConfigError
from agent_core.pricing import (
    OFFLINE_PRICE,
    PRICES,
    Price,
    PriceTable,
    configured_table,
    parse_user_prices,
    spend,
    worst_case,
)
from agent_core.testing import ScriptedModel, say, tool

CAP = 48


_serial = itertools.count()


def long_text(tag: str, tokens: int = CAP - 12) -> str:
    """About `tokens` tokens of text (4 characters a token), below the output cap with room for tool
    arguments; words differ from call to call, so no progress detector stops the run early."""
    n = next(_serial)
    return (f"{tag} " + " ".join(f"w{n}x{i}" for i in range(tokens)))[: tokens * 4]


def verdict(request, reply: str) -> str:
    """A verdict that needs the repair re-ask first: the costliest way to get one."""
    return reply if request.context.repair else "garbage, not a verdict"


def react_never_done(request):
    if request.role == "judge":
        return verdict(request, json.dumps({"passed": False, "feedback": long_text("judge")}))
    if request.tools and len(request.messages) % 3:
        return say(long_text("thought"), tool("search", query=f"q{next(_serial)}"))
    return say(long_text("answer"))


def plan_execute_costliest(request):
    context = request.context
    if request.role == "planner":
        steps = [{"description": f"Probe {i} " + "x" * 20, "tool": "search"} for i in range(3)]
        return verdict(request, json.dumps({"steps": steps}))
    if request.role == "executor":
        if request.tools:
            return say(long_text("probing"), tool("search", query=f"q{next(_serial)}"))
        return long_text("result")
    if request.role == "synthesizer":
        return long_text("summary")
    kind = "REPLAN" if context.synthesis else "RETRY"
    return verdict(request, json.dumps({"verdict": kind, "analysis": "never good " * 6, "suggestion": "again " * 6}))


def reflection_never_satisfied(request):
    if request.role == "critic":
        return verdict(request, json.dumps({"passed": False, "feedback": long_text("needs work")}))
    return long_text("draft", CAP - 2)


def reflection_zh(request):
    if request.role == "critic":
        return verdict(request, json.dumps({"passed": False, "feedback": "还需要改进" * 8}, ensure_ascii=False))
    return "草稿" * 20


#: name -> (config, the model's replies); every run spends its whole call bound (a budget, where the
#: pattern's own bound cannot be reached by a consistent script)
CASES = {
    "react with tools and a judge it never convinces": (
        ac.configure(
            pattern="react",
            tools=("search",),
            max_rounds=4,
            max_reflection_rounds=2,
            max_output_tokens=CAP,
            max_llm_calls=7,
        ),
        react_never_done,
    ),
    "plan-execute: every step retried, every synthesis re-planned": (
        ac.configure(
            pattern="plan-execute",
            tools=("search",),
            reflector=True,
            max_plan_steps=3,
            max_step_rounds=2,
            max_step_retries=1,
            max_replans=1,
            max_output_tokens=CAP,
            max_llm_calls=24,
        ),
        plan_execute_costliest,
    ),
    "reflection: the critic is never satisfied": (
        ac.configure(pattern="reflection", max_iterations=4, max_output_tokens=CAP, max_llm_calls=8),
        reflection_never_satisfied,
    ),
    "reflection in Chinese": (
        ac.configure(pattern="reflection", lang="zh", max_iterations=3, max_output_tokens=CAP, max_llm_calls=6),
        reflection_zh,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_worst_case_covers_a_run_that_spends_its_whole_bound(case):
    config, reply = CASES[case]
    task = "Compare the two products and say which to buy, with reasons."
    events = list(ac.stream(task, config, ScriptedModel.forever(reply)))
    used = metrics.summary(events)
    bound = ac.call_bound(config)
    worst = worst_case(config, task)
    assert worst.calls == bound and used.llm_calls == bound
    assert used.prompt_tokens <= worst.prompt_tokens and used.completion_tokens <= worst.completion_tokens
    assert used.total_tokens <= worst.total_tokens


def test_every_offline_scenario_stays_under_its_worst_case():
    for scenario in ac.scenarios.SCENARIOS:
        config, task = ac.for_scenario(scenario, "en")
        used = metrics.summary(ac.run(task, config, ac.OfflineModel()).events)
        worst = worst_case(config, task)
        assert used.llm_calls <= worst.calls and used.total_tokens <= worst.total_tokens, scenario


def test_the_worst_case_grows_with_the_cap_and_the_bound_and_has_no_bound_without_a_cap():
    config = ac.configure(pattern="reflection", max_iterations=2, max_output_tokens=100)
    small, capped, longer = (
        worst_case(config, "t"),
        worst_case(config.replace(max_output_tokens=400), "t"),
        worst_case(config.replace(max_iterations=4), "t"),
    )
    assert small.completion_tokens == small.calls * 100 and capped.total_tokens > small.total_tokens
    assert longer.calls > small.calls and longer.total_tokens > small.total_tokens
    role_cap = worst_case(config.replace(max_output_tokens_by_role={"critic": 900}), "t")
    assert role_cap.completion_tokens == role_cap.calls * 900
    unbounded = worst_case(config.replace(max_output_tokens=0), "t")
    assert (unbounded.prompt_tokens, unbounded.total_tokens, unbounded.cost(PRICES[0])) == (None, None, None)


# --- prices ---------------------------------------------------------------------------------------


def test_every_built_in_price_has_a_date_and_a_source():
    for price in PRICES:
        assert price.as_of[:2] == "20" and price.source.startswith("https://"), price
        assert price.input_per_mtok > 0 and price.output_per_mtok >= price.input_per_mtok
    names = {p.model for p in PRICES}
    assert {
        "gpt-4o",
        "gpt-4o-mini",
        "gpt-4.1",
        "deepseek-chat",
        "deepseek-reasoner",
        "qwen-plus",
        "qwen-turbo",
        "qwen-max",
    } <= names


def test_a_model_without_a_price_is_unknown_never_free():
    table = PriceTable()
    assert table.find("llama3.1") is None and table.cost("llama3.1", 1000, 1000) is None
    assert table.find("gpt-4o-audio-preview") is None  # another model, not a snapshot of gpt-4o
    assert table.find("GPT-4o-2024-08-06").model == "gpt-4o" and table.find("qwen-plus-latest").model == "qwen-plus"
    calls = [ev.LlmCall(model="gpt-4o-mini", prompt_tokens=1_000_000), ev.LlmCall(model="llama3.1", prompt_tokens=5)]
    used = spend(calls, table)
    assert used.usd == pytest.approx(0.15) and used.unknown_models == ("llama3.1",) and not used.known


def test_the_offline_model_costs_nothing_and_says_why():
    table = PriceTable()
    events = ac.run(*reversed(ac.for_scenario("primes", "en")), ac.OfflineModel()).events
    assert spend(events, table).usd == 0 and spend(events, table).known
    assert table.find(OFFLINE_PRICE.model).source == "offline: no model is called"


def test_a_user_adds_a_model_and_overrides_a_listed_one():
    table = configured_table(
        {"prices": {"gpt-4o": {"input": 1.0, "output": 2.0}, "llama3.1": [0, 0]}},
        {"AGENT_PRICES": json.dumps({"my-model": [0.5, 1.5], "gpt-4o": [9, 9]})},
    )
    assert table.cost("gpt-4o", 1_000_000, 1_000_000) == 3.0  # secrets outrank the environment
    assert table.cost("my-model", 2_000_000, 0) == 1.0 and table.cost("llama3.1", 10**6, 10**6) == 0.0
    assert table.find("llama3.1").as_of == "user"
    session = table.with_user([Price("my-model", 1.0, 1.0, "user", "sidebar")])
    assert session.cost("my-model", 10**6, 0) == 1.0 and session.cost("gpt-4o", 10**6, 0) == 1.0


@pytest.mark.parametrize(
    "raw, message",
    [
        ("{not json", "AGENT_PRICES is not valid JSON"),
        ('["gpt-4o", 1, 2]', "must map model names to prices"),
        ('{"m": [1]}', "must be [input, output]"),
        ('{"m": [-1, 2]}', "0 or more; got -1"),
        ('{"m": ["1", 2]}', "got '1'"),
        ('{"m": {"input": 1}}', "got None"),
    ],
)
def test_a_broken_price_setting_is_refused_with_its_name(raw, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        configured_table({}, {"AGENT_PRICES": raw})


def test_user_prices_parse_from_a_mapping():
    (line,) = parse_user_prices({"local": {"input": 0, "output": 0.5, "source": "our invoice"}})
    assert (line.model, line.input_per_mtok, line.output_per_mtok, line.source) == ("local", 0.0, 0.5, "our invoice")


# --- the eval's costs -----------------------------------------------------------------------------


def test_an_eval_row_costs_unknown_without_a_price_and_its_price_with_one():
    from agent_core.evaluation import EvalRow, bundled_tasks, evaluate
    from agent_core.evaluation import worst_case as eval_worst_case

    task = bundled_tasks()[:1]
    answer = "```python\n" + task[0].prompt + task[0].canonical_solution + "```"
    unpriced = [r for r in evaluate(task, ["reference", "react"], ScriptedModel([answer])) if isinstance(r, EvalRow)]
    assert [r.cost_usd for r in unpriced] == [0.0, None]  # the reference calls no model
    table = PriceTable(user=[Price("scripted", 1.0, 2.0, "user", "test")])
    (row,) = [r for r in evaluate(task, ["react"], ScriptedModel([answer]), prices=table) if isinstance(r, EvalRow)]
    assert row.cost_usd == pytest.approx((row.prompt_tokens * 1.0 + row.completion_tokens * 2.0) / 1e6)
    worst = eval_worst_case(task, ["reference", "react"])
    assert worst.calls == ac.call_bound(ac.configure(pattern="react", code_task=True))
    assert row.total_tokens <= worst.total_tokens
