//! The wire protocol between the session engine (debugger side) and the agent
//! (inside the debugged program), over a private Unix socket.
//!
//! Framing: one JSON object per line (UTF-8, `\n`-terminated), at most
//! [`MAX_MESSAGE_BYTES`]. Every message has a `"type"` field. Raw GPU buffers
//! travel as base64 of their little-endian bytes. Both sides start with `Hello`
//! and refuse a peer whose [`VERSION`] differs.
//!
//! Pixel coordinates are those of `gl_FragCoord` (origin bottom-left).

use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

/// Bumped whenever a message changes shape.
pub const VERSION: u32 = 2;

/// Environment variable that names the socket the agent connects to.
pub const SOCKET_ENV: &str = "SHADERDBG_SOCKET";

/// Longest accepted line (a 4K watch image of vec4s fits with room to spare).
pub const MAX_MESSAGE_BYTES: usize = 512 << 20;

/// A pipeline stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Vertex,
    TessControl,
    TessEvaluation,
    Geometry,
    Fragment,
    Compute,
}

/// Which invocation to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Selector {
    Fragment {
        x: u32,
        y: u32,
        primitive: Option<u32>,
    },
    Vertex {
        vertex: i32,
        instance: i32,
    },
    Compute {
        id: [u32; 3],
    },
}

/// A breakpoint on a line of a shader's runtime source (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineBreakpoint {
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// One invocation that reached a breakpoint (see the hit-buffer layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    pub line: u32,
    pub occurrence: u32,
    /// Fragment: x, y, primitive, 0. Vertex: vertex, instance, 0, 0. Compute: x, y, z, 0.
    pub key: [u32; 4],
    /// The probe id of the step that hit (a step of the recording;
    /// `occurrence` counts reaches of it). Absent from older agents: the
    /// first step of `line` is meant then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<u32>,
}

/// Which frames stopping is allowed in (frames are numbered from 0; frame N
/// ends at the (N+1)-th swap).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    /// Only invocations at this pixel (fragment) stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel: Option<[u32; 2]>,
    /// Stop at every draw whose fragments cover `pixel`, breakpoints or not.
    #[serde(default)]
    pub pixel_history: bool,
}

/// Why the agent stopped at a draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Invocations reached a breakpoint whose condition held (`Hit::line` is
    /// the breakpoint's runtime line).
    #[default]
    Breakpoint,
    /// Pixel history: the draw's fragments cover the filter's pixel (`line` 0:
    /// the start of `main`).
    PixelHistory,
    /// `ToAgent::Pause` was asked: the first draw after it, every invocation at
    /// the start of `main` (`line` 0), up to the hit buffer's capacity.
    Pause,
    /// Invocations wrote a NaN or an infinity to an output (exception filter
    /// `nan_inf`); `Hit::line` is the line of the writing statement and
    /// `occurrence` counts reaches of that statement, as for breakpoints.
    NanInf,
}

/// Which exceptional events stop the program (DAP exception breakpoints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionFilters {
    /// Stop at a draw where an invocation writes NaN or Inf to an output.
    #[serde(default)]
    pub nan_inf: bool,
    /// Stop in the GL call that raised a GL error (`FromAgent::GlError`).
    #[serde(default)]
    pub gl_error: bool,
}

/// When to take a screenshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum ScreenshotAt {
    /// While stopped: the framebuffer the stopped draw renders to, as it is
    /// before the draw (colour attachment 0, or the back buffer).
    Now,
    /// At the swap that ends frame `frame` (the next swap when `None`); the
    /// back buffer just before the swap.
    FrameEnd {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frame: Option<u64>,
    },
}

/// Bytes that travel as base64.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Blob(#[serde(with = "base64_bytes")] pub Vec<u8>);

impl Blob {
    /// The blob as little-endian 32-bit words (a trailing partial word is dropped).
    pub fn words(&self) -> Vec<u32> {
        self.0
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    pub fn from_words(words: &[u32]) -> Blob {
        Blob(words.iter().flat_map(|w| w.to_le_bytes()).collect())
    }
}

mod base64_bytes {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

/// Messages the agent sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromAgent {
    Hello {
        version: u32,
        pid: u32,
        exe: String,
    },
    /// A shader was compiled (successfully or not), with its runtime source strings.
    ShaderCompiled {
        context: u64,
        shader: u32,
        stage: Stage,
        sources: Vec<String>,
        compiled: bool,
        info_log: String,
    },
    ProgramLinked {
        context: u64,
        program: u32,
        shaders: Vec<u32>,
        linked: bool,
    },
    /// Whether each breakpoint of a shader could be placed, and where.
    BreakpointStatus {
        shader: u32,
        requested_line: u32,
        /// The line it binds to (the next executable line), if it could be placed.
        line: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The application thread is blocked inside a draw until `Resume`.
    Stopped {
        context: u64,
        frame: u64,
        /// Draw number within the frame, from 0.
        draw: u64,
        program: u32,
        shader: u32,
        /// In a deterministic order: primitive, then y, then x.
        hits: Vec<Hit>,
        /// More hits than the buffer held.
        truncated: bool,
        #[serde(default)]
        reason: StopReason,
    },
    /// The application thread is blocked inside the GL call `call` that raised
    /// `error` (exception filter `gl_error`) until `Resume`; the application
    /// still gets the error from its own `glGetError`.
    GlError {
        context: u64,
        frame: u64,
        /// Draws so far in the frame.
        draw: u64,
        call: String,
        error: u32,
    },
    /// A recording of one invocation: the raw step log (decode it with the probe
    /// table of the shader's sources).
    Recorded {
        request: u64,
        shader: u32,
        selector: Selector,
        log: Blob,
    },
    /// One value per pixel for a watch expression (the watch-buffer layout).
    WatchImage {
        request: u64,
        width: u32,
        height: u32,
        value_words: u32,
        data: Blob,
    },
    /// The image as RGBA8, bottom row first (`frame`: the frame it belongs to).
    Screenshot {
        request: u64,
        frame: u64,
        width: u32,
        height: u32,
        rgba: Blob,
    },
    FrameEnd {
        context: u64,
        frame: u64,
    },
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<u64>,
        message: String,
    },
}

/// Messages the debugger sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToAgent {
    Hello {
        version: u32,
    },
    /// Replaces the breakpoints of one shader (by its GL name).
    SetBreakpoints {
        shader: u32,
        breakpoints: Vec<LineBreakpoint>,
    },
    SetStopFilter(StopFilter),
    SetExceptionFilters(ExceptionFilters),
    /// Stop at the next draw that has a debuggable shader (`StopReason::Pause`).
    Pause,
    /// While stopped: record the selected invocation of the current draw.
    Record {
        request: u64,
        selector: Selector,
    },
    /// While stopped: the value of `expr` at `line` for every fragment of the draw.
    Watch {
        request: u64,
        line: u32,
        expr: String,
    },
    /// A screenshot (answered by `FromAgent::Screenshot`, or `Error` with the
    /// request when it cannot be taken, e.g. `Now` while not stopped).
    Screenshot {
        request: u64,
        #[serde(flatten)]
        at: ScreenshotAt,
    },
    /// Leave the current stop (run the original draw and go on).
    Resume,
    /// Remove every breakpoint and let the program run on unobserved.
    Detach,
}

#[derive(Debug, thiserror::Error)]
pub enum ProtocolError {
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("malformed message: {0}")]
    Malformed(#[from] serde_json::Error),
    #[error("message longer than {MAX_MESSAGE_BYTES} bytes")]
    TooLong,
    #[error("peer speaks protocol version {0}, we speak {VERSION}")]
    Version(u32),
}

/// Writes one message as a line and flushes.
pub fn write_message<W: Write, T: Serialize>(w: &mut W, msg: &T) -> Result<(), ProtocolError> {
    let mut line = serde_json::to_vec(msg)?;
    line.push(b'\n');
    w.write_all(&line)?;
    w.flush()?;
    Ok(())
}

/// Reads one message; `Ok(None)` at end of stream. A malformed line is an error
/// but leaves the stream at the next line, so a reader may go on.
pub fn read_message<R: BufRead, T: for<'de> Deserialize<'de>>(
    r: &mut R,
) -> Result<Option<T>, ProtocolError> {
    let mut line = Vec::new();
    let n =
        std::io::Read::take(&mut *r, MAX_MESSAGE_BYTES as u64 + 1).read_until(b'\n', &mut line)?;
    if n == 0 {
        return Ok(None);
    }
    if line.len() > MAX_MESSAGE_BYTES {
        return Err(ProtocolError::TooLong);
    }
    Ok(Some(serde_json::from_slice(&line)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_as_single_lines() {
        let msgs = vec![
            FromAgent::Hello {
                version: VERSION,
                pid: 42,
                exe: "/usr/bin/glmark2".into(),
            },
            FromAgent::ShaderCompiled {
                context: 1,
                shader: 3,
                stage: Stage::Fragment,
                sources: vec!["#version 100\n".into(), "void main() {}\n".into()],
                compiled: true,
                info_log: String::new(),
            },
            FromAgent::Recorded {
                request: 7,
                shader: 3,
                selector: Selector::Fragment {
                    x: 1,
                    y: 2,
                    primitive: None,
                },
                log: Blob::from_words(&[1, 2, 0xdead_beef]),
            },
        ];
        let mut buf = Vec::new();
        for m in &msgs {
            write_message(&mut buf, m).unwrap();
        }
        assert_eq!(buf.iter().filter(|b| **b == b'\n').count(), msgs.len());
        let mut r = std::io::Cursor::new(buf);
        for m in &msgs {
            let got: FromAgent = read_message(&mut r).unwrap().unwrap();
            assert_eq!(&got, m);
        }
        assert!(read_message::<_, FromAgent>(&mut r).unwrap().is_none());
    }

    #[test]
    fn wire_format_is_stable() {
        let mut buf = Vec::new();
        write_message(
            &mut buf,
            &ToAgent::SetBreakpoints {
                shader: 4,
                breakpoints: vec![LineBreakpoint {
                    line: 12,
                    condition: Some("x > 1.0".into()),
                }],
            },
        )
        .unwrap();
        write_message(
            &mut buf,
            &ToAgent::Record {
                request: 1,
                selector: Selector::Vertex {
                    vertex: 2,
                    instance: 0,
                },
            },
        )
        .unwrap();
        write_message(
            &mut buf,
            &FromAgent::Recorded {
                request: 1,
                shader: 4,
                selector: Selector::Compute { id: [1, 2, 3] },
                log: Blob::from_words(&[1]),
            },
        )
        .unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"type":"set_breakpoints","shader":4,"breakpoints":[{"line":12,"condition":"x > 1.0"}]}"#,
                "\n",
                r#"{"type":"record","request":1,"selector":{"stage":"vertex","vertex":2,"instance":0}}"#,
                "\n",
                r#"{"type":"recorded","request":1,"shader":4,"selector":{"stage":"compute","id":[1,2,3]},"log":"AQAAAA=="}"#,
                "\n",
            )
        );
    }

    #[test]
    fn malformed_lines_are_errors_and_reading_goes_on() {
        let mut r = std::io::Cursor::new(
            b"{\"type\":\"nope\"}\nnot json\n{\"type\":\"resume\"}\n".to_vec(),
        );
        assert!(matches!(
            read_message::<_, ToAgent>(&mut r),
            Err(ProtocolError::Malformed(_))
        ));
        assert!(matches!(
            read_message::<_, ToAgent>(&mut r),
            Err(ProtocolError::Malformed(_))
        ));
        assert_eq!(
            read_message::<_, ToAgent>(&mut r).unwrap(),
            Some(ToAgent::Resume)
        );
    }

    #[test]
    fn version_2_messages_have_a_stable_shape() {
        let cases: Vec<(ToAgent, &str)> = vec![
            (
                ToAgent::Screenshot {
                    request: 3,
                    at: ScreenshotAt::FrameEnd { frame: Some(2) },
                },
                r#"{"type":"screenshot","request":3,"at":"frame_end","frame":2}"#,
            ),
            (
                ToAgent::Screenshot {
                    request: 4,
                    at: ScreenshotAt::Now,
                },
                r#"{"type":"screenshot","request":4,"at":"now"}"#,
            ),
            (
                ToAgent::SetExceptionFilters(ExceptionFilters {
                    nan_inf: true,
                    gl_error: false,
                }),
                r#"{"type":"set_exception_filters","nan_inf":true,"gl_error":false}"#,
            ),
            (ToAgent::Pause, r#"{"type":"pause"}"#),
        ];
        for (msg, text) in cases {
            let mut buf = Vec::new();
            write_message(&mut buf, &msg).unwrap();
            assert_eq!(String::from_utf8(buf).unwrap().trim_end(), text);
            let back: ToAgent = read_message(&mut text.as_bytes()).unwrap().unwrap();
            assert_eq!(back, msg);
        }
        // A version-1 style `stopped` without a reason reads as a breakpoint stop.
        let old = r#"{"type":"stopped","context":1,"frame":0,"draw":0,"program":3,"shader":2,"hits":[],"truncated":false}"#;
        let m: FromAgent = read_message(&mut old.as_bytes()).unwrap().unwrap();
        assert!(matches!(
            m,
            FromAgent::Stopped {
                reason: StopReason::Breakpoint,
                ..
            }
        ));
    }

    #[test]
    fn blobs_are_words() {
        let b = Blob::from_words(&[0x0403_0201, 7]);
        assert_eq!(b.0[..4], [1, 2, 3, 4]);
        assert_eq!(b.words(), vec![0x0403_0201, 7]);
    }
}
