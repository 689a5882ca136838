#version 110
// GLSL 1.10: varying in, gl_FragColor out.
uniform float frame;
varying vec2 v;

void main() {
    vec2 p = gl_FragCoord.xy / 32.0;
    float t = frame * 0.125;
    float d = fract(p.x * 2.0 + t);
    gl_FragColor = vec4(d, fract(p.y + t), v.x * 0.5 + 0.5, 1.0);
}
