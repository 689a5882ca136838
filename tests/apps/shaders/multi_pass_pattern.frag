#version 330 core
// Pass 1: a pattern of exact values (multiples of 1/32) into a float texture.
uniform int frame;
out vec4 pattern;

void main() {
    vec2 q = floor(gl_FragCoord.xy);
    float a = mod(q.x + float(frame), 8.0) * 0.125;
    float b = mod(q.y, 4.0) * 0.25;
    pattern = vec4(a, b, a * b, 1.0);
}
