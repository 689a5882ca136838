#version 310 es
#extension GL_EXT_control_flow_attributes : require
// vk_triangle.frag's pattern in GLSL ES, as Android programs write their
// shaders (medium precision), its ring summed by a loop to unroll.
precision mediump float;
layout(push_constant) uniform Frame {
    float t;
} frame;
layout(location = 0) out vec4 color;

void main() {
    highp vec2 p = gl_FragCoord.xy / 32.0;
    float t = frame.t;
    float ring = 0.0;
    [[unroll]] for (int i = 1; i <= 2; i++) {
        ring += fract(length(p - vec2(1.0)) * float(i) - t);
    }
    color = vec4(fract(p.x + t), ring * 0.5, fract((p.x + p.y) * 0.5 - t), 1.0);
}
