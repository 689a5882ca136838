//! `cargo xtask setup`: installs what the project needs on Debian 12
//! (bookworm). Idempotent; when everything is there it only runs a few quick
//! probes (`dpkg-query`, `cargo nextest --version`, ...).

use anyhow::{bail, Result};

use crate::process::{cargo, program, run, say, stdout_of, succeeds};

/// Debian bookworm packages the project needs. Every name was checked with
/// `apt-cache policy NAME` on bookworm.
const DEBIAN_PACKAGES: &[&str] = &[
    // libglvnd's EGL dispatch library (libEGL.so.1): gl-headless makes its
    // headless contexts through EGL (glutin, `egl` feature only), and the agent
    // hooks `eglGetProcAddress` in EGL applications.
    "libegl1",
    // Mesa's EGL vendor library, which libglvnd's libEGL loads: gives the
    // surfaceless/device EGL platforms on llvmpipe that CI tests render with.
    "libegl-mesa0",
    // Mesa's drivers, among them the llvmpipe software rasterizer (OpenGL 4.5,
    // GLES 3.2) that every GPU test uses on machines without a GPU.
    "libgl1-mesa-dri",
    // libglvnd's libGLESv2.so.2: OpenGL ES entry points, for ES contexts and ES
    // (GLSL ES 1.00/3.x0) test programs.
    "libgles2",
    // libglvnd's libGL.so.1: desktop OpenGL + GLX entry points that GLX programs
    // (glmark2, glxgears) link against and that the preloaded agent wraps.
    "libgl1",
    // Mesa's GLX vendor library: GLX contexts on the Xvfb display.
    "libglx-mesa0",
    // glxinfo/eglinfo and glxgears: show which GL stack/renderer a machine
    // really gives us when a GL test fails, and a tiny real GLX program.
    "mesa-utils",
    // Virtual X server (plus xvfb-run): GLX programs need an X display, and
    // CI has none.
    "xvfb",
    // xauth: xvfb-run needs it to set up the virtual display's authorization.
    "xauth",
    // glmark2's shaders, models and textures (/usr/share/glmark2): a corpus of
    // real GLSL nobody here wrote, for parser/instrumentation tests.
    "glmark2-data",
    // glmark2 built for desktop GL on X11/GLX (bookworm has no plain `glmark2`
    // package): an unmodified real application for end-to-end tests of the agent.
    "glmark2-x11",
    // apitrace (apitrace trace/replay, glretrace, eglretrace): shaderdbg
    // capture and the debugging of recorded traces.
    "apitrace",
    // glslangValidator: the Khronos reference GLSL front end; checks that
    // instrumented shaders are valid GLSL independently of the driver, and
    // compiles the Vulkan test programs' shaders to SPIR-V.
    "glslang-tools",
    // The Vulkan loader (libvulkan.so.1, which reads the layer manifest the
    // session writes) and Mesa's Vulkan drivers, among them lavapipe (a
    // software Vulkan device) that the Vulkan layer's tests run on.
    "libvulkan1",
    "mesa-vulkan-drivers",
    // The Vulkan registry (/usr/share/vulkan/registry/vk.xml): the layer's
    // replay buffer is generated from it at build time (backend-vk/build.rs).
    "libvulkan-dev",
    // vkcube and vulkaninfo: a real Vulkan program nobody here wrote, and a
    // look at what a machine's Vulkan stack gives us.
    "vulkan-tools",
    // SPIRV-Cross: the Vulkan layer decompiles SPIR-V that carries no source
    // into Vulkan GLSL with it (naga where it is missing).
    "spirv-cross",
    // The Khronos validation layer: run together with ours, it reports what
    // ours would get wrong.
    "vulkan-validationlayers",
    // piglit, a GL conformance suite: its compute-shader tests, run by its
    // own shader_runner under the sanitizer, are shaders nobody here wrote.
    "piglit",
    // The VS Code extension's end-to-end test (cargo xtask test): Debian's
    // headless Chromium, driven by playwright-core, loads code-server's
    // workbench; fonts so it renders text.
    "chromium",
    "fonts-dejavu-core",
    // ripgrep: VS Code's search binary, which code-server's npm package would
    // download from GitHub (we copy Debian's instead).
    "ripgrep",
    // node-gyp builds code-server's native modules (node-pty, kerberos,
    // spdlog, argon2) against /usr/include/node: compiler, python, pkg-config,
    // and the gssapi headers of the `kerberos` module.
    "build-essential",
    "python3",
    "pkg-config",
    "libkrb5-dev",
];

pub fn setup() -> Result<()> {
    debian_packages()?;
    rust_tools()?;
    node()?;
    say!("setup: done");
    Ok(())
}

/// Whether `dpkg-query` reports the package as installed (not just known, not
/// removed with its configuration left behind).
fn installed(package: &str) -> bool {
    stdout_of(&mut program("dpkg-query", ["-W", "-f=${Status}", package]))
        .is_some_and(|status| status.contains("install ok installed"))
}

fn debian_packages() -> Result<()> {
    if !succeeds(&mut program("dpkg-query", ["--version"])) {
        say!(
            "setup: no dpkg-query here (not Debian?); skipping system packages. \
             Install the equivalents of: {}",
            DEBIAN_PACKAGES.join(" ")
        );
        return Ok(());
    }
    let missing: Vec<&str> = DEBIAN_PACKAGES
        .iter()
        .copied()
        .filter(|p| !installed(p))
        .collect();
    if missing.is_empty() {
        say!(
            "setup: all {} Debian packages installed",
            DEBIAN_PACKAGES.len()
        );
        return Ok(());
    }
    let list = missing.join(" ");
    if !is_root() {
        bail!(
            "missing Debian packages: {list}\n\
             install them as root, then run this again:\n    \
             sudo apt-get update && sudo apt-get install -y --no-install-recommends {list}"
        );
    }
    say!("setup: installing missing Debian packages: {list}");
    let apt = |args: &[&str]| {
        let mut cmd = program("apt-get", args);
        cmd.env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    run(&mut apt(&["update"]))?;
    let mut install = vec!["install", "-y", "--no-install-recommends"];
    install.extend(&missing);
    run(&mut apt(&install))?;
    let still: Vec<&str> = missing.into_iter().filter(|p| !installed(p)).collect();
    if !still.is_empty() {
        bail!(
            "apt-get succeeded but these packages are still not installed: {}",
            still.join(" ")
        );
    }
    Ok(())
}

fn is_root() -> bool {
    stdout_of(&mut program("id", ["-u"])).is_some_and(|uid| uid.trim() == "0")
}

/// rustfmt and clippy (for `cargo xtask test`) and cargo-nextest.
fn rust_tools() -> Result<()> {
    let missing: Vec<&str> = [("fmt", "rustfmt"), ("clippy", "clippy")]
        .into_iter()
        .filter(|(sub, _)| !succeeds(&mut cargo([*sub, "--version"])))
        .map(|(_, component)| component)
        .collect();
    if !missing.is_empty() {
        say!("setup: adding rustup components: {}", missing.join(" "));
        let mut args = vec!["component", "add"];
        args.extend(&missing);
        run(&mut program("rustup", args))?;
    }
    if succeeds(&mut cargo(["nextest", "--version"])) {
        say!("setup: cargo-nextest available");
    } else {
        say!("setup: installing cargo-nextest");
        run(&mut cargo(["install", "cargo-nextest", "--locked"]))?;
    }
    Ok(())
}

/// Node.js 20 and npm (the machine's; Debian 12's own nodejs is 18, too old
/// for code-server 4.100.3, which needs 20): the VS Code extension's build,
/// tests and end-to-end test use them.
fn node() -> Result<()> {
    let version = stdout_of(&mut program("node", ["--version"])).unwrap_or_default();
    if !version.trim().starts_with("v20.") {
        bail!(
            "Node.js 20 is needed for the VS Code extension (found `{}`); install Node 20 with npm \
             (the nodejs package of NodeSource's node_20.x repository)",
            version.trim()
        );
    }
    if !succeeds(&mut program("npm", ["--version"])) {
        bail!("npm is missing (it comes with Node.js 20)");
    }
    say!("setup: node {} and npm available", version.trim());
    Ok(())
}
