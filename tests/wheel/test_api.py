"""Tests written against mcp-toolproof 0.3.1's pytest API (the `mcp_server` fixture, `CallResult`,
`ServerConfig`), run unchanged under mcp-toolproof and under toolproof's wheel on the same
server: tests/integration/interop/sdk_server.py (tools add, shout, refuse). tests/integration/interop/wheel.rs runs this
file and compares the outcome of every test; `test_a_wrong_expectation_fails` must fail."""

import pytest

from toolproof import CallResult, ServerConfig


def test_tool_names(mcp_server):
    assert mcp_server.tool_names() == ["add", "shout", "refuse"]


def test_tool_definition_has_snake_case_attributes(mcp_server):
    add = mcp_server.tool("add")
    assert add.name == "add"
    assert add.description == "Add two integers and return the sum."
    assert add.input_schema["type"] == "object"
    assert add.input_schema["properties"]["a"]["type"] == "integer"
    assert sorted(add.input_schema["required"]) == ["a", "b"]
    assert add.output_schema is not None
    assert add.meta is None
    assert [t.name for t in mcp_server.list_tools()] == mcp_server.tool_names()


def test_an_unknown_tool_name_is_a_key_error(mcp_server):
    with pytest.raises(KeyError):
        mcp_server.tool("no_such_tool")


def test_add_with_keywords(mcp_server):
    r = mcp_server.call("add", a=2, b=3)
    assert isinstance(r, CallResult)
    assert (r.tool, r.arguments) == ("add", {"a": 2, "b": 3})
    assert not r.is_error
    assert r.text == "5"
    assert r.structured == {"result": 5}
    assert r.data == {"result": 5}
    assert r.latency_ms > 0
    assert r.transport_error is None
    assert not r.timed_out and not r.protocol_error
    assert r.error_code is None


def test_add_with_a_dict_and_keywords(mcp_server):
    r = mcp_server.call("add", {"a": 40}, b=2)
    assert r.arguments == {"a": 40, "b": 2}
    assert r.data == {"result": 42}


def test_text_result(mcp_server):
    r = mcp_server.call("shout", text="hello")
    assert not r.is_error
    assert r.text == "HELLO"
    assert r.data == {"result": "HELLO"}


def test_a_tool_error_is_an_error_result(mcp_server):
    r = mcp_server.call("refuse", reason="not today")
    assert r.is_error
    assert "not today" in r.text
    assert not r.protocol_error
    assert r.transport_error is None


def test_bad_arguments_are_an_error_result(mcp_server):
    r = mcp_server.call("add", a="two", b=3)
    assert r.is_error
    assert r.transport_error is None


def test_an_unknown_tool_is_an_error(mcp_server):
    r = mcp_server.call("no_such_tool")
    assert r.is_error
    assert r.transport_error is None
    assert "no_such_tool" in r.text


def test_integers_beyond_64_bits_reach_the_tool_exactly(mcp_server):
    r = mcp_server.call("add", a=2**70 + 1, b=1)
    assert r.arguments == {"a": 2**70 + 1, "b": 1}
    assert (r.is_error, r.text) == (False, str(2**70 + 2))


def test_a_wrong_expectation_fails(mcp_server):
    r = mcp_server.call("add", a=2, b=2)
    assert r.data == {"result": 5}


def test_data_parses_text_as_json():
    r = CallResult("t", {}, False, '{"x": [1, 2]}', None, 1.0)
    assert r.data == {"x": [1, 2]}
    assert CallResult("t", {}, False, "not json", None, 1.0).data is None
    assert CallResult("t", {}, False, "{}", {"s": 1}, 1.0).data == {"s": 1}


def test_server_config_rules():
    assert ServerConfig(command=["python", "server.py"]).startup_timeout_s == 30
    assert ServerConfig(url="http://localhost:1/mcp", headers={"A": "b"}).headers == {"A": "b"}
    with pytest.raises(ValueError, match="exactly one of 'command' or 'url'"):
        ServerConfig()
    with pytest.raises(ValueError, match="exactly one of 'command' or 'url'"):
        ServerConfig(command=["x"], url="http://localhost:1/mcp")
    with pytest.raises(ValueError, match="'headers' only applies to 'url' servers"):
        ServerConfig(command=["x"], headers={"A": "b"})
