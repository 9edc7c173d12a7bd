//! JSON Pointer (RFC 6901) reference tokens, the one place they are escaped and decoded: the
//! paths into tool schemas, arguments and answers that checks, fuzzing, the eval cache and the
//! exact-number map name.

/// `segment` as one reference token: `~` as `~0`, then `/` as `~1`.
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// A reference token decoded: `~1` as `/`, then `~0` as `~` (in that order, so `~01` is `~1`).
pub(crate) fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_escape_and_decode_as_rfc_6901_says() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(escape("~1"), "~01");
        assert_eq!(unescape("~01"), "~1");
        assert_eq!(unescape("a~1b~0c"), "a/b~c");
        for s in ["", "plain", "/", "~", "~0", "~1", "//~~", "é/ü~"] {
            assert_eq!(unescape(&escape(s)), s);
        }
        let doc = serde_json::json!({"a/b": {"~k": 1}});
        let at = format!("/{}/{}", escape("a/b"), escape("~k"));
        assert_eq!(doc.pointer(&at), Some(&serde_json::json!(1)));
    }
}
