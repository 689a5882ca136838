#version 430 core
// [7 runtime items as in runtime.sanitize.glsl]
void _sdbg_key(uint at) { _sdbg_data[at] = gl_GlobalInvocationID.x; _sdbg_data[at + 1u] = gl_GlobalInvocationID.y; _sdbg_data[at + 2u] = gl_GlobalInvocationID.z; }
void _sdbg_other_key(uint at, uint o);
void _sdbg_race_clear();
void _sdbg_race_init();
uint _sdbg_ep = 0u;
uint _sdbg_v = 0u;
bool _sdbg_race_on = false;
uint _sdbg_wg = 0u;
shared uint _sdbg_gen;
shared uint _sdbg_arrive[3];
void _sdbg_barrier(uint p) {
    uint g = _sdbg_gen;
    atomicAdd(_sdbg_arrive[g % 3u], 1u);
    barrier();
    uint arrived = _sdbg_arrive[g % 3u];
    _sdbg_arrive[(g + 2u) % 3u] = 0u;
    _sdbg_gen = g + 1u;
    if (arrived != _sdbg_wg) _sdbg_report(4u, p, arrived, _sdbg_wg, 0u);
    _sdbg_ep = (g + 1u) & 127u;
    if (_sdbg_ep == 0u) { _sdbg_race_clear(); memoryBarrierShared(); barrier(); }
}
shared uint _sdbg_rw[16];
shared uint _sdbg_rmin[16];
shared uint _sdbg_rmax[16];
shared uint _sdbg_rv[16];
uint _sdbg_acc(uint p, uint f) { return f | (gl_LocalInvocationIndex << 12u) | (p < 4096u ? p : 0u); }
bool _sdbg_other(uint v, uint a) { return ((v ^ a) & 0x3ff000u) != 0u && (v & a & 0xc00000u) == 0u; }
uint _sdbg_wkind(uint w) { return 2048u | ((w & 0x800000u) != 0u ? 4096u : 0u); }
void _sdbg_rd(uint p, uint at, uint elem, uint decl, uint f) {
    if (!_sdbg_race_on) return;
    uint a = _sdbg_acc(p, f);
    uint w = _sdbg_rw[at];
    if ((w >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(w, a))
        _sdbg_report(3u | _sdbg_wkind(w), p, elem, decl, w & 0x3fffffu);
    atomicMin(_sdbg_rmin[at], ((127u - _sdbg_ep) << 25u) | a);
    atomicMax(_sdbg_rmax[at], (_sdbg_ep << 25u) | 0x1000000u | a);
}
void _sdbg_wr(uint p, uint at, uint elem, uint decl, uint f, bool known, uint v) {
    if (!_sdbg_race_on) return;
    uint a = _sdbg_acc(p, f);
    uint kind = 3u | 512u | ((f & 0x800000u) != 0u ? 1024u : 0u);
    uint w = atomicExchange(_sdbg_rw[at], (_sdbg_ep << 25u) | 0x1000000u | a);
    uint ov = atomicExchange(_sdbg_rv[at], v);
    uint r = _sdbg_rmin[at];
    uint s = _sdbg_rmax[at];
    // Two plain writes of a whole element with the same value (its first
    // word) are no race.
    bool same = known && ov == v && ((w | a) & 0xc00000u) == 0u;
    if ((w >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(w, a)) {
        if (!same) _sdbg_report(kind | _sdbg_wkind(w), p, elem, decl, w & 0x3fffffu);
    }
    else if ((r >> 24u) == ((127u - _sdbg_ep) << 1u) && _sdbg_other(r, a))
        _sdbg_report(kind, p, elem, decl, r & 0x3fffffu);
    else if ((s >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(s, a))
        _sdbg_report(kind, p, elem, decl, s & 0x3fffffu);
}
void _sdbg_put_other(uint at, uint kind, uint other) { if ((kind & 0xffu) == 3u) _sdbg_other_key(at, other); }
// [6 runtime items as in runtime.sanitize.glsl]
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Src {
    float src[];
};
layout(std430, binding = 1) buffer Dst {
    float dst[];
};
shared float tile[16];
float _sdbg_zero_float() { return float(0); }
uint _sdbg_t0;
shared uint _sdbg_sh0[16];
void _sdbg_markv0(uint p, int i, uint f, bool known, uint v) { atomicOr(_sdbg_sh0[i], 1u); _sdbg_wr(p, 0u + uint(i), uint(i), 2u, f, known, v); }
void _sdbg_mark0(uint p, int i, uint f) { _sdbg_markv0(p, i, f, false, 0u); }
void _sdbg_uchk0(uint p, int i, uint f) { if (_sdbg_sh0[i] == 0u) _sdbg_report(2u, p, uint(i), 2u, 0u); _sdbg_rd(p, 0u + uint(i), uint(i), 2u, f); }
int _sdbg_u0(uint p, int i, uint f) { int c = _sdbg_cl(p, i, 16); if (_sdbg_ok) _sdbg_uchk0(p, c, f); return c; }
int _sdbg_wm0(uint p, int i, uint f) { int c = _sdbg_cl(p, i, 16); if (_sdbg_ok) _sdbg_mark0(p, c, f); return c; }
void _sdbg_markv0(uint p, uint i, uint f, bool known, uint v) { atomicOr(_sdbg_sh0[i], 1u); _sdbg_wr(p, 0u + uint(i), uint(i), 2u, f, known, v); }
void _sdbg_mark0(uint p, uint i, uint f) { _sdbg_markv0(p, i, f, false, 0u); }
void _sdbg_uchk0(uint p, uint i, uint f) { if (_sdbg_sh0[i] == 0u) _sdbg_report(2u, p, uint(i), 2u, 0u); _sdbg_rd(p, 0u + uint(i), uint(i), 2u, f); }
uint _sdbg_u0(uint p, uint i, uint f) { uint c = _sdbg_cl(p, i, 16); if (_sdbg_ok) _sdbg_uchk0(p, c, f); return c; }
uint _sdbg_wm0(uint p, uint i, uint f) { uint c = _sdbg_cl(p, i, 16); if (_sdbg_ok) _sdbg_mark0(p, c, f); return c; }
void _sdbg_markall0(uint p, uint f) { for (int i = 0; i < 16; i++) _sdbg_mark0(p, i, f); }
uint _sdbg_uv0(uint p, uint f) { _sdbg_uchk0(p, 0u, f); return 0u; }
uint _sdbg_t1;
uint _sdbg_bits_float(float v) { return floatBitsToUint(v); }
float _sdbg_val_float(float v) { _sdbg_v = _sdbg_bits_float(v); return v; }
float _sdbg_pick_float(float v) { return _sdbg_ok ? v : float(0); }
uint _sdbg_t2;
uint _sdbg_t3;
void _sdbg_shadow_init() {
    uint n = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    for (uint i = gl_LocalInvocationIndex; i < 16u; i += n) _sdbg_sh0[i] = 0u;
    _sdbg_race_init();
}
void main() {
    _sdbg_shadow_init();
    memoryBarrierShared();
    barrier();
    uint i = gl_LocalInvocationID.x;
    if (_sdbg_chk(true, 8u, i, 16, _sdbg_t1)) {
        tile[_sdbg_t1] = _sdbg_val_float(_sdbg_chk(true, 8u, gl_GlobalInvocationID.x, src.length(), _sdbg_t0) ? src[_sdbg_t0] : _sdbg_zero_float());
        _sdbg_markv0(8u, _sdbg_t1, 0u, true, _sdbg_v);
    } else _sdbg_chk(true, 8u, gl_GlobalInvocationID.x, src.length(), _sdbg_t0) ? src[_sdbg_t0] : _sdbg_zero_float();
    memoryBarrierShared();
    _sdbg_barrier(10u);
    for (uint s = 8u; s > 0u; s >>= 1u) {
        if (i < s) {
            float other = _sdbg_pick_float(tile[_sdbg_u0(18u, i + s, 0u)]);
            if (_sdbg_chk(true, 20u, i, 16, _sdbg_t2)) {
                tile[_sdbg_t2] = _sdbg_val_float(_sdbg_pick_float(tile[_sdbg_u0(20u, i, 0u)]) + other);
                _sdbg_markv0(20u, _sdbg_t2, 0u, true, _sdbg_v);
            } else _sdbg_pick_float(tile[_sdbg_u0(20u, i, 0u)]) + other;
        }
    }
    if (i == 0u) {
        if (_sdbg_chk(true, 23u, gl_WorkGroupID.x, dst.length(), _sdbg_t3)) dst[_sdbg_t3] = _sdbg_pick_float(tile[_sdbg_u0(23u, 0, 0u)]); else _sdbg_pick_float(tile[_sdbg_u0(23u, 0, 0u)]);
    }
    _sdbg_flush();
}
void _sdbg_other_key(uint at, uint o) {
    uvec3 s = gl_WorkGroupSize;
    uint l = (o >> 12u) & 1023u;
    uvec3 id = gl_WorkGroupID * s + uvec3(l % s.x, (l / s.x) % s.y, l / (s.x * s.y));
    _sdbg_data[at] = id.x; _sdbg_data[at + 1u] = id.y; _sdbg_data[at + 2u] = id.z; _sdbg_data[at + 3u] = o & 4095u;
}
void _sdbg_race_clear() {
    uint n = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    _sdbg_race_on = n <= 1024u;
    for (uint i = gl_LocalInvocationIndex; i < 16u; i += n) { _sdbg_rw[i] = 0u; _sdbg_rmin[i] = 0xffffffffu; _sdbg_rmax[i] = 0u; _sdbg_rv[i] = 0u; }
}
void _sdbg_race_init() {
    _sdbg_wg = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    if (gl_LocalInvocationIndex < 3u) _sdbg_arrive[gl_LocalInvocationIndex] = 0u;
    if (gl_LocalInvocationIndex == 0u) _sdbg_gen = 0u;
    _sdbg_race_clear();
}
