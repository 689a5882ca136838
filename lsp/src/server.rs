//! The server: document store, analysis scheduling, request handlers.
//!
//! Ordering: `didOpen`/`didChange`/`didClose` are applied in [`Ordered`], the
//! service wrapper that sees messages in the order they arrive (tower-lsp-server
//! runs handlers concurrently, so a handler could see changes out of order).
//! Every later request therefore sees every earlier change.
//!
//! Analyses run one at a time per document on blocking threads; a change while
//! one runs marks the document dirty and the worker analyses the newest text
//! next (intermediate versions are skipped, a running parse is abandoned
//! between recovery attempts). Diagnostics are published only for the version
//! that is current when the analysis ends, by the one worker, in order: the
//! last version's diagnostics win. Requests wait briefly for the analysis of
//! the version they were sent against, then answer from the newest analysis
//! there is (mapped to the current text).

use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::task::{Context, Poll};
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::watch;
use tower_lsp_server::gen_lsp_types::*;
use tower_lsp_server::jsonrpc::{self, Request, Response};
use tower_lsp_server::{Client, ExitedError, LanguageServer};

use crate::config::{Config, Resolved};
use crate::glsl::{self, features, Tree};
use crate::line_index::LineIndex;
use crate::{wgsl, Diag};
use shaderdbg_glsl::ide::nav;

/// How long a request waits for the analysis of the text it was sent against.
const WAIT: Duration = Duration::from_millis(1500);

/// GLSL syntax trees kept in memory; the least recently used documents beyond
/// this keep only their text, diagnostics and symbols, and are analysed again
/// when a request needs their tree.
const MAX_TREES: usize = 24;

/// Gives freed heap memory back to the system (glibc keeps it otherwise,
/// per thread arena).
pub fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Glsl,
    Wgsl,
}

/// One finished analysis.
pub struct Snapshot {
    pub version: i32,
    /// Increases with every snapshot of the document.
    pub seq: u64,
    /// The GLSL tree to answer queries from: this version's, or the last one
    /// that parsed.
    pub glsl: Option<Arc<Tree>>,
    pub wgsl: Option<Arc<wgsl::Types>>,
}

struct Doc {
    uri: Uri,
    path: Option<PathBuf>,
    lang: Lang,
    version: i32,
    text: Arc<String>,
    lines: Arc<LineIndex>,
    /// An analysis task is running for this document.
    running: bool,
    /// The text changed since the running analysis took it.
    dirty: bool,
    /// Bumped on every change (stale analyses poll it).
    generation: Arc<AtomicU64>,
    snapshot: watch::Sender<Option<Arc<Snapshot>>>,
    last_tree: Option<Arc<Tree>>,
    last_wgsl: Option<Arc<wgsl::Types>>,
    includes: Vec<PathBuf>,
    /// Symbols of the newest analysis (for workspace symbols).
    symbols: Arc<Vec<DocumentSymbol>>,
    seq: u64,
    /// When a request or change last touched it (a tick of `State::tick`).
    last_used: u64,
    /// Its tree was dropped to save memory.
    evicted: bool,
    /// The diagnostics last published, and for which version.
    published: Option<(i32, Vec<Diagnostic>)>,
    /// The other files the newest analysis read (included files, includers
    /// giving context) with a hash of the text it read: a change of one of
    /// them that leaves its text as read does not re-analyse this document.
    used: Vec<(PathBuf, u64)>,
    /// How many analyses of it ran.
    analyses: u64,
}

/// A hash of a text (to tell whether a file changed since it was read).
fn text_hash(t: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// The workspace's include graph: every shader file under the root (at most
/// [`WORKSPACE_FILES`]) with the files it includes directly.
type IncludeGraph = HashMap<PathBuf, Vec<PathBuf>>;

const WORKSPACE_FILES: usize = 4000;

/// Shader file extensions the workspace scan reads.
fn is_shader_file(p: &std::path::Path) -> bool {
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    matches!(
        ext.as_deref(),
        Some(
            "glsl"
                | "vert"
                | "frag"
                | "geom"
                | "tesc"
                | "tese"
                | "comp"
                | "vs"
                | "fs"
                | "h"
                | "inc"
                | "glslinc"
                | "vsh"
                | "fsh"
        )
    )
}

fn scan_workspace(root: &std::path::Path, settings: &Resolved) -> IncludeGraph {
    let mut graph = IncludeGraph::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if depth < 12
                    && !name.starts_with('.')
                    && !matches!(name.as_ref(), "target" | "node_modules" | "build")
                {
                    stack.push((p, depth + 1));
                }
                continue;
            }
            if !ft.is_file() || !is_shader_file(&p) {
                continue;
            }
            seen += 1;
            if seen > WORKSPACE_FILES {
                return graph;
            }
            let small = e
                .metadata()
                .is_ok_and(|m| m.len() as usize <= settings.config.max_file_size());
            let Ok(bytes) =
                std::fs::read(&p)
                    .map_err(|_| ())
                    .and_then(|b| if small { Ok(b) } else { Err(()) })
            else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let p = glsl::normalize(&p);
            let inc = glsl::direct_includes(&p, &text, settings);
            if !inc.is_empty() {
                graph.insert(p, inc);
            }
        }
    }
    graph
}

/// Everything the handlers share.
pub struct State {
    client: OnceLock<Client>,
    settings: RwLock<Arc<Resolved>>,
    root: RwLock<Option<PathBuf>>,
    docs: Mutex<HashMap<String, Doc>>,
    tick: AtomicU64,
    /// The workspace's include graph, scanned when an include-only document
    /// first needs it (dropped when the settings change).
    workspace: Mutex<Option<Arc<IncludeGraph>>>,
    /// Analyses run, all documents together.
    analyses: AtomicU64,
    /// What a running program compiled from a file, by the file's path
    /// (`shaderdbg/runtimeContext`, from the debugger): such a document is
    /// analysed in that context.
    runtime: Mutex<HashMap<PathBuf, Arc<String>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

/// Runs engine work; a panic becomes an internal error of this one request.
fn guard<T>(what: &str, f: impl FnOnce() -> T) -> jsonrpc::Result<T> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(|p| jsonrpc::Error {
        code: jsonrpc::ErrorCode::InternalError,
        message: format!("{what} failed: {}", panic_text(&*p)).into(),
        data: None,
    })
}

fn lang_of(uri: &str, language_id: &str) -> Lang {
    if language_id.eq_ignore_ascii_case("wgsl") || uri.to_ascii_lowercase().ends_with(".wgsl") {
        Lang::Wgsl
    } else {
        Lang::Glsl
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OpenDoc {
    uri: String,
    #[serde(default)]
    language_id: String,
    #[serde(default)]
    version: i32,
    text: String,
}

#[derive(Deserialize)]
struct OpenParams {
    #[serde(rename = "textDocument")]
    doc: OpenDoc,
}

#[derive(Deserialize)]
struct VersionedId {
    uri: String,
    #[serde(default)]
    version: Option<i32>,
}

#[derive(Deserialize)]
struct Pos {
    line: u32,
    character: u32,
}

#[derive(Deserialize)]
struct Rng {
    start: Pos,
    end: Pos,
}

#[derive(Deserialize)]
struct Change {
    range: Option<Rng>,
    text: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChangeParams {
    text_document: VersionedId,
    content_changes: Vec<Change>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CloseParams {
    text_document: VersionedId,
}

impl State {
    pub fn new() -> Arc<State> {
        Arc::new(State {
            client: OnceLock::new(),
            settings: RwLock::new(Arc::new(Resolved::default())),
            root: RwLock::new(None),
            docs: Mutex::new(HashMap::new()),
            tick: AtomicU64::new(0),
            workspace: Mutex::new(None),
            analyses: AtomicU64::new(0),
            runtime: Mutex::new(HashMap::new()),
        })
    }

    fn settings(&self) -> Arc<Resolved> {
        self.settings
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The settings a document is analysed with: in the context of what a
    /// running program compiled from it, when the debugger said so.
    fn settings_for(&self, path: Option<&std::path::Path>, text: &str) -> Arc<Resolved> {
        let settings = self.settings();
        let runtime = path.and_then(|p| lock(&self.runtime).get(p).cloned());
        match runtime.and_then(|r| settings.in_runtime_context(&r, text)) {
            Some(s) => Arc::new(s),
            None => settings,
        }
    }

    /// Sets (or with `None` forgets) what a running program compiled from
    /// `path`, and analyses the documents of that file again.
    fn set_runtime_source(self: &Arc<Self>, path: PathBuf, source: Option<String>) {
        let path = glsl::normalize(&path);
        match source {
            Some(s) => lock(&self.runtime).insert(path.clone(), Arc::new(s)),
            None => lock(&self.runtime).remove(&path),
        };
        let uris: Vec<String> = lock(&self.docs)
            .iter()
            .filter(|(_, d)| d.path.as_ref() == Some(&path))
            .map(|(u, d)| {
                d.generation.fetch_add(1, Ordering::SeqCst);
                u.clone()
            })
            .collect();
        for u in uris {
            self.schedule(&u);
        }
    }

    /// Resolves `config` against `root` and makes it the settings; its
    /// problems are logged.
    fn set_settings(&self, config: Config, root: Option<&std::path::Path>) {
        let resolved = Resolved::new(config, root);
        for p in &resolved.problems {
            self.log(MessageType::Warning, p.clone());
        }
        *self.settings.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(resolved);
    }

    fn log(&self, kind: MessageType, msg: String) {
        if let Some(c) = self.client.get().cloned() {
            tokio::spawn(async move { c.log_message(kind, msg).await });
        }
    }

    /// Applies `didOpen`/`didChange`/`didClose` in arrival order.
    fn notification(self: &Arc<Self>, method: &str, params: Option<&serde_json::Value>) {
        let params = params.cloned().unwrap_or(serde_json::Value::Null);
        let result: Result<(), NotificationError> = match method {
            "textDocument/didOpen" => serde_json::from_value::<OpenParams>(params)
                .map(|p| self.open(p.doc))
                .map_err(Into::into),
            "textDocument/didChange" => serde_json::from_value::<ChangeParams>(params)
                .map_err(Into::into)
                .and_then(|p| self.change(p)),
            "textDocument/didClose" => serde_json::from_value::<CloseParams>(params)
                .map(|p| self.close(&p.text_document.uri))
                .map_err(Into::into),
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.log(MessageType::Error, format!("{method}: {e}"));
        }
    }

    fn open(self: &Arc<Self>, d: OpenDoc) {
        let lang = lang_of(&d.uri, &d.language_id);
        let path = crate::uri_to_path(&d.uri).map(|p| glsl::normalize(&p));
        let (tx, _) = watch::channel(None);
        let doc = Doc {
            uri: Uri(d.uri.clone()),
            path,
            lang,
            version: d.version,
            lines: Arc::new(LineIndex::new(&d.text)),
            text: Arc::new(d.text),
            running: false,
            dirty: false,
            generation: Arc::new(AtomicU64::new(0)),
            snapshot: tx,
            last_tree: None,
            last_wgsl: None,
            includes: Vec::new(),
            symbols: Arc::new(Vec::new()),
            seq: 0,
            last_used: self.tick.fetch_add(1, Ordering::Relaxed),
            evicted: false,
            published: None,
            used: Vec::new(),
            analyses: 0,
        };
        lock(&self.docs).insert(d.uri.clone(), doc);
        self.schedule(&d.uri);
        self.schedule_dependents(&d.uri);
    }

    /// The workspace's include graph (scanned on first use).
    fn workspace(&self) -> Arc<IncludeGraph> {
        if let Some(g) = lock(&self.workspace).as_ref() {
            return g.clone();
        }
        let root = self.root.read().unwrap_or_else(|e| e.into_inner()).clone();
        let graph = Arc::new(match root {
            Some(r) => scan_workspace(&r, &self.settings()),
            None => IncludeGraph::new(),
        });
        *lock(&self.workspace) = Some(graph.clone());
        graph
    }

    /// The context to analyse an include-only document in: from the open
    /// documents and the workspace files that include it.
    fn context_for(
        &self,
        path: &std::path::Path,
        open: &HashMap<PathBuf, Arc<String>>,
        settings: &Resolved,
    ) -> Option<glsl::Context> {
        let graph = self.workspace();
        let includers_of = |target: &std::path::Path| -> Vec<(PathBuf, Arc<String>)> {
            let mut out: Vec<(PathBuf, Arc<String>)> = open
                .iter()
                .filter(|(p, t)| {
                    glsl::direct_includes(p, t, settings)
                        .iter()
                        .any(|i| i == target)
                })
                .map(|(p, t)| (p.clone(), t.clone()))
                .collect();
            for (p, incs) in graph.iter() {
                if open.contains_key(p) || !incs.iter().any(|i| i == target) {
                    continue;
                }
                if let Ok(b) = std::fs::read(p) {
                    out.push((
                        p.clone(),
                        Arc::new(String::from_utf8_lossy(&b).into_owned()),
                    ));
                }
            }
            out
        };
        glsl::Context::build(path, &includers_of, settings)
    }

    fn change(self: &Arc<Self>, p: ChangeParams) -> Result<(), NotificationError> {
        let uri = p.text_document.uri;
        {
            let mut docs = lock(&self.docs);
            let doc = docs
                .get_mut(&uri)
                .ok_or_else(|| NotificationError::NotOpen(uri.clone()))?;
            let mut text = (*doc.text).clone();
            let mut lines = doc.lines.clone();
            for c in p.content_changes {
                match c.range {
                    None => text = c.text,
                    Some(r) => {
                        let pos = |p: Pos| Position::new(p.line, p.character);
                        let s = lines.offset_clamped(&text, pos(r.start));
                        let e = lines.offset_clamped(&text, pos(r.end)).max(s);
                        text.replace_range(s..e, &c.text);
                    }
                }
                lines = Arc::new(LineIndex::new(&text));
            }
            if let Some(v) = p.text_document.version {
                doc.version = v;
            }
            doc.last_used = self.tick.fetch_add(1, Ordering::Relaxed);
            if *doc.text == text {
                // Nothing to analyse again: the newest analysis (or the one
                // running) stands for this version too.
                if !doc.running {
                    let version = doc.version;
                    doc.snapshot.send_modify(|s| {
                        if let Some(old) = s.as_ref() {
                            *s = Some(Arc::new(Snapshot {
                                version,
                                seq: old.seq,
                                glsl: old.glsl.clone(),
                                wgsl: old.wgsl.clone(),
                            }));
                        }
                    });
                }
                return Ok(());
            }
            doc.text = Arc::new(text);
            doc.lines = lines;
            doc.generation.fetch_add(1, Ordering::SeqCst);
        }
        self.schedule(&uri);
        self.schedule_dependents(&uri);
        Ok(())
    }

    fn close(self: &Arc<Self>, uri: &str) {
        let removed = lock(&self.docs).remove(uri);
        if let Some(doc) = removed {
            doc.generation.fetch_add(1, Ordering::SeqCst);
            if let Some(c) = self.client.get().cloned() {
                let uri = doc.uri.clone();
                tokio::spawn(async move { c.publish_diagnostics(uri, Vec::new(), None).await });
            }
            drop(doc);
            tokio::task::spawn_blocking(trim_heap);
        }
        self.schedule_dependents(uri);
    }

    /// Re-analyses open documents that read the file of `uri` (include it, or
    /// are included by it), unless the text they read is still its text.
    fn schedule_dependents(self: &Arc<Self>, uri: &str) {
        let Some(path) = crate::uri_to_path(uri).map(|p| glsl::normalize(&p)) else {
            return;
        };
        type Deps = Vec<(String, Option<u64>)>;
        let (deps, open_text): (Deps, Option<Arc<String>>) = {
            let docs = lock(&self.docs);
            let deps = docs
                .iter()
                .filter(|(u, d)| u.as_str() != uri && d.includes.contains(&path))
                .map(|(u, d)| {
                    let h = d.used.iter().find(|(p, _)| *p == path).map(|(_, h)| *h);
                    (u.clone(), h)
                })
                .collect();
            let open_text = docs
                .values()
                .find(|d| d.path.as_ref() == Some(&path))
                .map(|d| d.text.clone());
            (deps, open_text)
        };
        if deps.is_empty() {
            return;
        }
        // The file's text as the dependents will read it now.
        let now = open_text.map(|t| text_hash(&t)).or_else(|| {
            std::fs::read(&path)
                .ok()
                .map(|b| text_hash(&String::from_utf8_lossy(&b)))
        });
        let deps: Vec<String> = deps
            .into_iter()
            .filter(|(_, used)| used.is_none() || *used != now)
            .map(|(u, _)| u)
            .collect();
        for u in deps {
            if let Some(d) = lock(&self.docs).get(&u) {
                d.generation.fetch_add(1, Ordering::SeqCst);
            }
            self.schedule(&u);
        }
    }

    fn schedule(self: &Arc<Self>, uri: &str) {
        {
            let mut docs = lock(&self.docs);
            let Some(doc) = docs.get_mut(uri) else {
                return;
            };
            if doc.running {
                doc.dirty = true;
                return;
            }
            doc.running = true;
            doc.dirty = false;
        }
        let state = self.clone();
        let uri = uri.to_string();
        tokio::spawn(async move { state.worker(uri).await });
    }

    /// Analyses the document until its newest text is analysed.
    async fn worker(self: Arc<Self>, uri: String) {
        loop {
            let job = {
                let mut docs = lock(&self.docs);
                let Some(doc) = docs.get_mut(&uri) else {
                    return;
                };
                doc.dirty = false;
                let open: HashMap<PathBuf, Arc<String>> = docs
                    .values()
                    .filter_map(|d| Some((d.path.clone()?, d.text.clone())))
                    .collect();
                let doc = &docs[&uri];
                (
                    doc.version,
                    doc.text.clone(),
                    doc.path.clone(),
                    doc.lang,
                    doc.generation.clone(),
                    doc.generation.load(Ordering::SeqCst),
                    open,
                )
            };
            let (version, text, path, lang, generation, gen0, open) = job;
            let settings = self.settings_for(path.as_deref(), &text);
            let state = self.clone();
            let analysed_text = text.clone();
            let doc_uri = Uri(uri.clone());
            let work = tokio::task::spawn_blocking(move || {
                std::panic::catch_unwind(AssertUnwindSafe(|| {
                    let lines = LineIndex::new(&text);
                    match lang {
                        Lang::Glsl => {
                            let cancelled = || generation.load(Ordering::SeqCst) != gen0;
                            // An include-only document: in the context of a
                            // file that includes it.
                            let context = match path.as_deref() {
                                Some(p) if !shaderdbg_glsl::ide::has_version(&text) => {
                                    state.context_for(p, &open, &settings)
                                }
                                _ => None,
                            };
                            let out = glsl::analyze(&glsl::Input {
                                path: path.as_deref(),
                                text: text.clone(),
                                settings: &settings,
                                open: &open,
                                context: context.as_ref(),
                                cancelled: &cancelled,
                            });
                            state.analyses.fetch_add(1, Ordering::Relaxed);
                            let symbols = out.tree.as_ref().map(|t| {
                                features::document_symbols(&features::View::new(
                                    t, &text, &lines, &doc_uri,
                                ))
                            });
                            (out.diags, out.tree, None, out.includes, symbols)
                        }
                        Lang::Wgsl => {
                            let a = wgsl::analyze(&text, settings.config.max_file_size());
                            let symbols =
                                wgsl::View::new(&text, &lines, &doc_uri, a.types.as_deref())
                                    .document_symbols();
                            (a.diags, None, a.types, Vec::new(), Some(symbols))
                        }
                    }
                }))
                .map_err(|p| panic_text(&*p))
            })
            .await;
            let result = match work {
                Ok(Ok(r)) => r,
                Ok(Err(msg)) => (
                    vec![Diag::new(
                        0,
                        0,
                        DiagnosticSeverity::Error,
                        format!("shaderdbg-lsp: internal error while analysing this file: {msg}"),
                    )],
                    None,
                    None,
                    Vec::new(),
                    None,
                ),
                Err(e) => (
                    vec![Diag::new(
                        0,
                        0,
                        DiagnosticSeverity::Error,
                        format!("shaderdbg-lsp: internal error while analysing this file: {e}"),
                    )],
                    None,
                    None,
                    Vec::new(),
                    None,
                ),
            };
            let (diags, tree, types, includes, symbols) = result;
            // Store what it found; publish if it is still the current version.
            // Old trees are dropped after publishing, off the runtime's threads
            // (a large tree takes milliseconds to free).
            let mut garbage: Vec<Box<dyn Send>> = Vec::new();
            let publish = {
                let mut docs = lock(&self.docs);
                let Some(doc) = docs.get_mut(&uri) else {
                    return;
                };
                let stale = doc.generation.load(Ordering::SeqCst) != gen0;
                doc.analyses += 1;
                // The version this analysis stands for: the current one when
                // the text is still the analysed text.
                let version = if *doc.text == *analysed_text {
                    doc.version
                } else {
                    version
                };
                if let Some(t) = &tree {
                    if let Some(old) = doc.last_tree.replace(t.clone()) {
                        garbage.push(Box::new(old));
                    }
                }
                if let Some(t) = &types {
                    doc.last_wgsl = Some(t.clone());
                }
                if let Some(syms) = symbols {
                    doc.symbols = Arc::new(syms);
                }
                if !stale || tree.is_some() || types.is_some() {
                    doc.used = tree
                        .as_ref()
                        .map(|t| used_texts(t, &includes))
                        .unwrap_or_default();
                    doc.includes = includes;
                    doc.evicted = false;
                    doc.seq += 1;
                    let snap = Snapshot {
                        version,
                        seq: doc.seq,
                        glsl: doc.last_tree.clone(),
                        wgsl: doc.last_wgsl.clone(),
                    };
                    let old = doc.snapshot.send_replace(Some(Arc::new(snap)));
                    garbage.push(Box::new(old));
                }
                let evicted = evict(&mut docs, &uri, &mut garbage);
                let doc = docs.get_mut(&uri).expect("still open");
                let mut publish = None;
                if !stale && doc.version == version {
                    let converted: Vec<Diagnostic> = diags
                        .iter()
                        .map(|d| to_lsp(d, &analysed_text, &doc.lines))
                        .collect();
                    // Not again what the client has (a tree rebuilt after
                    // eviction, an includer re-checked with the same result).
                    let new = (version, converted);
                    if doc.published.as_ref() != Some(&new) {
                        publish = Some((doc.uri.clone(), new.1.clone(), version));
                        doc.published = Some(new);
                    }
                }
                (publish, evicted)
            };
            let (publish, evicted) = publish;
            if let (Some((u, d, version)), Some(c)) = (publish, self.client.get()) {
                c.publish_diagnostics(u, d, Some(version)).await;
            }
            let trim = evicted || analysed_text.len() > 64 << 10;
            if !garbage.is_empty() || trim {
                tokio::task::spawn_blocking(move || {
                    drop(garbage);
                    if trim {
                        trim_heap();
                    }
                });
            }
            let mut docs = lock(&self.docs);
            let Some(doc) = docs.get_mut(&uri) else {
                return;
            };
            if !doc.dirty {
                doc.running = false;
                return;
            }
        }
    }

    /// The document's current text and the newest analysis, waiting up to
    /// `wait` for the analysis of the current version.
    async fn view(
        self: &Arc<Self>,
        uri: &Uri,
    ) -> jsonrpc::Result<(Arc<String>, Arc<LineIndex>, Lang, Option<Arc<Snapshot>>)> {
        let (text, lines, lang, version, reanalyse, mut rx) = {
            let mut docs = lock(&self.docs);
            let doc = docs
                .get_mut(uri.0.as_str())
                .ok_or_else(|| jsonrpc::Error::invalid_params(format!("{} is not open", uri.0)))?;
            doc.last_used = self.tick.fetch_add(1, Ordering::Relaxed);
            // A document whose tree was dropped: analyse it again and wait
            // for that analysis.
            let reanalyse = (doc.evicted && doc.lang == Lang::Glsl).then(|| {
                doc.evicted = false;
                doc.seq
            });
            (
                doc.text.clone(),
                doc.lines.clone(),
                doc.lang,
                doc.version,
                reanalyse,
                doc.snapshot.subscribe(),
            )
        };
        if reanalyse.is_some() {
            self.schedule(&uri.0);
        }
        let _ = tokio::time::timeout(
            WAIT,
            rx.wait_for(|s| {
                s.as_ref().is_some_and(|s| match reanalyse {
                    Some(seq) => s.seq > seq,
                    None => s.version >= version,
                })
            }),
        )
        .await;
        let snap = rx.borrow().clone();
        Ok((text, lines, lang, snap))
    }
}

/// The hashes of the texts of the other files an analysis read.
fn used_texts(tree: &Tree, includes: &[PathBuf]) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    for p in includes {
        let text = tree
            .files
            .iter()
            .find(|f| &f.path == p)
            .map(|f| f.text.clone())
            .or_else(|| {
                let c = tree.context.as_ref()?;
                c.pieces
                    .iter()
                    .find(|x| &x.file.path == p)
                    .map(|x| x.file.text.clone())
            });
        if let Some(t) = text {
            out.push((p.clone(), text_hash(&t)));
        }
    }
    out
}

/// A document's text with its newest GLSL tree.
pub struct GlslDoc {
    pub uri: Uri,
    pub path: Option<PathBuf>,
    pub text: Arc<String>,
    pub lines: Arc<LineIndex>,
    pub tree: Arc<Tree>,
}

impl GlslDoc {
    fn view<'a>(&'a self, uri: &'a Uri) -> features::View<'a> {
        features::View::new(&self.tree, &self.text, &self.lines, uri)
    }
}

impl State {
    /// A GLSL document with a tree (waiting for its analysis like requests do).
    async fn glsl_view(self: &Arc<Self>, uri: &Uri) -> jsonrpc::Result<Option<GlslDoc>> {
        let (text, lines, lang, snap) = self.view(uri).await?;
        if lang != Lang::Glsl {
            return Ok(None);
        }
        let path = lock(&self.docs)
            .get(uri.0.as_str())
            .and_then(|d| d.path.clone());
        Ok(snap.and_then(|s| s.glsl.clone()).map(|tree| GlslDoc {
            uri: uri.clone(),
            path,
            text,
            lines,
            tree,
        }))
    }

    /// The open GLSL documents other than `uri` that read `file` (include it,
    /// or are it).
    async fn related(self: &Arc<Self>, uri: &Uri, file: Option<&std::path::Path>) -> Vec<GlslDoc> {
        let Some(file) = file else {
            return Vec::new();
        };
        let mut uris: Vec<Uri> = lock(&self.docs)
            .values()
            .filter(|d| d.uri != *uri && d.lang == Lang::Glsl)
            .filter(|d| d.path.as_deref() == Some(file) || d.includes.iter().any(|p| p == file))
            .map(|d| d.uri.clone())
            .collect();
        uris.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Vec::new();
        for u in uris {
            if let Ok(Some(d)) = self.glsl_view(&u).await {
                out.push(d);
            }
        }
        out
    }

    /// The open documents' texts by path.
    fn open_texts(&self) -> HashMap<PathBuf, Arc<String>> {
        lock(&self.docs)
            .values()
            .filter_map(|d| Some((d.path.clone()?, d.text.clone())))
            .collect()
    }

    /// Analyses run so far: in all and per open document.
    pub fn analysis_stats(&self) -> serde_json::Value {
        let docs = lock(&self.docs);
        let per: serde_json::Map<String, serde_json::Value> = docs
            .iter()
            .map(|(u, d)| (u.clone(), serde_json::json!(d.analyses)))
            .collect();
        // Analyses running or scheduled (dependents of a change run in the
        // background): counts are final when this is 0.
        let busy = docs.values().filter(|d| d.running || d.dirty).count();
        serde_json::json!({
            "total": self.analyses.load(Ordering::Relaxed),
            "documents": per,
            "busy": busy,
        })
    }
}

/// Drops the trees of the least recently used GLSL documents beyond
/// [`MAX_TREES`] (never the one being analysed, `current`). Whether it did.
fn evict(docs: &mut HashMap<String, Doc>, current: &str, garbage: &mut Vec<Box<dyn Send>>) -> bool {
    let mut with_trees: Vec<(u64, String)> = docs
        .iter()
        .filter(|(u, d)| d.last_tree.is_some() && u.as_str() != current && !d.running)
        .map(|(u, d)| (d.last_used, u.clone()))
        .collect();
    if with_trees.len() < MAX_TREES {
        return false;
    }
    with_trees.sort();
    let excess = with_trees.len() + 1 - MAX_TREES;
    for (_, u) in with_trees.into_iter().take(excess) {
        if let Some(d) = docs.get_mut(&u) {
            if let Some(old) = d.last_tree.take() {
                garbage.push(Box::new(old));
            }
            d.evicted = true;
            d.seq += 1;
            let snap = Snapshot {
                version: d.version,
                seq: d.seq,
                glsl: None,
                wgsl: d.last_wgsl.clone(),
            };
            garbage.push(Box::new(d.snapshot.send_replace(Some(Arc::new(snap)))));
        }
    }
    true
}

/// Why a document notification was not applied (logged; notifications have
/// no answer).
#[derive(Debug, thiserror::Error)]
enum NotificationError {
    #[error(transparent)]
    Malformed(#[from] serde_json::Error),
    #[error("{0} is not open")]
    NotOpen(String),
}

/// A refused rename as the client sees it: invalid parameters, with why.
fn invalid_params(e: features::RenameError) -> jsonrpc::Error {
    jsonrpc::Error::invalid_params(e.to_string())
}

/// A document diagnostic as LSP wants it.
fn to_lsp(d: &Diag, text: &str, lines: &LineIndex) -> Diagnostic {
    let related = (!d.related.is_empty()).then(|| {
        d.related
            .iter()
            .map(|(path, range, msg)| DiagnosticRelatedInformation {
                location: Location {
                    uri: crate::path_to_uri(path),
                    range: *range,
                },
                message: msg.clone(),
            })
            .collect()
    });
    Diagnostic {
        range: lines.range(text, d.start.min(text.len()), d.end.min(text.len())),
        severity: Some(d.severity),
        code: None,
        code_description: None,
        source: Some("shaderdbg".into()),
        message: Message::String(d.message.clone()),
        tags: None,
        related_information: related,
        data: None,
    }
}

// ---- the ordering wrapper ---------------------------------------------------------------

type BoxFuture = Pin<Box<dyn Future<Output = Result<Option<Response>, ExitedError>> + Send>>;

/// Applies document changes as they arrive; passes everything else on.
pub struct Ordered<S> {
    pub inner: S,
    pub state: Arc<State>,
}

impl<S> tower_service::Service<Request> for Ordered<S>
where
    S: tower_service::Service<Request, Response = Option<Response>, Error = ExitedError>,
    S::Future: Send + 'static,
{
    type Response = Option<Response>;
    type Error = ExitedError;
    type Future = BoxFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ExitedError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> BoxFuture {
        match req.method() {
            "textDocument/didOpen" | "textDocument/didChange" | "textDocument/didClose"
                if req.id().is_none() =>
            {
                let state = self.state.clone();
                let method = req.method().to_string();
                if let Err(p) = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    state.notification(&method, req.params())
                })) {
                    state.log(
                        MessageType::Error,
                        format!("{method}: internal error: {}", panic_text(&*p)),
                    );
                }
                Box::pin(std::future::ready(Ok(None)))
            }
            _ => Box::pin(self.inner.call(req)),
        }
    }
}

// ---- the language server ---------------------------------------------------------------

pub struct Backend {
    pub state: Arc<State>,
}

fn offset_of(text: &str, lines: &LineIndex, pos: Position) -> jsonrpc::Result<usize> {
    lines.offset(text, pos).ok_or_else(|| {
        jsonrpc::Error::invalid_params(format!(
            "position {}:{} is outside the document ({} lines)",
            pos.line,
            pos.character,
            lines.line_count()
        ))
    })
}

macro_rules! glsl_or_wgsl {
    // At a position, the request both languages answer with a function of
    // the same name: `features::$f(&view, offset)`, `wgsl_view.$f(offset)`.
    ($self:ident, at $tdp:expr, $f:ident) => {
        glsl_or_wgsl!($self, at $tdp, |off, v| features::$f(&v, off), |off, w| w.$f(off))
    };
    // The same for a whole document: `features::$f(&view)`, `wgsl_view.$f()`.
    ($self:ident, doc $uri:expr, $f:ident) => {
        glsl_or_wgsl!($self, &$uri, |text, lines, v| features::$f(&v), |w| w.$f())
    };
    // At a position: `$off` is its offset in the current text.
    ($self:ident, at $tdp:expr, |$off:ident, $glsl:ident| $g:expr, |$off2:ident, $wview:ident| $w:expr) => {{
        let tdp: &TextDocumentPositionParams = &$tdp;
        glsl_or_wgsl!(
            $self,
            &tdp.text_document.uri,
            |text, lines, $glsl| {
                let $off = offset_of(text, lines, tdp.position)?;
                $g
            },
            |$wview| {
                let $off2 = offset_of(text, lines, tdp.position)?;
                $w
            }
        )
    }};
    ($self:ident, $uri:expr, |$text:ident, $lines:ident, $glsl:ident| $g:expr, |$wview:ident| $w:expr) => {{
        let uri: &Uri = $uri;
        let (text, lines, lang, snap) = $self.state.view(uri).await?;
        let $text: &str = &text;
        let $lines: &LineIndex = &lines;
        match lang {
            Lang::Glsl => match snap.and_then(|s| s.glsl.clone()) {
                Some(tree) => guard("request", || -> jsonrpc::Result<_> {
                    let $glsl = features::View::new(&tree, $text, $lines, uri);
                    Ok($g)
                })??,
                None => Default::default(),
            },
            Lang::Wgsl => {
                let types = snap.and_then(|s| s.wgsl.clone());
                guard("request", || -> jsonrpc::Result<_> {
                    let $wview = wgsl::View::new($text, $lines, uri, types.as_deref());
                    Ok($w)
                })??
            }
        }
    }};
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> jsonrpc::Result<InitializeResult> {
        #[allow(deprecated)]
        let root = params
            .workspace_folders_initialize_params
            .workspace_folders
            .as_ref()
            .and_then(|f| match f {
                WorkspaceFolders::WorkspaceFolderList(list) => list.first().cloned(),
                _ => None,
            })
            .and_then(|f| crate::uri_to_path(&f.uri.0))
            .or_else(|| {
                params
                    .root_uri
                    .as_ref()
                    .and_then(|u| crate::uri_to_path(&u.0))
            });
        *self.state.root.write().unwrap_or_else(|e| e.into_inner()) = root.clone();
        let config = match params.initialization_options.as_ref() {
            Some(v) => Config::from_json(v).unwrap_or_else(|e| {
                self.state.log(MessageType::Error, e.to_string());
                Config::default()
            }),
            None => Config::default(),
        };
        self.state.set_settings(config, root.as_deref());
        let legend = SemanticTokensLegend {
            token_types: features::TOKEN_TYPES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            token_modifiers: features::TOKEN_MODIFIERS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        };
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSync::Options(TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::Incremental),
                    ..Default::default()
                })),
                hover_provider: Some(HoverProvider::Bool(true)),
                definition_provider: Some(DefinitionProvider::Bool(true)),
                references_provider: Some(ReferencesProvider::Bool(true)),
                document_highlight_provider: Some(DocumentHighlightProvider::Bool(true)),
                document_symbol_provider: Some(DocumentSymbolProvider::Bool(true)),
                workspace_symbol_provider: Some(WorkspaceSymbolProvider::Bool(true)),
                rename_provider: Some(RenameProvider::RenameOptions(RenameOptions {
                    prepare_provider: Some(true),
                    ..Default::default()
                })),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![".".into()]),
                    ..Default::default()
                }),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".into(), ",".into()]),
                    ..Default::default()
                }),
                semantic_tokens_provider: Some(SemanticTokensProvider::SemanticTokensOptions(
                    SemanticTokensOptions {
                        legend,
                        range: None,
                        full: Some(Full::Bool(true)),
                        ..Default::default()
                    },
                )),
                folding_range_provider: Some(FoldingRangeProvider::Bool(true)),
                inline_value_provider: Some(InlineValueProvider::Bool(true)),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "shaderdbg-lsp".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        if let Some(c) = self.state.client.get() {
            c.log_message(MessageType::Info, "shaderdbg-lsp ready")
                .await;
        }
    }

    async fn shutdown(&self) -> jsonrpc::Result<()> {
        Ok(())
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let settings = &params.settings;
        // Only settings meant for us (clients also send `{}` or other sections).
        if !Config::is_ours(settings) {
            return;
        }
        match Config::from_json(settings) {
            Ok(config) => {
                let root = self
                    .state
                    .root
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                self.state.set_settings(config, root.as_deref());
                *lock(&self.state.workspace) = None;
                let uris: Vec<String> = lock(&self.state.docs).keys().cloned().collect();
                for u in uris {
                    if let Some(d) = lock(&self.state.docs).get(&u) {
                        d.generation.fetch_add(1, Ordering::SeqCst);
                    }
                    self.state.schedule(&u);
                }
            }
            Err(e) => self.state.log(MessageType::Error, e.to_string()),
        }
    }

    async fn hover(&self, params: HoverParams) -> jsonrpc::Result<Option<Hover>> {
        Ok(glsl_or_wgsl!(self, at params.text_document_position_params, hover))
    }

    async fn goto_definition(
        &self,
        params: DefinitionParams,
    ) -> jsonrpc::Result<Option<DefinitionResponse>> {
        let locs: Vec<Location> =
            glsl_or_wgsl!(self, at params.text_document_position_params, definition);
        Ok(
            (!locs.is_empty()).then_some(DefinitionResponse::Definition(Definition::LocationList(
                locs,
            ))),
        )
    }

    async fn references(&self, params: ReferenceParams) -> jsonrpc::Result<Option<Vec<Location>>> {
        let p = params.text_document_position_params;
        let include = params.context.include_declaration;
        if let Some(locs) = self
            .wgsl_at(&p, |off, w| w.references(off, include))
            .await?
        {
            return Ok(Some(locs));
        }
        let uri = &p.text_document.uri;
        let Some(first) = self.state.glsl_view(uri).await? else {
            return Ok(Some(Vec::new()));
        };
        let found = guard("references", || -> jsonrpc::Result<_> {
            let v = first.view(uri);
            let off = offset_of(&first.text, &first.lines, p.position)?;
            Ok(features::target_at_doc(&v, off).map(|(t, _)| {
                (
                    features::locations(&v, &t, include),
                    features::declaration_site(&v, &t),
                    t.name(&first.tree),
                )
            }))
        })??;
        let Some((mut locs, site, name)) = found else {
            return Ok(Some(Vec::new()));
        };
        // The other open documents that read the file it is declared in.
        if let Some(site) = site {
            let site = (site.0.or_else(|| first.path.clone()), site.1);
            for other in self.state.related(uri, site.0.as_deref()).await {
                let more = guard("references", || {
                    let v = other.view(&other.uri);
                    features::target_at_site(&v, other.path.as_deref(), &site)
                        .filter(|t| t.name(&other.tree) == name)
                        .map(|t| features::locations(&v, &t, include))
                        .unwrap_or_default()
                })?;
                for l in more {
                    if !locs.contains(&l) {
                        locs.push(l);
                    }
                }
            }
        }
        Ok(Some(locs))
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> jsonrpc::Result<Option<Vec<DocumentHighlight>>> {
        let hl: Vec<DocumentHighlight> =
            glsl_or_wgsl!(self, at params.text_document_position_params, highlights);
        Ok(Some(hl))
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> jsonrpc::Result<Option<PrepareRenameResult>> {
        if let Some(r) = self
            .wgsl_at(&params, |off, w| w.prepare_rename(off))
            .await?
        {
            return Ok(r.map(PrepareRenameResult::Range));
        }
        let uri = &params.text_document.uri;
        let Some(first) = self.state.glsl_view(uri).await? else {
            return Ok(None);
        };
        let open = self.state.open_texts();
        let open_fn = |p: &std::path::Path| open.get(p).cloned();
        let r = guard("prepareRename", || -> jsonrpc::Result<_> {
            let v = first.view(uri);
            let off = offset_of(&first.text, &first.lines, params.position)?;
            features::prepare_rename(&v, off, &open_fn).map_err(invalid_params)
        })??;
        Ok(r.map(PrepareRenameResult::Range))
    }

    async fn rename(&self, params: RenameParams) -> jsonrpc::Result<Option<WorkspaceEdit>> {
        let p = params.text_document_position_params;
        let uri = &p.text_document.uri;
        let new_name = params.new_name.as_str();
        if let Some(edits) = self.wgsl_at(&p, |off, w| w.rename(off, new_name)).await? {
            let edits = edits.map_err(|e| jsonrpc::Error::invalid_params(e.to_string()))?;
            let changes = HashMap::from([(uri.clone(), edits)]);
            return Ok(Some(WorkspaceEdit {
                changes: Some(changes),
                ..Default::default()
            }));
        }
        let Some(first) = self.state.glsl_view(uri).await? else {
            return Ok(None);
        };
        let open = self.state.open_texts();
        let open_fn = |p: &std::path::Path| open.get(p).cloned();
        let found = guard("rename", || -> jsonrpc::Result<_> {
            let v = first.view(uri);
            let off = offset_of(&first.text, &first.lines, p.position)?;
            let Some((t, _)) =
                features::rename_target(&v, off, &open_fn).map_err(invalid_params)?
            else {
                return Ok(None);
            };
            nav::check_new_name(new_name)
                .map_err(|e| invalid_params(features::RenameError::from(e)))?;
            let edits =
                features::rename_edits(&v, &t, new_name, &open_fn).map_err(invalid_params)?;
            Ok(Some((
                edits,
                features::declaration_site(&v, &t),
                t.name(&first.tree),
            )))
        })??;
        let Some((mut edits, site, name)) = found else {
            return Ok(None);
        };
        // Uses in the other open documents that read the declaring file.
        if let Some(site) = site {
            let site = (site.0.or_else(|| first.path.clone()), site.1);
            for other in self.state.related(uri, site.0.as_deref()).await {
                let more = guard("rename", || -> jsonrpc::Result<_> {
                    let v = other.view(&other.uri);
                    match features::target_at_site(&v, other.path.as_deref(), &site)
                        .filter(|t| t.name(&other.tree) == name)
                    {
                        Some(t) => features::rename_edits(&v, &t, new_name, &open_fn)
                            .map_err(invalid_params),
                        None => Ok(Vec::new()),
                    }
                })??;
                for e in more {
                    if !edits.contains(&e) {
                        edits.push(e);
                    }
                }
            }
        }
        let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
        for (u, e) in edits {
            changes.entry(u).or_default().push(e);
        }
        Ok(Some(WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        }))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> jsonrpc::Result<Option<DocumentSymbolResponse>> {
        let syms: Vec<DocumentSymbol> =
            glsl_or_wgsl!(self, doc params.text_document.uri, document_symbols);
        Ok(Some(DocumentSymbolResponse::DocumentSymbolList(syms)))
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> jsonrpc::Result<Option<WorkspaceSymbolResponse>> {
        let query = params.query.to_lowercase();
        // The symbols of each document's newest analysis (no waiting: this
        // answers for documents whose trees were dropped, too).
        let mut docs: Vec<(Uri, Arc<Vec<DocumentSymbol>>)> = lock(&self.state.docs)
            .values()
            .map(|d| (d.uri.clone(), d.symbols.clone()))
            .collect();
        docs.sort_by(|a, b| a.0 .0.cmp(&b.0 .0));
        let mut out = Vec::new();
        for (uri, syms) in docs {
            for s in syms.iter() {
                if !fuzzy(&query, &s.name) {
                    continue;
                }
                out.push(WorkspaceSymbol {
                    location: WorkspaceSymbolLocation::Location(Location {
                        uri: uri.clone(),
                        range: s.selection_range,
                    }),
                    data: None,
                    base_symbol_information: BaseSymbolInformation {
                        name: s.name.clone(),
                        kind: s.kind,
                        tags: None,
                        container_name: uri.0.rsplit('/').next().map(str::to_string),
                    },
                });
            }
        }
        Ok(Some(WorkspaceSymbolResponse::WorkspaceSymbolList(out)))
    }

    async fn completion(
        &self,
        params: CompletionParams,
    ) -> jsonrpc::Result<Option<CompletionResponse>> {
        let items: Vec<CompletionItem> =
            glsl_or_wgsl!(self, at params.text_document_position_params, completion);
        Ok(Some(CompletionResponse::CompletionList(CompletionList {
            is_incomplete: false,
            item_defaults: None,
            apply_kind: None,
            items,
        })))
    }

    async fn signature_help(
        &self,
        params: SignatureHelpParams,
    ) -> jsonrpc::Result<Option<SignatureHelp>> {
        Ok(glsl_or_wgsl!(self, at params.text_document_position_params, signature_help))
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> jsonrpc::Result<Option<SemanticTokens>> {
        let data: Vec<SemanticToken> =
            glsl_or_wgsl!(self, doc params.text_document.uri, semantic_tokens);
        Ok(Some(SemanticTokens {
            result_id: None,
            data,
        }))
    }

    async fn folding_range(
        &self,
        params: FoldingRangeParams,
    ) -> jsonrpc::Result<Option<Vec<FoldingRange>>> {
        let (text, lines, _, _) = self.state.view(&params.text_document.uri).await?;
        guard("foldingRange", || {
            let mut out = Vec::new();
            for f in crate::text::folds(&text) {
                let (s, e) = (lines.line_of(f.start), lines.line_of(f.end));
                // A closing brace's line stays visible.
                let e = if f.comment || f.region {
                    e
                } else {
                    e.saturating_sub(1)
                };
                if e > s {
                    out.push(FoldingRange {
                        start_line: s as u32,
                        start_character: None,
                        end_line: e as u32,
                        end_character: None,
                        kind: if f.comment {
                            Some(FoldingRangeKind::Comment)
                        } else if f.region {
                            Some(FoldingRangeKind::Region)
                        } else {
                            None
                        },
                        collapsed_text: None,
                    });
                }
            }
            Some(out)
        })
    }

    async fn inline_value(
        &self,
        params: InlineValueParams,
    ) -> jsonrpc::Result<Option<Vec<InlineValue>>> {
        let values: Vec<InlineValue> = glsl_or_wgsl!(
            self,
            &params.text_document.uri,
            |text, lines, v| {
                let s = lines.offset_clamped(text, params.range.start);
                let e = lines.offset_clamped(text, params.range.end);
                let stop = offset_of(text, lines, params.context.stopped_location.start)?;
                features::inline_values(&v, (s, e), stop)
            },
            |w| w.inline_values(params.range, params.context.stopped_location.start)
        );
        Ok(Some(values))
    }
}

/// `shaderdbg/runtimeContext`: what a running program compiled from a file
/// (`source`), or `null` when the program is gone.
#[derive(Debug, serde::Deserialize)]
pub struct RuntimeContextParams {
    pub path: PathBuf,
    pub source: Option<String>,
}

impl Backend {
    /// `f` on the WGSL view of the document at a position, or `None` when
    /// the document is not WGSL.
    async fn wgsl_at<T>(
        &self,
        at: &TextDocumentPositionParams,
        f: impl FnOnce(usize, &wgsl::View) -> T,
    ) -> jsonrpc::Result<Option<T>> {
        let uri = &at.text_document.uri;
        let (text, lines, lang, snap) = self.state.view(uri).await?;
        if lang != Lang::Wgsl {
            return Ok(None);
        }
        let types = snap.and_then(|s| s.wgsl.clone());
        let off = offset_of(&text, &lines, at.position)?;
        guard("request", || {
            let v = wgsl::View::new(&text, &lines, uri, types.as_deref());
            Some(f(off, &v))
        })
    }

    /// `shaderdbg/analysisStats`: how many analyses ran (for the tests and
    /// the benchmark of incremental analysis).
    async fn analysis_stats(&self) -> jsonrpc::Result<serde_json::Value> {
        Ok(self.state.analysis_stats())
    }

    /// `shaderdbg/runtimeContext` (a notification from the editor, which
    /// relays the debugger's `shaderdbg/runtimeSource` events).
    async fn runtime_context(&self, params: RuntimeContextParams) {
        self.state.set_runtime_source(params.path, params.source);
    }
}

/// Case-insensitive subsequence match (workspace symbol queries).
fn fuzzy(query: &str, name: &str) -> bool {
    let mut q = query.chars().peekable();
    for c in name.chars().flat_map(char::to_lowercase) {
        if q.peek() == Some(&c) {
            q.next();
        }
    }
    q.peek().is_none()
}

/// Serves LSP on the given streams until `exit`.
pub async fn serve<I, O>(input: I, output: O)
where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite,
{
    let state = State::new();
    let st = state.clone();
    let (service, socket) = tower_lsp_server::LspService::build(move |client| {
        let _ = st.client.set(client);
        Backend { state: st.clone() }
    })
    .custom_method("shaderdbg/analysisStats", Backend::analysis_stats)
    .custom_method("shaderdbg/runtimeContext", Backend::runtime_context)
    .finish();
    let service = Ordered {
        inner: service,
        state,
    };
    // Requests may wait for an analysis: let more than the default 4 be in
    // flight so that quick ones are not stuck behind them.
    tower_lsp_server::Server::new(input, output, socket)
        .concurrency_level(32)
        .serve(service)
        .await;
}
