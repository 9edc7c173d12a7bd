//! A minimal HTTP/1.1 server on `std::net`: one thread per connection, keep-alive,
//! `Content-Length` or chunked request bodies, `Content-Length` answers.

pub use crate::http1::Request;
use crate::http1::{ReadError, read_request, reason};
use std::io::{self, BufReader, Write};
use std::net::{Shutdown, TcpStream};

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
            Err(ReadError::Bad(status, why)) => {
                let _ = write(&mut out, status, &[], "text/plain", &why, false);
                return;
            }
            Err(ReadError::Io) => return,
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
