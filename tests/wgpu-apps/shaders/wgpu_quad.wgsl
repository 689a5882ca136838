// A full-screen pattern that depends on the pixel and on the frame (a
// uniform), in one module with its vertex and fragment entry points.
struct Frame {
    t: f32,
    scale: f32,
}
@group(0) @binding(0) var<uniform> frame: Frame;

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> VertexOut {
    let x = f32((i << 1u) & 2u);
    let y = f32(i & 2u);
    var out: VertexOut;
    out.position = vec4<f32>(x * 2.0 - 1.0, 1.0 - y * 2.0, 0.0, 1.0);
    out.uv = vec2<f32>(x, y);
    return out;
}

fn ring(p: vec2<f32>, t: f32) -> f32 {
    let d = length(p - vec2<f32>(1.0));
    return fract(d * 2.0 - t);
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let p = in.position.xy / frame.scale;
    let t = frame.t;
    var bands = 0u;
    for (var k = 0u; k < 3u; k++) {
        if ring(p, t + f32(k) * 0.25) > 0.5 {
            bands += 1u;
        }
    }
    let r = ring(p, t);
    return vec4<f32>(fract(p.x + t), r, f32(bands) / 3.0, 1.0);
}
