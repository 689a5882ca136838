//! The wire protocol between the session engine (debugger side) and the agent
//! (inside the debugged program), over a private Unix socket.
//!
//! Framing: one JSON object per line (UTF-8, `\n`-terminated), at most
//! [`MAX_MESSAGE_BYTES`]. Every message has a `"type"` field. Raw GPU buffers
//! travel as base64 of their little-endian bytes. Both sides start with `Hello`
//! and refuse a peer whose [`VERSION`] differs.
//!
//! Pixel coordinates are those of `gl_FragCoord` as the shader sees it:
//! origin bottom-left in OpenGL, top-left in Vulkan (y down). A stop's pixel,
//! the stop filter's pixel and a record selector's pixel are all in the
//! stopped API's convention; images that could be either say which
//! ([`Origin`]).

use std::io::{BufRead, Write};

pub mod agent;
pub mod vulkan;

use serde::{Deserialize, Serialize};

pub use shaderdbg_core::control::{ScreenshotAt, ScreenshotShows, StopFilter, StopReason};
pub use shaderdbg_core::decode::{Access, SanitizerKind, SanitizerReport};
pub use shaderdbg_core::probes::ProbeTable;
pub use shaderdbg_core::{Hit, HitTag, Invocation, Stage, Type};

/// Bumped whenever a message changes shape. Version 3: invocations and hits
/// in the debug core's vocabulary, the agent's probe table in `Stopped`,
/// the watched value's type in `WatchImage`. Version 4: the sanitizer's
/// exception filters (`sanitize_oob`, `sanitize_uninit`), its stop reason and
/// its reports in `Stopped`. Version 5: the `sanitize_race` filter, race
/// and divergent-barrier reports (`SanitizerKind::Race`,
/// `SanitizerKind::DivergentBarrier`), a hit for a race's other invocation.
/// Version 6: `WatchImage` says its rows' origin (Vulkan's are top-left).
/// Version 7: `ShaderCompiled::parts`, the files a runtime source was put
/// together from (a SPIR-V module's `#include`d files), and
/// `SetScreenshotsAtStops`. Version 8: `Screenshot::shows`, the moment a
/// screenshot shows (before the draw, after the submission, the frame),
/// and `Screenshot::origin`, where `gl_FragCoord`'s origin is in it.
pub const VERSION: u32 = 8;

/// Environment variable that names the socket the agent connects to.
pub const SOCKET_ENV: &str = "SHADERDBG_SOCKET";

/// Longest accepted line (a 4K watch image of vec4s fits with room to spare).
pub const MAX_MESSAGE_BYTES: usize = 512 << 20;

/// A breakpoint on a line of a shader's runtime source (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineBreakpoint {
    /// The debugger's name for it: hits of this breakpoint carry
    /// `HitTag::Breakpoint(id)`.
    #[serde(default)]
    pub id: u32,
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// One file a shader's runtime source was put together from, as the
/// compiler recorded it (a SPIR-V module's main file and the files it
/// `#include`s), with where its lines are in the runtime source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePart {
    /// The file's name as the compiler recorded it.
    pub name: String,
    pub text: String,
    /// Runs of lines `[first runtime line, first line in text, count]`
    /// (1-based): the runtime source's lines that are the file's.
    pub lines: Vec<[u32; 3]>,
}

impl SourcePart {
    /// The line of `text` that runtime line `line` is, if it is the file's.
    pub fn line_of_runtime(&self, line: u32) -> Option<u32> {
        self.lines
            .iter()
            .find(|[r, _, n]| (*r..r + n).contains(&line))
            .map(|[r, l, _]| l + (line - r))
    }

    /// The runtime line that line `line` of `text` is, if it is there.
    pub fn runtime_of_line(&self, line: u32) -> Option<u32> {
        self.lines
            .iter()
            .find(|[_, l, n]| (*l..l + n).contains(&line))
            .map(|[r, l, _]| r + (line - l))
    }
}

/// Where an image's row 0 is: `gl_FragCoord`'s origin in the API that
/// made it (OpenGL: the bottom row; Vulkan: the top row, y down).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    #[default]
    BottomLeft,
    TopLeft,
}

/// `ShaderCompiled::language`'s default, left out of messages.
fn is_glsl(l: &shaderdbg_core::Language) -> bool {
    *l == shaderdbg_core::Language::Glsl
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
    /// Sanitize compute dispatches for out-of-bounds indexing and stop
    /// where the sanitized dispatch reports some (`StopReason::Sanitizer`).
    #[serde(default)]
    pub sanitize_oob: bool,
    /// Sanitize compute dispatches for reads of shared memory no invocation
    /// wrote, and stop where it reports some.
    #[serde(default)]
    pub sanitize_uninit: bool,
    /// Sanitize compute dispatches for data races on shared memory (two
    /// invocations of a work group, no barrier between their accesses),
    /// and stop where it reports some.
    #[serde(default)]
    pub sanitize_race: bool,
}

impl ExceptionFilters {
    /// Whether any sanitizer check is on.
    pub fn sanitize(&self) -> bool {
        self.sanitize_oob || self.sanitize_uninit || self.sanitize_race
    }
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
        /// The language of `sources` (WGSL: a SPIR-V module naga wrote from
        /// WGSL, whose text the Vulkan layer recovered; GLSL that names its
        /// WGSL in a header is still announced as GLSL).
        #[serde(default, skip_serializing_if = "is_glsl")]
        language: shaderdbg_core::Language,
        /// The files `sources` was put together from, where there are
        /// several (empty: `sources` is one file's, or the program's own
        /// strings): the session binds the user's files to each part.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<SourcePart>,
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
        /// Draw number within the frame, from 0 (Vulkan: the draw or
        /// dispatch within the submission, over all its command buffers).
        draw: u64,
        program: u32,
        shader: u32,
        /// In a deterministic order (`Invocation::order_key`).
        hits: Vec<Hit>,
        /// More hits than the buffer held.
        truncated: bool,
        #[serde(default)]
        reason: StopReason,
        /// The probe table the agent instrumented `shader` with: hits name
        /// its probes, and recordings of this stop decode with it.
        probes: ProbeTable,
        /// `StopReason::Sanitizer`: what the sanitizer found, in the core
        /// decoder's order; hit `i` is tagged `HitTag::Breakpoint(i)` and
        /// names report `i`'s invocation, probe and line; then, for each
        /// race report `i` whose other access's step is known, a hit tagged
        /// `HitTag::Breakpoint(i)` for the other invocation at that step.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        sanitizer: Vec<SanitizerReport>,
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
        selector: Invocation,
        log: Blob,
    },
    /// One value per pixel for a watch expression (the watch-buffer layout):
    /// slot `y * width + x` holds the fragment at `gl_FragCoord` (x, y).
    WatchImage {
        request: u64,
        width: u32,
        height: u32,
        /// The watched expression's type (what the values decode as).
        ty: Type,
        value_words: u32,
        data: Blob,
        /// Where row 0 is: `gl_FragCoord`'s origin in the stopped API.
        origin: Origin,
    },
    /// The image as RGBA8, bottom row first (`frame`: the frame it belongs
    /// to; `shows`: at which moment; `origin`: `gl_FragCoord`'s origin in
    /// the API that drew it, for naming a pixel of it).
    Screenshot {
        request: u64,
        frame: u64,
        width: u32,
        height: u32,
        shows: ScreenshotShows,
        origin: Origin,
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
        selector: Invocation,
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
    /// Leave the current stop and go on (running the original draw, unless
    /// the hit test ran in its place: one pass, or a Vulkan submission).
    Resume,
    /// Remove every breakpoint and let the program run on unobserved.
    Detach,
    /// The WGSL files the user's breakpoints are in (and other known source
    /// files of the program), with their text: the Vulkan layer debugs a
    /// SPIR-V module that carries no source as one of them when naga writes
    /// that module from it under wgpu's options. Sent after `Hello` and
    /// whenever the set changes; the GL agent has no use for it.
    SourceFiles {
        files: Vec<SourceFile>,
    },
    /// Whether the debugger may ask for `Screenshot { at: Now }` at a stop
    /// (until told otherwise, it may). The GL agent keeps a copy of the
    /// framebuffer before every draw whose hit test is the draw itself
    /// (one pass), for such a screenshot; a debugger that never asks one
    /// (`shaderdbg run`) spares that copy (a blit of the whole colour
    /// buffer per draw: on llvmpipe a `memcpy` for the default
    /// framebuffer's 8-bit colour, a textured draw for most other
    /// formats). `Now` at a one-pass stop made without the copy is an
    /// error. The Vulkan layer shows what a submission drew and has no use
    /// for it.
    SetScreenshotsAtStops {
        may_ask: bool,
    },
}

/// A source file as the debugger read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
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
                language: shaderdbg_core::Language::Glsl,
                parts: vec![],
            },
            FromAgent::ShaderCompiled {
                context: 1,
                shader: 4,
                stage: Stage::Fragment,
                sources: vec!["@fragment fn fs() {}\n".into()],
                compiled: true,
                info_log: String::new(),
                language: shaderdbg_core::Language::Wgsl,
                parts: vec![],
            },
            FromAgent::ShaderCompiled {
                context: 1,
                shader: 5,
                stage: Stage::Fragment,
                sources: vec!["#version 450\nfloat f() { return 1.0; }\nvoid main() {}\n".into()],
                compiled: true,
                info_log: String::new(),
                language: shaderdbg_core::Language::Glsl,
                parts: vec![SourcePart {
                    name: "inc.glsl".into(),
                    text: "float f() { return 1.0; }\n".into(),
                    lines: vec![[2, 1, 1]],
                }],
            },
            FromAgent::Recorded {
                request: 7,
                shader: 3,
                selector: Invocation::fragment(1, 2),
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
                    id: 0,
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
                selector: Invocation::Vertex {
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
                selector: Invocation::Compute { id: [1, 2, 3] },
                log: Blob::from_words(&[1]),
            },
        )
        .unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(
            text,
            concat!(
                r#"{"type":"set_breakpoints","shader":4,"breakpoints":[{"id":0,"line":12,"condition":"x > 1.0"}]}"#,
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
                    ..ExceptionFilters::default()
                }),
                r#"{"type":"set_exception_filters","nan_inf":true,"gl_error":false,"sanitize_oob":false,"sanitize_uninit":false,"sanitize_race":false}"#,
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
        // A `stopped` without a reason reads as a breakpoint stop.
        let old = r#"{"type":"stopped","context":1,"frame":0,"draw":0,"program":3,"shader":2,"hits":[],"truncated":false,"probes":{"stage":"fragment","probes":[],"vars":[],"functions":[]}}"#;
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
    fn version_8_messages_have_a_stable_shape() {
        assert_eq!(VERSION, 8);
        // Version 8: a screenshot says what moment it shows and its origin.
        let shot = FromAgent::Screenshot {
            request: 3,
            frame: 1,
            width: 1,
            height: 1,
            shows: ScreenshotShows::AfterSubmission,
            origin: Origin::TopLeft,
            rgba: Blob(vec![1, 2, 3, 4]),
        };
        let text = concat!(
            r#"{"type":"screenshot","request":3,"frame":1,"width":1,"height":1,"#,
            r#""shows":"after_submission","origin":"top_left","rgba":"AQIDBA=="}"#,
        );
        let mut buf = Vec::new();
        write_message(&mut buf, &shot).unwrap();
        assert_eq!(String::from_utf8(buf).unwrap().trim_end(), text);
        let back: FromAgent = read_message(&mut text.as_bytes()).unwrap().unwrap();
        assert_eq!(back, shot);
        // Version 7: the parts of a source put together from several files.
        let compiled = FromAgent::ShaderCompiled {
            context: 1,
            shader: 2,
            stage: Stage::Fragment,
            sources: vec!["float f();\nvoid main() {}\n".into()],
            compiled: true,
            info_log: String::new(),
            language: shaderdbg_core::Language::Glsl,
            parts: vec![SourcePart {
                name: "f.glsl".into(),
                text: "float f();\n".into(),
                lines: vec![[1, 1, 1]],
            }],
        };
        let text = concat!(
            r#"{"type":"shader_compiled","context":1,"shader":2,"stage":"fragment","#,
            r#""sources":["float f();\nvoid main() {}\n"],"compiled":true,"info_log":"","#,
            r#""parts":[{"name":"f.glsl","text":"float f();\n","lines":[[1,1,1]]}]}"#,
        );
        let mut buf = Vec::new();
        write_message(&mut buf, &compiled).unwrap();
        assert_eq!(String::from_utf8(buf).unwrap().trim_end(), text);
        // A version-6 one reads as one file's.
        let old = r#"{"type":"shader_compiled","context":1,"shader":2,"stage":"fragment","sources":[],"compiled":true,"info_log":""}"#;
        let m: FromAgent = read_message(&mut old.as_bytes()).unwrap().unwrap();
        assert!(matches!(m, FromAgent::ShaderCompiled { parts, .. } if parts.is_empty()));
        // Version 7: a debugger that never asks for screenshots at stops.
        let msg = ToAgent::SetScreenshotsAtStops { may_ask: false };
        let text = r#"{"type":"set_screenshots_at_stops","may_ask":false}"#;
        let mut buf = Vec::new();
        write_message(&mut buf, &msg).unwrap();
        assert_eq!(String::from_utf8(buf).unwrap().trim_end(), text);
        let back: ToAgent = read_message(&mut text.as_bytes()).unwrap().unwrap();
        assert_eq!(back, msg);
        // Version 6: a watch image says where its row 0 is.
        let watch = FromAgent::WatchImage {
            request: 1,
            width: 1,
            height: 1,
            ty: Type::Void,
            value_words: 1,
            data: Blob(vec![0; 4]),
            origin: Origin::TopLeft,
        };
        let mut buf = Vec::new();
        write_message(&mut buf, &watch).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.contains(r#""origin":"top_left""#), "{text}");
        let back: FromAgent = read_message(&mut text.as_bytes()).unwrap().unwrap();
        assert_eq!(back, watch);
        let filters = ToAgent::SetExceptionFilters(ExceptionFilters {
            sanitize_oob: true,
            sanitize_uninit: true,
            sanitize_race: true,
            ..ExceptionFilters::default()
        });
        let text = r#"{"type":"set_exception_filters","nan_inf":false,"gl_error":false,"sanitize_oob":true,"sanitize_uninit":true,"sanitize_race":true}"#;
        let mut buf = Vec::new();
        write_message(&mut buf, &filters).unwrap();
        assert_eq!(String::from_utf8(buf).unwrap().trim_end(), text);
        // A version-3 filter message reads with the sanitizer off (and a
        // version-4 one without races).
        let old = r#"{"type":"set_exception_filters","nan_inf":true,"gl_error":false}"#;
        let m: ToAgent = read_message(&mut old.as_bytes()).unwrap().unwrap();
        assert_eq!(
            m,
            ToAgent::SetExceptionFilters(ExceptionFilters {
                nan_inf: true,
                ..ExceptionFilters::default()
            })
        );

        let stopped = FromAgent::Stopped {
            context: 1,
            frame: 0,
            draw: 0,
            program: 3,
            shader: 2,
            hits: vec![Hit {
                tag: HitTag::Breakpoint(0),
                probe: 5,
                line: 12,
                occurrence: 0,
                invocation: Invocation::Compute { id: [7, 0, 0] },
            }],
            truncated: false,
            reason: StopReason::Sanitizer,
            probes: ProbeTable {
                stage: Stage::Compute,
                probes: vec![],
                vars: vec![],
                functions: vec![],
            },
            sanitizer: vec![
                SanitizerReport {
                    kind: SanitizerKind::Oob {
                        index: 32,
                        bound: 32,
                    },
                    probe: 5,
                    line: 12,
                    invocation: Invocation::Compute { id: [7, 0, 0] },
                },
                SanitizerReport {
                    kind: SanitizerKind::UninitRead {
                        decl: 4,
                        element: 9,
                    },
                    probe: 6,
                    line: 13,
                    invocation: Invocation::Compute { id: [1, 0, 0] },
                },
                SanitizerReport {
                    kind: SanitizerKind::Race {
                        decl: 4,
                        element: 3,
                        access: Access::Read,
                        other: Invocation::Compute { id: [3, 0, 0] },
                        other_probe: 7,
                        other_line: 14,
                        other_access: Access::Write,
                        memory: Default::default(),
                        value: None,
                        other_value: None,
                    },
                    probe: 8,
                    line: 15,
                    invocation: Invocation::Compute { id: [0, 0, 0] },
                },
            ],
        };
        let text = concat!(
            r#"{"type":"stopped","context":1,"frame":0,"draw":0,"program":3,"shader":2,"#,
            r#""hits":[{"tag":{"breakpoint":0},"probe":5,"line":12,"occurrence":0,"invocation":{"stage":"compute","id":[7,0,0]}}],"#,
            r#""truncated":false,"reason":"sanitizer","probes":{"stage":"compute","probes":[],"vars":[],"functions":[]},"#,
            r#""sanitizer":[{"kind":{"kind":"oob","index":32,"bound":32},"probe":5,"line":12,"invocation":{"stage":"compute","id":[7,0,0]}},"#,
            r#"{"kind":{"kind":"uninit_read","decl":4,"element":9},"probe":6,"line":13,"invocation":{"stage":"compute","id":[1,0,0]}},"#,
            r#"{"kind":{"kind":"race","decl":4,"element":3,"access":"read","other":{"stage":"compute","id":[3,0,0]},"#,
            r#""other_probe":7,"other_line":14,"other_access":"write"},"probe":8,"line":15,"invocation":{"stage":"compute","id":[0,0,0]}}]}"#,
        );
        let mut buf = Vec::new();
        write_message(&mut buf, &stopped).unwrap();
        assert_eq!(String::from_utf8(buf).unwrap().trim_end(), text);
        let back: FromAgent = read_message(&mut text.as_bytes()).unwrap().unwrap();
        assert_eq!(back, stopped);
    }

    #[test]
    fn blobs_are_words() {
        let b = Blob::from_words(&[0x0403_0201, 7]);
        assert_eq!(b.0[..4], [1, 2, 3, 4]);
        assert_eq!(b.words(), vec![0x0403_0201, 7]);
    }
}
