//! Benchmarks of the language server binary over stdio (`cargo bench -p
//! shaderdbg-lsp`; figures printed, nothing asserted about time):
//!
//! - diagnostics latency for a generated ~8,000-line shader after a change
//!   (from sending `didChange` to receiving its `publishDiagnostics`), side by
//!   side with `glslangValidator` checking the same file;
//! - hover and completion latency (round trip) in that shader and in a small one;
//! - memory: RSS of the server process with 200 shader files open;
//! - incremental analysis: a change in a file that 50 open shaders include
//!   (until all 50 have new diagnostics), and a change in one of 200 open
//!   files, with the number of analyses each caused (`shaderdbg/analysisStats`).

#[path = "../../glsl/benches/support/mod.rs"]
mod shaders;
#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Median, min and max of the samples, in ms.
fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    format!(
        "median {:.2} ms (min {:.2}, max {:.2}, n={})",
        ms(v[v.len() / 2]),
        ms(v[0]),
        ms(v[v.len() - 1]),
        v.len()
    )
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let runs = if bench { 15 } else { 2 };
    println!(
        "shaderdbg-lsp benchmarks ({})",
        if bench { "release" } else { "smoke run" }
    );
    // `cargo bench -p shaderdbg-lsp -- wgsl`: only the sections whose name
    // contains one of the words given (all without any).
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    if run("large_shader") {
        large_shader(runs);
    }
    if run("small_shader") {
        small_shader(if bench { 200 } else { 5 });
    }
    if run("memory") {
        memory(if bench { 200 } else { 20 });
    }
    if run("incremental") {
        incremental(if bench { 10 } else { 2 });
    }
    if run("wgsl") {
        wgsl_module(if bench { 30 } else { 2 });
    }
}

fn total_analyses(c: &mut Client) -> u64 {
    c.request("shaderdbg/analysisStats", serde_json::Value::Null)["total"]
        .as_u64()
        .unwrap_or(0)
}

fn incremental(runs: usize) {
    let dir = std::env::temp_dir().join(format!("shaderdbg-lsp-bench-inc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good = "float bench_common(float x) { return x * 0.5; }\n";
    let bad = "float bench_common(float x) { return x * bench_undefined; }\n";
    std::fs::write(dir.join("common.glsl"), good).unwrap();
    let mut c = Client::start_with_root(json!({}), Some(&dir));
    // 50 shaders (~100 lines each) that include common.glsl.
    let mut includers = Vec::new();
    for i in 0..50 {
        let body = shaders::large_shader(100 + i);
        let (version, rest) = body.split_once('\n').unwrap();
        let src = format!(
            "{version}\n#extension GL_GOOGLE_include_directive : require\n#include \"common.glsl\"\nfloat use_common() {{ return bench_common(1.0); }}\n{rest}"
        );
        let path = dir.join(format!("inc{i}.frag"));
        std::fs::write(&path, &src).unwrap();
        let uri = format!("file://{}", path.display());
        c.open(&uri, "glsl", 1, &src);
        includers.push(uri);
    }
    for u in &includers {
        assert_eq!(show_diagnostics(&c.diagnostics(u, 1)), "");
    }
    let common = format!("file://{}", dir.join("common.glsl").display());
    c.open(&common, "glsl", 1, good);
    c.diagnostics(&common, 1);
    let mut times = Vec::new();
    let mut counts = Vec::new();
    let mut version = 1;
    for i in 0..runs * 2 {
        version += 1;
        let broken = i % 2 == 0;
        let before = total_analyses(&mut c);
        let t = Instant::now();
        c.replace_all(&common, version, if broken { bad } else { good });
        for u in &includers {
            c.notification("textDocument/publishDiagnostics", |p| {
                p["uri"] == u.as_str()
                    && p["diagnostics"]
                        .as_array()
                        .is_some_and(|d| d.is_empty() != broken)
            });
        }
        times.push(t.elapsed());
        c.diagnostics(&common, version);
        counts.push(total_analyses(&mut c) - before);
    }
    println!("\nincremental analysis");
    println!(
        "  change in a file 50 open shaders include -> all 50 re-published: {}",
        stats(times)
    );
    println!(
        "    analyses per change: {:?} (50 includers + the included file itself)",
        counts
    );
    // The same change again (text identical): no analysis at all.
    let before = total_analyses(&mut c);
    version += 1;
    c.replace_all(
        &common,
        version,
        if runs.is_multiple_of(2) { good } else { bad },
    );
    let _ = c.request("textDocument/hover", at(&common, 0, 0));
    println!(
        "    a change that leaves the text as it was: {} analyses",
        total_analyses(&mut c) - before
    );
    c.shutdown();

    // One change among 200 open files.
    let mut c = Client::start(json!({}));
    let mut uris = Vec::new();
    let mut texts = Vec::new();
    for i in 0..200 {
        let src = shaders::large_shader(100 + (i * 37) % 400);
        let uri = format!("file:///tmp/shaderdbg-lsp-bench/inc200/shader{i}.frag");
        c.open(&uri, "glsl", 1, &src);
        uris.push(uri);
        texts.push(src);
    }
    for u in &uris {
        c.diagnostics(u, 1);
    }
    let target = 100;
    let (line, col) = pos_of(&texts[target], "0.05, 1.0)", 0, 0);
    let mut times = Vec::new();
    let mut counts = Vec::new();
    for i in 0..runs * 2 {
        let before = total_analyses(&mut c);
        let t = Instant::now();
        c.edit(
            &uris[target],
            i as i64 + 2,
            [line, col, line, col + 4],
            if i % 2 == 0 { "0.06" } else { "0.05" },
        );
        c.diagnostics(&uris[target], i as i64 + 2);
        times.push(t.elapsed());
        counts.push(total_analyses(&mut c) - before);
    }
    println!(
        "  change in one of 200 open files -> its diagnostics: {}",
        stats(times)
    );
    println!("    analyses per change: {counts:?}");
    c.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

fn glslang(file: &Path) -> Option<Duration> {
    let t = Instant::now();
    let out = Command::new("glslangValidator").arg(file).output().ok()?;
    let d = t.elapsed();
    assert!(
        out.status.success(),
        "glslangValidator rejects the shader:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    Some(d)
}

fn large_shader(runs: usize) {
    let src = shaders::large_shader(8000);
    let (lines, kb) = shaders::size_of(&src);
    let dir = std::env::temp_dir().join(format!("shaderdbg-lsp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("large.frag");
    std::fs::write(&file, &src).unwrap();
    let uri = format!("file://{}", file.display());

    let mut c = Client::start(json!({}));
    let t = Instant::now();
    c.open(&uri, "glsl", 1, &src);
    let d = c.diagnostics(&uri, 1);
    let open = t.elapsed();
    assert_eq!(
        show_diagnostics(&d),
        "",
        "the generated shader has diagnostics"
    );
    println!("\n{lines}-line shader ({kb} KB)");
    println!("  open -> diagnostics: {:.1} ms", ms(open));

    // A change in the middle: a constant edited back and forth (the document
    // is analysed again as a whole: analysis is incremental per document,
    // not within one).
    let (line, col) = pos_of(&src, "0.05, 1.0)", src.matches("0.05, 1.0)").count() / 2, 0);
    // The recovery path (a change that breaks a statement: parse, blank,
    // parse again) at most 5 times.
    let ours = time_changes(&mut c, &uri, (line, col), runs, runs.min(5));

    match glslang(&file) {
        None => println!("  glslangValidator: not measured (not installed)"),
        Some(_) => {
            let theirs: Vec<Duration> = (0..runs).filter_map(|_| glslang(&file)).collect();
            let trivial = dir.join("trivial.frag");
            std::fs::write(&trivial, "#version 450 core\nvoid main() {}\n").unwrap();
            let startup: Vec<Duration> = (0..runs).filter_map(|_| glslang(&trivial)).collect();
            let med = |mut v: Vec<Duration>| {
                v.sort();
                v[v.len() / 2]
            };
            let (o, g, s) = (med(ours), med(theirs.clone()), med(startup));
            println!("  glslangValidator on the same file: {}", stats(theirs));
            shaders::print_glslang_ratio("server", o, g, s);
        }
    }

    // Hover and completion in the large shader (settled: the analysis of the
    // current version is done).
    time_asks(
        &mut c,
        runs * 4,
        (&uri, &src),
        &[
            (
                "hover (a parameter, deep in the file)",
                ("energy);", 3, 2),
                Answer::Shows("energy"),
            ),
            (
                "completion (in a function body, deep in the file)",
                ("return luma > 1.0", 40, 7),
                Answer::Offers("mapped"),
            ),
        ],
    );
    let rss = rss_kb(c.pid()).unwrap_or(0);
    println!("  server RSS with it open: {:.1} MB", rss as f64 / 1024.0);
    c.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `n` round trips of one request, each answer checked by `check`.
fn time_request(
    c: &mut Client,
    n: usize,
    method: &str,
    params: Value,
    check: impl Fn(&Value),
) -> Vec<Duration> {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            let answer = c.request(method, params.clone());
            let took = t.elapsed();
            check(&answer);
            took
        })
        .collect()
}

/// Edits of the 4 characters at `(line, col)` of `uri` (at version 1), each
/// timed to its diagnostics: `valid` edits to "0.06" and back to "0.05",
/// checked to have none, then `broken` to "0.0+" and back, checked to have
/// one at every other edit; prints both, returns the valid ones' times.
fn time_changes(
    c: &mut Client,
    uri: &str,
    (line, col): (u32, u32),
    valid: usize,
    broken: usize,
) -> Vec<Duration> {
    let mut version = 1;
    // `n` edits to `odd` then back to "0.05": each one's time to its
    // diagnostics, and how many it has.
    let mut edits = |n: usize, odd: &str| -> (Vec<Duration>, Vec<usize>) {
        (0..n)
            .map(|i| {
                version += 1;
                let new = if i % 2 == 0 { odd } else { "0.05" };
                let t = Instant::now();
                c.edit(uri, version, [line, col, line, col + 4], new);
                let d = c.diagnostics(uri, version);
                let count = d["diagnostics"].as_array().map_or(0, Vec::len);
                (t.elapsed(), count)
            })
            .unzip()
    };
    let (ours, counts) = edits(valid, "0.06");
    assert!(counts.iter().all(|&n| n == 0), "{counts:?}");
    println!("  change -> diagnostics: {}", stats(ours.clone()));
    let (times, counts) = edits(broken, "0.0+");
    for (i, n) in counts.into_iter().enumerate() {
        assert_eq!(n, usize::from(i % 2 == 0), "edit {i}");
    }
    println!(
        "  change to a syntax error and back -> diagnostics: {}",
        stats(times)
    );
    ours
}

/// What a timed request's every answer must hold.
enum Answer {
    /// A hover whose text contains this.
    Shows(&'static str),
    /// A completion offering an item with this label.
    Offers(&'static str),
}

/// Times each of `asks` (what it measures, where in `src`, open as `uri`:
/// [`pos_of`]'s needle, occurrence and offset, and what each answer must
/// hold) `n` times, and prints it.
fn time_asks(
    c: &mut Client,
    n: usize,
    (uri, src): (&str, &str),
    asks: &[(&str, (&str, usize, usize), Answer)],
) {
    for (what, (needle, nth, delta), answer) in asks {
        let (line, character) = pos_of(src, needle, *nth, *delta);
        let params = at(uri, line, character);
        let times = match answer {
            Answer::Shows(shows) => time_request(c, n, "textDocument/hover", params, |h| {
                let shown = h["contents"]["value"].as_str().unwrap_or_default();
                assert!(shown.contains(shows), "{h}");
            }),
            Answer::Offers(label) => time_request(c, n, "textDocument/completion", params, |r| {
                let items = r["items"].as_array().map_or(&[][..], Vec::as_slice);
                assert!(items.iter().any(|i| i["label"] == *label), "{r}");
            }),
        };
        println!("  {what}: {}", stats(times));
    }
}

fn small_shader(runs: usize) {
    let src = "#version 330 core\nstruct Light { vec3 pos; float radius; };\nuniform Light lights[4];\nin vec2 uv;\nout vec4 color;\nfloat falloff(float d, float r) { return clamp(1.0 - d / r, 0.0, 1.0); }\nvoid main() {\n    vec3 acc = vec3(0.0);\n    for (int i = 0; i < 4; i++) {\n        float d = length(lights[i].pos.xy - uv);\n        acc += vec3(falloff(d, lights[i].radius));\n    }\n    color = vec4(acc, 1.0);\n}\n";
    let uri = "file:///tmp/shaderdbg-lsp-bench/small.frag";
    let (mut c, _) = Client::start_open(uri, "glsl", src);
    let (hl, hc) = pos_of(src, "lights[i].radius", 0, 12);
    let hover = time_request(&mut c, runs, "textDocument/hover", at(uri, hl, hc), |_| {});
    let (cl, cc) = pos_of(src, "acc += ", 0, 1);
    let completion = time_request(
        &mut c,
        runs,
        "textDocument/completion",
        at(uri, cl, cc),
        |_| {},
    );
    let mut version = 1;
    let change: Vec<Duration> = (0..runs.min(50))
        .map(|i| {
            version += 1;
            let t = Instant::now();
            c.edit(
                uri,
                version,
                [7, 20, 7, 23],
                if i % 2 == 0 { "1.0" } else { "0.0" },
            );
            c.diagnostics(uri, version);
            t.elapsed()
        })
        .collect();
    println!("\n14-line shader");
    println!("  hover (a field): {}", stats(hover));
    println!("  completion (all candidates): {}", stats(completion));
    println!("  change -> diagnostics: {}", stats(change));
    c.shutdown();
}

fn memory(files: usize) {
    let mut c = Client::start(json!({}));
    let base = rss_kb(c.pid()).unwrap_or(0);
    let mut total_lines = 0;
    let mut uris = Vec::new();
    for i in 0..files {
        // 100 to ~1,000 lines each, all different.
        let src = shaders::large_shader(100 + (i * 37) % 900);
        total_lines += src.lines().count();
        let uri = format!("file:///tmp/shaderdbg-lsp-bench/mem/shader{i}.frag");
        c.open(&uri, "glsl", 1, &src);
        uris.push(uri);
    }
    let t = Instant::now();
    for uri in &uris {
        let d = c.diagnostics(uri, 1);
        assert_eq!(show_diagnostics(&d), "");
    }
    let settled = t.elapsed();
    // Use them: symbols of each, so lazily built things exist too.
    for uri in &uris {
        c.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
    }
    let rss = rss_kb(c.pid()).unwrap_or(0);
    println!("\n{files} files open ({total_lines} lines in all)");
    println!(
        "  all diagnostics in {:.0} ms after the last open",
        ms(settled)
    );
    println!(
        "  server RSS: {:.1} MB (at start {:.1} MB)",
        rss as f64 / 1024.0,
        base as f64 / 1024.0
    );
    c.shutdown();
}

/// A valid WGSL module of at least `min_lines` lines: two structs, uniforms,
/// a chain of shading functions (loops with `continue`, branches, a
/// `switch`, struct copies and member writes, swizzles, built-in calls, each
/// calling the one before) and a fragment entry point calling the last.
fn wgsl_source(min_lines: usize) -> String {
    let mut s = String::from(
        "struct Material {\n    albedo: vec3<f32>,\n    roughness: f32,\n    metallic: f32,\n}\n\n\
         struct Light {\n    pos: vec3<f32>,\n    color: vec3<f32>,\n    radius: f32,\n}\n\n\
         @group(0) @binding(0) var<uniform> lights: array<Light, 4>;\n\
         @group(0) @binding(1) var<uniform> material: Material;\n\n\
         const GAIN: f32 = 0.05;\n\n",
    );
    // Each function is 33 lines with the blank one after it, the entry
    // point 5.
    let n = (min_lines.saturating_sub(s.lines().count() + 5))
        .div_ceil(33)
        .max(1);
    for i in 0..n {
        let prev = if i == 0 {
            String::new()
        } else {
            format!(" + shade{}(p * 0.5, n, energy * 0.9)", i - 1)
        };
        s.push_str(&format!(
            "fn shade{i}(p: vec3<f32>, n: vec3<f32>, energy: f32) -> vec3<f32> {{
    var acc = vec3<f32>(0.0).xyz;
    for (var k = 0u; k < 4u; k++) {{
        let l = lights[k];
        let d = l.pos - p;
        let dist = length(d);
        if (dist > l.radius) {{
            continue;
        }}
        let ndl = max(dot(n, d / dist), 0.0);
        let att = clamp(1.0 - dist / l.radius, GAIN, 1.0);
        acc += l.color * ndl * att * energy;
    }}
    var m = material;
    m.roughness = m.roughness * 0.5 + 0.05;
    switch (i32(energy * 3.0) % 3) {{
        case 0: {{
            acc *= m.albedo;
        }}
        case 1: {{
            acc += vec3<f32>(m.metallic * m.roughness);
        }}
        default: {{
            acc = acc.zyx;
        }}
    }}
    let luma = dot(acc, vec3<f32>(0.2126, 0.7152, 0.0722));
    if (luma > 1.0) {{
        acc /= luma;
    }}
    return acc{prev};
}}

"
        ));
    }
    s.push_str(&format!(
        "@fragment\nfn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {{\n    let c = shade{}(vec3<f32>(uv, 0.0), vec3<f32>(0.0, 0.0, 1.0), 1.0);\n    return vec4<f32>(c, 1.0);\n}}\n",
        n - 1
    ));
    s
}

/// The WGSL server on a generated 5,000-line module (issue 12: change ->
/// diagnostics under 50 ms): open, a constant edited in the middle and
/// back (each a whole parse and validation by naga), a change to a syntax
/// error and back, hover and completion there.
fn wgsl_module(runs: usize) {
    let src = wgsl_source(5000);
    let lines = src.lines().count();
    let uri = "file:///tmp/shaderdbg-lsp-bench/large.wgsl";
    let mut c = Client::start(json!({}));
    let t = Instant::now();
    c.open(uri, "wgsl", 1, &src);
    let d = c.diagnostics(uri, 1);
    let open = t.elapsed();
    assert_eq!(
        show_diagnostics(&d),
        "",
        "the generated module has diagnostics"
    );
    println!("\n{lines}-line WGSL module ({} KB)", src.len() / 1000);
    println!("  open -> diagnostics: {:.1} ms", ms(open));

    let needle = "+ 0.05;";
    let (line, col) = pos_of(&src, needle, src.matches(needle).count() / 2, 2);
    time_changes(&mut c, uri, (line, col), runs, runs);

    time_asks(
        &mut c,
        runs * 4,
        (uri, &src),
        &[
            (
                "hover (a parameter, deep in the module)",
                ("energy;", 40, 1),
                Answer::Shows("energy: f32"),
            ),
            (
                "completion (members after `m.`)",
                ("acc *= m.albedo", 40, 9),
                Answer::Offers("roughness"),
            ),
            // After a constructor the text does not type: naga lowers the
            // module again with the receiver.
            (
                "completion (components after `vec3<f32>(0.0).`, typed by naga)",
                ("vec3<f32>(0.0).xyz", 40, 15),
                Answer::Offers("z"),
            ),
        ],
    );
    c.shutdown();
}
