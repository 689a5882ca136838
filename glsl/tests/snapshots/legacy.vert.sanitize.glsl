#version 430 compatibility
// [33 runtime items as in runtime.sanitize.glsl]
attribute vec4 position;
attribute vec2 texcoord;
varying vec2 uv;
uniform mat4 mvp;
void main() {
    uv = texcoord;
    gl_Position = mvp * position;
    _sdbg_flush();
}
