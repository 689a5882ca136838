//! A DAP client for the tests: starts the real `shaderdbg-dap` binary and
//! talks to it over its stdin/stdout pipes, keeping a transcript.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any one wait for the adapter lasts.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// Builds the agent library, the test apps and the built-in host once (cargo cannot make
/// another package's binaries a dependency of these tests).
pub fn single_pass() -> &'static Path {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| shaderdbg_test_support::app("single_pass"))
}

/// `tests/apps/shaders/single_pass.frag`, canonical.
pub fn shader_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/apps/shaders/single_pass.frag")
        .canonicalize()
        .expect("shader file")
}

/// The repository root, canonical (for normalising transcripts).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("repo root")
}

pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Option<Value>>,
    seq: i64,
    /// Received, not consumed by a wait yet.
    unread: VecDeque<Value>,
    /// Every message, in order: `-> ` sent, `<- ` received.
    pub transcript: Vec<(bool, Value)>,
    /// Every event received.
    pub events: Vec<Value>,
    closed: bool,
}

impl Client {
    pub fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shaderdbg-dap"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting shaderdbg-dap");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                match shaderdbg_test_support::read_frame(&mut r) {
                    Some(v) => {
                        if tx.send(Some(v)).is_err() {
                            return;
                        }
                    }
                    None => {
                        let _ = tx.send(None);
                        return;
                    }
                }
            }
        });
        Client {
            child,
            stdin,
            rx,
            seq: 0,
            unread: VecDeque::new(),
            transcript: Vec::new(),
            events: Vec::new(),
            closed: false,
        }
    }

    /// Writes raw bytes (for malformed frames).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(bytes).expect("write");
        w.flush().expect("flush");
    }

    /// Sends a request; returns its seq.
    pub fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let mut msg = json!({"seq": self.seq, "type": "request", "command": command});
        if !arguments.is_null() {
            msg["arguments"] = arguments;
        }
        self.transcript.push((true, msg.clone()));
        let body = msg.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        self.seq
    }

    /// Reads the next message (`None`: the adapter closed its output).
    fn read(&mut self, deadline: Instant) -> Option<Value> {
        if self.closed {
            return None;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(Some(v)) => {
                self.transcript.push((false, v.clone()));
                if v["type"] == "event" {
                    self.events.push(v.clone());
                }
                Some(v)
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                None
            }
            Err(RecvTimeoutError::Timeout) => panic!(
                "no message from the adapter in {TIMEOUT:?}; transcript:\n{}",
                self.render(|_| true)
            ),
        }
    }

    /// The first unread message that `want` accepts, waiting for it.
    pub fn wait(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.unread.iter().position(&want) {
            return self.unread.remove(i).expect("index");
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            match self.read(deadline) {
                Some(v) if want(&v) => return v,
                Some(v) => self.unread.push_back(v),
                None => panic!(
                    "the adapter ended before {what}; transcript:\n{}",
                    self.render(|_| true)
                ),
            }
        }
    }

    pub fn response(&mut self, seq: i64) -> Value {
        self.wait(&format!("the response to {seq}"), |v| {
            v["type"] == "response" && v["request_seq"] == seq
        })
    }

    /// Sends a request and waits for its response.
    pub fn request(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        let r = self.response(seq);
        assert_eq!(r["command"], command, "{r}");
        r
    }

    /// A request that must succeed: its body.
    pub fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let r = self.request(command, arguments.clone());
        assert_eq!(r["success"], true, "{command} {arguments} failed: {r}");
        r.get("body").cloned().unwrap_or(Value::Null)
    }

    /// A request that must fail: its message.
    pub fn fails(&mut self, command: &str, arguments: Value) -> String {
        let r = self.request(command, arguments.clone());
        assert_eq!(r["success"], false, "{command} {arguments} succeeded: {r}");
        r["message"].as_str().expect("an error message").to_string()
    }

    pub fn event(&mut self, name: &str) -> Value {
        self.wait(&format!("a `{name}` event"), |v| {
            v["type"] == "event" && v["event"] == name
        })
    }

    /// The stack frames of thread 1 (the stopped invocation), top first.
    pub fn frames(&mut self) -> Vec<Value> {
        let st = self.ok("stackTrace", json!({"threadId": 1}));
        st["stackFrames"].as_array().expect("stackFrames").clone()
    }

    /// name -> variable, of the scope called `scope` of the top frame.
    pub fn scope_vars(&mut self, scope: &str) -> serde_json::Map<String, Value> {
        let frame = self.frames()[0].clone();
        let scopes = self.ok("scopes", json!({"frameId": frame["id"]}));
        let s = scopes["scopes"]
            .as_array()
            .expect("scopes")
            .iter()
            .find(|s| s["name"] == scope)
            .unwrap_or_else(|| panic!("no scope {scope}: {scopes}"))
            .clone();
        let vars = self.ok(
            "variables",
            json!({"variablesReference": s["variablesReference"]}),
        );
        vars["variables"]
            .as_array()
            .expect("variables")
            .iter()
            .map(|v| (v["name"].as_str().expect("name").to_string(), v.clone()))
            .collect()
    }

    /// An adapter initialized (lines from 1) and launched with `launch`,
    /// then given each of `requests` (each must succeed) and started with
    /// `configurationDone`.
    pub fn launched(launch: Value, requests: &[(&str, Value)]) -> Client {
        let mut c = Client::start();
        c.ok(
            "initialize",
            json!({"adapterID": "shaderdbg", "linesStartAt1": true}),
        );
        c.event("initialized");
        c.ok("launch", launch);
        for (command, args) in requests {
            c.ok(command, args.clone());
        }
        c.ok("configurationDone", Value::Null);
        c
    }

    /// Closes the adapter's input, as a client that goes away does.
    /// `disconnect`; the adapter then exits successfully.
    pub fn disconnect(&mut self) {
        self.ok("disconnect", json!({}));
        assert!(self.wait_closed().success());
    }

    /// The program's stdout lines forwarded so far.
    pub fn stdout_lines(&self) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["event"] == "output" && e["body"]["category"] == "stdout")
            .collect()
    }

    pub fn close_input(&mut self) {
        self.stdin.take();
    }

    /// Whether the adapter's output ends (it exits) within the timeout.
    pub fn wait_closed(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        while let Some(v) = self.read(deadline) {
            self.unread.push_back(v);
        }
        self.stdin.take();
        loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                return s;
            }
            assert!(Instant::now() < deadline, "the adapter did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The transcript, one message a line, as `-> ` / `<- ` JSON, messages
    /// that `keep` rejects left out.
    pub fn render(&self, keep: impl Fn(&Value) -> bool) -> String {
        let mut out = String::new();
        for (sent, v) in &self.transcript {
            if !keep(v) {
                continue;
            }
            out.push_str(if *sent { "-> " } else { "<- " });
            out.push_str(&v.to_string());
            out.push('\n');
        }
        out
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A binary built next to the adapter (a test app, the host).
pub fn app(name: &str) -> PathBuf {
    single_pass().parent().expect("bin dir").join(name)
}
