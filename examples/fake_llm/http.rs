//! A minimal HTTP/1.1 server on `std::net`: one thread per connection, keep-alive,
//! `Content-Length` or chunked request bodies, `Content-Length` answers.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};

/// Longest request line or header line.
const MAX_LINE: u64 = 16 * 1024;
/// Largest request body.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One parsed request.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// (lowercase name, value), in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
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

/// What to do with one request.
pub enum Action {
    /// Answer and keep going.
    Answer {
        status: u16,
        headers: Vec<(String, String)>,
        content_type: String,
        body: String,
    },
    /// Close the connection without a word.
    Drop,
}

/// Serves one connection until the client closes it, a request is malformed, or an answer says
/// to drop it.
pub fn serve(stream: TcpStream, handle: &(dyn Fn(&Request) -> Action + Sync)) {
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let req = match read_request(&mut reader) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(Some((status, why))) => {
                let _ = write(&mut out, status, &[], "text/plain", &why, false);
                return;
            }
            Err(None) => return,
        };
        match handle(&req) {
            Action::Drop => {
                let _ = out.shutdown(Shutdown::Both);
                return;
            }
            Action::Answer {
                status,
                headers,
                content_type,
                body,
            } => {
                if write(
                    &mut out,
                    status,
                    &headers,
                    &content_type,
                    &body,
                    req.keep_alive,
                )
                .is_err()
                    || !req.keep_alive
                {
                    return;
                }
            }
        }
    }
}

type ReadError = Option<(u16, String)>;

fn read_line(r: &mut impl BufRead) -> Result<Option<String>, ReadError> {
    let mut buf = Vec::new();
    let n = r
        .by_ref()
        .take(MAX_LINE)
        .read_until(b'\n', &mut buf)
        .map_err(|_| None)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') {
        return Err(Some((431, "header line too long or cut short".into())));
    }
    let line = String::from_utf8(buf).map_err(|_| Some((400, "header is not UTF-8".into())))?;
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_owned()))
}

/// Reads one request; `Ok(None)` when the client closed the connection between requests.
fn read_request(r: &mut impl BufRead) -> Result<Option<Request>, ReadError> {
    let mut start = String::new();
    while start.is_empty() {
        match read_line(r)? {
            Some(line) => start = line,
            None => return Ok(None),
        }
    }
    let mut parts = start.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(Some((400, format!("malformed request line `{start}`"))));
    };
    let mut headers = Vec::new();
    loop {
        let line = read_line(r)?.ok_or(None)?;
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| Some((400, format!("malformed header `{line}`"))))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut req = Request {
        method: method.to_owned(),
        path: target.split('?').next().unwrap_or("").to_owned(),
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
            .map_err(|_| Some((400, format!("bad Content-Length `{len}`"))))?;
        if len > MAX_BODY {
            return Err(Some((413, format!("body of {len} bytes is too large"))));
        }
        req.body = vec![0; len];
        r.read_exact(&mut req.body).map_err(|_| None)?;
    }
    Ok(Some(req))
}

fn read_chunked(r: &mut impl BufRead) -> Result<Vec<u8>, ReadError> {
    let mut body = Vec::new();
    loop {
        let line = read_line(r)?.ok_or(None)?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| Some((400, format!("bad chunk size `{line}`"))))?;
        if size == 0 {
            while !read_line(r)?.ok_or(None)?.is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(Some((413, "chunked body is too large".into())));
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..]).map_err(|_| None)?;
        let mut crlf = [0u8; 2];
        r.read_exact(&mut crlf).map_err(|_| None)?;
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Site Overloaded",
        _ => "Unknown",
    }
}

fn write(
    w: &mut impl Write,
    status: u16,
    extra: &[(String, String)],
    content_type: &str,
    body: &str,
    keep_alive: bool,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\n",
        reason(status)
    );
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let connection = if keep_alive { "keep-alive" } else { "close" };
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: {connection}\r\n\r\n",
        body.len()
    ));
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    w.write_all(&bytes)?;
    w.flush()
}
