#version 430 core
// [3 runtime items as in runtime.hit.glsl]
void _sdbg_put_hit(uint p, uint occ, uint tag) {
    uint i = atomicAdd(_sdbg_hit_count, 1u);
    if (i >= _sdbg_hit_cap) return;
    uint at = i * 6u;
    _sdbg_data[at] = p; _sdbg_data[at + 1u] = occ;
    _sdbg_data[at + 2u] = uint(gl_FragCoord.x); _sdbg_data[at + 3u] = uint(gl_FragCoord.y); _sdbg_data[at + 4u] = uint(gl_PrimitiveID); _sdbg_data[at + 5u] = tag;
}
// [1 runtime items as in runtime.hit.glsl]
void _sdbg_flush() {
    if (_sdbg_first0 != 0xffffffffu) { _sdbg_put_hit(3u, _sdbg_first0, 0u); _sdbg_first0 = 0xffffffffu; }
}
out vec4 color;
uniform float scale;
float twice(float v, out float sq) {
    _sdbg_hit0(true);
    sq = v * v;
    return 2. * v;
}
void main() {
    float acc = 0.;
    float sq;
    for (int i = 0; i < 4; i++) {
        if (i == 2) {
            continue;
        }
        acc += twice(float(i), sq) * scale;
    }
    vec3 v = vec3(acc);
    v.y = acc > 1. ? sq : -sq;
    color = vec4(v, 1.);
    _sdbg_flush();
}
