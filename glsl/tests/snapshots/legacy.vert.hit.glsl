#version 430 compatibility
// [6 runtime items as in runtime.hit.glsl]
attribute vec4 position;
attribute vec2 texcoord;
varying vec2 uv;
uniform mat4 mvp;
void main() {
    _sdbg_hit0(true);
    uv = texcoord;
    gl_Position = mvp * position;
    _sdbg_flush();
}
