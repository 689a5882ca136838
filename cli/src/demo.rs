//! `shaderdbg demo`: the engine end to end on a bundled shader. Renders it
//! headless on llvmpipe, checks the instrumented program draws the same image,
//! runs a conditional hit test over all fragments, records one pixel and prints
//! its execution with the values it wrote.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use shaderdbg_gl_headless::{ContextKind, Headless, Stage as GlStage};
use shaderdbg_glsl::decode::decode;
use shaderdbg_glsl::instrument::{self, Breakpoint, Mode, Request, Selector, Target};
use shaderdbg_glsl::layout;
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

const DEMO_SHADER: &str = include_str!("../demo/rings.frag");
const VERTEX: &str = "#version 450 core\nvoid main() {\n  vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);\n  gl_Position = vec4(p, 0.0, 1.0);\n}\n";
const BINDING: u32 = 7;

#[derive(Args)]
pub struct DemoArgs {
    /// Pixel to record, X,Y (gl_FragCoord; origin bottom-left).
    #[arg(long, default_value = "100,60")]
    pixel: String,
    /// Fragment shader to use instead of the bundled one (GLSL 4.50 core, `uniform vec2 iResolution`).
    #[arg(long)]
    shader: Option<PathBuf>,
    /// Line of the shader to test with a conditional breakpoint (default: the `c +=` line).
    #[arg(long)]
    break_line: Option<u32>,
    /// Condition for that breakpoint.
    #[arg(long, default_value = "falloff > 0.5")]
    condition: String,
    /// Write the rendered frame here as PNG.
    #[arg(long)]
    png: Option<PathBuf>,
}

const W: u32 = 320;
const H: u32 = 180;

pub fn run(args: DemoArgs) -> Result<ExitCode> {
    let source = match &args.shader {
        Some(p) => {
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?
        }
        None => DEMO_SHADER.to_string(),
    };
    let (x, y) = match args.pixel.split_once(',') {
        Some((x, y)) => (x.trim().parse::<u32>()?, y.trim().parse::<u32>()?),
        None => bail!("--pixel takes X,Y"),
    };
    let parsed = parse(&[&source], Stage::Fragment, None).map_err(|d| {
        let loc = shaderdbg_glsl::parse::SourceText::new(&[&source], None)
            .map(|s| s.locate(d.span.start));
        anyhow::anyhow!(
            "shader does not parse at {:?}: {}",
            loc.map(|l| (l.line, l.column)).ok(),
            d.message
        )
    })?;
    let gl = Headless::new(ContextKind::Core45, W, H)
        .context("creating a headless OpenGL 4.5 context (EGL)")?;
    eprintln!("renderer: {} ({})", gl.renderer(), gl.version());

    let draw = |frag: &str, buffer: Option<Vec<u8>>| -> Result<(Vec<u8>, Vec<u32>)> {
        let program =
            gl.compile_program(&[(GlStage::Vertex, VERTEX), (GlStage::Fragment, frag)])?;
        gl.set_uniform_f32(&program, "iResolution", &[W as f32, H as f32])?;
        let buf = buffer
            .map(|b| gl.create_storage_buffer(BINDING, &b))
            .transpose()?;
        gl.draw_fullscreen(&program)?;
        let pixels = gl.read_pixels()?;
        let words = match buf {
            Some(b) => {
                let w = layout::to_words(&gl.read_storage_buffer(&b)?);
                gl.delete_storage_buffer(b)?;
                w
            }
            None => Vec::new(),
        };
        gl.delete_program(program)?;
        Ok((pixels, words))
    };

    let (original, _) = draw(&source, None)?;
    if let Some(png) = &args.png {
        shaderdbg_gl_headless::write_png(png, W, H, &original)?;
        eprintln!("frame written to {}", png.display());
    }

    // A conditional breakpoint, tested on every fragment of the draw.
    let table = instrument::probe_table(&parsed);
    let line = match args.break_line {
        Some(l) => l,
        None => source
            .lines()
            .position(|l| l.contains("c +="))
            .map_or(1, |i| i as u32 + 1),
    };
    let step = table
        .step_for_line(line)
        .context("no statement at or after the breakpoint line")?;
    let hit_req = Request {
        mode: Mode::HitTest(vec![Breakpoint {
            probe: step.id,
            condition: Some(args.condition.clone()),
        }]),
        target: Target::CORE,
        binding: BINDING,
    };
    let hit = instrument::instrument(&parsed, &hit_req)?;
    let (pixels, words) = draw(&hit.glsl, Some(layout::new_hit_buffer(1 << 16)))?;
    let (hits, lost) = layout::read_hits(&words);
    let mut pixels_hit: Vec<(u32, u32)> = hits.iter().map(|h| (h.key[0], h.key[1])).collect();
    pixels_hit.sort();
    pixels_hit.dedup();
    println!(
        "breakpoint at line {} `{}` if {}: {} hits in {} fragments{}; image unchanged: {}",
        step.line,
        parsed.source.line_text(step.line).trim(),
        args.condition,
        hits.len(),
        pixels_hit.len(),
        if lost {
            " (buffer full, more not counted)"
        } else {
            ""
        },
        pixels == original
    );

    // Record one fragment.
    let rec_req = Request {
        mode: Mode::Record(Selector::Fragment {
            x,
            y,
            primitive: None,
        }),
        target: Target::CORE,
        binding: BINDING,
    };
    let rec = instrument::instrument(&parsed, &rec_req)?;
    let (pixels, words) = draw(&rec.glsl, Some(layout::new_record_buffer(1 << 20)))?;
    let trace = decode(&words, &rec.probes)?;
    println!(
        "recorded fragment ({x},{y}); image unchanged: {}",
        pixels == original
    );
    let Some(inv) = trace.invocations.first() else {
        println!("no fragment shader invocation ran at ({x},{y})");
        return Ok(ExitCode::FAILURE);
    };
    let t = &rec.probes;
    for (i, s) in inv.steps.iter().enumerate() {
        let func = inv.frames[s.frame]
            .function
            .map_or("?", |f| t.functions[f].name.as_str());
        println!(
            "{:indent$}{func}:{} {}",
            "",
            s.line,
            parsed.source.line_text(s.line).trim(),
            indent = s.depth * 2
        );
        for w in inv.writes_of(i) {
            let mut name = t.vars[w.decl].name.clone();
            for p in &w.path {
                match p {
                    shaderdbg_glsl::probes::PathElem::Field(f) => name.push_str(&format!(".{f}")),
                    shaderdbg_glsl::probes::PathElem::Index(k) => name.push_str(&format!("[{k}]")),
                }
            }
            println!(
                "{:indent$}    {name} = {}",
                "",
                w.value,
                indent = s.depth * 2
            );
        }
    }
    println!("exit: {:?}, {} steps", inv.exit, inv.steps.len());
    if let Some(last) = inv.steps.len().checked_sub(1) {
        println!("locals at the last step:");
        for (d, v) in inv.variables_at(last, t) {
            let var = &t.vars[d];
            let v = v.map_or("(not written)".to_string(), |v| v.to_string());
            println!("  {} {} = {}", var.ty, var.name, v);
        }
    }
    Ok(ExitCode::SUCCESS)
}
