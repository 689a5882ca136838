//! Bad input gets a clear diagnostic, never a panic: garbage, truncated and
//! absurdly nested shaders, odd directives, include cycles, bad breakpoint
//! conditions and watch expressions, huge arrays, and random step logs.
//!
//! Cases that may crash the process (deep nesting, a 5 MB shader, huge arrays)
//! or hang run in a child process (this test binary re-run on one test, see
//! [`isolated_for`]) on a thread with an 8 MiB stack, like a main thread, under
//! an address-space limit and a time limit: a stack overflow, a failed allocation
//! or a hang ends only the child, and the parent test fails with what the child
//! printed.

use std::io::Read;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use shaderdbg_core::decode::decode;
use shaderdbg_core::layout::HEADER_WORDS;
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::Invocation;
use shaderdbg_glsl::analysis::Model;
use shaderdbg_glsl::instrument::{
    instrument, probe_table, Breakpoint, InstrumentError, Mode, Request, Target,
};
use shaderdbg_glsl::parse::{parse, IncludeError, IncludeResolver, Parsed};
use shaderdbg_glsl::Stage;

#[path = "../benches/support/mod.rs"]
mod support;

/// A real shader (the CLI demo's kind of code) used for truncation and as the
/// host of breakpoints and watches.
const REAL: &str = r#"#version 450 core
layout(location = 0) out vec4 fragColor;
uniform vec2 iResolution;
uniform sampler2D uTex;

struct Light {
    vec2 pos;
    vec3 color;
};

float ring(vec2 p, float radius, out float dist) {
    dist = length(p);
    return smoothstep(0.02, 0.0, abs(dist - radius));
}

vec3 shade(vec2 uv, Light lights[3]) {
    vec3 c = vec3(0.0);
    for (int i = 0; i < 3; i++) {
        vec2 d = uv - lights[i].pos;
        float falloff = 1.0 / (1.0 + 8.0 * dot(d, d));
        if (falloff < 0.2) continue;
        c += lights[i].color * falloff;
    }
    return c;
}

void main() {
    vec2 uv = (gl_FragCoord.xy - 0.5 * iResolution) / iResolution.y;
    Light lights[3] = Light[3](
        Light(vec2(-0.4, 0.0), vec3(1.0, 0.3, 0.2)),
        Light(vec2(0.4, 0.1), vec3(0.2, 0.5, 1.0)),
        Light(vec2(0.0, -0.3), vec3(0.3, 1.0, 0.4)));
    float dist;
    float r = ring(uv, 0.3, dist);
    vec3 col = shade(uv, lights);
    col = mix(col, texture(uTex, uv).rgb, r);
    switch (int(dist * 4.0)) {
    case 0: col *= 0.5; break;
    default: break;
    }
    if (r > 2.0) discard;
    fragColor = vec4(col, 1.0);
}
"#;

fn request(mode: Mode) -> Request {
    Request {
        mode,
        target: Target::CORE,
        binding: 7,
    }
}

fn record() -> Mode {
    Mode::Record(Invocation::fragment(1, 2))
}

/// What became of a shader.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Parse error (with its message).
    Rejected(String),
    /// Parsed; the number of error diagnostics of the analysis, and whether the
    /// recording instrumentation succeeded.
    Parsed { errors: usize, recorded: bool },
}

/// Parsed without errors and recorded.
const CLEAN: Outcome = Outcome::Parsed {
    errors: 0,
    recorded: true,
};

/// Parses and, if that works, analyses and instruments (Plain, Record, HitTest on
/// the first step) and decodes a small log against the table. Panics only if the
/// engine does.
fn exercise(src: &str) -> Outcome {
    let parsed = match parse(&[src], Stage::Fragment, None) {
        Ok(p) => p,
        Err(d) => {
            assert!(!d.message.trim().is_empty(), "empty parse diagnostic");
            assert!(
                d.span.start <= src.len() + 1,
                "span {:?} beyond the text",
                d.span
            );
            return Outcome::Rejected(d.message);
        }
    };
    exercise_parsed(&parsed)
}

fn exercise_parsed(parsed: &Parsed) -> Outcome {
    let model = Model::analyze(parsed);
    let errors = model.errors().count();
    let _ = instrument(parsed, &request(Mode::Plain));
    let table = probe_table(parsed);
    let recorded = match instrument(parsed, &request(record())) {
        Ok(out) => {
            assert_eq!(out.probes.probes.len(), table.probes.len());
            decode_smoke(&out.probes);
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    };
    if let Some(step) = table.probes.iter().find(|p| p.is_step()) {
        let bp = |condition: Option<&str>| {
            Mode::HitTest(vec![Breakpoint {
                probe: step.id,
                condition: condition.map(str::to_string),
            }])
        };
        let _ = instrument(parsed, &request(bp(None)));
        let _ = instrument(parsed, &request(bp(Some("gl_FragCoord.x > 1.0"))));
    }
    Outcome::Parsed { errors, recorded }
}

/// A tiny xorshift PRNG (no `rand` dependency).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn word(&mut self) -> u32 {
        self.next() as u32
    }
}

/// Decodes a few structured logs (valid probe ids, random payloads) against a
/// table and walks every query of the traces.
fn decode_smoke(table: &ProbeTable) {
    for seed in 0..4 {
        let words = structured_log(table, &mut Rng::new(seed), 64);
        query_everything(&words, table);
    }
}

/// Decodes `words` and, if that works, asks every question of every step.
fn query_everything(words: &[u32], table: &ProbeTable) {
    if let Ok(trace) = decode(words, table) {
        for inv in &trace.invocations {
            for step in 0..=inv.steps.len() {
                let _ = inv.variables_at(step, table);
                let _ = inv.call_stack(step);
                let _ = inv.writes_of(step).count();
            }
        }
    }
}

/// A record buffer of `entries` entries naming random probes of the table (ids in
/// range, mostly), with random tags among a few invocations and random payloads
/// of the right size (sometimes cut short), and a random header.
fn structured_log(table: &ProbeTable, rng: &mut Rng, entries: usize) -> Vec<u32> {
    let mut w = vec![0u32; HEADER_WORDS];
    let n = table.probes.len() as u64;
    for _ in 0..entries {
        let id = match rng.below(16) {
            0 => rng.word(),
            1 => 0,
            _ => 1 + rng.below(n.max(1)) as u32,
        };
        w.push(id);
        w.push(rng.below(3) as u32);
        let words = table
            .get(id)
            .map_or(rng.below(4) as usize, |p| p.payload_words());
        for _ in 0..words {
            w.push(rng.word());
        }
    }
    if rng.below(8) == 0 {
        let cut = rng.below(w.len() as u64) as usize;
        w.truncate(cut.max(HEADER_WORDS));
    }
    let data = (w.len() - HEADER_WORDS) as u32;
    w[0] = match rng.below(4) {
        0 => rng.word(),
        1 => data / 2,
        _ => data,
    };
    w[1] = if rng.below(4) == 0 { rng.word() } else { data };
    w[2] = rng.below(2) as u32;
    w[3] = rng.word();
    w
}

// ---- the generated benchmark shader is valid --------------------------------

#[test]
fn generated_large_shader_is_valid_glsl_without_errors() {
    let src = support::large_shader(1000);
    let parsed = parse(&[&src], Stage::Fragment, None).expect("generated shader parses");
    let model = Model::analyze(&parsed);
    let errors: Vec<String> = model.errors().map(|d| d.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    instrument(&parsed, &request(record())).expect("instruments");
    // glslang must accept it too.
    let dir = std::env::temp_dir().join(format!("shaderdbg-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("large.frag");
    std::fs::write(&file, &src).unwrap();
    match Command::new("glslangValidator").arg(&file).output() {
        Ok(out) => assert!(
            out.status.success(),
            "glslangValidator rejects the generated shader:\n{}",
            String::from_utf8_lossy(&out.stdout)
        ),
        Err(e) => panic!(
            "glslangValidator cannot be run ({e}): this check needs it on PATH \
             (Debian package glslang-tools; `cargo xtask setup` installs it)"
        ),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- garbage ------------------------------------------------------------------

/// GLSL-ish punctuation and keywords' letters.
const GLSLISH: &[u8] = b"{}()[];,.+-*/=<>!&|^?:#\n \tifvoidmainfloatvec4return0123";

#[test]
fn garbage_bytes_are_rejected_without_panic() {
    for seed in 0..200 {
        let mut rng = Rng::new(seed);
        let len = rng.below(400) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| match seed % 3 {
                // Any byte.
                0 => rng.next() as u8,
                // Printable ASCII.
                1 => b' ' + rng.below(95) as u8,
                _ => GLSLISH[rng.below(GLSLISH.len() as u64) as usize],
            })
            .collect();
        let src = String::from_utf8_lossy(&bytes);
        // None of these 200 inputs is a shader: the parser rejects each one.
        let out = exercise(&src);
        assert!(
            matches!(out, Outcome::Rejected(_)),
            "seed {seed}: {src:?} was not rejected: {out:?}"
        );
    }
}

#[test]
fn invalid_utf8_decoded_lossily_is_rejected() {
    let bytes = b"#version 450 core\nvoid main() { float \xff\xfe x = 1.0; }\n";
    let src = String::from_utf8_lossy(bytes);
    assert!(matches!(exercise(&src), Outcome::Rejected(_)));
    // U+FFFD in a comment is fine.
    let bytes = b"#version 450 core\n// caf\xe9\nvoid main() {}\n";
    let src = String::from_utf8_lossy(bytes);
    assert!(
        matches!(exercise(&src), Outcome::Parsed { errors: 0, .. }),
        "{src}"
    );
}

#[test]
fn nul_bytes_are_rejected() {
    for src in [
        "#version 450 core\nvoid main() {\0}\n",
        "#version 450 core\nvoid ma\0in() {}\n",
        "\0",
        "#version 450 core\0\nvoid main() {}\n",
    ] {
        let out = exercise(src);
        assert!(
            !matches!(out, Outcome::Parsed { errors: 0, .. }),
            "{src:?} accepted without error: {out:?}"
        );
    }
}

#[test]
fn empty_and_comment_only_shaders() {
    for src in ["", "// nothing here\n", "/* nothing */", "   \n\n\t\n"] {
        // A translation unit may be empty (GLSL 1.10 without `#version`);
        // it instruments without `main` (a stage's other shader objects may
        // hold it), in a core context too since 1.10 is raised to 4.30 core
        // there (it failed only for its version before).
        assert_eq!(exercise(src), CLEAN, "{src:?}");
    }
}

#[test]
fn unknown_extension_is_kept_or_diagnosed() {
    let src = "#version 450 core\n#extension GL_FOO_bar : require\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(1.0); }\n";
    match parse(&[src], Stage::Fragment, None) {
        Err(d) => assert!(d.message.contains("GL_FOO_bar"), "{}", d.message),
        Ok(p) => {
            assert!(p.extensions.iter().any(|e| e.name == "GL_FOO_bar"));
            let _ = exercise_parsed(&p);
        }
    }
    // `#extension all : require` is invalid (only warn/disable are allowed for `all`).
    let _ = exercise("#version 450 core\n#extension all : require\nvoid main() {}\n");
    let _ = exercise("#version 450 core\n#extension : require\nvoid main() {}\n");
    let _ = exercise("#version 450 core\n#extension GL_FOO_bar : sometimes\nvoid main() {}\n");
}

#[test]
fn unknown_versions_do_not_panic() {
    const UNSUPPORTED: &str = "'#version' : unsupported version number in #version directive";
    const INVALID: &str = "'#version' : invalid version number in #version directive";
    const EXTRA: &str = "'#version' : extra tokens in preprocessor directive";
    const ES_REQUIRED: &str = "'#version' : es profile is required";
    for (v, message) in [
        ("999", UNSUPPORTED),
        ("0", UNSUPPORTED),
        ("4294967295", INVALID),
        ("99999999999999999999", INVALID),
        ("-1", EXTRA),
        ("450 nonsense", "'#version' : invalid version profile"),
        ("300 core", ES_REQUIRED),
        (
            "450 es",
            "there is no GLSL ES version 450 (100, 300 es, 310 es, 320 es)",
        ),
        (
            "150 es",
            "there is no GLSL ES version 150 (100, 300 es, 310 es, 320 es)",
        ),
        ("310 compatibility", ES_REQUIRED),
        ("100 core", "'#version' : cannot specify a profile"),
        ("", EXTRA),
        ("abc", "unexpected IDENT_KW, expected [DIGITS]"),
    ] {
        let src = format!(
            "#version {v}\nlayout(location = 0) out vec4 o;\nvoid main() {{ o = vec4(1.0); }}\n"
        );
        assert_eq!(
            exercise(&src),
            Outcome::Rejected(message.to_string()),
            "#version {v}"
        );
    }
    // A `#version` after other tokens, and twice: accepted today (glslang
    // rejects both; the first `#version` counts here).
    for src in [
        "void f() {}\n#version 450\nvoid main() {}\n",
        "#version 450\n#version 330\nvoid main() {}\n",
    ] {
        assert_eq!(exercise(src), CLEAN, "{src:?}");
    }
}

#[test]
fn odd_preprocessor_directives_do_not_panic() {
    // `None`: parses, analyses without errors and instruments.
    let invalid_if = Some("'#if' : invalid constant expression");
    let invalid_line = Some("'#line' : invalid line number");
    for (directives, rejected) in [
        ("#define A A\n#define B(x) B(x)\n", None),
        // An unterminated `#if` at the end of the text is not diagnosed.
        ("#if 1\n", None),
        ("#endif\n", Some("unmatched #endif")),
        ("#else\n#elif\n", Some("unmatched #else")),
        ("#if (((((((((((1)))))))))))\n#endif\n", None),
        ("#if 1/0\n#endif\n", invalid_if),
        ("#if 9223372036854775807 + 1\n#endif\n", invalid_if),
        ("#error boom\n", Some("'#error' : boom")),
        ("#line 4294967295\n", invalid_line),
        ("#line -5 7\n", invalid_line),
        (
            "#line 1 99999999999999999999\n",
            Some("'#line' : invalid path"),
        ),
        ("#pragma optimize(off)\n#pragma\n", None),
        (
            "#undef main\n#undef __LINE__\n",
            Some("'#undef' : predefined names can't be (un)defined: __LINE__"),
        ),
        // `void main()` becomes `void ()`.
        (
            "#define main\n",
            Some("unexpected `(`, expected an identifier, `,` or `;`"),
        ),
        // A repeated parameter name is not diagnosed (the macro is unused).
        ("#define X(a, a) a\n", None),
        (
            "#define X(\n",
            Some("unexpected NEWLINE, expected [IDENT_KW, RPAREN]"),
        ),
        (
            "#define __FILE__ 1\n",
            Some("'#define' : predefined names can't be (un)defined: __FILE__"),
        ),
        ("#\n# # #\n", Some("unknown preprocessor directive `##`")),
        (
            "#ifdef\n#endif\n",
            Some("'#ifdef' : extra tokens in preprocessor directive"),
        ),
        (
            "#define F(x) #x\n#define G(x, y) x ## y\nfloat G(a, b) = 1.0;\n",
            None,
        ),
    ] {
        let src = format!(
            "#version 450 core\n{directives}layout(location = 0) out vec4 o;\nvoid main() {{ o = vec4(__LINE__); }}\n"
        );
        let want = match rejected {
            Some(message) => Outcome::Rejected(message.to_string()),
            None => CLEAN,
        };
        assert_eq!(exercise(&src), want, "{directives:?}");
    }
}

#[test]
fn macro_expansion_bomb_finishes_or_is_rejected() {
    isolated("macro_expansion_bomb_finishes_or_is_rejected", || {
        let bomb = |levels: usize, body: &str| {
            let mut src = String::from(
                "#version 450 core\nlayout(location = 0) out vec4 o;\n#define M0 1.0\n",
            );
            for i in 1..=levels {
                let b = body.replace('P', &format!("M{}", i - 1));
                src.push_str(&format!("#define M{i} {b}\n"));
            }
            src.push_str(&format!("void main() {{ o = vec4(M{levels}); }}\n"));
            src
        };
        // 2^16 leaves in a balanced expression tree of depth 16: expanded
        // in full, and fine.
        let t = Instant::now();
        let out = exercise(&bomb(16, "(P + P)"));
        eprintln!(
            "macro bomb (2^16 leaves): {} in {:.2?}",
            short(&out),
            t.elapsed()
        );
        assert_eq!(out, CLEAN);
        // 2^18 leaves, more than the expansion limit's million tokens, and
        // 2^26 (glsl-lang-pp, which has no limit, ran out of memory on it:
        // a debugged program would have aborted): rejected at once, with
        // the limit named.
        for (levels, body) in [(18, "(P + P)"), (26, "P + P")] {
            let t = Instant::now();
            let out = exercise(&bomb(levels, body));
            eprintln!(
                "macro bomb (2^{levels}): {} in {:.2?}",
                short(&out),
                t.elapsed()
            );
            assert!(
                matches!(&out, Outcome::Rejected(m) if m.contains("macro expansion makes more than")),
                "{out:?}"
            );
        }
    });
}

/// GLSL ES has versions 100, 300, 310 and 320 only; glslang rejects the others.
#[test]
fn invalid_es_version_numbers_are_diagnosed() {
    for v in ["150 es", "330 es", "450 es"] {
        let src = format!(
            "#version {v}\nprecision highp float;\nout vec4 o;\nvoid main() {{ o = vec4(1.0); }}\n"
        );
        let out = exercise(&src);
        assert!(
            !matches!(out, Outcome::Parsed { errors: 0, .. }),
            "#version {v} accepted without a diagnostic: {out:?}"
        );
    }
}

// ---- hangs (isolated, with a time limit) ------------------------------------

/// A test, isolated, that `case` finishes within 20 seconds (a hang is
/// killed and fails it).
macro_rules! does_not_hang {
    ($(#[$doc:meta])* $name:ident, $case:expr) => {
        $(#[$doc])*
        #[test]
        fn $name() {
            isolated_for(stringify!($name), Duration::from_secs(20), $case);
        }
    };
}

does_not_hang!(
    /// glsl-lang-pp 0.8.1 loops forever on a `##` in a `#define` on the last
    /// line when no newline follows (`pp_concat` never sees the NEWLINE it
    /// waits for).
    token_paste_on_the_last_line_does_not_hang,
    || {
        let out = exercise("#version 450 core\nvoid main() {}\n#define A a ## b");
        eprintln!("{out:?}");
    }
);

does_not_hang!(
    /// The same loop, with a newline after the line: an unterminated `"`
    /// after the `##` takes the rest of the line, newline included (found by
    /// the fuzzer).
    token_paste_before_an_unterminated_quote_does_not_hang,
    || {
        let out = exercise("#version 450 core\n#define A ## \"\nvoid main() {}\n");
        eprintln!("{out:?}");
    }
);

/// [`REAL`] instrumented for the mode `mode` makes of a step in `main`.
fn instrument_at_a_step(mode: fn(u32) -> Mode) -> Result<(), InstrumentError> {
    let (parsed, table) = real();
    let probe = step_in_main(&parsed, &table);
    instrument(&parsed, &request(mode(probe))).map(|_| ())
}

does_not_hang!(token_paste_in_a_breakpoint_condition_does_not_hang, || {
    let r = instrument_at_a_step(|probe| {
        Mode::HitTest(vec![Breakpoint {
            probe,
            condition: Some("#define A a ## b".into()),
        }])
    });
    assert!(matches!(r, Err(InstrumentError::Condition { .. })), "{r:?}");
});

does_not_hang!(token_paste_in_a_watch_expression_does_not_hang, || {
    let r = instrument_at_a_step(|probe| Mode::Watch {
        probe,
        expr: "col.x\n#define A a ## b".into(),
    });
    assert!(matches!(r, Err(InstrumentError::Watch { .. })), "{r:?}");
});

// ---- truncation ---------------------------------------------------------------

#[test]
fn every_7th_byte_prefix_parses_or_errors() {
    let generated = support::large_shader(0); // one block, ~130 lines
    for src in [REAL, generated.as_str()] {
        let mut parsed = 0;
        for cut in (0..=src.len()).step_by(7) {
            if let Outcome::Parsed { .. } = exercise(&src[..cut]) {
                parsed += 1;
            }
        }
        assert!(parsed > 0, "no prefix parsed at all");
        assert!(matches!(exercise(src), CLEAN), "the whole shader must work");
    }
}

// ---- absurd nesting (isolated: these may overflow the stack) -----------------

const CHILD_VAR: &str = "SHADERDBG_BAD_INPUT_CHILD";

/// Runs `case` on a thread with an 8 MiB stack in a child process (this test
/// binary, filtered to the test `name`), so a stack overflow or a failed
/// allocation fails this test with a clear message instead of aborting every
/// test. The child is killed if it runs longer than `limit` (a hang).
fn isolated_for(name: &str, limit: Duration, case: fn()) {
    if std::env::var(CHILD_VAR).as_deref() == Ok(name) {
        let started = Instant::now();
        thread::Builder::new()
            .name(name.to_string())
            .stack_size(8 << 20)
            .spawn(case)
            .expect("spawn")
            .join()
            .expect("the case panicked");
        eprintln!("{name}: finished in {:.2?}", started.elapsed());
        return;
    }
    // Under a 16 GiB address-space limit, so that a runaway allocation fails
    // (and aborts the child) instead of taking the machine's memory.
    let exe = std::env::current_exe().expect("test binary");
    let mut child = Command::new("sh")
        .args(["-c", "ulimit -v 16777216 2>/dev/null; exec \"$0\" \"$@\""])
        .arg(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run child");
    let read = |mut r: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let Some(status) = status else {
        panic!(
            "{name} did not finish in {limit:?} (hangs?); killed it:\n{}\n{}",
            tail(&stdout),
            tail(&stderr)
        );
    };
    assert!(
        status.success() && stdout.contains("1 passed"),
        "{name} crashed or failed in its child process ({status}):\n{}\n{}",
        tail(&stdout),
        tail(&stderr)
    );
    eprint!("{}", tail(&stderr));
}

fn isolated(name: &str, case: fn()) {
    isolated_for(name, Duration::from_secs(600), case);
}

fn tail(s: &str) -> &str {
    let start = s.len().saturating_sub(3000);
    let start = (start..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[start..]
}

/// A fragment shader whose `main` contains `body`.
fn in_main(body: &str) -> String {
    format!(
        "#version 450 core\nlayout(location = 0) out vec4 o;\nvoid main() {{\n    float v = 1.0;\n{body}\n    o = vec4(v);\n}}\n"
    )
}

/// The input limits (`glsl::limits`) reject the shader before parsing, with
/// `message`.
fn nested_case(src: String, message: &str) {
    let out = exercise(&src);
    eprintln!("{} bytes: {}", src.len(), short(&out));
    assert_eq!(out, Outcome::Rejected(message.to_string()));
}

const TOO_DEEP: &str = "brackets nested deeper than 128 levels";

fn short(o: &Outcome) -> String {
    match o {
        Outcome::Rejected(m) => format!("rejected: {}", m.chars().take(200).collect::<String>()),
        other => format!("{other:?}"),
    }
}

/// `open` n times, `inner`, then `close` n times.
fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// A test, isolated, that the input limits reject the fragment shader whose
/// `main` is `body` with `message` ([`nested_case`]).
macro_rules! rejected_when_nested {
    ($name:ident, $message:expr, $body:expr) => {
        #[test]
        fn $name() {
            isolated(stringify!($name), || nested_case(in_main(&$body), $message));
        }
    };
}

rejected_when_nested!(
    nested_parentheses_100k,
    TOO_DEEP,
    format!("    v = {};", nested("(", "v", ")", 100_000))
);
rejected_when_nested!(
    nested_parentheses_1k,
    TOO_DEEP,
    format!("    v = {};", nested("(", "v", ")", 1_000))
);
rejected_when_nested!(
    nested_blocks_10k,
    TOO_DEEP,
    nested("{", "v += 1.0;", "}", 10_000)
);
rejected_when_nested!(
    nested_ifs_10k,
    TOO_DEEP,
    nested("if (v > 0.0) {\n", "v += 1.0;", "}\n", 10_000)
);
rejected_when_nested!(
    nested_ifs_without_braces_10k,
    "more than 128 nested statements without braces",
    nested("if (v > 0.0)\n", "v += 1.0;", "", 10_000)
);
// Not nested in the text, but a 100,000-deep left-leaning expression tree.
rejected_when_nested!(
    long_binary_chain_100k,
    "more than 512 operators chained in one expression",
    format!("    v = v{};", " + v".repeat(100_000))
);
rejected_when_nested!(
    nested_calls_10k,
    TOO_DEEP,
    format!("    v = {};", nested("abs(", "v", ")", 10_000))
);

// ---- size ---------------------------------------------------------------------

#[test]
fn five_megabyte_shader_finishes() {
    isolated("five_megabyte_shader_finishes", || {
        // ~29 bytes a line.
        let src = support::large_shader(5_000_000 / 29);
        let (lines, kb) = support::size_of(&src);
        assert!(src.len() >= 5_000_000, "{} bytes", src.len());
        let t = Instant::now();
        let parsed = parse(&[&src], Stage::Fragment, None).expect("parses");
        let t_parse = t.elapsed();
        let model = Model::analyze(&parsed);
        assert_eq!(model.errors().count(), 0);
        let t_analyse = t.elapsed() - t_parse;
        let out = instrument(&parsed, &request(record())).expect("instruments");
        let t_instrument = t.elapsed() - t_parse - t_analyse;
        eprintln!(
            "5 MB shader: {lines} lines ({kb} KB), {} probes: parse {t_parse:.2?}, analyse {t_analyse:.2?}, instrument {t_instrument:.2?}",
            out.probes.probes.len()
        );
        assert!(t.elapsed() < Duration::from_secs(600));
    });
}

// ---- huge arrays (isolated: a runaway allocation aborts) ---------------------

/// Instruments a shader for a recording, then decodes a log that follows its
/// probe table (start, main's entry, its inputs, its steps and writes) and asks
/// for the variables at every step. Inputs are given at most 2^16 payload words
/// (a bigger one makes the log truncated: an error, which is fine).
fn record_and_replay(src: &str) {
    let parsed = parse(&[src], Stage::Fragment, None).expect("parses");
    let errors: Vec<_> = Model::analyze(&parsed).errors().cloned().collect();
    assert!(errors.is_empty(), "{errors:?}");
    let out = match instrument(&parsed, &request(record())) {
        Ok(out) => out,
        Err(e) => {
            eprintln!("instrument: {e}");
            return;
        }
    };
    let table = &out.probes;
    let mut log = vec![0u32; HEADER_WORDS];
    for p in &table.probes {
        log.push(p.id);
        log.push(0);
        let n = p.payload_words().min(1 << 16);
        log.extend((0..n).map(|i| i as u32));
    }
    let n = (log.len() - HEADER_WORDS) as u32;
    log[0] = n;
    log[1] = n;
    match decode(&log, table) {
        Err(e) => eprintln!("decode: {e}"),
        Ok(trace) => {
            for inv in &trace.invocations {
                for step in 0..inv.steps.len() {
                    let vars = inv.variables_at(step, table);
                    eprintln!("step {step}: {} variables", vars.len());
                }
            }
        }
    }
}

#[test]
fn huge_uniform_array_words_do_not_overflow() {
    // 2^30 vec4s are 2^32 words: `Type::words` must not overflow a u32.
    isolated("huge_uniform_array_words_do_not_overflow", || {
        record_and_replay(
            "#version 450 core\nlayout(location = 0) out vec4 o;\nuniform vec4 big[1073741824];\nvoid main() {\n    o = big[0];\n}\n",
        );
    });
}

#[test]
fn huge_local_array_state_is_not_materialized() {
    // The state of a 2^31 - 1 element array after one element was written must
    // not need 2^31 values in memory.
    isolated("huge_local_array_state_is_not_materialized", || {
        record_and_replay(
            "#version 450 core\nlayout(location = 0) out vec4 o;\nvoid main() {\n    float big[2147483647];\n    big[1] = 2.0;\n    o = vec4(big[1]);\n}\n",
        );
    });
}

// ---- includes -----------------------------------------------------------------

use shaderdbg_glsl::parse::MemoryFiles as Files;

/// Every include names a file never seen before.
struct Endless;

impl IncludeResolver for Endless {
    fn resolve(&self, path: &str, _: Option<&str>) -> Result<(String, String), IncludeError> {
        let next = format!("{path}x");
        Ok((next.clone(), format!("#include \"{next}\"\n")))
    }
}

#[test]
fn include_cycles_are_diagnosed() {
    let main = "#version 450 core\n#extension GL_GOOGLE_include_directive : require\n#include \"a.glsl\"\nvoid main() {}\n";
    let cases: Vec<(&str, Box<dyn IncludeResolver>)> = vec![
        (
            "a -> b -> a",
            Box::new(Files(vec![
                ("a.glsl", "#include \"b.glsl\"\n"),
                ("b.glsl", "#include \"a.glsl\"\n"),
            ])),
        ),
        (
            "a -> a",
            Box::new(Files(vec![(
                "a.glsl",
                "float f() { return 1.0; }\n#include \"a.glsl\"\n",
            )])),
        ),
        ("endless chain", Box::new(Endless)),
    ];
    for (what, resolver) in cases {
        let err = parse(&[main], Stage::Fragment, Some(resolver.as_ref())).expect_err(what);
        assert!(
            err.message.contains("a.glsl") || err.message.contains("nested"),
            "{what}: {}",
            err.message
        );
        assert!(err.span.end <= main.len() * 64, "{what}: {:?}", err.span);
    }
    // Errors of the resolver and garbage in included files are diagnostics too.
    let garbage = Files(vec![("a.glsl", "}}}{{{ \u{fffd}\0 #version 999\n")]);
    assert!(parse(&[main], Stage::Fragment, Some(&garbage)).is_err());
    let missing = Files(vec![]);
    let err = parse(&[main], Stage::Fragment, Some(&missing)).unwrap_err();
    assert!(err.message.contains("not found"), "{}", err.message);
    for weird in [
        "#include\n",
        "#include \"\"\n",
        "#include \"a.glsl\n",
        "#include <>\n",
        "#include \"a.glsl\" trailing\n",
    ] {
        let _ = parse(&[weird], Stage::Fragment, Some(&missing));
        let _ = parse(&[weird], Stage::Fragment, None);
    }
}

// ---- breakpoints and watches --------------------------------------------------

fn real() -> (Parsed, ProbeTable) {
    let parsed = parse(&[REAL], Stage::Fragment, None).expect("REAL parses");
    let table = probe_table(&parsed);
    (parsed, table)
}

/// A step in `main` (where `uv`, `col` and `uTex` are visible).
fn step_in_main(parsed: &Parsed, table: &ProbeTable) -> u32 {
    let at = parsed.source.text.find("fragColor = vec4(col").unwrap();
    let line = parsed.source.line_of(at);
    table.step_for_line(line).expect("step").id
}

#[test]
fn bad_breakpoint_conditions_are_condition_errors() {
    let (parsed, table) = real();
    let probe = step_in_main(&parsed, &table);
    for cond in [
        "",
        "col.x >",
        "((",
        "col.x > 0.0;",
        "col.x > 0.0 { }",
        "\0",
        "void",
        "col",                        // vec3, not bool
        "col.x",                      // float, not bool
        "1",                          // int, not bool
        "nope > 1.0",                 // unknown name
        "col.q > 0.0",                // bad swizzle
        "col.xyzw.x > 0.0",           // swizzle out of range
        "ring(uv, 1.0, col.x) > 0.0", // user function with an out argument
        "col.x = 1.0",                // assignment
        "col.x++ > 0.0",              // side effect
        "texture(uTex) == vec4(0.0)", // wrong arity
        "uTex",                       // a sampler
        "dist > 0.0 && lights",       // struct array in &&
    ] {
        let req = request(Mode::HitTest(vec![Breakpoint {
            probe,
            condition: Some(cond.to_string()),
        }]));
        match instrument(&parsed, &req) {
            Err(InstrumentError::Condition { condition, message }) => {
                assert_eq!(condition, cond);
                assert!(!message.is_empty());
            }
            other => panic!("condition {cond:?}: {:?}", other.map(|o| o.glsl.len())),
        }
    }
    // A good one works.
    let req = request(Mode::HitTest(vec![Breakpoint {
        probe,
        condition: Some("col.x > 0.5 && uv.y < 0.0".into()),
    }]));
    instrument(&parsed, &req).expect("valid condition");
}

#[test]
fn breakpoints_on_missing_probes_are_errors() {
    let (parsed, table) = real();
    let not_a_step = table.probes.iter().find(|p| !p.is_step()).unwrap().id;
    for probe in [0, not_a_step, table.probes.len() as u32 + 1, u32::MAX] {
        let req = request(Mode::HitTest(vec![Breakpoint {
            probe,
            condition: None,
        }]));
        match instrument(&parsed, &req) {
            Err(InstrumentError::NoSuchProbe(p)) => assert_eq!(p, probe),
            other => panic!("breakpoint on probe {probe}: {:?}", other.map(|_| ())),
        }
        let req = request(Mode::Watch {
            probe,
            expr: "1.0".into(),
        });
        assert!(
            matches!(
                instrument(&parsed, &req),
                Err(InstrumentError::NoSuchProbe(_))
            ),
            "watch on probe {probe}"
        );
    }
}

#[test]
fn unloggable_watch_expressions_are_watch_errors() {
    let (parsed, table) = real();
    let probe = step_in_main(&parsed, &table);
    for expr in [
        "uTex",      // sampler
        "",          // nothing
        "col +",     // syntax
        "nope",      // unknown
        "col = col", // assignment
        "ring",      // a function name
        "main()",    // a call of main
    ] {
        let req = request(Mode::Watch {
            probe,
            expr: expr.to_string(),
        });
        match instrument(&parsed, &req) {
            Err(InstrumentError::Watch { expr: e, message }) => {
                assert_eq!(e, expr);
                assert!(!message.is_empty());
            }
            other => panic!("watch {expr:?}: {:?}", other.map(|o| o.watch_words)),
        }
    }
    let req = request(Mode::Watch {
        probe,
        expr: "lights[1]".into(),
    });
    let out = instrument(&parsed, &req).expect("a struct is loggable");
    assert_eq!(out.watch_words, Some(5));
}

#[test]
fn record_selector_of_another_stage_is_an_error() {
    let (parsed, _) = real();
    let req = request(Mode::Record(Invocation::Vertex {
        vertex: 0,
        instance: 0,
    }));
    assert!(matches!(
        instrument(&parsed, &req),
        Err(InstrumentError::Unsupported(_))
    ));
}

// ---- decoding random logs -----------------------------------------------------

#[test]
fn random_words_decode_to_err_or_ok() {
    let (parsed, _) = real();
    let table = instrument(&parsed, &request(record())).unwrap().probes;
    for seed in 0..2_000 {
        let mut rng = Rng::new(seed);
        // Entirely random words, header included.
        let len = rng.below(64) as usize;
        let words: Vec<u32> = (0..len).map(|_| rng.word()).collect();
        query_everything(&words, &table);
        // Random words under a header that says they are all valid.
        let mut words = words;
        if words.len() >= HEADER_WORDS {
            words[0] = (len - HEADER_WORDS) as u32;
            words[1] = words[0];
            query_everything(&words, &table);
        }
        // Entries that name real probes with random payloads.
        let words = structured_log(&table, &mut rng, 1 + seed as usize % 200);
        query_everything(&words, &table);
    }
}
