#version 300 es
precision mediump float;
// GLSL ES 3.00: default mediump precision, one output.
uniform int frame;
in vec2 uv;
out vec4 color;

void main() {
    highp vec2 p = gl_FragCoord.xy / 32.0;
    float t = float(frame) * 0.25;
    float ring = fract(length(uv) * 2.0 - t);
    color = vec4(fract(p.x + t), fract(p.y * 2.0), ring, 1.0);
}
