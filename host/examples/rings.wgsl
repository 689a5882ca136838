// Rings around the centre of the frame, in WGSL for the built-in host:
// `shaderdbg run host/examples/rings.wgsl`. `host` (resolution, time,
// frame, mouse) is the block the host fills every frame.

struct Ring {
    radius: f32,
    width: f32,
}

fn ring(d: f32, r: Ring) -> f32 {
    let edge = abs(d - r.radius);
    return clamp(1.0 - edge / r.width, 0.0, 1.0);
}

@fragment
fn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let uv = pos.xy / host.resolution;
    let p = uv * 2.0 - vec2<f32>(1.0, 1.0);
    let d = length(p);
    let weights = array<f32, 4>(1.0, 0.5, 0.25, 0.125);
    var glow = 0.0;
    var count = 0u;
    for (var i = 0; i < 4; i++) {
        let r = Ring(f32(i + 1) * 0.2, 0.1);
        glow += weights[i] * ring(d, r);
        count += 1u;
    }
    let inside = d < 0.5;
    let col = vec3<f32>(glow, uv.x, select(0.0, 1.0, inside));
    return vec4<f32>(col, 1.0);
}
