#version 430 core
// [13 runtime items as in runtime.sanitize.glsl]
void _sdbg_key(uint at) { _sdbg_data[at] = gl_GlobalInvocationID.x; _sdbg_data[at + 1u] = gl_GlobalInvocationID.y; _sdbg_data[at + 2u] = gl_GlobalInvocationID.z; }
void _sdbg_put_other(uint at, uint kind, uint other, uint og) { if ((kind & 65536u) != 0u) { _sdbg_data[at] = other; _sdbg_data[at + 1u] = og; } }
// [6 runtime items as in runtime.sanitize.glsl]
void _sdbg_irep(uint p, uint t, ivec3 c, ivec3 s) {
    _sdbg_rep(65793u | t, p, uint(c.x), uint(s.x), uint(c.y), uint(c.z), uint(s.y), uint(s.z));
}
int _sdbg_ic(uint p, int c, int s, uint t) {
    if (_sdbg_oob && (c < 0 || c >= s)) _sdbg_irep(p, t, ivec3(c, 0, 0), ivec3(s, 0, 0));
    return c;
}
ivec2 _sdbg_ic(uint p, ivec2 c, ivec2 s, uint t) {
    if (_sdbg_oob && (any(lessThan(c, ivec2(0))) || any(greaterThanEqual(c, s)))) _sdbg_irep(p, t, ivec3(c, 0), ivec3(s, 0));
    return c;
}
ivec3 _sdbg_ic(uint p, ivec3 c, ivec3 s, uint t) {
    if (_sdbg_oob && (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, s)))) _sdbg_irep(p, t, c, s);
    return c;
}
int _sdbg_tc(uint p, int c, int l, int n, int s, uint t) {
    if (l < 0 || l >= n) { if (_sdbg_oob) _sdbg_irep(p, t | 524288u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }
    return _sdbg_ic(p, c, s, t);
}
ivec2 _sdbg_tc(uint p, ivec2 c, int l, int n, ivec2 s, uint t) {
    if (l < 0 || l >= n) { if (_sdbg_oob) _sdbg_irep(p, t | 524288u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }
    return _sdbg_ic(p, c, s, t);
}
ivec3 _sdbg_tc(uint p, ivec3 c, int l, int n, ivec3 s, uint t) {
    if (l < 0 || l >= n) { if (_sdbg_oob) _sdbg_irep(p, t | 524288u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }
    return _sdbg_ic(p, c, s, t);
}
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Src {
    float src[];
};
layout(std430, binding = 1) buffer Dst {
    float dst[];
};
const uint CHUNK = 4u;
float _sdbg_zero_float() { return float(0); }
uint _sdbg_t0;
uint _sdbg_t1;
void main() {
    uint base = gl_GlobalInvocationID.x * CHUNK;
    for (uint k = 0u; k <= CHUNK; k++) {
        float v = _sdbg_chk(true, 13u, base + k, src.length(), _sdbg_t0) ? src[_sdbg_t0] : _sdbg_zero_float();
        if (_sdbg_chk(true, 15u, base + k, dst.length(), _sdbg_t1)) dst[_sdbg_t1] = v * 2. + 1.; else v * 2. + 1.;
    }
    _sdbg_flush();
}
