use super::*;

#[test]
fn each_format_is_told_by_its_content() {
    let claude =
        r#"{"type":"user","sessionId":"s1","uuid":"u1","message":{"role":"user","content":"hi"}}"#;
    let openai = r#"{"request":{"model":"m","messages":[{"role":"user","content":"hi"}]},"response":{"choices":[{"message":{"role":"assistant","content":"hello"}}]}}"#;
    let anthropic = r#"{"request":{"model":"m","messages":[{"role":"user","content":"hi"}]},"response":{"content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn"}}"#;
    let mcp =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
    let otel = r#"{"resourceSpans":[]}"#;
    assert_eq!(detect(claude), Some(Format::ClaudeCode));
    assert_eq!(detect(openai), Some(Format::Openai));
    assert_eq!(detect(anthropic), Some(Format::Anthropic));
    assert_eq!(detect(mcp), Some(Format::Mcp));
    assert_eq!(detect(otel), Some(Format::Otel));
    assert_eq!(detect("{\"hello\": 1}\nnot json\n"), None);
}

#[test]
fn mcp_traffic_counts_calls_and_their_errors() {
    let text = concat!(
        r#"{"direction":"send","message":{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add"}}}"#,
        "\n",
        r#"{"direction":"recv","message":"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"isError\":true,\"content\":[]}}"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo"}}"#,
        "\n",
    );
    let read = read(Format::Mcp, "t.jsonl", text);
    assert_eq!(
        read.traffic,
        vec![
            SeenCall {
                tool: "add".into(),
                error: true
            },
            SeenCall {
                tool: "echo".into(),
                error: false
            }
        ]
    );
    assert!(read.conversations.is_empty());
}
