#version 430 core
// [7 runtime items as in runtime.sanitize.glsl]
void _sdbg_put(uint kind, uint p, uint idx, uint bound) {
    uint flag = p * 2u + (kind & 0xffu) - 1u;
    if (flag < _sdbg_san_flags) {
        if (_sdbg_data[flag] != 0u || atomicOr(_sdbg_data[flag], 1u) != 0u) return;
    }
    uint i = atomicAdd(_sdbg_san_count, 1u);
    if (i >= _sdbg_san_cap) { _sdbg_san_overflow = 1u; return; }
    uint at = _sdbg_san_flags + i * 7u;
    _sdbg_data[at] = kind; _sdbg_data[at + 1u] = p;
    _sdbg_data[at + 2u] = uint(gl_FragCoord.x); _sdbg_data[at + 3u] = uint(gl_FragCoord.y); _sdbg_data[at + 4u] = uint(gl_PrimitiveID);
    _sdbg_data[at + 5u] = idx; _sdbg_data[at + 6u] = bound;
}
// [5 runtime items as in runtime.sanitize.glsl]
out vec4 color;
uniform float scale;
float twice(float v, out float sq) {
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
