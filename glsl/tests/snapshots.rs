//! Snapshot tests: for every shader in `tests/snapshots/`, the probe table and
//! the instrumented GLSL of each mode. The generated runtime of a mode (the
//! items after `#version` before the shader's own) is snapshotted once, in
//! `runtime.<mode>.glsl`; each shader's snapshot has a marker line in place
//! of the items that stand there too, so what differs per shader (and per
//! stage) stays in view.
//! `UPDATE_EXPECT=1 cargo test` rewrites the expected files; review the diff
//! like code.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use expect_test::expect_file;
use shaderdbg_core::Invocation;
use shaderdbg_glsl::instrument::{
    instrument, probe_table, Breakpoint, Checks, Mode, Request, Target,
};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

mod common;

#[test]
fn instrumented_shaders_match_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("snapshot folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("frag" | "vert" | "comp")
            )
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    // mode -> (snapshot file, instrumented GLSL) of every shader.
    let mut outputs: BTreeMap<&str, Vec<(PathBuf, String)>> = BTreeMap::new();
    for input in inputs {
        let ext = input
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let stage = Stage::from_extension(ext).expect("stage");
        let src = std::fs::read_to_string(&input).expect("read");
        let parsed =
            parse(&[&src], stage, None).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        let table = probe_table(&parsed);
        expect_file![input.with_extension(format!("{ext}.probes"))].assert_eq(&table.render());

        let selector = match stage {
            Stage::Fragment => Invocation::fragment(3, 4),
            Stage::Vertex => Invocation::Vertex {
                vertex: 2,
                instance: 0,
            },
            _ => Invocation::Compute { id: [1, 0, 0] },
        };
        let first_step = table
            .probes
            .iter()
            .find(|p| p.is_step())
            .expect("a step")
            .id;
        let modes = [
            ("record", Mode::Record(selector)),
            (
                "hit",
                Mode::HitTest(vec![Breakpoint {
                    probe: first_step,
                    condition: None,
                }]),
            ),
            ("sanitize", Mode::Sanitize(Checks::ALL)),
        ];
        for (name, mode) in modes {
            let req = Request {
                mode,
                target: Target::COMPAT,
                binding: 7,
            };
            let out =
                instrument(&parsed, &req).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
            // Probe ids do not depend on the mode.
            assert_eq!(out.probes.render(), table.render(), "{}", input.display());
            let file = input.with_extension(format!("{ext}.{name}.glsl"));
            outputs.entry(name).or_default().push((file, out.glsl));
        }
    }
    for (mode, shaders) in outputs {
        let name = format!("runtime.{mode}.glsl");
        let runtime = common::runtime(&shaders[0].1);
        assert!(!runtime.is_empty(), "{mode}: no generated runtime");
        expect_file![dir.join(&name)].assert_eq(&runtime);
        for (file, glsl) in &shaders {
            expect_file![file].assert_eq(&common::without_runtime(glsl, &runtime, &name));
        }
    }
}
