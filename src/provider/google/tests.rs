use super::*;

fn tool(name: &str) -> ApiTool {
    ApiTool {
        exact_numbers: Vec::new(),
        name: name.into(),
        description: format!("The {name} tool."),
        input_schema: json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}),
    }
}

fn req<'a>(
    tools: &'a [ApiTool],
    params: &'a Map<String, Value>,
    context: &'a [Turn],
) -> Request<'a> {
    Request {
        model: "gemini-2.5-flash",
        system: Some("You pick tools."),
        prompt: "Please add 2 and 3",
        context,
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

fn answer(parts: Value, finish: &str) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
        "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 8, "totalTokenCount": 128},
        "modelVersion": "gemini-2.5-flash", "responseId": "r1"
    })
}

fn read_ok(v: &Value) -> Answer {
    read(v).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_body_has_contents_system_declarations_tool_config_and_the_token_limit() {
    let tools = [tool("math_add")];
    let params = Map::new();
    let b = body(&req(&tools, &params, &[]));
    assert_eq!(
        b,
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Please add 2 and 3"}]}],
            "systemInstruction": {"parts": [{"text": "You pick tools."}]},
            "tools": [{"functionDeclarations": [{
                "name": "math_add",
                "description": "The math_add tool.",
                "parametersJsonSchema": {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}
            }]}],
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
            "generationConfig": {"maxOutputTokens": 16000}
        })
    );
    // No tools: no tools and no toolConfig (the API rejects an empty declaration list); no
    // system prompt: no systemInstruction.
    let r = Request {
        system: Some(""),
        ..req(&[], &params, &[])
    };
    let b = body(&r);
    assert!(b.get("tools").is_none() && b.get("toolConfig").is_none());
    assert!(b.get("systemInstruction").is_none());
}

#[test]
fn params_replace_keys_but_merge_into_generation_config_and_tool_choice_becomes_tool_config() {
    let tools = [tool("math_add"), tool("echo")];
    let params = json!({
        "generationConfig": {"temperature": 0, "thinkingConfig": {"thinkingBudget": 0}},
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        "tool_choice": {"type": "tool", "name": "echo"}
    });
    let params = params.as_object().cloned().unwrap_or_default();
    let b = body(&req(&tools, &params, &[]));
    assert_eq!(
        b["generationConfig"],
        json!({"maxOutputTokens": 16000, "temperature": 0, "thinkingConfig": {"thinkingBudget": 0}})
    );
    assert_eq!(b["safetySettings"][0]["threshold"], "BLOCK_NONE");
    assert_eq!(
        b["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["echo"]}})
    );
    assert!(b.get("tool_choice").is_none(), "{b}");
    // A token limit of the user's own wins.
    let params = json!({"generationConfig": {"maxOutputTokens": 64}});
    let params = params.as_object().cloned().unwrap_or_default();
    assert_eq!(
        body(&req(&tools, &params, &[]))["generationConfig"]["maxOutputTokens"],
        64
    );
    // `evals.max_tokens` arrives as `params.maxOutputTokens`: it goes where the API reads it.
    let params = json!({"maxOutputTokens": 32});
    let params = params.as_object().cloned().unwrap_or_default();
    let b = body(&req(&tools, &params, &[]));
    assert_eq!(b["generationConfig"], json!({"maxOutputTokens": 32}));
    assert!(b.get("maxOutputTokens").is_none(), "{b}");
    // A tool choice in a shape toolproof does not know is left for the API to judge.
    let params = json!({"tool_choice": 7});
    let params = params.as_object().cloned().unwrap_or_default();
    let b = body(&req(&tools, &params, &[]));
    assert_eq!(b["tool_choice"], 7);
    assert_eq!(b["toolConfig"]["functionCallingConfig"]["mode"], "AUTO");
}

#[test]
fn every_tool_choice_has_its_function_calling_mode() {
    let mode = |c: ToolChoice| tool_config(&c)["functionCallingConfig"].clone();
    assert_eq!(mode(ToolChoice::Auto), json!({"mode": "AUTO"}));
    assert_eq!(mode(ToolChoice::Any), json!({"mode": "ANY"}));
    assert_eq!(mode(ToolChoice::None), json!({"mode": "NONE"}));
    assert_eq!(
        mode(ToolChoice::Tool("7zip".into())),
        json!({"mode": "ANY", "allowedFunctionNames": ["_7zip"]})
    );
}

#[test]
fn names_the_api_refuses_are_declared_behind_an_underscore_and_read_back() {
    assert!(name_ok("math_add") && name_ok("_x") && name_ok("a.b:c-d"));
    assert!(!name_ok("7zip") && !name_ok("-x") && !name_ok("") && !name_ok(&"a".repeat(65)));
    assert!(name_ok(&"a".repeat(64)));
    assert_eq!(wire_name("math_add"), "math_add");
    assert_eq!(wire_name("7zip"), "_7zip");
    assert_eq!(wire_name("-x"), "_-x");
    let long = format!("9{}", "a".repeat(63));
    assert_eq!(wire_name(&long).len(), 64);
    assert!(name_ok(&wire_name(&long)));
    let tools = [tool("7zip"), tool("echo")];
    let b = body(&req(&tools, &Map::new(), &[]));
    assert_eq!(b["tools"][0]["functionDeclarations"][0]["name"], "_7zip");
    let mut a = read_ok(&answer(
        json!([{"functionCall": {"name": "_7zip", "args": {}}}, {"functionCall": {"name": "nope"}}]),
        "STOP",
    ));
    restore_names(&mut a, &tools);
    let names: Vec<&str> = a.calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["7zip", "nope"]);
    assert!(check_names(&tools).is_ok());
    // `1a` and `_1a` would both be declared as `_1a`: refused, naming both.
    let err = check_names(&[tool("_1a"), tool("1a")]).unwrap_err();
    assert!(err.is_fatal());
    assert!(
        err.message().contains("`_1a` and `1a`") && err.message().contains("become `_1a`"),
        "{err}"
    );
}

#[test]
fn context_turns_are_function_call_and_function_response_parts_with_alternating_roles() {
    let mut args = Map::new();
    args.insert("order_id".into(), json!("55219"));
    let talk = vec![
        Turn::User("Where is my order 55219?".into()),
        Turn::Assistant("Let me look.".into()),
        Turn::Call {
            tool: "get_order".into(),
            args,
            result: r#"{"status": "processing"}"#.into(),
        },
        Turn::Assistant("Order 55219 is still processing.".into()),
    ];
    assert_eq!(
        contents(&talk, "Cancel it"),
        json!([
            {"role": "user", "parts": [{"text": "Where is my order 55219?"}]},
            {"role": "model", "parts": [
                {"text": "Let me look."},
                {"functionCall": {"name": "get_order", "args": {"order_id": "55219"}}}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_order", "response": {"result": "{\"status\": \"processing\"}"}}}
            ]},
            {"role": "model", "parts": [{"text": "Order 55219 is still processing."}]},
            {"role": "user", "parts": [{"text": "Cancel it"}]}
        ])
    );
    // Ending on a call: the prompt joins the function response's turn.
    let c = contents(&talk[..3], "Cancel it");
    assert_eq!(c[2]["parts"][1], json!({"text": "Cancel it"}));
    assert_eq!(
        contents(&[], "hi"),
        json!([{"role": "user", "parts": [{"text": "hi"}]}])
    );
}

#[test]
fn every_function_call_part_is_read_in_order_with_the_text() {
    let a = read_ok(&answer(
        json!([
            {"text": "thinking about it", "thought": true},
            {"text": "I'll add."},
            {"functionCall": {"name": "math_add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "c2ln"},
            {"text": "And echo."},
            {"functionCall": {"id": "x", "name": "echo"}},
            {"functionCall": {"name": "odd", "args": [1]}}
        ]),
        "STOP",
    ));
    assert_eq!(a.text, "I'll add. And echo.");
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
                args: Ok(json!({}))
            },
            RawCall {
                name: "odd".into(),
                args: Err(RawArgs("[1]".into()))
            },
        ]
    );
}

#[test]
fn finish_reasons_map_to_stops() {
    let stop_of = |finish: &str, parts: Value| read_ok(&answer(parts, finish)).stop;
    let text = json!([{"text": "no"}]);
    let call = json!([{"functionCall": {"name": "x", "args": {}}}]);
    assert_eq!(stop_of("STOP", text.clone()), Stop::EndTurn);
    assert_eq!(stop_of("STOP", call.clone()), Stop::ToolUse);
    assert_eq!(stop_of("MAX_TOKENS", call), Stop::MaxTokens);
    assert_eq!(stop_of("MAX_TOKENS", text.clone()), Stop::MaxTokens);
    for blocked in ["SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII"] {
        assert_eq!(stop_of(blocked, json!([])), Stop::Refusal, "{blocked}");
    }
    for other in ["RECITATION", "MALFORMED_FUNCTION_CALL", "OTHER", "LANGUAGE"] {
        assert_eq!(stop_of(other, json!([])), Stop::Other(other.into()));
    }
    // A candidate without content (SAFETY leaves none) reads as no calls and no text.
    let v = json!({"candidates": [{"finishReason": "SAFETY", "index": 0}]});
    let a = read_ok(&v);
    assert_eq!(
        (a.stop, a.calls.len(), a.text.as_str()),
        (Stop::Refusal, 0, "")
    );
    assert_eq!(a.usage, None);
    let v = json!({"candidates": [{"content": {"parts": [{"text": "hi"}]}}]});
    assert_eq!(read_ok(&v).stop, Stop::EndTurn);
}

#[test]
fn a_blocked_prompt_is_a_refusal_that_names_the_reason() {
    let v = json!({
        "promptFeedback": {"blockReason": "SAFETY", "safetyRatings": []},
        "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}
    });
    let a = read_ok(&v);
    assert_eq!(a.stop, Stop::Refusal);
    assert_eq!(a.text, "the prompt was blocked (SAFETY)");
    assert!(a.calls.is_empty());
    assert_eq!(
        a.usage,
        Some(Usage {
            input: 9,
            ..Usage::default()
        })
    );
}

#[test]
fn usage_takes_cached_tokens_out_of_the_prompt_and_counts_thinking_as_output() {
    let mut v = answer(json!([{"text": "hi"}]), "STOP");
    v["usageMetadata"] = json!({
        "promptTokenCount": 1200, "cachedContentTokenCount": 1000, "candidatesTokenCount": 20,
        "thoughtsTokenCount": 30, "toolUsePromptTokenCount": 5, "totalTokenCount": 1255
    });
    assert_eq!(
        read_ok(&v).usage,
        Some(Usage {
            input: 205,
            output: 50,
            cache_write: 0,
            cache_read: 1000
        })
    );
    // Zero counts are left out of Google's JSON.
    v["usageMetadata"] = json!({"promptTokenCount": 7, "totalTokenCount": 7});
    assert_eq!(
        read_ok(&v).usage,
        Some(Usage {
            input: 7,
            ..Usage::default()
        })
    );
    v.as_object_mut().map(|o| o.remove("usageMetadata"));
    assert_eq!(read_ok(&v).usage, None);
    v["usageMetadata"] = json!({"promptTokenCount": u64::MAX, "candidatesTokenCount": 1});
    let a = read_ok(&v);
    assert_eq!(a.usage, None);
    assert!(a.usage_unbelievable);
}

#[test]
fn wrong_shapes_and_errors_in_googles_shape() {
    assert_eq!(read(&json!({"candidates": []})), Err(ShapeError::NoContent));
    let err = json!({"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED",
    "details": [
        {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "36s"}
    ]}});
    assert_eq!(
        read(&err),
        Err(ShapeError::ErrorObject(
            "Resource has been exhausted (e.g. check quota).".into()
        ))
    );
    assert_eq!(
        describe_error(429, &err).as_deref(),
        Some("429 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).")
    );
    assert_eq!(retry_delay(&err), Some(Duration::from_secs(36)));
    let half = json!({"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.5s"}]}});
    assert_eq!(retry_delay(&half), Some(Duration::from_millis(500)));
    for bad in ["soon", "-1s", "NaNs", ""] {
        let v = json!({"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": bad}]}});
        assert_eq!(retry_delay(&v), None, "{bad}");
    }
    assert_eq!(retry_delay(&json!({"error": {"message": "x"}})), None);
    let bad_key = json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}});
    assert_eq!(
        describe_error(400, &bad_key).as_deref(),
        Some("400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key.")
    );
    assert_eq!(describe_error(500, &json!({"detail": "x"})), None);
    assert_eq!(key_hint(&bad_key), None);
    let bad_key = json!({"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}});
    assert!(key_hint(&bad_key).is_some_and(|h| h.contains("GEMINI_API_KEY")));
}

#[test]
fn the_key_comes_from_google_api_key_first_then_gemini_api_key() {
    let c = credentials(env(&[("GEMINI_API_KEY", "gem"), ("GOOGLE_API_KEY", "goo")]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.key, "goo");
    assert_eq!(c.base, DEFAULT_BASE);
    let c = credentials(env(&[("GEMINI_API_KEY", "gem"), ("GOOGLE_API_KEY", "")]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.key, "gem");
    let c = credentials(env(&[
        ("GEMINI_API_KEY", "gem"),
        ("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9/"),
    ]))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.base, "http://127.0.0.1:9");
    assert!(!format!("{c:?}").contains("gem\""), "{c:?}");
    let err = credentials(env(&[])).unwrap_err();
    assert!(err.is_fatal());
    assert!(err.message().contains("GEMINI_API_KEY"), "{err}");
    assert!(
        err.hint()
            .is_some_and(|h| h.starts_with("export GEMINI_API_KEY="))
    );
}

#[test]
fn the_endpoint_is_the_generate_content_method_of_the_model() {
    assert_eq!(
        endpoint(DEFAULT_BASE, "gemini-2.5-flash"),
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    );
    assert_eq!(
        endpoint("http://127.0.0.1:9/", "models/gemini-2.5-pro"),
        "http://127.0.0.1:9/v1beta/models/gemini-2.5-pro:generateContent"
    );
}

#[test]
fn prices_are_dated_and_each_model_is_listed_once() {
    let mut names: Vec<&str> = PRICES.iter().map(|(n, _)| *n).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), PRICES.len());
    for (name, p) in PRICES {
        assert!(name.starts_with("gemini-"), "{name}");
        assert!(p.cache_read <= p.input && p.input < p.output, "{name}");
    }
}
