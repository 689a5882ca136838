//! The VS Code extension (`vscode-extension/`): staging the native binaries
//! into its `bin/`, packaging the platform-specific `.vsix`, and installing
//! what its end-to-end test needs (code-server from npm, built the way
//! `../shared/vscode-e2e/RECIPE.md` proves, with nothing from GitHub).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::process::{cargo, root, run, say};

/// The native binaries the extension bundles, as cargo names them.
pub const BINARIES: &[&str] = &[
    "shaderdbg-dap",
    "shaderdbg-lsp",
    "shaderdbg-host",
    // The CLI: the extension's "Capture a Trace" runs `shaderdbg capture`.
    "shaderdbg",
    "libshaderdbg_agent.so",
    "libVkLayer_shaderdbg.so",
];

/// The packages that build [`BINARIES`].
pub const PACKAGES: &[&str] = &[
    "shaderdbg-dap",
    "shaderdbg-lsp",
    "shaderdbg-host",
    "shaderdbg-cli",
    "shaderdbg-backend-gl",
    "shaderdbg-backend-vk",
];

/// code-server release whose VS Code (1.100.3) runs on Node 20.
pub const CODE_SERVER_VERSION: &str = "4.100.3";

/// The env var that skips the end-to-end test in a real VS Code.
pub const SKIP_E2E_VAR: &str = "SHADERDBG_SKIP_VSCODE_E2E";

pub fn dir() -> PathBuf {
    root().join("vscode-extension")
}

/// Where code-server is installed and reused between runs.
pub fn e2e_dir() -> PathBuf {
    root().join("target/vscode-e2e")
}

pub fn code_server_entry() -> PathBuf {
    e2e_dir().join("cs/node_modules/code-server/out/node/entry.js")
}

/// The packages of the test programs the extension's adapter and
/// end-to-end tests launch from `target/debug`: the Vulkan `vk_triangle`,
/// and the GL `oob_compute` (the sanitizer's exception stop).
pub const TEST_PROGRAMS: &[&str] = &["shaderdbg-vk-test-apps", "shaderdbg-test-apps"];

/// `cargo build [--release] -p <the packages of the bundled binaries>`; the
/// debug build (the tests') also builds [`TEST_PROGRAMS`].
pub fn build_binaries(release: bool) -> Command {
    let mut args = vec!["build"];
    if release {
        args.push("--release");
    }
    for p in PACKAGES {
        args.extend(["-p", p]);
    }
    if !release {
        for p in TEST_PROGRAMS {
            args.extend(["-p", p]);
        }
    }
    cargo(args)
}

/// An npm command in `dir`, with the settings every npm call here needs:
/// node-gyp builds against /usr/include/node (never downloads headers), npx
/// never prompts, no browser download for playwright-core, no fund/audit noise.
pub fn npm<I, S>(dir: &Path, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::new("npm");
    cmd.args(args)
        .current_dir(dir)
        .env("npm_config_nodedir", "/usr")
        .env("npm_config_yes", "true")
        .env("npm_config_fund", "false")
        .env("npm_config_audit", "false")
        .env("npm_config_update_notifier", "false")
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    cmd
}

/// Copies the binaries from `target/<profile>` into `vscode-extension/bin/`,
/// stripped (debug info and symbols are most of their size).
pub fn stage_binaries(profile: &str) -> Result<()> {
    let from = root().join("target").join(profile);
    let to = dir().join("bin");
    if to.exists() {
        fs::remove_dir_all(&to).with_context(|| format!("removing {}", to.display()))?;
    }
    fs::create_dir_all(&to).with_context(|| format!("creating {}", to.display()))?;
    for name in BINARIES {
        let src = from.join(name);
        let dst = to.join(name);
        if !src.is_file() {
            bail!(
                "{} is missing: build it with `cargo build{} -p {}`",
                src.display(),
                if profile == "release" {
                    " --release"
                } else {
                    ""
                },
                PACKAGES.join(" -p ")
            );
        }
        fs::copy(&src, &dst)
            .with_context(|| format!("copying {} to {}", src.display(), dst.display()))?;
        let mut strip = Command::new("strip");
        strip.arg("--strip-unneeded").arg(&dst);
        run(&mut strip)?;
    }
    say!(
        "vsix: staged {} binaries from target/{profile} in vscode-extension/bin",
        BINARIES.len()
    );
    Ok(())
}

/// Bundles the extension with esbuild and packages `out` (target linux-x64)
/// from the binaries staged in `bin/`.
pub fn package(out: &Path, minify: bool) -> Result<()> {
    let dir = dir();
    run(&mut npm(
        &dir,
        ["run", if minify { "bundle:release" } else { "bundle" }],
    ))?;
    if let Some(parent) = out.parent() {
        fs::create_dir_all(parent)?;
    }
    let mut vsce = npm(&dir, ["exec", "--", "vsce", "package"]);
    vsce.args([
        "--no-dependencies",
        "--target",
        "linux-x64",
        "--allow-missing-repository",
        "--skip-license",
        "-o",
    ])
    .arg(out);
    run(&mut vsce)?;
    let size = fs::metadata(out)?.len();
    say!(
        "vsix: {} ({:.1} MiB)",
        out.display(),
        size as f64 / (1024.0 * 1024.0)
    );
    Ok(())
}

/// `cargo xtask vsix`: release binaries -> target/shaderdbg-linux-x64.vsix.
pub fn vsix() -> Result<()> {
    run(&mut build_binaries(true))?;
    run(&mut npm(&dir(), ["ci"]))?;
    stage_binaries("release")?;
    package(&root().join("target/shaderdbg-linux-x64.vsix"), true)
}

/// Installs code-server `CODE_SERVER_VERSION` into `target/vscode-e2e/cs`
/// (once; a marker file says it is complete), replacing its postinstall
/// script, which downloads from GitHub: ripgrep comes from Debian, argon2
/// is built from source, the native modules are rebuilt against
/// /usr/include/node.
pub fn install_code_server(run: &mut dyn FnMut(&mut Command) -> Result<()>) -> Result<()> {
    let cs = e2e_dir().join("cs");
    let marker = cs.join(format!(".shaderdbg-complete-{CODE_SERVER_VERSION}"));
    if marker.is_file() && code_server_entry().is_file() {
        say!(
            "e2e: code-server {CODE_SERVER_VERSION} already in {}",
            cs.display()
        );
        return Ok(());
    }
    for tool in [
        "/usr/bin/rg",
        "/usr/bin/chromium",
        "/usr/include/node/node.h",
    ] {
        if !Path::new(tool).exists() {
            bail!("{tool} is missing (`cargo xtask setup` installs ripgrep, chromium and nodejs)");
        }
    }
    fs::create_dir_all(&cs)?;
    let manifest = cs.join("package.json");
    if !manifest.is_file() {
        fs::write(&manifest, "{\"name\":\"cs-host\",\"private\":true}\n")?;
    }
    let package = format!("code-server@{CODE_SERVER_VERSION}");
    run(&mut npm(
        &cs,
        [
            "install",
            "--no-save",
            "--ignore-scripts",
            "--loglevel=error",
            &package,
        ],
    ))?;
    // code-server loads argon2 at start even with --auth none; its install
    // script tries GitHub first.
    run(&mut npm(
        &cs,
        [
            "rebuild",
            "--loglevel=error",
            "--build-from-source",
            "argon2",
        ],
    ))?;
    let vscode = cs.join("node_modules/code-server/lib/vscode");
    run(&mut npm(
        &vscode,
        [
            "install",
            "--omit=dev",
            "--ignore-scripts",
            "--loglevel=error",
        ],
    ))?;
    // @vscode/ripgrep's postinstall downloads from GitHub unless bin/ exists.
    let rg = vscode.join("node_modules/@vscode/ripgrep/bin");
    fs::create_dir_all(&rg)?;
    fs::copy("/usr/bin/rg", rg.join("rg"))?;
    run(&mut npm(&vscode, ["rebuild", "--loglevel=error"]))?;
    // The links code-server's postinstall.sh makes.
    symlink("node_modules", &vscode.join("node_modules.asar"))?;
    symlink("code-linux.sh", &vscode.join("bin/remote-cli/code-server"))?;
    symlink("browser-linux.sh", &vscode.join("bin/helpers/browser.sh"))?;
    run(&mut npm(
        &vscode.join("extensions"),
        ["install", "--omit=dev", "--loglevel=error"],
    ))?;
    if !code_server_entry().is_file() {
        bail!(
            "{} missing after the install",
            code_server_entry().display()
        );
    }
    fs::write(&marker, "")?;
    say!(
        "e2e: code-server {CODE_SERVER_VERSION} installed in {}",
        cs.display()
    );
    Ok(())
}

fn symlink(target: &str, link: &Path) -> Result<()> {
    if link.symlink_metadata().is_ok() {
        if link.is_dir() && !link.symlink_metadata()?.file_type().is_symlink() {
            fs::remove_dir_all(link)?;
        } else {
            fs::remove_file(link)?;
        }
    }
    std::os::unix::fs::symlink(target, link)
        .with_context(|| format!("linking {} -> {target}", link.display()))
}
