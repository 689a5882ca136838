//! The sanitizer's cost on llvmpipe: each kernel dispatched plain and
//! sanitized (`Mode::Sanitize`, every check), the sanitized time over the
//! plain one (issue 13's target: at most 10x), and what the race check
//! adds (every check over every check but races: shared memory and, with
//! a shadow slot for every word of the storage buffers, storage buffers).
//! Wall-clock time and the process's CPU time (llvmpipe's threads
//! together: steadier on a machine others load) are measured.
//! A dispatch is timed with the read-back of a one-word buffer, which
//! waits for it; a sanitized one with what the GL agent does around it
//! (`backend-gl` `stops::sanitize_shader`): its report buffer reset (the
//! header written, the rest, shadow included, cleared on the GPU), and
//! the header, dedup words and records read back. The storage shadow has
//! a slot per word of the bound storage buffers and a word per work
//! group, as the agent sizes it.
//!
//! `SDBG_SANITIZE_DUMP=DIR` writes each kernel's GLSL (plain, no race,
//! every check) into DIR; `SDBG_SANITIZE_LOAD=DIR` dispatches those
//! found there instead (hand-made variants, to measure an idea before
//! the instrumenter makes it); `SDBG_SANITIZE_ONLY=K` runs only the K-th.

/// The storage buffers and the 256-wide shared tile the shared-memory
/// kernels start with.
macro_rules! tile256 {
    ($body:literal) => {
        concat!(
            "#version 430
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
shared float tile[256];
",
            $body
        )
    };
}

use shaderdbg_core::layout;
use shaderdbg_gl_headless::{ContextKind, Headless, Stage as GlStage};
use shaderdbg_glsl::instrument::{instrument, Checks, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;
use shaderdbg_test_support::bench::{median, process_cpu_time};
use std::time::{Duration, Instant};

/// (name, kernel, work groups, invocations per group); binding 0 is 1M
/// input words, binding 1 1M output words.
const KERNELS: &[(&str, &str, u32, u32)] = &[
    (
        "storage loop (4 reads + 4 writes of runtime-sized arrays)",
        "#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
void main() {
    uint base = gl_GlobalInvocationID.x * 4u;
    for (uint k = 0u; k < 4u; k++) {
        float v = src[base + k];
        dst[base + k] = v * 2.0 + 1.0;
    }
}
",
        1 << 12,
        64,
    ),
    (
        "storage stencil (write, barrier, 2 neighbour reads in the work group)",
        "#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    uint base = gl_WorkGroupID.x * 64u;
    dst[base + i] = src[base + i] * 0.5;
    memoryBarrierBuffer();
    barrier();
    src[base + i] = dst[base + (i + 63u) % 64u] + dst[base + (i + 1u) % 64u];
}
",
        1 << 12,
        64,
    ),
    (
        "local array (32 writes + 32 reads)",
        "#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 1) buffer Dst { float dst[]; };
void main() {
    uint id = gl_GlobalInvocationID.x;
    float acc[32];
    float s = 0.0;
    for (int k = 0; k < 32; k++) {
        s += float(int(id) + k);
        acc[k] = s;
    }
    float t = 0.0;
    for (int k = 0; k < 32; k++) {
        t += acc[(k * 7 + int(id)) % 32];
    }
    dst[id] = t;
}
",
        1 << 12,
        64,
    ),
    (
        "shared tile (write, barrier, 3 neighbour reads)",
        tile256!(
            "void main() {
    uint i = gl_LocalInvocationID.x;
    uint g = gl_GlobalInvocationID.x;
    tile[i] = src[g];
    memoryBarrierShared();
    barrier();
    float l = tile[(i + 255u) % 256u];
    float r = tile[(i + 1u) % 256u];
    dst[g] = l - 2.0 * tile[i] + r;
}
"
        ),
        1 << 12,
        256,
    ),
    (
        "shared reduction (16 barriers, 2 reads + 1 write per step)",
        tile256!(
            "void main() {
    uint i = gl_LocalInvocationID.x;
    tile[i] = src[gl_GlobalInvocationID.x];
    memoryBarrierShared();
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (i < s) {
            tile[i] = tile[i] + tile[i + s];
        }
        memoryBarrierShared();
        barrier();
    }
    if (i == 0u) dst[gl_WorkGroupID.x] = tile[0];
}
"
        ),
        1 << 10,
        256,
    ),
];

/// What the agent does at a sanitized dispatch, but the dispatch: the
/// buffer reset before it; after it, the header read, then the header,
/// dedup words and records.
struct Report {
    buffer: shaderdbg_gl_headless::StorageBuffer,
    header: Vec<u8>,
}

impl Report {
    fn new(gl: &Headless, binding: u32, probes: usize, slots: u32) -> Report {
        let words = layout::sanitize_buffer_words(CAPACITY, probes, slots);
        let buffer = gl
            .create_storage_buffer(binding, &vec![0u8; words * 4])
            .expect("ssbo");
        let header = layout::to_bytes(&layout::sanitize_header(CAPACITY, probes));
        Report { buffer, header }
    }

    fn reset(&self, gl: &Headless) {
        gl.write_storage_buffer(&self.buffer, 0, &self.header)
            .expect("write");
        let rest = self.buffer.len() - self.header.len();
        gl.clear_storage_buffer(&self.buffer, self.header.len(), rest)
            .expect("clear");
    }

    fn read(&self, gl: &Headless) -> Vec<u32> {
        let header = layout::to_words(
            &gl.read_storage_buffer_range(&self.buffer, 0, self.header.len())
                .expect("read"),
        );
        let (count, flags) = (
            header[0].min(CAPACITY),
            header[layout::SANITIZE_FLAGS_INDEX],
        );
        let used =
            layout::HEADER_WORDS + flags as usize + count as usize * layout::SANITIZE_RECORD_WORDS;
        layout::to_words(
            &gl.read_storage_buffer_range(&self.buffer, 0, used * 4)
                .expect("read"),
        )
    }
}

/// The agent's record capacity (`backend-gl` `stops::SANITIZE_CAPACITY`).
const CAPACITY: u32 = 1024;

pub fn sanitize_overhead(runs: usize, only: &[String]) {
    let gl = match Headless::new(ContextKind::Core45, 4, 4) {
        Ok(gl) => gl,
        Err(e) => {
            println!("sanitizer overhead: no GL context ({e}), skipped");
            return;
        }
    };
    let words = vec![0u8; 4 << 20];
    let src = gl.create_storage_buffer(0, &words).expect("ssbo");
    let dst = gl.create_storage_buffer(1, &words).expect("ssbo");
    let sync = gl.create_storage_buffer(2, &[0u8; 4]).expect("ssbo");
    for (name, comp, groups, local) in KERNELS {
        if !only.is_empty() && !only.iter().any(|w| name.contains(w.as_str())) {
            continue;
        }
        let parsed = parse(&[comp], Stage::Compute, None).expect("parses");
        // Plain, every check but races, every check: each sanitized kernel
        // with its own report buffer, dispatched in turn (the load of a
        // shared machine changes alike for all three).
        let modes = [
            Mode::Plain,
            Mode::Sanitize(Checks {
                race: false,
                ..Checks::ALL
            }),
            Mode::Sanitize(Checks::ALL),
        ];
        let kernels: Vec<_> = modes
            .into_iter()
            .zip(7..)
            .map(|(mode, binding)| {
                let plain = matches!(mode, Mode::Plain);
                let out = instrument(
                    &parsed,
                    &Request {
                        mode,
                        target: Target::CORE,
                        binding,
                    },
                )
                .expect("instruments");
                // `SDBG_SANITIZE_DUMP=DIR`: each kernel's GLSL into DIR, to
                // read; `SDBG_SANITIZE_LOAD=DIR`: the kernels found there
                // dispatched instead (hand-made variants, to measure).
                let file = format!(
                    "{}-{binding}.comp",
                    name.split(' ').take(2).collect::<Vec<_>>().join("_")
                );
                if let Some(dir) = std::env::var_os("SDBG_SANITIZE_DUMP") {
                    std::fs::write(std::path::Path::new(&dir).join(&file), &out.glsl)
                        .expect("dump");
                }
                let glsl = std::env::var_os("SDBG_SANITIZE_LOAD")
                    .and_then(|dir| {
                        std::fs::read_to_string(std::path::Path::new(&dir).join(&file)).ok()
                    })
                    .unwrap_or(out.glsl);
                let program = gl
                    .compile_program(&[(GlStage::Compute, &glsl)])
                    .unwrap_or_else(|e| panic!("{e}\n{glsl}"));
                // A slot for every word of the two storage buffers, and a
                // word per work group, as the agent sizes it.
                let slots = (2 << 20) + groups.div_ceil(layout::SANITIZE_SHADOW_SLOT_WORDS as u32);
                let report =
                    (!plain).then(|| Report::new(&gl, binding, out.probes.probes.len(), slots));
                (program, report, out.probes)
            })
            .collect();
        let mut times = vec![Vec::new(); kernels.len()];
        let run = |program: &_, report: &Option<Report>| match report {
            Some(r) => {
                r.reset(&gl);
                gl.dispatch_compute(program, *groups, 1, 1)
                    .expect("dispatch");
                r.read(&gl)
            }
            None => {
                gl.dispatch_compute(program, *groups, 1, 1)
                    .expect("dispatch");
                layout::to_words(&gl.read_storage_buffer(&sync).expect("read"))
            }
        };
        // One dispatch each first: llvmpipe compiles a kernel at its first.
        for (program, report, _) in &kernels {
            run(program, report);
        }
        // `SDBG_SANITIZE_ONLY=K`: only the K-th of plain, no race, every
        // check runs after the first dispatches (for instruction counts
        // under a profiler: the difference between 1 and 9 runs).
        let only = std::env::var("SDBG_SANITIZE_ONLY")
            .ok()
            .and_then(|k| k.parse::<usize>().ok());
        let mut cpu = vec![Vec::new(); kernels.len()];
        for _ in 0..runs {
            for (k, (program, report, _)) in kernels.iter().enumerate() {
                if only.is_some_and(|o| o != k) {
                    times[k].push(Duration::ZERO);
                    cpu[k].push(Duration::ZERO);
                    continue;
                }
                let (t, c) = (Instant::now(), process_cpu_time());
                std::hint::black_box(run(program, report));
                times[k].push(t.elapsed());
                cpu[k].push(process_cpu_time().saturating_sub(c));
            }
        }
        let mid = |v: &mut Vec<Duration>| {
            v.sort();
            v[runs / 2]
        };
        let [plain, no_race, checked] = [0, 1, 2].map(|k| mid(&mut times[k]));
        let [plain_cpu, no_race_cpu, checked_cpu] = [0, 1, 2].map(|k| mid(&mut cpu[k]));
        // The report buffer's reset alone (the shadow's clear dominates).
        let reset = kernels[2]
            .1
            .as_ref()
            .filter(|_| only.is_none())
            .map_or(Duration::ZERO, |r| {
                median(runs, || {
                    r.reset(&gl);
                    r.read(&gl)
                })
            });
        for (program, report, probes) in kernels {
            if let Some(report) = report {
                let words =
                    layout::to_words(&gl.read_storage_buffer(&report.buffer).expect("read"));
                let (reports, _) = shaderdbg_core::decode::decode_sanitizer(&words, &probes);
                assert!(reports.is_empty(), "{name}: {reports:?}");
                assert_eq!(layout::sanitize_unchecked(&words), (false, false), "{name}");
                gl.delete_storage_buffer(report.buffer).expect("delete");
            }
            gl.delete_program(program).expect("delete");
        }
        println!(
            "sanitize {name}, {} invocations: {:.2} ms plain, {:.2} ms sanitized (the report buffer's reset and read-back alone {:.2} ms), {:.1}x (target <= 10x; the race check {:.1}x of the other checks); CPU time {:.1} ms plain, {:.1} ms sanitized, {:.1}x (race check {:.1}x); medians of {runs}",
            groups * local,
            super::ms(plain),
            super::ms(checked),
            super::ms(reset),
            checked.as_secs_f64() / plain.as_secs_f64(),
            checked.as_secs_f64() / no_race.as_secs_f64(),
            super::ms(plain_cpu),
            super::ms(checked_cpu),
            checked_cpu.as_secs_f64() / plain_cpu.as_secs_f64(),
            checked_cpu.as_secs_f64() / no_race_cpu.as_secs_f64(),
        );
    }
    for b in [src, dst, sync] {
        gl.delete_storage_buffer(b).expect("delete");
    }
}
