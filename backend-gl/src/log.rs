//! Logging: `tracing` events go to the file named by `SHADERDBG_LOG`
//! (appended, one line per event), at the level named by
//! `SHADERDBG_LOG_LEVEL` (`error`, `warn`, `info`, `debug` (default),
//! `trace`). Without `SHADERDBG_LOG` nothing is installed and nothing is
//! written anywhere. The agent never writes to the application's stdout or
//! stderr.
//!
//! The subscriber is tiny and local to the agent's copy of `tracing` (a Rust
//! application that uses `tracing` itself keeps its own, separate global
//! subscriber).

use std::fs::File;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::Instant;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// Installs the file subscriber if `SHADERDBG_LOG` is set (once; cheap
/// afterwards).
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let Some(path) = std::env::var_os("SHADERDBG_LOG") else {
            return;
        };
        let Ok(file) = File::options().create(true).append(true).open(&path) else {
            return;
        };
        let level = match std::env::var("SHADERDBG_LOG_LEVEL").as_deref() {
            Ok("error") => Level::ERROR,
            Ok("warn") => Level::WARN,
            Ok("info") => Level::INFO,
            Ok("trace") => Level::TRACE,
            _ => Level::DEBUG,
        };
        let subscriber = FileSubscriber {
            file: Mutex::new(file),
            level,
            next_span: AtomicU64::new(1),
            start: Instant::now(),
        };
        // Fails only if a subscriber is already installed in this copy of
        // tracing (e.g. by a test); then that one is used.
        let _ = tracing::subscriber::set_global_default(subscriber);
        tracing::info!(
            pid = std::process::id(),
            exe = ?std::env::current_exe().ok(),
            "shaderdbg agent logging"
        );
    });
}

struct FileSubscriber {
    file: Mutex<File>,
    level: Level,
    next_span: AtomicU64,
    start: Instant,
}

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write as _;
        if field.name() == "message" {
            let _ = write!(self.0, " {value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        use std::fmt::Write as _;
        if field.name() == "message" {
            let _ = write!(self.0, " {value}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}

impl Subscriber for FileSubscriber {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= self.level
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(self.next_span.fetch_add(1, Ordering::Relaxed))
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let meta = event.metadata();
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        let line = format!(
            "{:>10.6} {} {} {:5} {}:{}\n",
            self.start.elapsed().as_secs_f64(),
            std::process::id(),
            // SAFETY: gettid has no preconditions.
            unsafe { libc::gettid() },
            meta.level(),
            meta.target(),
            fields.0
        );
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = f.write_all(line.as_bytes());
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}
