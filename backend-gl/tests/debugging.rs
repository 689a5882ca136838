//! The agent and a scripted debugger over the real socket protocol: a real
//! program (`single_pass`) runs under the preload; the test sets a conditional
//! breakpoint when the fragment shader is announced, stops in frame 1, checks
//! which fragments hit, records one, captures a watch image, resumes, and
//! checks that the program's frames are identical to a run without the agent.

mod common;

use std::io::BufReader;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use shaderdbg_core::decode::{decode, Exit};
use shaderdbg_core::{Invocation, Stage, Type, Value};
use shaderdbg_glsl::instrument::probe_table;
use shaderdbg_glsl::parse::parse;
use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

use common::{artifacts, profile_dir};

const SIZE: u32 = 64;

struct Session {
    child: Child,
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Session {
    /// Starts `single_pass` under the agent and accepts its connection.
    fn start(name: &str, frames: u32) -> Session {
        let dir = profile_dir().join(format!("tmp-debugging-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("socket dir");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let path: PathBuf = dir.join("agent.sock");
        let listener = UnixListener::bind(&path).expect("bind");
        let child = Command::new(&artifacts().single_pass)
            .args([frames.to_string(), SIZE.to_string()])
            .env("LD_PRELOAD", &artifacts().agent)
            .env(proto::SOCKET_ENV, &path)
            .env_remove("SHADERDBG_TRACE_FILE")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn single_pass");
        listener.set_nonblocking(true).expect("nonblocking");
        let deadline = Instant::now() + Duration::from_secs(60);
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(e) => panic!("the agent did not connect: {e}"),
            }
        };
        stream.set_nonblocking(false).expect("blocking");
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .expect("timeout");
        let writer = stream.try_clone().expect("clone");
        let mut s = Session {
            child,
            reader: BufReader::new(stream),
            writer,
        };
        match s.recv() {
            Some(FromAgent::Hello { version, .. }) => assert_eq!(version, proto::VERSION),
            other => panic!("expected hello, got {other:?}"),
        }
        s.send(&ToAgent::Hello {
            version: proto::VERSION,
        });
        s
    }

    fn send(&mut self, msg: &ToAgent) {
        proto::write_message(&mut self.writer, msg).expect("send");
    }

    fn recv(&mut self) -> Option<FromAgent> {
        proto::read_message(&mut self.reader).expect("a well-formed message")
    }

    /// Waits for the program to exit; returns its stdout.
    fn finish(self) -> String {
        drop(self.writer);
        drop(self.reader);
        let out = self.child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "single_pass failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

fn checksums_without_agent(frames: u32) -> String {
    let out = Command::new(&artifacts().single_pass)
        .args([frames.to_string(), SIZE.to_string()])
        .env_remove("LD_PRELOAD")
        .output()
        .expect("run single_pass");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn line_of(sources: &[String], needle: &str) -> u32 {
    sources
        .concat()
        .lines()
        .position(|l| l.contains(needle))
        .expect("line") as u32
        + 1
}

#[test]
fn conditional_breakpoint_stops_records_and_resumes() {
    let frames = 3;
    let mut s = Session::start("bp", frames);
    let mut fragment: Option<(u32, Vec<String>)> = None;
    let mut stops = 0;
    let mut statuses = Vec::new();
    while let Some(msg) = s.recv() {
        match msg {
            FromAgent::ShaderCompiled {
                shader,
                stage,
                sources,
                compiled,
                ..
            } => {
                assert!(compiled);
                if stage == proto::Stage::Fragment {
                    let line = line_of(&sources, "float ring");
                    s.send(&ToAgent::SetBreakpoints {
                        shader,
                        breakpoints: vec![proto::LineBreakpoint {
                            id: 7,
                            line,
                            condition: Some("p.x > 1.5".into()),
                        }],
                    });
                    s.send(&ToAgent::SetStopFilter(proto::StopFilter {
                        frame: Some(1),
                        ..Default::default()
                    }));
                    fragment = Some((shader, sources));
                }
                s.send(&ToAgent::Resume);
            }
            FromAgent::BreakpointStatus { line, message, .. } => statuses.push((line, message)),
            FromAgent::Stopped {
                frame,
                shader,
                hits,
                truncated,
                probes,
                ..
            } => {
                stops += 1;
                let (fs, sources) = fragment.clone().expect("fragment shader announced");
                assert_eq!(shader, fs);
                assert_eq!(frame, 1, "the stop filter allows frame 1 only");
                assert!(!truncated);
                let ring = line_of(&sources, "float ring");
                // (x + 0.5) / 32 > 1.5  <=>  x >= 48: 16 columns of 64 rows, in y-then-x order.
                let want: Vec<[u32; 2]> = (0..SIZE)
                    .flat_map(|y| (48..SIZE).map(move |x| [x, y]))
                    .collect();
                let got: Vec<[u32; 2]> = hits.iter().filter_map(|h| h.invocation.pixel()).collect();
                assert_eq!(got, want);
                assert!(hits.iter().all(|h| h.line == ring && h.occurrence == 0));
                // Hits carry the id the debugger gave their breakpoint.
                assert!(hits.iter().all(|h| h.tag == proto::HitTag::Breakpoint(7)));

                // Record one fragment and check its values against the shader's math.
                s.send(&ToAgent::Record {
                    request: 1,
                    selector: Invocation::fragment(50, 10),
                });
                let log = match s.recv() {
                    Some(FromAgent::Recorded {
                        request: 1, log, ..
                    }) => log,
                    other => panic!("expected a recording, got {other:?}"),
                };
                let strings: Vec<&str> = sources.iter().map(String::as_str).collect();
                let parsed = parse(&strings, Stage::Fragment, None).expect("parses");
                let table = probe_table(&parsed);
                // The contract between agent and session: the table in
                // `Stopped` is the one the agent instrumented with, and the
                // engine gives the same table for the same sources.
                assert_eq!(probes, table, "the agent's probe table");
                assert!(hits.iter().all(|h| table
                    .get(h.probe)
                    .is_some_and(|p| p.is_step() && p.line == ring)));
                let trace = decode(&log.words(), &probes).expect("decodes");
                let inv = &trace.invocations[0];
                assert_eq!(inv.exit, Exit::Returned);
                assert_eq!(inv.invocation.and_then(|i| i.pixel()), Some([50, 10]));
                let last = inv.steps.len() - 1;
                let vars = inv.variables_at(last, &table);
                let get = |name: &str| {
                    vars.iter()
                        .find(|(d, _)| table.vars[*d].name == name)
                        .and_then(|(_, v)| v.clone())
                        .unwrap_or_else(|| panic!("{name}"))
                };
                let p = [50.5f32 / 32.0, 10.5 / 32.0];
                assert_eq!(
                    get("p"),
                    Value::List(vec![Value::Float(p[0]), Value::Float(p[1])])
                );
                assert_eq!(
                    get("t"),
                    Value::Float(0.125),
                    "the frame uniform was copied"
                );
                assert_eq!(get("frame"), Value::Int(1));

                // A watch image of p.x over the whole draw.
                let color_line = line_of(&sources, "color = vec4");
                s.send(&ToAgent::Watch {
                    request: 2,
                    line: color_line,
                    expr: "p.x".into(),
                });
                match s.recv() {
                    Some(FromAgent::WatchImage {
                        request: 2,
                        width,
                        height,
                        ty,
                        value_words,
                        data,
                    }) => {
                        assert_eq!((width, height, value_words), (SIZE, SIZE, 1));
                        assert_eq!(ty, Type::Scalar(shaderdbg_core::Scalar::Float));
                        let words = data.words();
                        for (x, y) in [(0u32, 0u32), (63, 5), (17, 40)] {
                            let at = 4 + ((y * SIZE + x) * 2) as usize;
                            assert_eq!(words[at], 1, "({x},{y}) reached once");
                            assert_eq!(f32::from_bits(words[at + 1]), (x as f32 + 0.5) / 32.0);
                        }
                    }
                    other => panic!("expected a watch image, got {other:?}"),
                }
                s.send(&ToAgent::Resume);
            }
            FromAgent::Error { message, .. } => panic!("agent error: {message}"),
            _ => {}
        }
    }
    assert_eq!(stops, 1, "one draw per frame, frame 1 only");
    assert_eq!(statuses, vec![(Some(9), None)]);
    let with_agent = s.finish();
    assert_eq!(
        with_agent,
        checksums_without_agent(frames),
        "frames differ under the debugger"
    );
}

#[test]
fn a_debugger_that_hangs_up_mid_stop_lets_the_program_finish() {
    let frames = 3;
    let mut s = Session::start("hangup", frames);
    loop {
        match s.recv() {
            Some(FromAgent::ShaderCompiled {
                shader,
                stage,
                sources,
                ..
            }) => {
                if stage == proto::Stage::Fragment {
                    let line = line_of(&sources, "color = vec4");
                    s.send(&ToAgent::SetBreakpoints {
                        shader,
                        breakpoints: vec![proto::LineBreakpoint {
                            id: 7,
                            line,
                            condition: None,
                        }],
                    });
                }
                s.send(&ToAgent::Resume);
            }
            Some(FromAgent::Stopped { .. }) => break,
            Some(_) => {}
            None => panic!("the program ended without stopping"),
        }
    }
    // Hang up while the program is blocked inside its draw.
    let out = s.finish();
    assert_eq!(out, checksums_without_agent(frames));
}
