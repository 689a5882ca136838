#version 430 core
// [15 runtime items as in runtime.sanitize.glsl]
uint _sdbg_key(uint j) { return j == 0u ? uint(gl_FragCoord.x) : j == 1u ? uint(gl_FragCoord.y) : uint(gl_PrimitiveID); }
// [17 runtime items as in runtime.sanitize.glsl]
out vec4 color;
uniform float scale;
uint _sdbg_m0 = 0u;
float twice(float v, out float sq) {
    _sdbg_m0 = 0u;
    sq = v * v;
    _sdbg_m0 |= 1u;
    return 2. * v;
}
uint _sdbg_m1 = 0u;
float _sdbg_keep_float(float v, uint ignored) { return v; }
void main() {
    float acc = 0.;
    float sq;
    _sdbg_m1 = 0u;
    for (int i = 0; i < 4; i++) {
        if (i == 2) {
            continue;
        }
        _sdbg_m1 |= 1u;
        acc += twice(float(i), sq) * scale;
    }
    vec3 v = vec3(acc);
    v.y = acc > 1. ? _sdbg_keep_float(sq, _sdbg_lr(28u, 7u, _sdbg_m1, 1u)) : -_sdbg_keep_float(sq, _sdbg_lr(28u, 7u, _sdbg_m1, 1u));
    color = vec4(v, 1.);
    _sdbg_flush();
}
