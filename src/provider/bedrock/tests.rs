use super::*;
use crate::provider::ApiTool;

fn tools() -> Vec<ApiTool> {
    vec![
        ApiTool {
            exact_numbers: Vec::new(),
            name: "math_add".into(),
            description: "Add a and b.".into(),
            input_schema: json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
        },
        ApiTool {
            exact_numbers: Vec::new(),
            name: "echo".into(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        },
    ]
}

fn req<'a>(
    tools: &'a [ApiTool],
    params: &'a Map<String, Value>,
    system: Option<&'a str>,
) -> Request<'a> {
    Request {
        model: "anthropic.claude-3-haiku-20240307-v1:0",
        system,
        prompt: "Please add 2 and 3",
        context: &[],
        tools,
        params,
        tool_choice: None,
        max_tokens: 16000,
        prompt_cache: false,
    }
}

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
}

#[test]
fn the_body_is_converse_with_tool_specs_and_auto_choice() {
    let tools = tools();
    let params = Map::new();
    let b = body(&req(&tools, &params, Some("You pick tools.")));
    assert_eq!(
        b,
        json!({
            "messages": [{"role": "user", "content": [{"text": "Please add 2 and 3"}]}],
            "system": [{"text": "You pick tools."}],
            "inferenceConfig": {"maxTokens": 16000},
            "toolConfig": {
                "tools": [
                    {"toolSpec": {"name": "math_add", "description": "Add a and b.",
                        "inputSchema": {"json": {"type": "object", "properties": {"a": {"type": "integer"}}}}}},
                    {"toolSpec": {"name": "echo", "inputSchema": {"json": {"type": "object"}}}}
                ],
                "toolChoice": {"auto": {}}
            }
        })
    );
    // No system prompt, no tools: neither member.
    let b = body(&req(&[], &params, Some("")));
    assert!(
        b.get("system").is_none() && b.get("toolConfig").is_none(),
        "{b}"
    );
}

#[test]
fn tool_choice_maps_to_converse_and_none_leaves_the_tools_out() {
    let tools = tools();
    let with = |choice: &ToolChoice| {
        let mut params = Map::new();
        params.insert("tool_choice".into(), tool_choice(choice));
        body(&req(&tools, &params, None))
    };
    assert_eq!(
        with(&ToolChoice::Any)["toolConfig"]["toolChoice"],
        json!({"any": {}})
    );
    assert_eq!(
        with(&ToolChoice::Tool("echo".into()))["toolConfig"]["toolChoice"],
        json!({"tool": {"name": "echo"}})
    );
    assert_eq!(
        with(&ToolChoice::Auto)["toolConfig"]["toolChoice"],
        json!({"auto": {}})
    );
    let none = with(&ToolChoice::None);
    assert!(
        none.get("toolConfig").is_none() && none.get("tool_choice").is_none(),
        "{none}"
    );
}

#[test]
fn params_are_merged_and_max_tokens_goes_to_inference_config() {
    let tools = tools();
    let params = json!({"max_tokens": 5, "additionalModelRequestFields": {"top_k": 3}});
    let params = params.as_object().cloned().unwrap_or_default();
    let b = body(&req(&tools, &params, None));
    assert_eq!(b["inferenceConfig"], json!({"maxTokens": 5}));
    assert_eq!(b["additionalModelRequestFields"], json!({"top_k": 3}));
    assert!(b.get("max_tokens").is_none());
    // An inferenceConfig of the user's replaces toolproof's, as every params key does.
    let params = json!({"inferenceConfig": {"temperature": 0}});
    let params = params.as_object().cloned().unwrap_or_default();
    let b = body(&req(&tools, &params, None));
    assert_eq!(b["inferenceConfig"], json!({"temperature": 0}));
}

#[test]
fn the_prompt_cache_adds_cache_points_after_the_system_prompt_and_the_tools() {
    let tools = tools();
    let params = Map::new();
    let b = body(&Request {
        prompt_cache: true,
        ..req(&tools, &params, Some("sys"))
    });
    assert_eq!(
        b["system"],
        json!([{"text": "sys"}, {"cachePoint": {"type": "default"}}])
    );
    assert_eq!(
        b["toolConfig"]["tools"][2],
        json!({"cachePoint": {"type": "default"}})
    );
}

#[test]
fn context_turns_are_tool_use_and_tool_result_blocks_in_alternating_messages() {
    let mut args = Map::new();
    args.insert("order_id".into(), json!("55219"));
    let talk = vec![
        Turn::User("Where is my order 55219?".into()),
        Turn::Call {
            tool: "get_order".into(),
            args,
            result: r#"{"status": "processing"}"#.into(),
        },
        Turn::Assistant("Order 55219 is still processing.".into()),
    ];
    assert_eq!(
        messages(&talk, "Cancel it"),
        json!([
            {"role": "user", "content": [{"text": "Where is my order 55219?"}]},
            {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "tooluse_ctx_1", "name": "get_order", "input": {"order_id": "55219"}}}
            ]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "tooluse_ctx_1", "content": [{"text": "{\"status\": \"processing\"}"}]}}
            ]},
            {"role": "assistant", "content": [{"text": "Order 55219 is still processing."}]},
            {"role": "user", "content": [{"text": "Cancel it"}]}
        ])
    );
    // Ending on a call: the prompt shares the tool result's message.
    let m = messages(&talk[..2], "Cancel it");
    assert_eq!(m.as_array().map(Vec::len), Some(3));
    assert_eq!(m[2]["content"][1], json!({"text": "Cancel it"}));
}

#[test]
fn an_answer_is_read_in_order_with_text_stop_and_usage() {
    let v = json!({
        "output": {"message": {"role": "assistant", "content": [
            {"text": "I'll add."},
            {"toolUse": {"toolUseId": "tooluse_1", "name": "math_add", "input": {"a": 2, "b": 3}}},
            {"reasoningContent": {"reasoningText": {"text": "hmm"}}},
            {"toolUse": {"toolUseId": "tooluse_2", "name": "echo", "input": "{bad"}}
        ]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 30, "outputTokens": 12, "totalTokens": 142,
                  "cacheReadInputTokens": 80, "cacheWriteInputTokens": 20},
        "metrics": {"latencyMs": 412}
    });
    let a = read(&v).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.text, "I'll add.");
    assert_eq!(a.stop, Stop::ToolUse);
    assert_eq!(
        a.calls,
        [
            RawCall {
                name: "math_add".into(),
                args: Ok(json!({"a": 2, "b": 3}))
            },
            RawCall {
                name: "echo".into(),
                args: Err(RawArgs("{bad".into()))
            },
        ]
    );
    assert_eq!(
        a.usage,
        Some(Usage {
            input: 30,
            output: 12,
            cache_write: 20,
            cache_read: 80
        })
    );
    assert!(!a.usage_unbelievable);
}

#[test]
fn stop_reasons_map_to_stops() {
    let stop = |reason: &str| {
        read(&json!({"output": {"message": {"content": [{"text": "x"}]}}, "stopReason": reason}))
            .map(|a| a.stop)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    assert_eq!(stop("end_turn"), Stop::EndTurn);
    assert_eq!(stop("tool_use"), Stop::ToolUse);
    assert_eq!(stop("max_tokens"), Stop::MaxTokens);
    assert_eq!(stop("model_context_window_exceeded"), Stop::MaxTokens);
    assert_eq!(stop("guardrail_intervened"), Stop::Refusal);
    assert_eq!(stop("content_filtered"), Stop::Refusal);
    assert_eq!(
        stop("stop_sequence"),
        Stop::Other("stop_sequence".to_owned())
    );
    let a =
        read(&json!({"output": {"message": {"content": []}}})).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((a.stop, a.usage), (Stop::EndTurn, None));
    let huge = json!({"output": {"message": {"content": []}}, "usage": {"inputTokens": u64::MAX, "outputTokens": 1}});
    let a = read(&huge).unwrap_or_else(|e| panic!("{e}"));
    assert!(a.usage.is_none() && a.usage_unbelievable);
}

#[test]
fn wrong_shapes_are_described() {
    assert_eq!(
        read(&json!({"choices": []})),
        Err(ShapeError::NoOutputMessage)
    );
    assert_eq!(
        read(&json!({"message": "The security token included in the request is invalid."})),
        Err(ShapeError::ErrorObject(
            "The security token included in the request is invalid.".into()
        ))
    );
    assert_eq!(
        read(&json!({"output": {"message": {"content": [{"toolUse": {"input": {}}}]}}})),
        Err(ShapeError::UnnamedToolUse)
    );
}

#[test]
fn error_types_come_from_the_header_or_the_body() {
    assert_eq!(
        error_type(
            Some("ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"),
            None
        )
        .as_deref(),
        Some("ThrottlingException")
    );
    let body = json!({"__type": "com.amazon.coral.service#UnrecognizedClientException"});
    assert_eq!(
        error_type(None, Some(&body)).as_deref(),
        Some("UnrecognizedClientException")
    );
    assert_eq!(error_type(Some(""), None), None);
    let hint = hint_for("InvalidSignatureException", "AWS_REGION").unwrap_or_default();
    assert!(hint.contains("AWS_SECRET_ACCESS_KEY"), "{hint}");
    assert!(hint_for("ThrottlingException", "AWS_REGION").is_none());
}

#[test]
fn the_target_follows_the_aws_sdk_variables() {
    let keys = [
        ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
        ("AWS_SECRET_ACCESS_KEY", "secret"),
    ];
    let t = target_from(env(&[keys[0], keys[1], ("AWS_REGION", "eu-west-3")]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        t.endpoint,
        "https://bedrock-runtime.eu-west-3.amazonaws.com"
    );
    assert_eq!(t.region, "eu-west-3");
    assert_eq!(t.credentials.session_token, None);
    let t = target_from(env(&[
        keys[0],
        keys[1],
        ("AWS_DEFAULT_REGION", "us-west-2"),
        ("AWS_SESSION_TOKEN", "tok"),
        ("AWS_ENDPOINT_URL", "http://127.0.0.1:9/"),
    ]))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (t.endpoint.as_str(), t.region.as_str(), t.endpoint_var),
        ("http://127.0.0.1:9", "us-west-2", "AWS_ENDPOINT_URL")
    );
    assert_eq!(t.credentials.session_token.as_deref(), Some("tok"));
    // The service-specific variable wins over the global one; AWS_REGION over the default.
    let t = target_from(env(&[
        keys[0],
        keys[1],
        ("AWS_REGION", "us-east-1"),
        ("AWS_DEFAULT_REGION", "us-west-2"),
        ("AWS_ENDPOINT_URL", "http://global"),
        ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "http://bedrock"),
    ]))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (t.endpoint.as_str(), t.region.as_str()),
        ("http://bedrock", "us-east-1")
    );
}

#[test]
fn missing_credentials_or_region_are_fatal_and_name_the_variable() {
    let err = target_from(env(&[("AWS_REGION", "us-east-1")])).unwrap_err();
    assert!(err.is_fatal());
    assert!(
        err.message().contains("AWS_ACCESS_KEY_ID is not set"),
        "{err}"
    );
    let err = target_from(env(&[("AWS_ACCESS_KEY_ID", "AKID"), ("AWS_REGION", "x")])).unwrap_err();
    assert!(
        err.message().contains("AWS_SECRET_ACCESS_KEY is not set"),
        "{err}"
    );
    let err = target_from(env(&[
        ("AWS_ACCESS_KEY_ID", "AKID"),
        ("AWS_SECRET_ACCESS_KEY", "s"),
    ]))
    .unwrap_err();
    assert!(err.message().contains("AWS_REGION is not set"), "{err}");
    assert!(
        err.hint().is_some_and(|h| h.contains("export AWS_REGION")),
        "{err}"
    );
}

#[test]
fn model_ids_are_encoded_in_the_url() {
    assert_eq!(
        converse_url(
            "https://bedrock-runtime.us-east-1.amazonaws.com/",
            "us.amazon.nova-pro-v1:0"
        ),
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-pro-v1%3A0/converse"
    );
    assert_eq!(
        converse_url(
            "http://h",
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0"
        ),
        "http://h/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.amazon.nova-pro-v1%3A0/converse"
    );
}

#[test]
fn profiles_are_priced_as_their_model() {
    for (name, p) in PRICES {
        assert!(
            name.contains('.') && p.input > 0.0 && p.output >= p.input,
            "{name}"
        );
        if let Some(model) = name.strip_prefix("us.") {
            let plain = PRICES.iter().find(|(n, _)| *n == model).map(|(_, p)| *p);
            assert_eq!(plain, Some(*p), "{name}");
        }
    }
}

#[test]
fn the_secret_variables_are_the_credentials_read() {
    let asked = std::sync::Mutex::new(Vec::new());
    let _ = target_from(|k: &str| {
        if let Ok(mut a) = asked.lock() {
            a.push(k.to_owned());
        }
        Some(format!("v-{k}"))
    });
    let asked = asked.into_inner().unwrap_or_default();
    // Each credential read is withheld from children and masked in every output; the
    // region and endpoints are not secrets.
    for var in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
    ] {
        assert!(asked.iter().any(|a| a == var), "{var} is not read");
        assert!(
            super::KIND.credentials().contains(&var),
            "{var} is not a credential, so not withheld"
        );
    }
}
