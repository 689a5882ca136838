#version 430 core
// [15 runtime items as in runtime.sanitize.glsl]
uint _sdbg_key(uint j) { return j == 0u ? gl_GlobalInvocationID.x : j == 1u ? gl_GlobalInvocationID.y : gl_GlobalInvocationID.z; }
// [17 runtime items as in runtime.sanitize.glsl]
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
        if (_sdbg_chk(true, 15u, base + k, dst.length(), _sdbg_t1)) dst[_sdbg_t1] = v * 2. + 1.;
    }
    _sdbg_flush();
}
