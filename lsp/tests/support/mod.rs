//! A small LSP client for the tests and the benchmark: spawns the server
//! binary, speaks JSON-RPC with Content-Length framing over its stdio, and
//! keeps the notifications the server sends.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const TIMEOUT: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications (and server requests) not consumed yet.
    pending: VecDeque<Value>,
    /// Every `publishDiagnostics` received, in arrival order.
    pub published: Vec<Value>,
}

impl Client {
    /// Starts the server and initializes it with these options.
    pub fn start(options: Value) -> Client {
        Client::start_with_root(options, None)
    }

    pub fn start_with_root(options: Value, root: Option<&Path>) -> Client {
        Client::start_with(options, root, &[])
    }

    /// Starts the server with extra environment variables.
    pub fn start_with(options: Value, root: Option<&Path>, env: &[(&str, &str)]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shaderdbg-lsp"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start shaderdbg-lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = shaderdbg_test_support::read_frame(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            rx,
            next_id: 1,
            pending: VecDeque::new(),
            published: Vec::new(),
        };
        let root_uri = root.map(|r| format!("file://{}", r.display()));
        let result = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root_uri,
                "capabilities": {},
                "initializationOptions": options,
            }),
        );
        assert!(result.get("capabilities").is_some(), "{result}");
        c.notify("initialized", json!({}));
        c
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, msg: &Value) {
        let body = serde_json::to_string(msg).unwrap();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its id (answer with `response`).
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn recv(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(v) => {
                self.note(&v);
                v
            }
            Err(RecvTimeoutError::Timeout) => panic!("no message from the server in time"),
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the server closed its output (crashed?)")
            }
        }
    }

    fn note(&mut self, v: &Value) {
        if v["method"] == "textDocument/publishDiagnostics" {
            self.published.push(v["params"].clone());
        }
    }

    /// Versions of the `publishDiagnostics` received so far for `uri`, in order.
    pub fn published_versions(&mut self, uri: &str) -> Vec<Option<i64>> {
        while let Ok(m) = self.rx.try_recv() {
            self.note(&m);
            self.pending.push_back(m);
        }
        self.published
            .iter()
            .filter(|p| p["uri"] == uri)
            .map(|p| p["version"].as_i64())
            .collect()
    }

    /// The whole response (`result` or `error`) to request `id`.
    pub fn response(&mut self, id: i64) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let msg = self.recv(deadline);
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                return msg;
            }
            if let (Some(server_id), Some(_)) = (msg.get("id"), msg.get("method")) {
                // A request from the server (e.g. workspace/configuration): answer null.
                let reply = json!({"jsonrpc": "2.0", "id": server_id, "result": null});
                self.send(&reply);
                continue;
            }
            self.pending.push_back(msg);
        }
    }

    /// Sends a request and returns its result (panics on an error response).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        let r = self.response(id);
        match r.get("error") {
            Some(e) => panic!("{method} failed: {e}"),
            None => r.get("result").cloned().unwrap_or(Value::Null),
        }
    }

    /// Sends a request and returns its error (panics on success).
    pub fn request_error(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        let r = self.response(id);
        r.get("error")
            .cloned()
            .unwrap_or_else(|| panic!("{method} succeeded: {r}"))
    }

    /// The next notification with this method (earlier ones of other methods are kept).
    pub fn notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self
            .pending
            .iter()
            .position(|m| m["method"] == method && pred(&m["params"]))
        {
            return self.pending.remove(i).unwrap()["params"].clone();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let msg = self.recv(deadline);
            if msg["method"] == method && pred(&msg["params"]) {
                return msg["params"].clone();
            }
            self.pending.push_back(msg);
        }
    }

    /// Every `publishDiagnostics` received so far for `uri` (consumed).
    pub fn drain_diagnostics(&mut self, uri: &str) -> Vec<Value> {
        while let Ok(m) = self.rx.try_recv() {
            self.note(&m);
            self.pending.push_back(m);
        }
        let mut out = Vec::new();
        self.pending.retain(|m| {
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                out.push(m["params"].clone());
                false
            } else {
                true
            }
        });
        out
    }

    /// Waits for the diagnostics of `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Value {
        self.notification("textDocument/publishDiagnostics", |p| {
            p["uri"] == uri && p["version"] == json!(version)
        })
    }

    /// A server with default options and `text` open as `uri` (version 1),
    /// and the diagnostics of that version.
    pub fn start_open(uri: &str, language: &str, text: &str) -> (Client, Value) {
        let mut c = Client::start(json!({}));
        c.open(uri, language, 1, text);
        let d = c.diagnostics(uri, 1);
        (c, d)
    }

    /// [`Client::start_open`] of a `text` that must have no diagnostics.
    #[track_caller]
    pub fn start_clean(uri: &str, language: &str, text: &str) -> Client {
        let (c, d) = Client::start_open(uri, language, text);
        assert_eq!(show_diagnostics(&d), "", "{uri}");
        c
    }

    pub fn open(&mut self, uri: &str, language: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}}),
        );
    }

    /// Replaces a range (0-based line/UTF-16 column) with `text`.
    pub fn edit(&mut self, uri: &str, version: i64, range: [u32; 4], text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{
                    "range": {"start": {"line": range[0], "character": range[1]}, "end": {"line": range[2], "character": range[3]}},
                    "text": text
                }]
            }),
        );
    }

    pub fn replace_all(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    pub fn close(&mut self, uri: &str) {
        self.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );
    }

    /// Shuts the server down and waits for it to exit.
    pub fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    assert!(status.success(), "server exited with {status}");
                    return;
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    let _ = self.child.kill();
                    panic!("server did not exit after `exit`");
                }
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `{"textDocument": {"uri": ..}, "position": {..}}`.
/// Asserts that `r` is an error response whose message says `what`.
pub fn assert_error_says(r: &Value, what: &str) {
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(what), "{r}");
}

pub fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

/// The 0-based (line, UTF-16 column) of the `nth` occurrence of `needle` in
/// `text`, plus `delta` bytes (ASCII text).
pub fn pos_of(text: &str, needle: &str, nth: usize, delta: usize) -> (u32, u32) {
    let off = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} not in the text"))
        .0
        + delta;
    let before = &text[..off];
    let line = before.matches('\n').count() as u32;
    let col = before.rsplit('\n').next().unwrap().encode_utf16().count() as u32;
    (line, col)
}

/// A range as `L:C-L:C` (1-based lines and columns, as editors show them).
pub fn show_range(r: &Value) -> String {
    format!(
        "{}:{}-{}:{}",
        r["start"]["line"].as_u64().unwrap() + 1,
        r["start"]["character"].as_u64().unwrap() + 1,
        r["end"]["line"].as_u64().unwrap() + 1,
        r["end"]["character"].as_u64().unwrap() + 1
    )
}

/// Diagnostics as lines `L:C-L:C severity: message`.
pub fn show_diagnostics(params: &Value) -> String {
    let mut out = Vec::new();
    for d in params["diagnostics"].as_array().unwrap() {
        let sev = match d["severity"].as_u64() {
            Some(1) => "error",
            Some(2) => "warning",
            Some(3) => "info",
            _ => "hint",
        };
        let mut line = format!(
            "{} {sev}: {}",
            show_range(&d["range"]),
            d["message"].as_str().unwrap()
        );
        if let Some(rel) = d["relatedInformation"].as_array() {
            for r in rel {
                let uri = r["location"]["uri"].as_str().unwrap();
                let file = uri.rsplit('/').next().unwrap();
                line.push_str(&format!(
                    "\n    related {file} {}: {}",
                    show_range(&r["location"]["range"]),
                    r["message"].as_str().unwrap()
                ));
            }
        }
        out.push(line);
    }
    out.join("\n")
}

/// RSS of a process in kB (from /proc/PID/status).
pub fn rss_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// A scratch directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh scratch directory for a test.
pub fn workdir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("shaderdbg-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

pub fn uri_of(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// The 0-based (line, UTF-16 column) of the `$0` in `snippet`, a piece of
/// `text` that occurs once.
pub fn cursor(text: &str, snippet: &str) -> (u32, u32) {
    let k = snippet.find("$0").expect("a $0 in the snippet");
    let plain = snippet.replace("$0", "");
    let hits: Vec<usize> = text.match_indices(&plain).map(|(o, _)| o + k).collect();
    assert_eq!(hits.len(), 1, "`{plain}` must occur once");
    let before = &text[..hits[0]];
    let line = before.matches('\n').count() as u32;
    let col = before.rsplit('\n').next().unwrap().encode_utf16().count() as u32;
    (line, col)
}

/// A request at the `$0` of `snippet` in `text`, with more parameters.
pub fn at_cursor(uri: &str, text: &str, snippet: &str, extra: Value) -> Value {
    let (l, c) = cursor(text, snippet);
    let mut p = at(uri, l, c);
    if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            p.insert(k.clone(), v.clone());
        }
    }
    p
}

pub fn file_of(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or("")
}

/// Locations as sorted lines `file L:C-L:C` (`null` for none).
pub fn show_locations(v: &Value) -> String {
    let Some(a) = v.as_array() else {
        return "null".into();
    };
    let mut out: Vec<String> = a
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                file_of(l["uri"].as_str().unwrap()),
                show_range(&l["range"])
            )
        })
        .collect();
    out.sort();
    out.join("\n")
}

/// A workspace edit as sorted lines `file L:C-L:C -> new text`.
pub fn show_edit(e: &Value) -> String {
    let mut out = Vec::new();
    for (uri, edits) in e["changes"].as_object().unwrap() {
        for ed in edits.as_array().unwrap() {
            out.push(format!(
                "{} {} -> {}",
                file_of(uri),
                show_range(&ed["range"]),
                ed["newText"].as_str().unwrap()
            ));
        }
    }
    out.sort();
    out.join("\n")
}

/// The markdown of a hover (`<none>` for none).
pub fn markdown(v: &Value) -> String {
    v["contents"]["value"]
        .as_str()
        .unwrap_or("<none>")
        .to_string()
}
