#version 450
// A pattern that depends on the pixel and on the frame (a push constant).
layout(push_constant) uniform Frame {
    float t;
} frame;
layout(location = 0) out vec4 color;

void main() {
    vec2 p = gl_FragCoord.xy / 32.0;
    float t = frame.t;
    float ring = fract(length(p - vec2(1.0)) * 2.0 - t);
    color = vec4(fract(p.x + t), ring, fract((p.x + p.y) * 0.5 - t), 1.0);
}
