//! Faults around the layer: a debugger whose connection drops mid-stop,
//! a program that tears its device down while a submission is stopped,
//! memory the layer cannot get, a lost device. In each the program runs on
//! as it does alone, and the session hears why once.

use std::io::BufReader;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use shaderdbg_protocol::{
    read_message, vulkan, write_message, FromAgent, LineBreakpoint, ToAgent, SOCKET_ENV, VERSION,
};
use shaderdbg_session::binding::FileBreakpoint;
use shaderdbg_session::Event;
use shaderdbg_test_support::app;

mod common;
use common::{alone, start, Ran};

fn triangle_shader() -> PathBuf {
    common::vk_shader("vk_triangle.frag")
}

/// A directory of this test's own.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shaderdbg-vk-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The environment that loads our layer (its manifest written into `dir`)
/// and has it connect to the socket `socket`: what the session sets.
fn layer_env(dir: &Path, socket: &Path) -> Vec<(String, String)> {
    let library = shaderdbg_test_support::built().join(vulkan::LIBRARY);
    let manifest = vulkan::manifest(&library.display().to_string());
    std::fs::write(dir.join(vulkan::MANIFEST), manifest).expect("manifest");
    vec![
        ("VK_ADD_LAYER_PATH".into(), dir.display().to_string()),
        ("VK_INSTANCE_LAYERS".into(), vulkan::LAYER_NAME.into()),
        (SOCKET_ENV.into(), socket.display().to_string()),
    ]
}

/// Accepts the layer's connection on `listener` and exchanges `Hello`s.
fn accept(listener: &UnixListener) -> (BufReader<UnixStream>, UnixStream) {
    listener.set_nonblocking(true).expect("nonblocking");
    let deadline = Instant::now() + Duration::from_secs(60);
    let stream = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                assert!(Instant::now() < deadline, "the layer did not connect");
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("accept: {e}"),
        }
    };
    stream.set_nonblocking(false).expect("blocking");
    let mut writer = stream.try_clone().expect("clone");
    let mut reader = BufReader::new(stream);
    let hello: Option<FromAgent> = read_message(&mut reader).expect("hello");
    assert!(matches!(hello, Some(FromAgent::Hello { .. })), "{hello:?}");
    write_message(&mut writer, &ToAgent::Hello { version: VERSION }).expect("hello");
    (reader, writer)
}

/// The 1-based line of the first line of `source` that contains `text`.
fn line_of(source: &str, text: &str) -> u32 {
    source
        .lines()
        .position(|l| l.contains(text))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("no {text:?} in {source}"))
}

/// A debugger whose connection drops while the program is stopped (it
/// dies: no `Detach`, no `Resume`, the socket just closes) leaves it
/// running on unobserved: the stopped submission and every later frame
/// are what the program renders alone, and it ends normally.
#[test]
fn a_debugger_that_drops_its_connection_mid_stop_leaves_the_program_running() {
    let dir = temp_dir("drop");
    let socket = dir.join("agent.sock");
    let listener = UnixListener::bind(&socket).expect("socket");
    let args = ["4", "64"];
    let program = app("vk_triangle");
    let child = Command::new(&program)
        .args(args)
        .envs(layer_env(&dir, &socket))
        .stdout(Stdio::piped())
        .spawn()
        .expect("vk_triangle runs");
    let (mut reader, mut writer) = accept(&listener);
    let mut stopped = false;
    while let Some(msg) = read_message::<_, FromAgent>(&mut reader).expect("a message") {
        match msg {
            FromAgent::ShaderCompiled {
                shader,
                stage: shaderdbg_core::Stage::Fragment,
                sources,
                ..
            } => {
                let line = line_of(&sources.concat(), "color = vec4(");
                let set = ToAgent::SetBreakpoints {
                    shader,
                    breakpoints: vec![LineBreakpoint {
                        id: 1,
                        line,
                        condition: None,
                    }],
                };
                write_message(&mut writer, &set).expect("breakpoints");
                write_message(&mut writer, &ToAgent::Resume).expect("resume");
            }
            FromAgent::ShaderCompiled { .. } => {
                write_message(&mut writer, &ToAgent::Resume).expect("resume");
            }
            FromAgent::Stopped { frame, .. } => {
                assert_eq!(frame, 0);
                stopped = true;
                break;
            }
            _ => {}
        }
    }
    assert!(stopped, "the program never stopped");
    // The debugger dies.
    let _ = writer.shutdown(std::net::Shutdown::Both);
    drop((reader, writer, listener));
    let out = child.wait_with_output().expect("the program ends");
    assert!(out.status.success(), "{out:?}");
    let frames: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(frames, alone(&program, &args, &[]), "frames differ");
    assert_eq!(frames.len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `vk_teardown`: while its one submission is stopped (on a thread of its
/// own), the main thread waits for the device to be idle and then
/// destroys everything. The wait lasts as long as the stop (to the program
/// the stopped submission is in progress), so the session can still have
/// another invocation recorded after the program said it tears down, and
/// the program ends normally with the frame it renders alone.
#[test]
fn a_device_torn_down_while_a_submission_is_stopped_waits_for_the_stop() {
    use shaderdbg_core::Value;
    let bp = FileBreakpoint::new(triangle_shader(), 12, None);
    let mut session = start(&app("vk_teardown"), &["64"], &[], vec![bp]);
    let var = |stop: &shaderdbg_session::stop::Stop, name: &str| {
        stop.variables(stop.cursor)
            .into_iter()
            .find(|v| v.name == name)
            .and_then(|v| v.value)
    };
    let (mut stops, mut output) = (0, Vec::new());
    let deadline = Instant::now() + Duration::from_secs(120);
    let code = common::run_to_exit(&mut session, "vk_teardown", |session, event| match event {
        Event::Stopped(stop) => {
            stops += 1;
            // The main thread tears down now: it waits for the device.
            while !output.iter().any(|l| l == "tearing down") {
                assert!(Instant::now() < deadline, "no teardown: {output:?}");
                if let Some(Event::Output {
                    stderr: false,
                    line,
                }) = session.next_event(Duration::from_millis(100))
                {
                    output.push(line);
                }
            }
            std::thread::sleep(Duration::from_secs(1));
            let other = *stop.hits.last().expect("hits");
            let [x, y] = other.invocation.pixel().expect("a fragment");
            let again = session.record_hit(other).expect("records");
            let p = Value::List(vec![
                Value::Float((x as f32 + 0.5) / 32.0),
                Value::Float((y as f32 + 0.5) / 32.0),
            ]);
            assert_eq!(var(&again, "p"), Some(p));
            session.resume();
        }
        Event::Output {
            stderr: false,
            line,
        } => output.push(line),
        _ => {}
    });
    assert_eq!(code, Some(0), "{output:?}");
    assert_eq!(stops, 1);
    let program = app("vk_teardown");
    assert_eq!(output, alone(&program, &["64"], &[]));
}

/// What a session of `PROGRAM ARGS` (with `env`) saw: the program's
/// output, the agent's errors and how it ended, and the stops.
struct Seen {
    ran: Ran,
    stops: usize,
}

/// A program to run under the session, and where its breakpoint is.
struct Under {
    program: &'static str,
    args: &'static [&'static str],
    /// A file in `tests/vk-apps/shaders`, and a line of it.
    shader: &'static str,
    line: u32,
}

/// `vk_triangle 3 64`, stopping in its fragment shader.
const TRIANGLE: Under = Under {
    program: "vk_triangle",
    args: &["3", "64"],
    shader: "vk_triangle.frag",
    line: 12,
};

/// `under` (with `env`) under the session with its breakpoint, resumed at
/// each stop.
fn stops_under(under: &Under, env: &[(String, String)]) -> Seen {
    let Under { program, args, .. } = *under;
    let bp = FileBreakpoint::new(common::vk_shader(under.shader), under.line, None);
    let mut session = start(&app(program), args, env, vec![bp]);
    let mut stops = 0;
    let ran = common::run_keeping(&mut session, program, |session, event| {
        if let Event::Stopped(_) = event {
            stops += 1;
            session.resume();
        }
    });
    Seen { ran, stops }
}

/// [`stops_under`] with the validation layer below ours and `extra`
/// in the environment, checked to end normally with the frames and the
/// validation layer's reports of the program alone; what it saw, and the
/// program's output alone.
fn validated(under: &Under, extra: &[(&str, &str)]) -> (Seen, Vec<String>) {
    let Under { program, args, .. } = *under;
    let tags: Vec<&str> = extra.iter().map(|(_, v)| *v).collect();
    let dir = temp_dir(&format!("{program}-{}", tags.join("-")));
    let env = common::validation_env(&dir);
    let alone = alone(&app(program), args, &env);
    let mut with = env.clone();
    with.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let seen = stops_under(under, &with);
    let ran = &seen.ran;
    assert_eq!(ran.code, Some(0), "{:?}", ran.errors);
    assert_eq!(common::frames(&ran.output), common::frames(&alone));
    let frames: usize = args[0].parse().expect("frames");
    assert_eq!(common::frames(&alone).len(), frames, "{alone:?}");
    assert_eq!(
        common::reports(&ran.output),
        common::reports(&alone),
        "{:#?}",
        ran.output
    );
    let _ = std::fs::remove_dir_all(&dir);
    (seen, alone)
}

/// `under` [`validated`] with the layer's fault `fault` injected: nothing
/// stops, and the agent's one error that contains `text`.
fn said_once_under_fault(under: &Under, fault: &str, text: &str) -> String {
    let (seen, _) = validated(under, &[("SHADERDBG_VK_FAULT", fault)]);
    assert_eq!(seen.stops, 0);
    let said = said(&seen, text);
    assert_eq!(said.len(), 1, "{:#?}", seen.ran.errors);
    said[0].clone()
}

/// The agent's errors that contain `text`.
fn said<'a>(seen: &'a Seen, text: &str) -> Vec<&'a String> {
    seen.ran
        .errors
        .iter()
        .filter(|e| e.contains(text))
        .collect()
}

/// The debug buffer's memory cannot be had (injected: lavapipe has plenty):
/// nothing stops, the session hears why once, what the layer made of the
/// debug set before the failure is destroyed again (the validation layer
/// reports no object left at `vkDestroyDevice`), and every frame is the
/// program's own.
#[test]
fn without_memory_for_the_debug_buffer_the_program_runs_untouched() {
    said_once_under_fault(&TRIANGLE, "debug-memory", "ERROR_OUT_OF_DEVICE_MEMORY");
}

/// The device is lost under the first hit test (injected: the wait for it
/// answers `VK_ERROR_DEVICE_LOST`): the session hears it once, no later
/// frame is hit-tested (each would name its frame), what the layer made is
/// released without the validation layer seeing anything of ours, and the
/// program (whose device lavapipe did not really lose) renders its frames.
#[test]
fn a_device_lost_under_the_hit_test_ends_debugging_on_it() {
    let said = said_once_under_fault(&TRIANGLE, "device-lost", "VK_ERROR_DEVICE_LOST");
    assert!(said.contains("frame 0"), "{said}");
}

/// The memory of the snapshot of a compute submission's storage cannot be
/// had (injected): nothing stops, the session hears why once, the buffer
/// the layer made for it is destroyed again (the validation layer reports
/// no object left at `vkDestroyDevice`), and every frame is the program's
/// own.
#[test]
fn without_memory_for_a_storage_snapshot_the_program_runs_untouched() {
    let compute = Under {
        program: "vk_compute",
        args: &["2", "256"],
        shader: "vk_compute.comp",
        line: 14,
    };
    let said = said_once_under_fault(&compute, "snapshot-memory", "the snapshot's memory");
    assert!(
        said.contains("the storage cannot be kept for a stop"),
        "{said}"
    );
}

/// `vk_cache`: its pipeline comes from one call that also asked for it
/// from the cache only (`FAIL_ON_PIPELINE_COMPILE_REQUIRED`; lavapipe
/// answers `VK_PIPELINE_COMPILE_REQUIRED` and makes the other): the
/// pipeline made is debugged like any other (a stop per frame), and the
/// program prints what it prints alone, the validation layer reporting
/// nothing of ours.
#[test]
fn a_pipeline_created_through_a_cache_stops() {
    let cache = Under {
        program: "vk_cache",
        ..TRIANGLE
    };
    let (seen, alone) = validated(&cache, &[]);
    assert!(seen.ran.errors.is_empty(), "{:?}", seen.ran.errors);
    assert_eq!(seen.stops, 3);
    let cached = |lines: &[String]| -> Vec<String> {
        let c = lines.iter().filter(|l| l.starts_with("pipeline "));
        c.cloned().collect()
    };
    assert_eq!(cached(&seen.ran.output), cached(&alone));
    assert_eq!(cached(&alone).len(), 1, "{alone:?}");
}
