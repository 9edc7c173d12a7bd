//! AWS Signature Version 4 for one request: the canonical request, the string to sign, the
//! signing key and the `authorization` header, on `sha2` with HMAC-SHA256 (RFC 2104) written
//! out here (a dozen lines, checked against RFC 4231).
//!
//! The steps are AWS's "Create a signed AWS API request"
//! (<https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html>): the path is
//! normalised (no empty, `.` or `..` segments) and URI-encoded once more than it is sent (every
//! service but S3 encodes it twice; the path given here is the one sent on the wire, already
//! encoded once), the query sorted by encoded name then value, the headers lowercased, trimmed,
//! their inner spaces collapsed and sorted, and the last line is the SHA-256 of the body. The
//! tests run the AWS Signature Version 4 test suite (`tests/fixtures/sigv4.json`).

use sha2::{Digest, Sha256};

/// The algorithm name, first in the header and in the string to sign.
const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// Long-term or temporary AWS credentials. Never shown by `Debug`.
#[derive(Clone)]
pub(crate) struct Credentials {
    /// `AWS_ACCESS_KEY_ID` (not a secret: it names the key in every request).
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: String,
    /// `AWS_SESSION_TOKEN`, sent as `x-amz-security-token` and signed.
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

/// What a request is signed for: the credentials, the region and the service (`bedrock`).
#[derive(Debug, Clone)]
pub(crate) struct Scope<'a> {
    /// Who signs.
    pub credentials: &'a Credentials,
    /// `us-east-1`.
    pub region: &'a str,
    /// The signing name of the service (`bedrock` for the Bedrock runtime).
    pub service: &'a str,
}

/// One request to sign: the method, the path as sent (percent-encoded once), the raw query
/// (without `?`), every header to sign (`host` among them) and the body.
#[derive(Debug, Clone)]
pub(crate) struct Unsigned<'a> {
    /// `POST`.
    pub method: &'a str,
    /// `/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse`.
    pub path: &'a str,
    /// `a=1&b=2`, or empty.
    pub query: &'a str,
    /// Header names and values, as sent.
    pub headers: &'a [(String, String)],
    /// The body bytes, as sent.
    pub body: &'a [u8],
}

/// The steps of one signature, for the tests and for the `authorization` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signature {
    /// The canonical request.
    pub canonical_request: String,
    /// The string to sign.
    pub string_to_sign: String,
    /// The `authorization` header value.
    pub authorization: String,
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The hex SHA-256 of `bytes` (the payload hash, `x-amz-content-sha256`).
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// HMAC-SHA256 (RFC 2104): `H((K ^ opad) || H((K ^ ipad) || m))`, the key hashed first when
/// longer than the 64-byte block.
pub(crate) fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    if key.len() > BLOCK {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| k.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// Signs `req` at `amz_date` (`20150830T123600Z`, which must also be among its headers as
/// `x-amz-date`).
pub(crate) fn sign(scope: &Scope, req: &Unsigned, amz_date: &str) -> Signature {
    let (canonical_request, signed_headers) = canonical_request(req);
    let date = amz_date.get(..8).unwrap_or(amz_date);
    let credential_scope = format!("{date}/{}/{}/aws4_request", scope.region, scope.service);
    let string_to_sign = format!(
        "{ALGORITHM}\n{amz_date}\n{credential_scope}\n{}",
        sha256_hex(canonical_request.as_bytes())
    );
    let secret = format!("AWS4{}", scope.credentials.secret_access_key);
    let mut key = hmac_sha256(secret.as_bytes(), date.as_bytes());
    for part in [scope.region, scope.service, "aws4_request"] {
        key = hmac_sha256(&key, part.as_bytes());
    }
    let signature = hex(&hmac_sha256(&key, string_to_sign.as_bytes()));
    let authorization = format!(
        "{ALGORITHM} Credential={}/{credential_scope}, SignedHeaders={signed_headers}, Signature={signature}",
        scope.credentials.access_key_id
    );
    Signature {
        canonical_request,
        string_to_sign,
        authorization,
    }
}

/// The headers that sign a request to `url` at `now`: `host` (set explicitly, so that the
/// value signed is the value sent), `x-amz-date`, `x-amz-content-sha256` (the payload hash),
/// `x-amz-security-token` with temporary credentials, and `authorization`.
pub(crate) fn request_headers(
    scope: &Scope,
    method: &str,
    url: &str,
    body: &[u8],
    now: std::time::SystemTime,
) -> Vec<(String, String)> {
    let (host, path, query) = split_url(url);
    let amz_date = chrono::DateTime::<chrono::Utc>::from(now)
        .format("%Y%m%dT%H%M%SZ")
        .to_string();
    let mut headers = vec![
        ("host".to_owned(), host),
        ("x-amz-date".to_owned(), amz_date.clone()),
        ("x-amz-content-sha256".to_owned(), sha256_hex(body)),
    ];
    if let Some(token) = &scope.credentials.session_token {
        headers.push(("x-amz-security-token".to_owned(), token.clone()));
    }
    let unsigned = Unsigned {
        method,
        path,
        query,
        headers: &headers,
        body,
    };
    let signed = sign(scope, &unsigned, &amz_date);
    headers.push(("authorization".to_owned(), signed.authorization));
    headers
}

/// The `host` header value (with the port when it is not the scheme's default), the path and
/// the query of `url`.
fn split_url(url: &str) -> (String, &str, &str) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
    let (authority, target) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, "/"),
    };
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let default_port = if scheme.eq_ignore_ascii_case("http") {
        ":80"
    } else {
        ":443"
    };
    let host = authority
        .strip_suffix(default_port)
        .unwrap_or(authority)
        .to_ascii_lowercase();
    let target = target.split('#').next().unwrap_or(target);
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    (host, path, query)
}

/// The canonical request and the signed header list (`host;x-amz-date`).
fn canonical_request(req: &Unsigned) -> (String, String) {
    let mut headers: Vec<(String, String)> = Vec::new();
    for (name, value) in req.headers {
        let name = name.trim().to_ascii_lowercase();
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        match headers.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => {
                v.push(',');
                v.push_str(&value);
            }
            None => headers.push((name, value)),
        }
    }
    headers.sort_by(|a, b| a.0.cmp(&b.0));
    let canonical_headers: String = headers.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
    let signed: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
    let signed = signed.join(";");
    let text = format!(
        "{}\n{}\n{}\n{canonical_headers}\n{signed}\n{}",
        req.method,
        canonical_uri(req.path),
        canonical_query(req.query),
        sha256_hex(req.body)
    );
    (text, signed)
}

/// The path normalised (empty, `.` and `..` segments resolved, a trailing `/` kept) and each
/// segment URI-encoded.
pub(crate) fn canonical_uri(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    let trailing = path.len() > 1 && path.ends_with('/') && !segments.is_empty();
    let mut out = String::from("/");
    out.push_str(
        &segments
            .iter()
            .map(|s| uri_encode(s.as_bytes()))
            .collect::<Vec<_>>()
            .join("/"),
    );
    if trailing {
        out.push('/');
    }
    out
}

/// The query's pairs, each name and value decoded then encoded, sorted.
fn canonical_query(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (
                uri_encode(&percent_decode(k)),
                uri_encode(&percent_decode(v)),
            )
        })
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) as `%XY`, uppercase hex.
pub(crate) fn uri_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // RFC 4231, test cases 1, 2 and 6 (a key longer than the block).
        let cases: [(&[u8], &[u8], &str); 3] = [
            (
                &[0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
        ];
        for (key, message, want) in cases {
            assert_eq!(hex(&hmac_sha256(key, message)), want);
        }
    }

    /// One case of the AWS Signature Version 4 test suite, as `tests/fixtures/sigv4.json` holds it.
    struct Case {
        name: String,
        context: serde_json::Value,
        request: String,
        canonical_request: String,
        string_to_sign: String,
        signed_request: String,
    }

    fn cases() -> Vec<Case> {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sigv4.json");
        let text = std::fs::read_to_string(&path).expect("tests/fixtures/sigv4.json");
        let suite: serde_json::Value = serde_json::from_str(&text).expect("sigv4.json");
        let cases = suite["cases"].as_object().expect("cases");
        cases
            .iter()
            .map(|(name, files)| {
                let read = |f: &str| {
                    files[f]
                        .as_str()
                        .unwrap_or_else(|| panic!("{name}/{f} is missing"))
                        .to_owned()
                };
                Case {
                    context: serde_json::from_str(&read("context.json")).expect("context.json"),
                    request: read("request.txt"),
                    canonical_request: read("header-canonical-request.txt"),
                    string_to_sign: read("header-string-to-sign.txt"),
                    signed_request: read("header-signed-request.txt"),
                    name: name.clone(),
                }
            })
            .collect()
    }

    /// `METHOD PATH?QUERY HTTP/1.1`, `Name:value` lines, a blank line and the body.
    fn parse(request: &str) -> (String, String, String, Vec<(String, String)>, String) {
        let (head, body) = request.split_once("\n\n").unwrap_or((request, ""));
        let mut lines = head.lines();
        let start = lines.next().unwrap_or_default();
        let method = start.split(' ').next().unwrap_or_default().to_owned();
        let target = start
            .strip_prefix(&format!("{method} "))
            .and_then(|t| t.strip_suffix(" HTTP/1.1"))
            .unwrap_or_default();
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect();
        (
            method,
            path.to_owned(),
            query.to_owned(),
            headers,
            body.to_owned(),
        )
    }

    #[test]
    fn the_aws_signature_v4_test_suite_passes() {
        let cases = cases();
        assert!(cases.len() >= 14, "{} cases", cases.len());
        for case in cases {
            let c = &case.context;
            let text = |p: &str| c.pointer(p).and_then(|v| v.as_str()).map(str::to_owned);
            let credentials = Credentials {
                access_key_id: text("/credentials/access_key_id").unwrap_or_default(),
                secret_access_key: text("/credentials/secret_access_key").unwrap_or_default(),
                session_token: text("/credentials/token"),
            };
            let (method, path, query, mut headers, body) = parse(&case.request);
            // The suite's path is what the canonical URI encodes: for Bedrock, the path as
            // sent (so encoded twice in all).
            let amz_date = "20150830T123600Z";
            headers.push(("X-Amz-Date".into(), amz_date.into()));
            if c["sign_body"] == true {
                headers.push(("x-amz-content-sha256".into(), sha256_hex(body.as_bytes())));
            }
            if let Some(token) = &credentials.session_token
                && c["omit_session_token"] != true
            {
                headers.push(("X-Amz-Security-Token".into(), token.clone()));
            }
            let scope = Scope {
                credentials: &credentials,
                region: "us-east-1",
                service: "service",
            };
            let unsigned = Unsigned {
                method: &method,
                path: &path,
                query: &query,
                headers: &headers,
                body: body.as_bytes(),
            };
            let signed = sign(&scope, &unsigned, amz_date);
            let name = &case.name;
            assert_eq!(
                signed.canonical_request,
                case.canonical_request.trim_end(),
                "{name}"
            );
            assert_eq!(
                signed.string_to_sign,
                case.string_to_sign.trim_end(),
                "{name}"
            );
            let want = case
                .signed_request
                .lines()
                .find_map(|l| l.strip_prefix("Authorization:"))
                .unwrap_or_default();
            assert_eq!(signed.authorization, want, "{name}");
        }
    }

    #[test]
    fn a_model_id_with_a_colon_is_encoded_twice_in_the_canonical_uri() {
        let sent = format!(
            "/model/{}/converse",
            uri_encode(b"anthropic.claude-3-haiku-20240307-v1:0")
        );
        assert_eq!(
            sent,
            "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse"
        );
        assert_eq!(
            canonical_uri(&sent),
            "/model/anthropic.claude-3-haiku-20240307-v1%253A0/converse"
        );
    }

    #[test]
    fn request_headers_sign_host_date_payload_hash_and_token() {
        let credentials = Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: Some("tok".into()),
        };
        let scope = Scope {
            credentials: &credentials,
            region: "us-east-1",
            service: "bedrock",
        };
        // 2015-08-30T12:36:00Z.
        let now = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_440_938_160);
        let url = "http://127.0.0.1:8080/model/amazon.nova-pro-v1%3A0/converse";
        let headers = request_headers(&scope, "POST", url, b"{}", now);
        let get = |n: &str| {
            headers
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.as_str())
                .unwrap_or_default()
        };
        assert_eq!(get("host"), "127.0.0.1:8080");
        assert_eq!(get("x-amz-date"), "20150830T123600Z");
        assert_eq!(get("x-amz-content-sha256"), sha256_hex(b"{}"));
        assert_eq!(get("x-amz-security-token"), "tok");
        assert!(
            get("authorization").starts_with(
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request, \
                 SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="
            ),
            "{}",
            get("authorization")
        );
        // The same request signed by hand gives the same header.
        let by_hand = sign(
            &scope,
            &Unsigned {
                method: "POST",
                path: "/model/amazon.nova-pro-v1%3A0/converse",
                query: "",
                headers: &headers[..4],
                body: b"{}",
            },
            "20150830T123600Z",
        );
        assert_eq!(get("authorization"), by_hand.authorization);
        assert!(
            by_hand
                .canonical_request
                .contains("/model/amazon.nova-pro-v1%253A0/converse")
        );
        // Default ports are not part of the host; https is the default scheme's port 443.
        assert_eq!(split_url("https://h.example:443/a?b=1").0, "h.example");
        assert_eq!(split_url("http://h.example:80").1, "/");
        assert_eq!(split_url("https://H.example/p?q=1#f").2, "q=1");
    }

    #[test]
    fn debug_hides_the_secret_and_the_token() {
        let c = Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "very-secret-key".into(),
            session_token: Some("very-secret-token".into()),
        };
        let shown = format!("{c:?}");
        assert!(
            shown.contains("AKIDEXAMPLE") && !shown.contains("very-secret"),
            "{shown}"
        );
    }
}
