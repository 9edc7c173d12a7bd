//! What the HTTP server checks before it reads a message: the `Origin` header (a foreign one
//! gets 403, the DNS-rebinding protection the specification requires), and the planted GET
//! defect. Each can be turned off with its `protocol-http-*` fault.

use std::io;
use std::net::TcpStream;

use crate::http::write_full;
use crate::http1::Request;
use crate::opts::Options;

/// `Some` when the request was answered here.
pub fn screen(opts: &Options, req: &Request, stream: &mut TcpStream) -> Option<io::Result<bool>> {
    let ka = req.keep_alive;
    if let Some(origin) = req.header("origin")
        && !local(origin)
        && !opts.planted("http-origin")
    {
        let body = format!("Forbidden: origin {origin:?} is not allowed");
        return Some(
            write_full(stream, 403, Some("text/plain"), &[], body.as_bytes(), ka).map(|()| ka),
        );
    }
    if req.method == "GET" && opts.planted("http-get") {
        return Some(
            write_full(stream, 200, Some("application/json"), &[], b"{}", ka).map(|()| ka),
        );
    }
    None
}

/// An origin on this machine: `http(s)://localhost`, `127.x.x.x` or `[::1]`, any port.
fn local(origin: &str) -> bool {
    let host = origin
        .split_once("://")
        .map_or(origin, |(_, rest)| rest)
        .trim_end_matches('/');
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    host == "localhost" || host == "::1" || host.starts_with("127.")
}
