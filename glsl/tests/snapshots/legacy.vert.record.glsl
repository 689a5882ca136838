#version 430 compatibility
// [7 runtime items as in runtime.record.glsl]
attribute vec4 position;
attribute vec2 texcoord;
varying vec2 uv;
uniform mat4 mvp;
void _sdbg_put_float(uint at, float v) { _sdbg_data[at] = floatBitsToUint(v); }
void _sdbg_put_vec4(uint at, vec4 v) { _sdbg_put_float(at + 0u, v[0]); _sdbg_put_float(at + 1u, v[1]); _sdbg_put_float(at + 2u, v[2]); _sdbg_put_float(at + 3u, v[3]);  }
uint _sdbg_w_vec4(uint p, vec4 v) { uint at = _sdbg_alloc(p, 4u); if (at != 0xffffffffu) _sdbg_put_vec4(at, v); return 0u; }
void _sdbg_put_vec2(uint at, vec2 v) { _sdbg_put_float(at + 0u, v[0]); _sdbg_put_float(at + 1u, v[1]);  }
uint _sdbg_w_vec2(uint p, vec2 v) { uint at = _sdbg_alloc(p, 2u); if (at != 0xffffffffu) _sdbg_put_vec2(at, v); return 0u; }
void _sdbg_put_mat4(uint at, mat4 v) { _sdbg_put_vec4(at + 0u, v[0]); _sdbg_put_vec4(at + 4u, v[1]); _sdbg_put_vec4(at + 8u, v[2]); _sdbg_put_vec4(at + 12u, v[3]);  }
uint _sdbg_w_mat4(uint p, mat4 v) { uint at = _sdbg_alloc(p, 16u); if (at != 0xffffffffu) _sdbg_put_mat4(at, v); return 0u; }
void _sdbg_put_int(uint at, int v) { _sdbg_data[at] = uint(v); }
uint _sdbg_w_int(uint p, int v) { uint at = _sdbg_alloc(p, 1u); if (at != 0xffffffffu) _sdbg_put_int(at, v); return 0u; }
void main() {
    _sdbg_begin(1u);
    _sdbg_step(2u);
    _sdbg_w_vec4(3u, position);
    _sdbg_w_vec2(4u, texcoord);
    _sdbg_w_mat4(5u, mvp);
    _sdbg_w_int(6u, gl_VertexID);
    _sdbg_w_int(7u, gl_InstanceID);
    _sdbg_step(8u);
    uv = texcoord;
    _sdbg_w_vec2(9u, uv);
    _sdbg_step(10u);
    gl_Position = mvp * position;
    _sdbg_w_vec4(11u, gl_Position);
    _sdbg_step(12u);
}
