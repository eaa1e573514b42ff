"""The registry and the scenarios' mock tools."""

import json

import pytest

from agent_core import mock_tools
from agent_core.errors import ConfigError
from agent_core.tools import MAX_ARGUMENT_CHARS


def test_schemas_are_openai_tool_entries_in_both_languages():
    reg = mock_tools.registry(["weather", "search"])
    en, zh = reg.schemas("en"), reg.schemas("zh")
    assert [s["function"]["name"] for s in en] == ["weather", "search"]
    assert en[0]["function"]["parameters"]["required"] == ["city"]
    assert en[0]["function"]["description"] != zh[0]["function"]["description"]


def test_seed03_order_99999_is_a_syncing_shell_not_an_error():
    obs = mock_tools.registry().run("query_order", '{"order_id": "99999"}')
    assert not obs.is_error and "syncing" in json.loads(obs.output)["status"]


def test_seed03_waybill_sf0000000_is_an_error_object():
    obs = mock_tools.registry().run("query_logistics", '{"tracking_no": "SF0000000"}')
    assert obs.is_error and "does not exist" in obs.output


def test_arguments_at_the_limit_run_and_over_it_are_refused():
    reg = mock_tools.registry()
    padding = MAX_ARGUMENT_CHARS - len(json.dumps({"query": ""}))
    assert not reg.run("search", json.dumps({"query": "x" * padding})).is_error
    assert reg.run("search", json.dumps({"query": "x" * (padding + 1)})).is_error


def test_chinese_city_names_work():
    assert json.loads(mock_tools.registry().run("weather", '{"city": "北京"}').output)["city"] == "Beijing"


def test_unknown_tool_names_in_a_config_are_a_config_error():
    with pytest.raises(ConfigError, match="unknown tool"):
        mock_tools.registry(["weather", "teleport"])
