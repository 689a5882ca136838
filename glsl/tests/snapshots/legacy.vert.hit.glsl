#version 430 compatibility
// [runtime.hit.glsl: 3 lines]
void _sdbg_put_hit(uint p, uint occ, uint tag) {
    uint i = atomicAdd(_sdbg_hit_count, 1u);
    if (i >= _sdbg_hit_cap) return;
    uint at = i * 6u;
    _sdbg_data[at] = p; _sdbg_data[at + 1u] = occ;
    _sdbg_data[at + 2u] = uint(gl_VertexID); _sdbg_data[at + 3u] = uint(gl_InstanceID); _sdbg_data[at + 4u] = 0u; _sdbg_data[at + 5u] = tag;
}
void _sdbg_hit0(bool c) {
    if (c && _sdbg_first0 == 0xffffffffu) _sdbg_first0 = _sdbg_occ0;
    _sdbg_occ0 = _sdbg_occ0 + 1u;
}
void _sdbg_flush() {
    if (_sdbg_first0 != 0xffffffffu) { _sdbg_put_hit(8u, _sdbg_first0, 0u); _sdbg_first0 = 0xffffffffu; }
}
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
