#version 110
// GLSL 1.10: attribute, varying, no layout qualifiers.
attribute vec2 pos;
uniform float scale;
varying vec2 v;

void main() {
    vec2 s = pos * scale;
    v = s;
    gl_Position = vec4(pos, 0.0, 1.0);
}
