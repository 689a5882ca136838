#version 430 core
// [6 runtime items as in runtime.record.glsl]
void _sdbg_begin(uint p) {
    _sdbg_active = (uint(gl_FragCoord.x) == 3u && uint(gl_FragCoord.y) == 4u);
    if (!_sdbg_active) return;
    _sdbg_tag = atomicAdd(_sdbg_invocations, 1u);
    uint at = _sdbg_alloc(p, 4u);
    if (at == 0xffffffffu) return;
    _sdbg_data[at] = uint(gl_FragCoord.x); _sdbg_data[at + 1u] = uint(gl_FragCoord.y); _sdbg_data[at + 2u] = uint(gl_PrimitiveID); _sdbg_data[at + 3u] = 0u;
}
out vec4 color;
uniform float scale;
void _sdbg_put_float(uint at, float v) { _sdbg_data[at] = floatBitsToUint(v); }
uint _sdbg_w_float(uint p, float v) { uint at = _sdbg_alloc(p, 1u); if (at != 0xffffffffu) _sdbg_put_float(at, v); return 0u; }
float _sdbg_ret_float(uint p, float v) { _sdbg_w_float(p, v); return v; }
float twice(float v, out float sq) {
    _sdbg_step(1u);
    _sdbg_w_float(2u, v);
    _sdbg_step(3u);
    sq = v * v;
    _sdbg_w_float(4u, sq);
    _sdbg_step(5u);
    return _sdbg_ret_float(6u, 2. * v);
}
void _sdbg_put_vec4(uint at, vec4 v) { _sdbg_put_float(at + 0u, v[0]); _sdbg_put_float(at + 1u, v[1]); _sdbg_put_float(at + 2u, v[2]); _sdbg_put_float(at + 3u, v[3]);  }
uint _sdbg_w_vec4(uint p, vec4 v) { uint at = _sdbg_alloc(p, 4u); if (at != 0xffffffffu) _sdbg_put_vec4(at, v); return 0u; }
void _sdbg_put_bool(uint at, bool v) { _sdbg_data[at] = v ? 1u : 0u; }
uint _sdbg_w_bool(uint p, bool v) { uint at = _sdbg_alloc(p, 1u); if (at != 0xffffffffu) _sdbg_put_bool(at, v); return 0u; }
void _sdbg_put_int(uint at, int v) { _sdbg_data[at] = uint(v); }
uint _sdbg_w_int(uint p, int v) { uint at = _sdbg_alloc(p, 1u); if (at != 0xffffffffu) _sdbg_put_int(at, v); return 0u; }
int _sdbg_keep_int(int v, uint ignored) { return v; }
float _sdbg_keep_float(float v, uint ignored) { return v; }
void _sdbg_put_vec3(uint at, vec3 v) { _sdbg_put_float(at + 0u, v[0]); _sdbg_put_float(at + 1u, v[1]); _sdbg_put_float(at + 2u, v[2]);  }
uint _sdbg_w_vec3(uint p, vec3 v) { uint at = _sdbg_alloc(p, 3u); if (at != 0xffffffffu) _sdbg_put_vec3(at, v); return 0u; }
void main() {
    _sdbg_begin(7u);
    _sdbg_step(8u);
    _sdbg_w_float(9u, scale);
    _sdbg_w_vec4(10u, gl_FragCoord);
    _sdbg_w_bool(11u, gl_FrontFacing);
    _sdbg_step(12u);
    float acc = 0.;
    _sdbg_w_float(13u, acc);
    _sdbg_step(14u);
    float sq;
    _sdbg_step(15u);
    {
        int i = 0;
        _sdbg_w_int(16u, i);
        for (; _sdbg_cond(17u, i < 4); _sdbg_keep_int(i++, _sdbg_w_int(18u, i))) {
            _sdbg_step(19u);
            _sdbg_step(20u);
            if (_sdbg_cond(21u, i == 2)) {
                _sdbg_step(22u);
                continue;
            }
            _sdbg_step(23u);
            acc += _sdbg_keep_float(twice(float(i), sq), _sdbg_w_float(24u, sq)) * scale;
            _sdbg_w_float(25u, acc);
        }
    }
    _sdbg_step(26u);
    vec3 v = vec3(acc);
    _sdbg_w_vec3(27u, v);
    _sdbg_step(28u);
    v.y = _sdbg_cond(29u, acc > 1.) ? sq : -sq;
    _sdbg_w_vec3(30u, v);
    _sdbg_step(31u);
    color = vec4(v, 1.);
    _sdbg_w_vec4(32u, color);
    _sdbg_step(33u);
}
