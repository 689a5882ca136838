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
    _sdbg_data[at + 2u] = gl_GlobalInvocationID.x; _sdbg_data[at + 3u] = gl_GlobalInvocationID.y; _sdbg_data[at + 4u] = gl_GlobalInvocationID.z;
    _sdbg_data[at + 5u] = idx; _sdbg_data[at + 6u] = bound;
}
// [5 runtime items as in runtime.sanitize.glsl]
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
