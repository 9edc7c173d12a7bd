//! Model providers (stub until the providers land).
#![allow(missing_docs, dead_code)]
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use super::{ApiTool, Stop};

pub struct Request<'a> {
    pub model: &'a str,
    pub system: Option<&'a str>,
    pub prompt: &'a str,
    pub tools: &'a [ApiTool],
    pub params: &'a Map<String, Value>,
    pub max_tokens: u32,
}
pub struct Answer {
    pub calls: Vec<RawCall>,
    pub text: String,
    pub stop: Stop,
}
pub struct RawCall {
    pub name: String,
    pub args: Result<Value, String>,
}
#[derive(Debug, Clone)]
pub enum ProviderError {
    Fatal(String),
    Transient(String),
}
pub enum Provider {
    Anthropic,
    OpenAi,
    Command(Vec<String>, PathBuf, Duration),
}
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    pub request_timeout: Duration,
}
pub struct Pacer;
impl Pacer {
    pub fn new(_p: RetryPolicy) -> Pacer {
        Pacer
    }
}
impl Provider {
    pub fn anthropic_from_env() -> Result<Provider, ProviderError> {
        Err(ProviderError::Fatal("stub".into()))
    }
    pub fn openai_from_env() -> Result<Provider, ProviderError> {
        Err(ProviderError::Fatal("stub".into()))
    }
    pub fn command(argv: Vec<String>, cwd: PathBuf, timeout: Duration) -> Provider {
        Provider::Command(argv, cwd, timeout)
    }
    pub fn ask(&self, _req: &Request, _pacer: &Pacer) -> Result<Answer, ProviderError> {
        Err(ProviderError::Fatal("stub".into()))
    }
}
