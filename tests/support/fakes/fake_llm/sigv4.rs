//! The fake's own check of an AWS Signature Version 4 `authorization` header, written apart
//! from toolproof's signer so that a wrong signature there fails the tests here: the
//! canonical request is rebuilt from the request as it arrived (the raw path encoded once
//! more, the signed headers' values, the body's SHA-256), signed with the secret the fake was
//! given, and compared.

use sha2::{Digest, Sha256};

/// Why a request's signature was refused: the AWS error type and its message.
pub struct Refused {
    pub kind: &'static str,
    pub message: String,
}

fn refused(kind: &'static str, message: impl Into<String>) -> Refused {
    Refused {
        kind,
        message: message.into(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.iter().map(|b| b ^ 0x36).collect::<Vec<u8>>());
    inner.update(data);
    let mut outer = Sha256::new();
    outer.update(block.iter().map(|b| b ^ 0x5c).collect::<Vec<u8>>());
    outer.update(inner.finalize());
    outer.finalize().to_vec()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Checks the request's signature against `secret` (and its key id against `key_id`, when
/// given). `header` looks a header up by lowercase name.
pub fn check(
    method: &str,
    path: &str,
    query: &str,
    header: &dyn Fn(&str) -> Option<String>,
    body: &[u8],
    key_id: Option<&str>,
    secret: &str,
) -> Result<(), Refused> {
    let Some(auth) = header("authorization") else {
        return Err(refused(
            "MissingAuthenticationTokenException",
            "Missing Authentication Token",
        ));
    };
    let Some(fields) = auth.strip_prefix("AWS4-HMAC-SHA256 ") else {
        return Err(refused(
            "IncompleteSignatureException",
            "Authorization header requires the AWS4-HMAC-SHA256 algorithm",
        ));
    };
    let field = |name: &str| {
        fields
            .split(',')
            .map(str::trim)
            .find_map(|f| f.strip_prefix(name))
            .map(str::to_owned)
    };
    let (Some(credential), Some(signed_headers), Some(signature)) = (
        field("Credential="),
        field("SignedHeaders="),
        field("Signature="),
    ) else {
        return Err(refused(
            "IncompleteSignatureException",
            "Authorization header requires Credential, SignedHeaders and Signature",
        ));
    };
    let parts: Vec<&str> = credential.split('/').collect();
    let [id, date, region, service, "aws4_request"] = parts[..] else {
        return Err(refused(
            "IncompleteSignatureException",
            format!("malformed Credential `{credential}`"),
        ));
    };
    if key_id.is_some_and(|k| k != id) {
        return Err(refused(
            "UnrecognizedClientException",
            "The security token included in the request is invalid.",
        ));
    }
    let Some(amz_date) = header("x-amz-date").filter(|d| d.starts_with(date)) else {
        return Err(refused(
            "IncompleteSignatureException",
            "x-amz-date is missing or does not match the credential scope's date",
        ));
    };
    let payload = hex(&Sha256::digest(body));
    if header("x-amz-content-sha256").is_some_and(|h| h != payload) {
        return Err(refused(
            "InvalidSignatureException",
            "The provided x-amz-content-sha256 header does not match what was computed.",
        ));
    }
    let names: Vec<&str> = signed_headers.split(';').collect();
    for needed in ["host", "x-amz-date"] {
        if !names.contains(&needed) {
            return Err(refused(
                "InvalidSignatureException",
                format!("'{needed}' must be a signed header"),
            ));
        }
    }
    if header("x-amz-security-token").is_some() && !names.contains(&"x-amz-security-token") {
        return Err(refused(
            "InvalidSignatureException",
            "x-amz-security-token is sent but not signed",
        ));
    }
    let mut canonical_headers = String::new();
    for name in &names {
        let value = header(name).unwrap_or_default();
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        canonical_headers.push_str(&format!("{name}:{value}\n"));
    }
    // Every service but S3 encodes the path as sent once more (none of the fake's paths has
    // empty or dot segments to normalise).
    let uri: Vec<String> = path.split('/').map(encode).collect();
    let mut pairs: Vec<&str> = query.split('&').filter(|p| !p.is_empty()).collect();
    pairs.sort_unstable();
    let canonical = format!(
        "{method}\n{}\n{}\n{canonical_headers}\n{signed_headers}\n{payload}",
        uri.join("/"),
        pairs.join("&")
    );
    let scope = format!("{date}/{region}/{service}/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let mut key = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    for part in [region, service, "aws4_request"] {
        key = hmac(&key, part.as_bytes());
    }
    if hex(&hmac(&key, to_sign.as_bytes())) != signature {
        return Err(refused(
            "InvalidSignatureException",
            format!(
                "The request signature we calculated does not match the signature you provided. \
                 Check your AWS Secret Access Key and signing method. The Canonical String for \
                 this request should have been '{canonical}'"
            ),
        ));
    }
    Ok(())
}
