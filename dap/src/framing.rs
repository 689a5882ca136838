//! DAP framing: `Content-Length: N\r\n\r\n` followed by N bytes of UTF-8
//! JSON. Reading is forgiving: other headers are ignored, a frame whose
//! header or body is bad is reported as an error and the stream goes on at
//! the next frame.

use std::io::{self, BufRead, Write};

/// The largest body accepted (a DAP message is a few kilobytes; this only
/// guards against a garbage length).
pub const MAX_BODY: usize = 64 << 20;

/// A frame that could not be read as a JSON message; the stream is still usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The header block had no (valid) `Content-Length`.
    Header(String),
    /// The body is not UTF-8 JSON.
    Body(String),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Header(m) => write!(f, "bad frame header: {m}"),
            FrameError::Body(m) => write!(f, "malformed JSON body: {m}"),
        }
    }
}

/// Reads one frame. `Ok(None)`: the stream ended. `Ok(Some(Err(_)))`: a bad
/// frame was skipped. `Err(_)`: the stream itself failed.
pub fn read_frame(
    r: &mut impl BufRead,
) -> io::Result<Option<Result<serde_json::Value, FrameError>>> {
    let mut length: Option<Result<usize, FrameError>> = None;
    let mut line = Vec::new();
    let mut any_header = false;
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if any_header {
                break;
            }
            continue; // stray blank lines between frames
        }
        any_header = true;
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(value.trim().parse::<usize>().map_err(|e| {
                    FrameError::Header(format!("Content-Length {:?}: {e}", value.trim()))
                }));
            }
        } else {
            length.get_or_insert(Err(FrameError::Header(format!(
                "not a header line: {text:?}"
            ))));
        }
    }
    let n = match length {
        None => return Ok(Some(Err(FrameError::Header("no Content-Length".into())))),
        Some(Err(e)) => return Ok(Some(Err(e))),
        Some(Ok(n)) if n > MAX_BODY => {
            return Ok(Some(Err(FrameError::Header(format!(
                "Content-Length {n} is larger than {MAX_BODY}"
            )))))
        }
        Some(Ok(n)) => n,
    };
    let mut body = vec![0; n];
    r.read_exact(&mut body)?;
    let text = match String::from_utf8(body) {
        Ok(t) => t,
        Err(e) => return Ok(Some(Err(FrameError::Body(e.to_string())))),
    };
    Ok(Some(
        serde_json::from_str(&text).map_err(|e| FrameError::Body(e.to_string())),
    ))
}

/// Writes one frame.
pub fn write_frame(w: &mut impl Write, body: &serde_json::Value) -> io::Result<()> {
    let text = body.to_string();
    write!(w, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn frames(input: &str) -> Vec<Result<serde_json::Value, FrameError>> {
        let mut r = io::BufReader::new(input.as_bytes());
        let mut out = Vec::new();
        while let Some(f) = read_frame(&mut r).unwrap() {
            out.push(f);
        }
        out
    }

    #[test]
    fn reads_frames_and_survives_bad_ones() {
        let good = r#"{"a":1}"#;
        let input = format!(
            "Content-Length: {}\r\n\r\n{good}\
             Content-Length: 5\r\n\r\n{{nope\
             Content-Type: x\r\n\r\n\
             content-length: {}\r\nContent-Type: application/json\r\n\r\n{good}\
             Content-Length: abc\r\n\r\n",
            good.len(),
            good.len()
        );
        let f = frames(&input);
        assert_eq!(f.len(), 5, "{f:?}");
        assert_eq!(f[0], Ok(json!({"a": 1})));
        assert!(matches!(f[1], Err(FrameError::Body(_))));
        assert!(matches!(f[2], Err(FrameError::Header(_))));
        assert_eq!(f[3], Ok(json!({"a": 1})));
        assert!(matches!(f[4], Err(FrameError::Header(_))));
    }

    #[test]
    fn writes_byte_lengths() {
        let mut out = Vec::new();
        write_frame(&mut out, &json!({"s": "é"})).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "Content-Length: 10\r\n\r\n{\"s\":\"é\"}"
        );
    }
}
