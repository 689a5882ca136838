//! Running child processes: echoing them, checking their status, finding the
//! workspace root and the right `cargo`.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use anyhow::{bail, Context, Result};

/// Prints one progress line to stderr, prefixed `xtask:`.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("xtask: {}", format_args!($($arg)*))
    };
}
pub(crate) use say;

/// The workspace root (the folder holding the root `Cargo.toml`). Every command
/// runs there, whatever the caller's current directory.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// A `cargo` command in the workspace root. Uses the cargo that runs xtask
/// (`$CARGO`), so every step uses the same toolchain.
pub fn cargo<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(root());
    cmd
}

/// Any other program, run in the workspace root.
pub fn program<I, S>(program: &str, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(root());
    cmd
}

/// Shows a command the way one would type it in a shell: explicit environment,
/// program (by its file name), arguments, quoted where needed, and the folder
/// when it is not the workspace root.
pub struct Shown<'a>(pub &'a Command);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cmd = self.0;
        let mut words: Vec<String> = Vec::new();
        let elsewhere = cmd.get_current_dir().filter(|dir| *dir != root());
        if let Some(dir) = elsewhere {
            let dir = dir.strip_prefix(root()).unwrap_or(dir);
            words.push(format!("(cd {} &&", quote(dir.as_os_str())));
        }
        for (key, value) in cmd.get_envs() {
            if let Some(value) = value {
                words.push(format!("{}={}", key.to_string_lossy(), quote(value)));
            }
        }
        let program = Path::new(cmd.get_program());
        words.push(quote(program.file_name().unwrap_or(program.as_os_str())));
        words.extend(cmd.get_args().map(quote));
        let mut line = words.join(" ");
        if elsewhere.is_some() {
            line.push(')');
        }
        f.write_str(&line)
    }
}

fn quote(word: &OsStr) -> String {
    let word = word.to_string_lossy();
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:+,@%".contains(c));
    if plain {
        word.into_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Runs a command with inherited stdio after echoing it; returns its status.
/// Fails only when the program could not be started.
pub fn status(cmd: &mut Command) -> Result<ExitStatus> {
    say!("$ {}", Shown(cmd));
    cmd.status()
        .with_context(|| format!("could not start `{}`", Shown(cmd)))
}

/// Runs a command with inherited stdio and fails unless it exits with 0.
pub fn run(cmd: &mut Command) -> Result<()> {
    let st = status(cmd)?;
    if !st.success() {
        bail!("`{}` failed ({})", Shown(cmd), describe(st));
    }
    Ok(())
}

/// Runs a command silently (no echo, output discarded) and tells whether it
/// started and exited with 0. For probes such as `cargo nextest --version`.
pub fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|st| st.success())
}

/// Runs a command silently and returns its stdout when it exits with 0.
pub fn stdout_of(cmd: &mut Command) -> Option<String> {
    let out = cmd
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// "exit code 3" / "killed by signal".
pub fn describe(st: ExitStatus) -> String {
    match st.code() {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_quotes_like_a_shell() {
        let mut cmd = cargo(["nextest", "run", "-E", "test(a b)", "it's"]);
        cmd.env("RUST_BACKTRACE", "1");
        let program = Path::new(cmd.get_program());
        let cargo = program.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            Shown(&cmd).to_string(),
            format!(r"RUST_BACKTRACE=1 {cargo} nextest run -E 'test(a b)' 'it'\''s'")
        );
        let mut npm = program_in("npm", root().join("vscode-extension"));
        npm.arg("ci");
        assert_eq!(Shown(&npm).to_string(), "(cd vscode-extension && npm ci)");
    }

    fn program_in(name: &str, dir: PathBuf) -> Command {
        let mut cmd = Command::new(name);
        cmd.current_dir(dir);
        cmd
    }
}
