#version 330 core
// A pattern that depends on the pixel and on the frame number.
uniform int frame;
out vec4 color;

void main() {
    vec2 p = gl_FragCoord.xy / 32.0;
    float t = float(frame) * 0.125;
    float ring = fract(length(p - vec2(1.0)) * 2.0 - t);
    color = vec4(fract(p.x + t), ring, fract((p.x + p.y) * 0.5 - t), 1.0);
}
