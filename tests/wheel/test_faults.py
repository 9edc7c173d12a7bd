"""A slow call and a crash, against toolproof's fake server (examples/fake_mcp.rs: tools echo,
add, fail, slow, crash) with `toolproof_timeout = 0.5`. Written against mcp-toolproof 0.3.1's
API; tests/integration/interop/wheel.rs runs it under both packages. The last test is a deliberate
difference: toolproof's session starts a crashed server again, mcp-toolproof's stays dead."""


def test_a_call_past_the_timeout_times_out(mcp_server):
    r = mcp_server.call("slow", ms=3000)
    assert r.timed_out
    assert r.is_error
    assert r.transport_error == "timed out after 0.5s"
    assert r.text == "" and r.structured is None and r.data is None
    assert 400 < r.latency_ms < 3000


def test_the_server_still_answers_after_a_timeout(mcp_server):
    r = mcp_server.call("echo", text="still here")
    assert (r.is_error, r.text) == (False, "still here")


def test_a_crash_is_a_transport_error(mcp_server):
    r = mcp_server.call("crash")
    assert r.is_error
    assert not r.timed_out
    assert r.transport_error.startswith("connection lost, server probably crashed (")
    assert r.text == ""


def test_the_server_is_back_after_a_crash(mcp_server):
    r = mcp_server.call("echo", text="back")
    assert (r.transport_error, r.text) == (None, "back")
