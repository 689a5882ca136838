//! The layer's source recovery over a directory of SPIR-V modules (other
//! people's: SaschaWillems/Vulkan's `shaders/{glsl,hlsl,slang}/**.spv`, say):
//! for each module, what the layer would debug it in
//! (`source::of_module`: embedded GLSL, or GLSL decompiled by SPIRV-Cross
//! or naga), whether that parses and analyses without errors, and whether
//! its hit test at the entry instruments and compiles back to SPIR-V, as
//! the layer's twins are made. Prints a line per failure and a table per
//! top directory.
//!
//! cargo run -p shaderdbg-backend-vk --example decompile_corpus -- DIR

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use shaderdbg_glsl::instrument::{self, Breakpoint, Mode};
use VkLayer_shaderdbg::source::{self, Origin};

#[derive(Default)]
struct Tally {
    modules: usize,
    foreign: usize,
    embedded: usize,
    decompiled: usize,
    unreadable: usize,
    parse: usize,
    analysis: usize,
    instrument: usize,
    compile: usize,
    ok: usize,
}

fn main() -> anyhow::Result<()> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or_else(|| anyhow::anyhow!("usage: decompile_corpus DIR"))?,
    );
    let mut files = Vec::new();
    walk(&dir, &mut files)?;
    files.sort();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&dir).unwrap_or(file);
        let group = rel.components().next().map_or(String::new(), |c| {
            c.as_os_str().to_string_lossy().into_owned()
        });
        let t = tallies.entry(group).or_default();
        t.modules += 1;
        let bytes = std::fs::read(file)?;
        let sources = match source::of_module(&bytes) {
            Ok(s) => s,
            Err(e) => {
                t.unreadable += 1;
                println!("{}: no source: {e}", rel.display());
                continue;
            }
        };
        for s in sources {
            match &s.origin {
                Origin::Foreign { .. } => {
                    t.foreign += 1;
                    continue;
                }
                Origin::Embedded { .. } => t.embedded += 1,
                _ => t.decompiled += 1,
            }
            if s.language != shaderdbg_core::Language::Glsl {
                continue;
            }
            let failed = |what: &str, why: &str| {
                let first = why.lines().next().unwrap_or("");
                println!("{} ({}): {what}: {first}", rel.display(), s.stage);
            };
            let text = VkLayer_shaderdbg::compile::compilable(&s.text);
            let mut parsed = match shaderdbg_glsl::parse::parse(&[&text], s.stage, None) {
                Ok(p) => p,
                Err(d) => {
                    t.parse += 1;
                    failed("parse", &d.message);
                    continue;
                }
            };
            parsed.api = shaderdbg_glsl::Api::Vulkan;
            let model = shaderdbg_glsl::analysis::Model::analyze(&parsed);
            if let Some(e) = model.errors().next() {
                t.analysis += 1;
                let line = parsed.source.locate(e.span.start).line;
                failed("analysis", &format!("{line}: {}", e.message));
                continue;
            }
            let table = instrument::probe_table(&parsed);
            let Some(entry) = table.entry_step() else {
                t.instrument += 1;
                failed("instrument", "no step at the entry point");
                continue;
            };
            let mode = Mode::HitTest(vec![Breakpoint {
                probe: entry.id,
                condition: None,
            }]);
            let inst = match instrument::instrument_vulkan(&parsed, &mode, 7) {
                Ok(i) => i,
                Err(e) => {
                    t.instrument += 1;
                    failed("instrument", &e.to_string());
                    continue;
                }
            };
            let name = format!("{}", rel.display());
            match VkLayer_shaderdbg::compile::glsl_to_spirv(&inst.glsl, s.stage, "main", &name) {
                Ok(_) => t.ok += 1,
                Err(e) => {
                    t.compile += 1;
                    failed("compile", &e.to_string());
                }
            }
        }
    }
    println!();
    println!("group    modules foreign embedded decompiled unreadable | parse analysis instrument compile | debuggable");
    for (group, t) in &tallies {
        println!(
            "{group:<8} {:>7} {:>7} {:>8} {:>10} {:>10} | {:>5} {:>8} {:>10} {:>7} | {:>4}/{}",
            t.modules,
            t.foreign,
            t.embedded,
            t.decompiled,
            t.unreadable,
            t.parse,
            t.analysis,
            t.instrument,
            t.compile,
            t.ok,
            t.embedded + t.decompiled
        );
    }
    Ok(())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
    Ok(())
}
