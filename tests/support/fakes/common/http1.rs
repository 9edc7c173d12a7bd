//! A minimal HTTP/1.1 request reader for the test fakes (`fake_mcp`, `fake_llm`, `fake_github`):
//! request line, headers, and a `Content-Length` or chunked body, with limits.

use std::io::{BufRead, Read};

/// Longest request line or header line.
const MAX_LINE: u64 = 16 * 1024;
/// Most header lines in one request.
const MAX_HEADERS: usize = 100;
/// Largest request body.
const MAX_BODY: usize = 64 * 1024 * 1024;
/// One parsed HTTP request.
#[derive(Debug)]
pub struct Request {
    /// `POST`, `DELETE`…
    pub method: String,
    /// Path without the query.
    pub path: String,
    /// The query, without the `?` (empty when there is none).
    #[allow(dead_code, reason = "only some fakes read the query")]
    pub query: String,
    /// Headers as (lowercase name, value), in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// Whether the connection stays open afterwards.
    pub keep_alive: bool,
}

impl Request {
    /// The first header called `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a request could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The socket failed; just close.
    Io,
    /// The request is malformed: answer with this status and reason, then close.
    Bad(u16, String),
}

fn read_line(r: &mut impl BufRead) -> Result<Option<String>, ReadError> {
    let mut buf = Vec::new();
    let n = r
        .by_ref()
        .take(MAX_LINE)
        .read_until(b'\n', &mut buf)
        .map_err(|_| ReadError::Io)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') {
        return Err(ReadError::Bad(
            431,
            "header line too long or cut short".into(),
        ));
    }
    let line = String::from_utf8(buf)
        .map_err(|_| ReadError::Bad(400, "header line is not UTF-8".into()))?;
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_owned()))
}

/// Reads one request; `Ok(None)` when the client closed the connection between requests.
pub fn read_request(r: &mut impl BufRead) -> Result<Option<Request>, ReadError> {
    let mut start = String::new();
    while start.is_empty() {
        match read_line(r)? {
            Some(line) => start = line,
            None => return Ok(None),
        }
    }
    let mut parts = start.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Bad(
            400,
            format!("malformed request line `{start}`"),
        ));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(ReadError::Bad(
            505,
            format!("unsupported version `{version}`"),
        ));
    }
    let mut headers = Vec::new();
    loop {
        let line = read_line(r)?.ok_or(ReadError::Io)?;
        if line.is_empty() {
            break;
        }
        if headers.len() == MAX_HEADERS {
            return Err(ReadError::Bad(431, "too many headers".into()));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| ReadError::Bad(400, format!("malformed header line `{line}`")))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut req = Request {
        method: method.to_owned(),
        path: target.split('?').next().unwrap_or("").to_owned(),
        query: target
            .split_once('?')
            .map(|(_, q)| q.to_owned())
            .unwrap_or_default(),
        headers,
        body: Vec::new(),
        keep_alive: false,
    };
    let connection = req.header("connection").unwrap_or("").to_ascii_lowercase();
    req.keep_alive = if version == "HTTP/1.0" {
        connection.contains("keep-alive")
    } else {
        !connection.contains("close")
    };
    let chunked = req
        .header("transfer-encoding")
        .is_some_and(|te| te.to_ascii_lowercase().contains("chunked"));
    if chunked {
        req.body = read_chunked(r)?;
    } else if let Some(len) = req.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| ReadError::Bad(400, format!("bad Content-Length `{len}`")))?;
        if len > MAX_BODY {
            return Err(ReadError::Bad(
                413,
                format!("body of {len} bytes is too large"),
            ));
        }
        req.body = vec![0; len];
        r.read_exact(&mut req.body).map_err(|_| ReadError::Io)?;
    }
    Ok(Some(req))
}

fn read_chunked(r: &mut impl BufRead) -> Result<Vec<u8>, ReadError> {
    let mut body = Vec::new();
    loop {
        let line = read_line(r)?.ok_or(ReadError::Io)?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| ReadError::Bad(400, format!("bad chunk size `{line}`")))?;
        if size == 0 {
            // Trailers, up to the empty line.
            while !read_line(r)?.ok_or(ReadError::Io)?.is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(ReadError::Bad(413, "chunked body is too large".into()));
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..])
            .map_err(|_| ReadError::Io)?;
        let mut crlf = [0u8; 2];
        r.read_exact(&mut crlf).map_err(|_| ReadError::Io)?;
    }
}

pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn parse(raw: &str) -> Result<Option<Request>, ReadError> {
        read_request(&mut BufReader::new(raw.as_bytes()))
    }

    #[test]
    fn reads_content_length_and_chunked_bodies() {
        let raw =
            "POST /mcp?x=1 HTTP/1.1\r\nContent-Length: 4\r\nMcp-Method: ping\r\n\r\nabcdEXTRA";
        let Ok(Some(req)) = parse(raw) else {
            panic!("not parsed")
        };
        assert_eq!(
            (req.path.as_str(), req.body.as_slice()),
            ("/mcp", &b"abcd"[..])
        );
        assert_eq!(req.header("mcp-method"), Some("ping"));
        assert!(req.keep_alive);
        let raw = "POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
                   3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n";
        let Ok(Some(req)) = parse(raw) else {
            panic!("not parsed")
        };
        assert_eq!(req.body, b"abcde");
        assert!(!req.keep_alive);
    }

    #[test]
    fn refuses_malformed_requests() {
        assert!(matches!(parse(""), Ok(None)));
        assert!(matches!(
            parse("NONSENSE\r\n\r\n"),
            Err(ReadError::Bad(400, _))
        ));
        assert!(matches!(
            parse("POST / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n"),
            Err(ReadError::Bad(413, _))
        ));
        assert!(matches!(
            parse("POST / HTTP/1.1\r\nno colon\r\n\r\n"),
            Err(ReadError::Bad(400, _))
        ));
    }
}
