//! API tool list (stub until the providers land).
#![allow(missing_docs, dead_code)]
use std::collections::HashMap;

use super::ApiTool;
use crate::mcp::types::Tool;

pub struct ApiTools {
    pub tools: Vec<ApiTool>,
    pub back: HashMap<String, String>,
    pub left_out: Vec<String>,
}
impl ApiTools {
    pub fn map_back(&self, api_name: &str) -> String {
        self.back
            .get(api_name)
            .cloned()
            .unwrap_or_else(|| api_name.to_owned())
    }
}
pub fn api_tools(_tools: &[Tool]) -> ApiTools {
    ApiTools {
        tools: Vec::new(),
        back: HashMap::new(),
        left_out: Vec::new(),
    }
}
