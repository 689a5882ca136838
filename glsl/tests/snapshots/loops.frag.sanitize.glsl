#version 430 core
// [13 runtime items as in runtime.sanitize.glsl]
void _sdbg_key(uint at) { _sdbg_data[at] = uint(gl_FragCoord.x); _sdbg_data[at + 1u] = uint(gl_FragCoord.y); _sdbg_data[at + 2u] = uint(gl_PrimitiveID); }
// [14 runtime items as in runtime.sanitize.glsl]
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
