//! Integration tests on Mesa llvmpipe (or whatever EGL device is present).

use shaderdbg_gl_headless::{glow, write_png, ContextKind, Error, Headless, Program, Stage};

const W: u32 = 64;
const H: u32 = 48;

fn header(kind: ContextKind) -> &'static str {
    match kind {
        ContextKind::Core45 => "#version 450 core\n",
        ContextKind::Compat45 => "#version 450 compatibility\n",
        ContextKind::Gles32 => "#version 320 es\nprecision highp float;\nprecision highp int;\n",
    }
}

/// Full-screen triangle from gl_VertexID, no attributes.
fn vertex_id_vs(kind: ContextKind) -> String {
    format!(
        "{}void main() {{\n\
         vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);\n\
         gl_Position = vec4(p, 0.0, 1.0);\n}}\n",
        header(kind)
    )
}

/// Positions from an attribute (location chosen by the linker).
fn attribute_vs(kind: ContextKind) -> String {
    format!(
        "{}in vec2 pos;\nvoid main() {{ gl_Position = vec4(pos, 0.0, 1.0); }}\n",
        header(kind)
    )
}

/// colour = (gl_FragCoord.xy / size, 0.25, 1).
fn gradient_fs(kind: ContextKind) -> String {
    let body = "vec4(gl_FragCoord.xy / size, 0.25, 1.0)";
    match kind {
        ContextKind::Compat45 => format!(
            "{}uniform vec2 size;\nvoid main() {{ gl_FragColor = {body}; }}\n",
            header(kind)
        ),
        _ => format!(
            "{}uniform vec2 size;\nlayout(location = 0) out vec4 color;\nvoid main() {{ color = {body}; }}\n",
            header(kind)
        ),
    }
}

fn unorm8(v: f32) -> i32 {
    (v.clamp(0.0, 1.0) * 255.0).round() as i32
}

fn pixel(rgba: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * W + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

fn check_gradient(kind: ContextKind, rgba: &[u8]) {
    assert_eq!(rgba.len(), (W * H * 4) as usize);
    for &(x, y) in &[
        (0, 0),
        (W - 1, 0),
        (0, H - 1),
        (W - 1, H - 1),
        (17, 5),
        (40, 30),
    ] {
        let got = pixel(rgba, x, y);
        let want = [
            unorm8((x as f32 + 0.5) / W as f32),
            unorm8((y as f32 + 0.5) / H as f32),
            unorm8(0.25),
            255,
        ];
        for c in 0..4 {
            assert!(
                (got[c] as i32 - want[c]).abs() <= 1,
                "{kind:?}: pixel ({x}, {y}) is {got:?}, expected {want:?}"
            );
        }
    }
}

fn gradient_program(h: &Headless, vs: &str) -> Program {
    let fs = gradient_fs(h.kind());
    let p = h
        .compile_program(&[(Stage::Vertex, vs), (Stage::Fragment, &fs)])
        .unwrap_or_else(|e| panic!("{:?}: {e}", h.kind()));
    assert!(h.set_uniform(&p, "size", &[W as f32, H as f32]).unwrap());
    p
}

#[test]
fn fullscreen_gradient_from_vertex_id() {
    for kind in ContextKind::ALL {
        let h = Headless::new(kind, W, H).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert_eq!((h.kind(), h.width(), h.height()), (kind, W, H));
        assert!(!h.renderer().is_empty());
        let version = h.version();
        if kind.is_gles() {
            assert!(version.starts_with("OpenGL ES 3.2"), "{version}");
        } else {
            assert!(version.starts_with("4.5"), "{version}");
        }
        let p = gradient_program(&h, &vertex_id_vs(kind));
        assert_eq!(
            p.position_attribute(),
            None,
            "{kind:?}: gl_VertexID is not a user attribute"
        );
        h.draw_fullscreen(&p).unwrap();
        check_gradient(kind, &h.read_pixels().unwrap());
        h.delete_program(p).unwrap();
    }
}

#[test]
fn fullscreen_gradient_from_attribute() {
    for kind in ContextKind::ALL {
        let h = Headless::new(kind, W, H).unwrap();
        let p = gradient_program(&h, &attribute_vs(kind));
        assert!(p.position_attribute().is_some(), "{kind:?}");
        h.draw_fullscreen(&p).unwrap();
        check_gradient(kind, &h.read_pixels().unwrap());
    }
}

#[test]
fn draw_arrays_left_half_with_bound_attrib() {
    for kind in ContextKind::ALL {
        let h = Headless::new(kind, W, H).unwrap();
        let vs = format!(
            "{}in vec2 where_;\nvoid main() {{ gl_Position = vec4(where_, 0.0, 1.0); }}\n",
            header(kind)
        );
        let fs = format!(
            "{}uniform vec4 c;\nuniform int k;\nlayout(location = 0) out vec4 o;\nvoid main() {{ o = c * float(k); }}\n",
            header(kind)
        );
        let p = h
            .compile_program_with_attribs(
                &[(Stage::Vertex, &vs), (Stage::Fragment, &fs)],
                &[(0, "where_")],
            )
            .unwrap();
        assert_eq!(p.position_attribute(), Some(0));
        assert!(h.set_uniform(&p, "c", &[0.0f32, 0.5, 0.0, 0.5]).unwrap());
        assert!(h.set_uniform(&p, "k", &[2i32]).unwrap());
        assert!(!h.set_uniform(&p, "no_such_uniform", &[1.0f32]).unwrap());
        assert!(matches!(
            h.set_uniform(&p, "c", &[1.0f32; 5]),
            Err(Error::InvalidArgument(_))
        ));
        // Type mismatch is a GL error, reported with context.
        assert!(matches!(
            h.set_uniform(&p, "c", &[1i32]),
            Err(Error::Gl { .. })
        ));
        h.clear().unwrap();
        let quad = [
            [-1.0, -1.0],
            [0.0, -1.0],
            [0.0, 1.0],
            [-1.0, -1.0],
            [0.0, 1.0],
            [-1.0, 1.0],
        ];
        h.draw_arrays_with_positions(&p, &quad, glow::TRIANGLES)
            .unwrap();
        let rgba = h.read_pixels().unwrap();
        assert_eq!(pixel(&rgba, 3, 3), [0, 255, 0, 255], "{kind:?}");
        assert_eq!(pixel(&rgba, W / 2 - 1, H - 1), [0, 255, 0, 255], "{kind:?}");
        assert_eq!(pixel(&rgba, W / 2, 0), [0, 0, 0, 0], "{kind:?}");
        assert_eq!(pixel(&rgba, W - 1, H - 1), [0, 0, 0, 0], "{kind:?}");
    }
}

fn ssbo_counter_fs(kind: ContextKind) -> String {
    format!(
        "{}layout(std430, binding = 3) buffer B {{ uint n; uint v[]; }};\n\
         layout(location = 0) out vec4 o;\n\
         void main() {{\n\
           uint i = atomicAdd(n, 1u);\n\
           v[i] = uint(gl_FragCoord.y) * {W}u + uint(gl_FragCoord.x);\n\
           o = vec4(1.0);\n\
         }}\n",
        header(kind)
    )
}

#[test]
fn fragment_ssbo_atomic_counts_every_pixel() {
    for kind in ContextKind::ALL {
        let h = Headless::new(kind, W, H).unwrap();
        let n = (W * H) as usize;
        let buf = h.create_storage_buffer(3, &vec![0u8; 4 + 4 * n]).unwrap();
        assert_eq!((buf.binding(), buf.len()), (3, 4 + 4 * n));
        let fs = ssbo_counter_fs(kind);
        let p = h
            .compile_program(&[(Stage::Vertex, &vertex_id_vs(kind)), (Stage::Fragment, &fs)])
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        h.draw_fullscreen(&p).unwrap();
        let bytes = h.read_storage_buffer(&buf).unwrap();
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words[0] as usize, n, "{kind:?}: invocation count");
        let mut seen = words[1..].to_vec();
        seen.sort_unstable();
        assert!(
            seen.iter().copied().eq(0..n as u32),
            "{kind:?}: each pixel exactly once"
        );
        h.delete_storage_buffer(buf).unwrap();
    }
}

#[test]
fn compute_writes_storage_buffer() {
    for kind in ContextKind::ALL {
        let h = Headless::new(kind, 4, 4).unwrap();
        let cs = format!(
            "{}layout(local_size_x = 8) in;\n\
             layout(std430, binding = 1) buffer Out {{ uint v[]; }};\n\
             void main() {{ uint i = gl_GlobalInvocationID.x; v[i] = i * i + 1u; }}\n",
            header(kind)
        );
        let p = h
            .compile_program(&[(Stage::Compute, &cs)])
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let buf = h.create_storage_buffer(1, &[0u8; 4 * 64]).unwrap();
        h.dispatch_compute(&p, 8, 1, 1).unwrap();
        let bytes = h.read_storage_buffer(&buf).unwrap();
        for (i, c) in bytes.chunks_exact(4).enumerate() {
            let i = i as u32;
            assert_eq!(
                u32::from_ne_bytes(c.try_into().unwrap()),
                i * i + 1,
                "{kind:?}"
            );
        }
    }
}

#[test]
fn storage_buffer_round_trip_without_shaders() {
    for kind in ContextKind::ALL {
        let h = Headless::new(kind, 1, 1).unwrap();
        let data: Vec<u8> = (0..=255).collect();
        let buf = h.create_storage_buffer(0, &data).unwrap();
        assert_eq!(h.read_storage_buffer(&buf).unwrap(), data, "{kind:?}");
        let empty = h.create_storage_buffer(2, &[]).unwrap();
        assert!(empty.is_empty());
        assert_eq!(h.read_storage_buffer(&empty).unwrap(), Vec::<u8>::new());
    }
}

/// A program of `vertex_id_vs` and `body` after the context's header.
fn with_fragment(h: &Headless, body: &str) -> Result<Program, Error> {
    let fs = format!("{}{body}", header(h.kind()));
    h.compile_program(&[
        (Stage::Vertex, &vertex_id_vs(h.kind())),
        (Stage::Fragment, &fs),
    ])
}

#[test]
fn compile_error_carries_stage_and_log() {
    for kind in ContextKind::ALL {
        let h = Headless::new(kind, 8, 8).unwrap();
        let err = with_fragment(&h, "void main() { undefined_function_xyz(1.0); }\n").unwrap_err();
        match &err {
            Error::Compile {
                stage: Stage::Fragment,
                log,
            } => {
                assert!(log.contains("undefined_function_xyz"), "{kind:?}: {log}")
            }
            other => panic!("{kind:?}: expected a fragment compile error, got {other:?}"),
        }
        assert!(err
            .to_string()
            .contains("fragment shader failed to compile"));
    }
}

#[test]
fn link_error_carries_log() {
    for kind in ContextKind::ALL {
        let h = Headless::new(kind, 8, 8).unwrap();
        let fs = "in vec4 never_written;\nlayout(location = 0) out vec4 o;\nvoid main() { o = never_written; }\n";
        match with_fragment(&h, fs) {
            Err(Error::Link { log }) => assert!(log.contains("never_written"), "{kind:?}: {log}"),
            other => panic!("{kind:?}: expected a link error, got {other:?}"),
        }
        assert!(matches!(
            h.compile_program(&[]),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn several_contexts_interleaved_on_one_thread() {
    let a = Headless::new(ContextKind::Core45, W, H).unwrap();
    let b = Headless::new(ContextKind::Gles32, W, H).unwrap();
    let pa = gradient_program(&a, &vertex_id_vs(ContextKind::Core45));
    let pb = gradient_program(&b, &vertex_id_vs(ContextKind::Gles32));
    a.draw_fullscreen(&pa).unwrap();
    b.draw_fullscreen(&pb).unwrap();
    check_gradient(ContextKind::Core45, &a.read_pixels().unwrap());
    check_gradient(ContextKind::Gles32, &b.read_pixels().unwrap());
    drop(a);
    // b still works after a was dropped (and released the thread's context).
    b.draw_fullscreen(&pb).unwrap();
    check_gradient(ContextKind::Gles32, &b.read_pixels().unwrap());
}

#[test]
fn contexts_on_many_threads() {
    let threads: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                for round in 0..3 {
                    let kind = ContextKind::ALL[(i + round) % 3];
                    let h = Headless::new(kind, W, H).unwrap();
                    let p = gradient_program(&h, &vertex_id_vs(kind));
                    h.draw_fullscreen(&p).unwrap();
                    check_gradient(kind, &h.read_pixels().unwrap());
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn creation_is_cheap() {
    // Warm up the process-wide device/display cache.
    drop(Headless::new(ContextKind::Core45, 16, 16).unwrap());
    let start = std::time::Instant::now();
    for kind in ContextKind::ALL {
        drop(Headless::new(kind, 256, 256).unwrap());
    }
    let per = start.elapsed() / 3;
    eprintln!("Headless::new takes about {per:?}");
    assert!(
        per < std::time::Duration::from_secs(2),
        "{per:?} per context"
    );
}

#[test]
fn invalid_sizes_are_rejected() {
    assert!(matches!(
        Headless::new(ContextKind::Core45, 0, 4),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Headless::new(ContextKind::Core45, 1 << 20, 4),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn png_is_written_top_row_first() {
    let (w, h) = (3u32, 2u32);
    // Bottom row red, top row blue.
    let mut rgba = Vec::new();
    for _ in 0..w {
        rgba.extend_from_slice(&[255, 0, 0, 255]);
    }
    for _ in 0..w {
        rgba.extend_from_slice(&[0, 0, 255, 255]);
    }
    let path =
        std::env::temp_dir().join(format!("shaderdbg-gl-headless-{}.png", std::process::id()));
    write_png(&path, w, h, &rgba).unwrap();
    let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!((info.width, info.height), (w, h));
    assert_eq!(&buf[..4], &[0, 0, 255, 255]);
    assert_eq!(
        &buf[(w * 4) as usize..(w * 4 + 4) as usize],
        &[255, 0, 0, 255]
    );
    assert!(matches!(
        write_png(&path, 4, 4, &rgba),
        Err(Error::InvalidArgument(_))
    ));
}
