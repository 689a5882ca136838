//! Measurement of the engine on glslang's test corpus (`Test/` of
//! KhronosGroup/glslang, fetched by `fetch-glslang.sh`, never stored in this
//! repository): for each test shader, glslang's expected result
//! (`Test/baseResults/<name>.out`) against ours (parse + analysis).
//!
//! Shared by `examples/glslang_corpus.rs` (the report) and
//! `tests/glslang_corpus.rs` (the snapshot of the figures).
//!
//! Which files count, and how:
//! - `Test/*.{vert,frag,geom,tesc,tese,comp}` with a `baseResults/<name>.out`
//!   (files that only take part in another file's link test have none).
//! - Left out: `hlsl.*` (HLSL), `preprocessor.*` and `preprocess.*` (glslang
//!   runs them with `-E`: their results are about preprocessing alone, and
//!   its errors are in `.err`, not in `.out`), `glsl.-*` (run with
//!   command-line defines or options we do not replay), and for the same
//!   reason `glsl.versionOverride.*` (`--glsl-version`) and
//!   `glsl.autosampledtextures.*` (`--auto-sampled-textures`).
//! - `#include "..."`s are read from the includer's directory, `Test/`,
//!   then the `-I` directories `Test/runtests` gives the file (by default
//!   `Test/inc1/`, `Test/inc2/`); `#include <...>`s from those `-I`
//!   directories only, as glslang does.
//! - Grouped: `vulkan` (`spv.*`, `vk.*`, `glspv.*`, and the files of
//!   [`COMPILED_FOR_SPIRV`]: glslang compiles them to SPIR-V, with Vulkan
//!   semantics or GL_ARB_gl_spirv's), `es` (`#version 100`, `#version 3x0
//!   es`, and files without `#version`), `desktop` (the rest). `desktop` and
//!   `es` are what an OpenGL or OpenGL ES driver compiles: the target of
//!   issue 14.
//! - Files without `#version` are measured as ES 1.00 (a `#version 100`
//!   header), as glslang's harness compiles them: its `GlslangTest` fixture
//!   parses with `defaultVersion(100)` (gtests/TestFixture.h), and their
//!   `.out` say `Shader version: 100` with ES precisions.
//! - `100Limits.vert` counts as its `.out` has it: valid, compiled with
//!   glslang's default resources (no limits of GLSL ES 1.00's Appendix A);
//!   its other test (gtests/Config.FromFile.cpp, `100.conf`, whose limits
//!   make it invalid: `100LimitsConf.vert.out`) is not replayed.
//! - glslang's verdict: the part of the `.out` before the first `Linked ...
//!   stage:` line is the compilation; an `ERROR:` there (other than the AST
//!   printer's `ERROR: node is still EOpNull!`) makes the shader invalid, and
//!   each `ERROR: 0:LINE:` gives an expected line. A shader whose only errors
//!   are the linker's (missing `main`, recursion across the program, ...) is a
//!   valid compilation unit and is counted in `link_only`, not in either
//!   total. A link test's `.out` has several files' compilations, each
//!   under its file's name: only the first is this file's.
//! - Ours: the errors the language server shows (see [`our_errors`]); any
//!   rejects, and "on the right line" is any of them on an expected line.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use shaderdbg_glsl::ide::{parse_recovering, Loc, Request};
use shaderdbg_glsl::parse::{IncludeError, IncludeResolver};
use shaderdbg_glsl::{Severity, Stage};

/// The glslang commit `fetch-glslang.sh` checks out; the figures snapshot is
/// of this commit.
pub const GLSLANG_COMMIT: &str = "90afccfbd49dff0349d86a41762e9de24e1df811";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    Desktop,
    Es,
    Vulkan,
}

impl Group {
    pub fn name(self) -> &'static str {
        match self {
            Group::Desktop => "desktop",
            Group::Es => "es",
            Group::Vulkan => "vulkan",
        }
    }
}

/// What glslang says of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    Valid,
    /// Only the linker complained.
    LinkOnly,
    /// Compilation errors, with the lines they are on (string 0).
    Invalid(BTreeSet<u32>),
}

/// One measured file.
#[derive(Clone, Debug)]
pub struct FileResult {
    pub name: String,
    pub group: Group,
    pub expected: Expected,
    /// Our errors: (line, message).
    pub ours: Vec<(u32, String)>,
    pub extensions: Vec<String>,
}

impl FileResult {
    pub fn rejected(&self) -> bool {
        !self.ours.is_empty()
    }

    /// Rejected with an error on an expected line (any error, where
    /// glslang's give no line: `#version` problems).
    pub fn on_right_line(&self) -> bool {
        match &self.expected {
            Expected::Invalid(lines) if lines.is_empty() => self.rejected(),
            Expected::Invalid(lines) => self.ours.iter().any(|(l, _)| lines.contains(l)),
            _ => false,
        }
    }
}

fn stage_of(name: &str) -> Option<Stage> {
    Some(match name.rsplit('.').next()? {
        "vert" => Stage::Vertex,
        "frag" => Stage::Fragment,
        "geom" => Stage::Geometry,
        "tesc" => Stage::TessControl,
        "tese" => Stage::TessEvaluation,
        "comp" => Stage::Compute,
        _ => return None,
    })
}

/// What follows `#directive` on each line of `src` that is one, in order.
fn directives<'a>(src: &'a str, directive: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    src.lines().filter_map(move |line| {
        let rest = line.trim_start().strip_prefix('#')?;
        rest.trim_start().strip_prefix(directive)
    })
}

/// The `#version` line's number and whether it says `es` (None: no line).
fn version_of(src: &str) -> Option<(u32, bool)> {
    let mut words = directives(src, "version").next()?.split_whitespace();
    let n = words.next()?.parse().ok()?;
    let es = words.next().is_some_and(|w| w == "es");
    Some((n, es))
}

fn extensions_of(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for rest in directives(src, "extension") {
        let name = rest.split(':').next().unwrap_or("").trim();
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// Files (or name prefixes) glslang's own tests compile to SPIR-V although
/// their names do not say so, with the evidence: where its harness (gtests/
/// and Test/runtests at [`GLSLANG_COMMIT`]) compiles each. Their `.out` hold
/// SPIR-V, or the errors of a Vulkan compilation.
pub const COMPILED_FOR_SPIRV: &[(&str, &str)] = &[
    ("vulkan.", "gtests/Spv.FromFile.cpp: VulkanSemantics, VulkanAstSemantics"),
    ("samplerlessTextureFunctions.frag", "gtests/Spv.FromFile.cpp: VulkanSemantics"),
    ("rayQuery-", "gtests/Spv.FromFile.cpp: CompileVulkanToSpirvTest, CompileToSpirv14Test"),
    ("link.vk.", "gtests/Link.FromFile.Vk.cpp: LinkTestVulkan (Semantics::Vulkan)"),
    ("link1.vk.frag", "gtests/Link.FromFile.Vk.cpp: LinkTestVulkan (Semantics::Vulkan)"),
    ("liveTraverser.", "gtests/LiveTraverser.FromFile.cpp (Semantics::Vulkan)"),
    ("iomap.", "gtests/GlslMapIO.FromFile.cpp: SPIR-V for Vulkan, or for OpenGL (EShClientOpenGL with a SPIR-V target, as glspv.*)"),
    ("glsl.entryPointRename", "Test/runtests: -H (SPIR-V for Vulkan)"),
    ("enhanced.", "Test/runtests: -V --target-env vulkan1.2"),
    ("error-column.vert", "Test/runtests: -V"),
    ("UTF8BOM.vert", "Test/runtests: --glsl-version 410 -V"),
    ("web.", "Test/web.runtests: -V, for every file of Test/web.testlist"),
];

fn group_of(name: &str, src: &str) -> Group {
    if ["spv.", "vk.", "glspv."]
        .iter()
        .any(|p| name.starts_with(p))
        || COMPILED_FOR_SPIRV.iter().any(|(p, _)| name.starts_with(p))
    {
        return Group::Vulkan;
    }
    match version_of(src) {
        None | Some((100, _)) | Some((_, true)) => Group::Es,
        Some(_) => Group::Desktop,
    }
}

/// glslang's verdict from a `baseResults/*.out` file.
pub fn expected_of(out: &str) -> Expected {
    let mut lines = BTreeSet::new();
    let mut error = false;
    let mut link_error = false;
    let mut linking = false;
    for (i, line) in out.lines().enumerate() {
        if line.starts_with("Linked ") && line.ends_with("stage:") {
            linking = true;
            continue;
        }
        // A link test's `.out` has each of its files' compilation in turn,
        // each under the file's name: the first one is this file's.
        if i > 0 && !line.contains(' ') && stage_of(line).is_some() {
            linking = true;
            continue;
        }
        let Some(rest) = line.strip_prefix("ERROR: ") else {
            continue;
        };
        if rest.starts_with("node is still EOpNull") {
            continue;
        }
        if linking || rest.starts_with("Linking ") {
            link_error = true;
            continue;
        }
        error = true;
        // `0:LINE: ...` or `file.vert:LINE: ...`
        let mut parts = rest.splitn(3, ':');
        if let (Some(_), Some(l), Some(_)) = (parts.next(), parts.next(), parts.next()) {
            if let Ok(l) = l.trim().parse() {
                lines.insert(l);
            }
        }
    }
    if error {
        Expected::Invalid(lines)
    } else if link_error {
        Expected::LinkOnly
    } else {
        Expected::Valid
    }
}

/// Our errors on a shader, (line, message): those the language server
/// shows (`ide::recover::parse_recovering`: a syntax error is reported and
/// the statement around it blanked, so it hides no semantic error before or
/// after it; the command line stops at the first syntax error).
pub fn our_errors(src: &str, stage: Stage, includes: &dyn IncludeResolver) -> Vec<(u32, String)> {
    // glslang's harness compiles a file without `#version` as ES 1.00.
    let header = if version_of(src).is_none() {
        "#version 100\n"
    } else {
        ""
    };
    let req = Request {
        text: src,
        header,
        stage,
        resolver: Some(includes),
        header_is_context: false,
        piece: false,
        cancelled: &|| false,
    };
    let line = |at: usize| src[..at.min(src.len())].matches('\n').count() as u32 + 1;
    parse_recovering(&req)
        .diagnostics
        .into_iter()
        .filter(|d| d.diagnostic.severity == Severity::Error)
        .map(|d| {
            let l = match d.loc {
                Loc::Text(start, _) => line(start),
                Loc::Include { site, .. } => site.map_or(0, line),
                Loc::Header | Loc::Unplaced => 0,
            };
            (l, d.diagnostic.message)
        })
        .collect()
}

/// The include paths of glslang's test suite: `Test/` (the includer's
/// directory for `#include "..."`, glslang runs in `Test/`) and the `-I`
/// directories `Test/runtests` gives the file, by default `inc1` and `inc2`.
struct TestIncludes {
    test: PathBuf,
    dash_i: Vec<String>,
}

impl TestIncludes {
    fn new(test: &Path, name: &str) -> TestIncludes {
        let runtests = std::fs::read_to_string(test.join("runtests")).unwrap_or_default();
        let dash_i: Vec<String> = runtests
            .lines()
            .filter(|l| l.split_whitespace().any(|w| w == name))
            .flat_map(|l| l.split_whitespace().filter_map(|w| w.strip_prefix("-I")))
            .map(str::to_string)
            .collect();
        TestIncludes {
            test: test.to_path_buf(),
            dash_i: if dash_i.is_empty() {
                vec!["inc1".into(), "inc2".into()]
            } else {
                dash_i
            },
        }
    }

    fn find(&self, path: &str, dirs: Vec<PathBuf>) -> Result<(String, String), IncludeError> {
        let path = path.replace('\\', "/");
        for dir in dirs {
            let p = dir.join(&path);
            if let Ok(text) = std::fs::read(&p) {
                let name = p
                    .strip_prefix(&self.test)
                    .map_or(path.clone(), |n| n.display().to_string());
                return Ok((name, String::from_utf8_lossy(&text).into_owned()));
            }
        }
        Err(format!("{path} not found").into())
    }

    fn dash_i_dirs(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.dash_i.iter().map(|d| self.test.join(d))
    }
}

impl IncludeResolver for TestIncludes {
    fn resolve(
        &self,
        path: &str,
        includer: Option<&str>,
    ) -> Result<(String, String), IncludeError> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        if let Some(dir) = includer.and_then(|i| Path::new(i).parent()) {
            dirs.push(self.test.join(dir));
        }
        dirs.push(self.test.clone());
        dirs.extend(self.dash_i_dirs());
        self.find(path, dirs)
    }

    fn resolve_system(
        &self,
        path: &str,
        _includer: Option<&str>,
    ) -> Result<(String, String), IncludeError> {
        self.find(path, self.dash_i_dirs().collect())
    }
}

/// Measures every file of `<glslang>/Test`.
pub fn measure(glslang: &Path) -> std::io::Result<Vec<FileResult>> {
    let test = glslang.join("Test");
    let mut names: Vec<String> = std::fs::read_dir(&test)?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| stage_of(n).is_some())
        .filter(|n| {
            ![
                "hlsl.",
                "preprocessor.",
                // Also in glslang's preprocessing-only tests (gtests/Pp.FromFile.cpp).
                "preprocess.",
                "glsl.-",
                "glsl.versionOverride.",
                "glsl.autosampledtextures.",
            ]
            .iter()
            .any(|p| n.starts_with(p))
        })
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let Some(stage) = stage_of(&name) else {
            continue;
        };
        let result_path: PathBuf = test.join("baseResults").join(format!("{name}.out"));
        let Ok(result) = std::fs::read(&result_path) else {
            continue;
        };
        let result = String::from_utf8_lossy(&result);
        let src = String::from_utf8_lossy(&std::fs::read(test.join(&name))?).into_owned();
        let includes = TestIncludes::new(&test, &name);
        let ours = std::panic::catch_unwind(|| our_errors(&src, stage, &includes))
            .unwrap_or_else(|_| vec![(0, "the engine panicked".to_string())]);
        out.push(FileResult {
            group: group_of(&name, &src),
            expected: expected_of(&result),
            extensions: extensions_of(&src),
            name,
            ours,
        });
    }
    Ok(out)
}

/// Counts of one group.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    pub valid: usize,
    pub valid_accepted: usize,
    pub invalid: usize,
    pub invalid_rejected: usize,
    pub invalid_right_line: usize,
    pub link_only: usize,
    pub link_only_accepted: usize,
}

pub fn figures(results: &[FileResult], group: Group) -> Figures {
    let mut f = Figures::default();
    for r in results.iter().filter(|r| r.group == group) {
        match &r.expected {
            Expected::Valid => {
                f.valid += 1;
                f.valid_accepted += usize::from(!r.rejected());
            }
            Expected::LinkOnly => {
                f.link_only += 1;
                f.link_only_accepted += usize::from(!r.rejected());
            }
            Expected::Invalid(_) => {
                f.invalid += 1;
                f.invalid_rejected += usize::from(r.rejected());
                f.invalid_right_line += usize::from(r.on_right_line());
            }
        }
    }
    f
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * a as f64 / b as f64)
    }
}

/// The figures table (what the snapshot stores): per group, then per
/// extension of the desktop group.
pub fn report(results: &[FileResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<8} {:>16} {:>16} {:>16} {:>12}",
        "group", "valid accepted", "invalid rejected", "on right line", "link-only ok"
    );
    for g in [Group::Desktop, Group::Es, Group::Vulkan] {
        let f = figures(results, g);
        let _ = writeln!(
            s,
            "{:<8} {:>16} {:>16} {:>16} {:>12}",
            g.name(),
            format!(
                "{}/{} {}",
                f.valid_accepted,
                f.valid,
                pct(f.valid_accepted, f.valid)
            ),
            format!(
                "{}/{} {}",
                f.invalid_rejected,
                f.invalid,
                pct(f.invalid_rejected, f.invalid)
            ),
            format!(
                "{}/{} {}",
                f.invalid_right_line,
                f.invalid,
                pct(f.invalid_right_line, f.invalid)
            ),
            format!("{}/{}", f.link_only_accepted, f.link_only),
        );
    }
    // Per extension (desktop): files that name it, valid ones, valid ones we reject.
    let mut per_ext: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for r in results.iter().filter(|r| r.group == Group::Desktop) {
        for e in &r.extensions {
            let c = per_ext.entry(e.as_str()).or_default();
            c.0 += 1;
            if r.expected != Expected::Valid && r.expected != Expected::LinkOnly {
                continue;
            }
            c.1 += 1;
            c.2 += usize::from(r.rejected());
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "desktop, per #extension: files, valid files, false errors"
    );
    for (e, (files, valid, false_errors)) in per_ext {
        let _ = writeln!(s, "{e:<48} {files:>4} {valid:>4} {false_errors:>4}");
    }
    s
}

/// The valid (and link-only) files of `group` we reject, with our first error.
pub fn false_errors(results: &[FileResult], group: Group) -> Vec<String> {
    results
        .iter()
        .filter(|r| r.group == group && !matches!(r.expected, Expected::Invalid(_)))
        .filter_map(|r| {
            let (l, m) = r.ours.first()?;
            Some(format!("{}:{l}: {m}", r.name))
        })
        .collect()
}

/// The invalid files of `group` we accept, or reject on no expected line.
pub fn missed(results: &[FileResult], group: Group) -> Vec<String> {
    results
        .iter()
        .filter(|r| r.group == group)
        .filter_map(|r| {
            let Expected::Invalid(lines) = &r.expected else {
                return None;
            };
            if r.on_right_line() {
                return None;
            }
            let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
            let ours: Vec<String> = r.ours.iter().map(|(l, _)| l.to_string()).collect();
            Some(format!(
                "{}: expected lines {}; ours {}",
                r.name,
                lines.join(","),
                if ours.is_empty() {
                    "none".to_string()
                } else {
                    ours.join(",")
                }
            ))
        })
        .collect()
}

/// Where the corpus is: `$SHADERDBG_GLSLANG`, else where `fetch-glslang.sh`
/// puts it (`${XDG_CACHE_HOME:-$HOME/.cache}/shaderdbg/glslang`).
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SHADERDBG_GLSLANG") {
        return PathBuf::from(d);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    cache.join("shaderdbg").join("glslang")
}
