#version 450
#extension GL_GOOGLE_include_directive : require
// vk_triangle.frag's pattern, its rings computed in an #include'd file.
#include "include/vk_rings.glsl"
layout(push_constant) uniform Frame {
    float t;
} frame;
layout(location = 0) out vec4 color;

void main() {
    vec2 p = gl_FragCoord.xy / 32.0;
    float t = frame.t;
    float ring = rings(p, t);
    color = vec4(fract(p.x + t), ring, fract((p.x + p.y) * 0.5 - t), 1.0);
}
