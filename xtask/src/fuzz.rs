//! `cargo xtask fuzz [SECONDS]`: runs every cargo-fuzz target in `fuzz/` for
//! SECONDS each.
//!
//! cargo-fuzz needs nightly-only flags (`-Zsanitizer=address`). With a nightly
//! toolchain installed through rustup we run `cargo +<nightly> fuzz ...`;
//! without one we run `RUSTC_BOOTSTRAP=1 cargo fuzz ...` on stable, which
//! makes stable rustc accept the `-Z` flags (both checked with cargo-fuzz
//! 0.13.2 on rustc 1.95.0 stable / 1.97.0-nightly: build, run, crash found).

use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::process::{cargo, describe, root, run, say, status, stdout_of, succeeds, Shown};

pub const DEFAULT_SECONDS: u64 = 60;

pub fn fuzz(seconds: u64) -> Result<()> {
    let dir = root().join("fuzz");
    if !dir.is_dir() {
        say!(
            "fuzz: no fuzz targets: {} does not exist, nothing to do",
            dir.display()
        );
        return Ok(());
    }
    if !succeeds(&mut cargo(["fuzz", "--version"])) {
        say!("fuzz: installing cargo-fuzz");
        run(&mut cargo(["install", "cargo-fuzz", "--locked"]))?;
    }

    let toolchain = Toolchain::pick();
    say!(
        "fuzz: using `{}`",
        Shown(&toolchain.cargo_fuzz([] as [&str; 0]))
    );

    let mut list = toolchain.cargo_fuzz(["list"]);
    let out = list
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("could not start `{}`", Shown(&list)))?;
    if !out.status.success() {
        bail!("`{}` failed ({})", Shown(&list), describe(out.status));
    }
    let targets = String::from_utf8_lossy(&out.stdout);
    let targets: Vec<&str> = targets
        .lines()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    if targets.is_empty() {
        say!("fuzz: `cargo fuzz list` lists no targets, nothing to do");
        return Ok(());
    }
    say!(
        "fuzz: {} target(s), {seconds}s each: {}",
        targets.len(),
        targets.join(" ")
    );

    // Build all targets once up front, so a build error is reported as one.
    run(&mut toolchain.cargo_fuzz(["build"]))?;

    let max_time = format!("-max_total_time={seconds}");
    let mut failed = Vec::new();
    for target in &targets {
        say!("fuzz: {target}");
        let st = status(&mut toolchain.cargo_fuzz(["run", target, "--", &max_time]))?;
        if !st.success() {
            say!("fuzz: {target} FAILED ({})", describe(st));
            failed.push(*target);
        }
    }
    if failed.is_empty() {
        say!(
            "fuzz summary: PASSED, {} target(s), {seconds}s each",
            targets.len()
        );
        Ok(())
    } else {
        say!(
            "fuzz summary: FAILED, {} of {} target(s): {} (inputs under fuzz/artifacts/)",
            failed.len(),
            targets.len(),
            failed.join(" ")
        );
        bail!("fuzzing found problems in: {}", failed.join(", "))
    }
}

enum Toolchain {
    /// A rustup toolchain whose name starts with `nightly`.
    Nightly(String),
    /// No nightly: stable with `RUSTC_BOOTSTRAP=1`.
    StableBootstrap,
}

impl Toolchain {
    fn pick() -> Toolchain {
        let list = stdout_of(Command::new("rustup").args(["toolchain", "list"]));
        let nightly = list.as_deref().unwrap_or("").lines().find_map(|line| {
            let name = line.split_whitespace().next()?;
            name.starts_with("nightly").then(|| name.to_string())
        });
        match nightly {
            Some(name) => Toolchain::Nightly(name),
            None => Toolchain::StableBootstrap,
        }
    }

    /// `cargo +nightly fuzz ARGS` or `RUSTC_BOOTSTRAP=1 cargo fuzz ARGS`.
    fn cargo_fuzz<const N: usize>(&self, args: [&str; N]) -> Command {
        let mut cmd = match self {
            Toolchain::Nightly(name) => {
                // `+toolchain` is understood by rustup's `cargo` proxy, not
                // by the toolchain's own cargo in $CARGO.
                let mut cmd = Command::new("cargo");
                cmd.arg(format!("+{name}")).current_dir(root());
                cmd
            }
            Toolchain::StableBootstrap => {
                let mut cmd = cargo([] as [&str; 0]);
                cmd.env("RUSTC_BOOTSTRAP", "1");
                cmd
            }
        };
        cmd.arg("fuzz").args(args);
        cmd
    }
}
