#version 430 core
// [15 runtime items as in runtime.sanitize.glsl]
uint _sdbg_key(uint j) { return j == 0u ? gl_GlobalInvocationID.x : j == 1u ? gl_GlobalInvocationID.y : gl_GlobalInvocationID.z; }
uvec4 _sdbg_other_key(uint o);
void _sdbg_race_clear(uint keep);
void _sdbg_race_init();
uint _sdbg_ep = 0u;
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
    _sdbg_g = g + 1u;
    _sdbg_ep = (g + 1u) & 127u;
}
// A barrier every invocation reaches (`uniform::uniform_barriers`): its
// arrivals are not counted.
void _sdbg_ubarrier(uint p) {
    uint g = _sdbg_g;
    barrier();
    _sdbg_g = g + 1u;
    _sdbg_ep = (g + 1u) & 127u;
}
shared uint _sdbg_rw[16];
shared uint _sdbg_rmin[16];
shared uint _sdbg_rmax[16];
shared uint _sdbg_rv[16];
uint _sdbg_acc(uint p, uint f) { return f | (gl_LocalInvocationIndex << 12u) | (p < 2048u ? p : 0u); }
bool _sdbg_other(uint v, uint a) { return ((v ^ a) & 0x3ff000u) != 0u && (v & a & 0xc00000u) == 0u; }
uint _sdbg_wkind(uint w) { return 2048u | ((w & 0x800000u) != 0u ? 4096u : 0u) | ((w & 0x800u) != 0u ? 32768u : 0u); }
// `inb`: whether the index is in bounds; if not (`at`, `elem` clamped
// to 0, `decl` the bound), the report is its (`oobk`, 0 not to report).
void _sdbg_rd(uint p, uint at, uint elem, uint decl, uint f, bool inb, uint oobk) {
    _sdbg_rpend = false;
    uint w = _sdbg_rw[at];
    uint a = _sdbg_acc(p, f);
    bool race = inb && _sdbg_race_on && (w >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(w, a);
    bool un = inb && w == 0u;
    if (inb ? un || race : oobk != 0u)
        _sdbg_rep(!inb ? oobk : un ? 2u : 3u | _sdbg_wkind(w), p, elem, decl, race ? w & 0x3fffffu : 0u, 0u, 0u, race ? _sdbg_rv[at] : 0u);
    if (!_sdbg_race_on || !inb) return;
    // The reader words only fall (`_sdbg_rmin`) or rise (`_sdbg_rmax`)
    // until the work group clears them behind a barrier: a look that
    // finds one already at or past this read skips its atomic.
    uint lo = ((127u - _sdbg_ep) << 25u) | a;
    uint hi = (_sdbg_ep << 25u) | 0x1000000u | a;
    if (_sdbg_rmin[at] > lo) atomicMin(_sdbg_rmin[at], lo);
    if (_sdbg_rmax[at] < hi) atomicMax(_sdbg_rmax[at], hi);
}
void _sdbg_wr(uint p, uint at, uint elem, uint decl, uint f, bool known, uint v) {
    // A write whose value is known (a plain `=` of a whole element)
    // says so in its access word; the value's first word is kept apart.
    uint a = _sdbg_acc(p, f) | (known ? 0x800u : 0u);
    uint kind = 3u | 512u | ((f & 0x800000u) != 0u ? 1024u : 0u) | (known ? 16384u : 0u);
    // Without the race check (a work group too large), 1: written.
    uint w = atomicExchange(_sdbg_rw[at], _sdbg_race_on ? (_sdbg_ep << 25u) | 0x1000000u | a : 1u);
    if (!_sdbg_race_on) return;
    uint ov = atomicExchange(_sdbg_rv[at], v);
    uint r = _sdbg_rmin[at];
    uint s = _sdbg_rmax[at];
    // Two plain writes of a whole element with the same known value (its
    // first word) are no race; a write whose value is not known is never
    // taken for one of the same value.
    bool same = known && (w & 0x800u) != 0u && ov == v && ((w | a) & 0xc00000u) == 0u;
    // One report call site (see `_sdbg_swr`).
    bool hit = true;
    uint o = w;
    if ((w >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(w, a)) {
        hit = !same;
        kind |= _sdbg_wkind(w);
    }
    else {
        ov = 0u;
        if ((r >> 24u) == ((127u - _sdbg_ep) << 1u) && _sdbg_other(r, a)) o = r;
        else if ((s >> 24u) == ((_sdbg_ep << 1u) | 1u) && _sdbg_other(s, a)) o = s;
        else hit = false;
    }
    if (hit) _sdbg_rep(kind, p, elem, decl, o & 0x3fffffu, 0u, v, ov);
}
void _sdbg_sinit();
uvec4 _sdbg_sother_key(uint o, uint og);
uint _sdbg_swg0 = 0u;
uint _sdbg_swgn = 0u;
uint _sdbg_swgl = 0u;
bool _sdbg_swgsame(uint id) { return id - _sdbg_swg0 < _sdbg_swgn; }
uint _sdbg_sid = 0xffffffffu;
uint _sdbg_sb = 0u;
uint _sdbg_scap = 0u;
uint _sdbg_srel = 0u;
uint _sdbg_fdiv(uint a, uint b) {
    // `a / b` for `a` below 2^24, by a float division and a correction
    // (llvmpipe runs an integer division lane by lane).
    uint q = uint(float(a) / float(b));
    if (q * b > a) q--;
    else if (a - q * b >= b) q++;
    return q;
}
bool _sdbg_sreleased(uint id, uint og) { return false; }
void _sdbg_sbase(uint reserve) {
    // The shadow's slots after `reserve` words (the work groups' release
    // generations).
    _sdbg_srel = _sdbg_san_flags + _sdbg_san_cap * 13u;
    _sdbg_sb = _sdbg_srel + reserve;
    uint len = uint(_sdbg_data.length());
    _sdbg_scap = len > _sdbg_sb ? (len - _sdbg_sb) / 7u : 0u;
}
uint _sdbg_sh6(uint v) { return (v * 0x9e3779b1u) >> 26u; }
// An access the check skips: the host hears why (`layout::sanitize_unchecked`)
// from `_sdbg_flush`, which has the one atomic on the header's word.
void _sdbg_sskip(uint slot) { _sdbg_skipw |= _sdbg_sid == 0xffffffffu ? 4u : 2u; }
// Whether `o` is another invocation's access that can conflict with
// `me` (not two atomics, not two partial accesses), and whether nothing
// orders it (generation word `og`) with this one. Generation words are
// read only where needed: most accesses find no other's.
bool _sdbg_sother(uint o, uint me) {
    return (o & 0x80000000u) != 0u && ((o ^ me) & 0x3fffffu) != 0u && (o & me & 0x60000000u) == 0u;
}
bool _sdbg_sunord(uint o, uint og) {
    uint id = o & 0x3fffffu;
    if (_sdbg_swgsame(id)) return (og >> 12u) == (_sdbg_g & 0xfffffu);
    return !_sdbg_sreleased(id, og);
}
uint _sdbg_swkind(uint w, uint wv) {
    bool known = (w & 0x10000000u) != 0u && _sdbg_sh6(wv) == ((w >> 22u) & 63u);
    return 2048u | ((w & 0x40000000u) != 0u ? 4096u : 0u) | (known ? 32768u : 0u);
}
void _sdbg_swr(uint p, uint slot, uint elem, uint decl, uint f, bool known, uint v) {
    if (_sdbg_sid == 0xffffffffu || slot >= _sdbg_scap) { _sdbg_sskip(slot); return; }
    uint at = _sdbg_sb + slot * 7u;
    uint me = 0x80000000u | ((f & 0x800000u) != 0u ? 0x40000000u : 0u) | ((f & 0x400000u) != 0u ? 0x20000000u : 0u)
        | (known ? 0x10000000u | (_sdbg_sh6(v) << 22u) : 0u) | _sdbg_sid;
    uint mg = ((_sdbg_g & 0xfffffu) << 12u) | (p < 4096u ? p : 0u);
    uint kind = 3u | 8192u | 512u | ((f & 0x800000u) != 0u ? 1024u : 0u) | (known ? 16384u : 0u);
    uint w = atomicExchange(_sdbg_data[at], me);
    uint wg = atomicExchange(_sdbg_data[at + 1u], mg);
    // The other access found (its access and generation words), and the
    // value it wrote, for one report call site: llvmpipe runs an inlined
    // call's code, masked, even where no lane takes its branch (three
    // call sites cost a tenth of the dispatch).
    uint o = w;
    uint og = wg;
    uint ov = 0u;
    bool hit = _sdbg_sother(w, me) && _sdbg_sunord(w, wg);
    if (hit) {
        // The value word only shows the value (its hash in the access
        // word decides): a plain store, and none for a value not known.
        ov = _sdbg_data[at + 6u];
        kind |= _sdbg_swkind(w, ov);
        // Two plain writes of a whole element whose values are known and
        // hash alike are no race.
        hit = !known || (w & 0x7fc00000u) != (me & 0x7fc00000u);
    } else {
        // The two readers, without a loop.
        uint r0 = _sdbg_data[at + 2u];
        uint r1 = _sdbg_data[at + 4u];
        bool o0 = _sdbg_sother(r0, me);
        bool o1 = _sdbg_sother(r1, me);
        if (o0 || o1) {
            uint g0 = o0 ? _sdbg_data[at + 3u] : 0u;
            uint g1 = o1 ? _sdbg_data[at + 5u] : 0u;
            bool h0 = o0 && _sdbg_sunord(r0, g0);
            hit = h0 || (o1 && _sdbg_sunord(r1, g1));
            o = h0 ? r0 : r1;
            og = h0 ? g0 : g1;
        }
    }
    if (known) _sdbg_data[at + 6u] = v;
    if (hit) _sdbg_rep(kind, p, elem, decl, o, og, v, ov);
}
void _sdbg_srd(uint p, uint slot, uint elem, uint decl, uint f) {
    _sdbg_rpend = false;
    if (_sdbg_sid == 0xffffffffu || slot >= _sdbg_scap) { _sdbg_sskip(slot); return; }
    uint at = _sdbg_sb + slot * 7u;
    uint me = 0x80000000u | ((f & 0x400000u) != 0u ? 0x20000000u : 0u) | _sdbg_sid;
    uint mg = ((_sdbg_g & 0xfffffu) << 12u) | (p < 4096u ? p : 0u);
    uint w = _sdbg_data[at];
    if (_sdbg_sother(w, me)) {
        uint wg = _sdbg_data[at + 1u];
        if (_sdbg_sunord(w, wg)) {
            uint wv = _sdbg_data[at + 6u];
            _sdbg_rep(3u | 8192u | _sdbg_swkind(w, wv), p, elem, decl, w, wg, 0u, wv);
        }
    }
    // This invocation's reader record (no look first whether it holds
    // this read already: llvmpipe runs a load lane by lane, dearer than
    // the stores it would spare). Plain stores: readers of one parity at
    // once are of one work group's same generation (their words agree)
    // or of different work groups (whose generations only the
    // fences-and-atomics model reads, which checks the pair).
    uint r = at + 2u + (_sdbg_sid & 1u) * 2u;
    _sdbg_data[r] = me;
    _sdbg_data[r + 1u] = mg;
}
uvec4 _sdbg_other_words(uint kind, uint other, uint og) { uvec4 o = uvec4(0u); if ((kind & 65536u) != 0u) o = uvec4(other, og, 0u, 0u); if ((kind & 8447u) == 3u) o = _sdbg_other_key(other); if ((kind & 8192u) != 0u) o = _sdbg_sother_key(other, og); return o; }
// [16 runtime items as in runtime.sanitize.glsl]
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
void _sdbg_markv0(uint p, int i, uint f, bool known, uint v) { _sdbg_wr(p, 0u + uint(i), uint(i), 2u, f, known, v); }
void _sdbg_mark0(uint p, int i, uint f) { _sdbg_markv0(p, i, f, false, 0u); }
void _sdbg_uchk0(uint p, int i, uint f) { _sdbg_rd(p, 0u + uint(i), uint(i), 2u, f, true, 0u); }
int _sdbg_u0(uint p, int i, uint f) { bool ok = i >= 0 && i < 16; _sdbg_ok = ok; int c = ok ? i : 0; _sdbg_rd(p, 0u + uint(c), uint(i), ok ? 2u : 16u, f, ok, _sdbg_oob ? 257u : 0u); return c; }
int _sdbg_wm0(uint p, int i, uint f) { int c = _sdbg_cl(p, i, 16); if (_sdbg_ok) _sdbg_mark0(p, c, f); return c; }
void _sdbg_markv0(uint p, uint i, uint f, bool known, uint v) { _sdbg_wr(p, 0u + uint(i), uint(i), 2u, f, known, v); }
void _sdbg_mark0(uint p, uint i, uint f) { _sdbg_markv0(p, i, f, false, 0u); }
void _sdbg_uchk0(uint p, uint i, uint f) { _sdbg_rd(p, 0u + uint(i), uint(i), 2u, f, true, 0u); }
uint _sdbg_u0(uint p, uint i, uint f) { bool ok = i < 16u; _sdbg_ok = ok; uint c = ok ? i : 0u; _sdbg_rd(p, 0u + uint(c), uint(i), ok ? 2u : 16u, f, ok, _sdbg_oob ? 1u : 0u); return c; }
uint _sdbg_wm0(uint p, uint i, uint f) { uint c = _sdbg_cl(p, i, 16); if (_sdbg_ok) _sdbg_mark0(p, c, f); return c; }
void _sdbg_markall0(uint p, uint f) { for (int i = 0; i < 16; i++) _sdbg_mark0(p, i, f); }
uint _sdbg_uv0(uint p, uint f) { _sdbg_uchk0(p, 0u, f); return 0u; }
uint _sdbg_t1;
uint _sdbg_bits_float(float v) { return floatBitsToUint(v); }
float _sdbg_val_float(float v) { _sdbg_v = _sdbg_bits_float(v); return v; }
float _sdbg_h2;
bool _sdbg_ok3;
float _sdbg_pick_float(float v) { return _sdbg_ok ? v : float(0); }
float _sdbg_rval_float(float v) { if (_sdbg_rpend) _sdbg_rcap(_sdbg_bits_float(v)); return v; }
uint _sdbg_t4;
float _sdbg_h5;
bool _sdbg_ok6;
uint _sdbg_sb1 = 0u;
int _sdbg_sn1 = 0;
void _sdbg_markv1(uint p, int i, uint f, bool known, uint v) { _sdbg_swr(p, _sdbg_sb1 + uint(i), uint(i), 1u, f, known, v); }
void _sdbg_mark1(uint p, int i, uint f) { _sdbg_markv1(p, i, f, false, 0u); }
void _sdbg_uchk1(uint p, int i, uint f) { _sdbg_srd(p, _sdbg_sb1 + uint(i), uint(i), 1u, f); }
int _sdbg_ui1(uint p, int i, uint f) { _sdbg_uchk1(p, i, f); return i; }
int _sdbg_u1(uint p, int i, uint f) { int c = _sdbg_cl(p, i, _sdbg_sn1); if (_sdbg_ok) _sdbg_uchk1(p, c, f); return c; }
int _sdbg_wm1(uint p, int i, uint f) { int c = _sdbg_cl(p, i, _sdbg_sn1); if (_sdbg_ok) _sdbg_mark1(p, c, f); return c; }
void _sdbg_markv1(uint p, uint i, uint f, bool known, uint v) { _sdbg_swr(p, _sdbg_sb1 + uint(i), uint(i), 1u, f, known, v); }
void _sdbg_mark1(uint p, uint i, uint f) { _sdbg_markv1(p, i, f, false, 0u); }
void _sdbg_uchk1(uint p, uint i, uint f) { _sdbg_srd(p, _sdbg_sb1 + uint(i), uint(i), 1u, f); }
uint _sdbg_ui1(uint p, uint i, uint f) { _sdbg_uchk1(p, i, f); return i; }
uint _sdbg_u1(uint p, uint i, uint f) { uint c = _sdbg_cl(p, i, _sdbg_sn1); if (_sdbg_ok) _sdbg_uchk1(p, c, f); return c; }
uint _sdbg_wm1(uint p, uint i, uint f) { uint c = _sdbg_cl(p, i, _sdbg_sn1); if (_sdbg_ok) _sdbg_mark1(p, c, f); return c; }
void _sdbg_markall1(uint p, uint f) { for (int i = 0; i < _sdbg_sn1; i++) _sdbg_mark1(p, i, f); }
uint _sdbg_uv1(uint p, uint f) { _sdbg_uchk1(p, 0u, f); return 0u; }
uint _sdbg_t7;
float _sdbg_h8;
bool _sdbg_ok9;
void _sdbg_shadow_init() {
    _sdbg_race_init();
}
void main() {
    _sdbg_sinit();
    _sdbg_shadow_init();
    memoryBarrierShared();
    barrier();
    uint i = gl_LocalInvocationID.x;
    _sdbg_ok3 = _sdbg_chk(true, 8u, i, 16, _sdbg_t1);
    _sdbg_h2 = _sdbg_val_float(_sdbg_chk(true, 8u, gl_GlobalInvocationID.x, src.length(), _sdbg_t0) ? src[_sdbg_t0] : _sdbg_zero_float());
    if (_sdbg_ok3) {
        tile[_sdbg_t1] = _sdbg_h2;
        _sdbg_markv0(8u, _sdbg_t1, 0u, true, _sdbg_v);
    }
    memoryBarrierShared();
    _sdbg_ubarrier(10u);
    for (uint s = 8u; s > 0u; s >>= 1u) {
        if (i < s) {
            float other = _sdbg_rval_float(_sdbg_pick_float(tile[_sdbg_u0(18u, i + s, 0u)]));
            _sdbg_ok6 = _sdbg_chk(true, 20u, i, 16, _sdbg_t4);
            _sdbg_h5 = _sdbg_val_float(_sdbg_rval_float(_sdbg_pick_float(tile[_sdbg_u0(20u, i, 0u)])) + other);
            if (_sdbg_ok6) {
                tile[_sdbg_t4] = _sdbg_h5;
                _sdbg_markv0(20u, _sdbg_t4, 0u, true, _sdbg_v);
            }
        }
    }
    if (i == 0u) {
        _sdbg_ok9 = _sdbg_chk(true, 23u, gl_WorkGroupID.x, dst.length(), _sdbg_t7);
        _sdbg_h8 = _sdbg_val_float(_sdbg_rval_float(_sdbg_pick_float(tile[_sdbg_u0(23u, 0, 0u)])));
        if (_sdbg_ok9) {
            dst[_sdbg_t7] = _sdbg_h8;
            _sdbg_markv1(23u, _sdbg_t7, 0u, true, _sdbg_v);
        }
    }
    _sdbg_flush();
}
uvec4 _sdbg_other_key(uint o) {
    uvec3 s = gl_WorkGroupSize;
    uint l = (o >> 12u) & 1023u;
    return uvec4(gl_WorkGroupID * s + uvec3(l % s.x, (l / s.x) % s.y, l / (s.x * s.y)), o & 2047u);
}
void _sdbg_race_clear(uint keep) {
    uint n = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    _sdbg_race_on = n <= 1024u;
    for (uint i = gl_LocalInvocationIndex; i < 16u; i += n) { _sdbg_rw[i] = min(_sdbg_rw[i], keep); _sdbg_rmin[i] = 0xffffffffu; _sdbg_rmax[i] = 0u; _sdbg_rv[i] = 0u; }
}
void _sdbg_race_init() {
    _sdbg_wg = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    if (gl_LocalInvocationIndex < 3u) _sdbg_arrive[gl_LocalInvocationIndex] = 0u;
    if (gl_LocalInvocationIndex == 0u) _sdbg_gen = 0u;
    _sdbg_race_clear(0u);
}
void _sdbg_sinit() {
    uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;
    uvec3 w = gl_NumWorkGroups;
    uint s = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    uint reserve = 0u;
    // At most 2^22 invocations (a float product: no integer division,
    // which llvmpipe runs lane by lane).
    if (float(n.x) * float(n.y) * float(n.z) <= 4194304.0) {
        _sdbg_swgn = s;
        _sdbg_swgl = gl_WorkGroupID.x + w.x * (gl_WorkGroupID.y + w.y * gl_WorkGroupID.z);
        _sdbg_swg0 = _sdbg_swgl * s;
        _sdbg_sid = _sdbg_swg0 + gl_LocalInvocationIndex;
    }
    _sdbg_sbase(reserve);
    uint _sdbg_sx = 0u;
    _sdbg_sb1 = _sdbg_sx; _sdbg_sn1 = int(dst.length()); _sdbg_sx += uint(_sdbg_sn1);
}
uvec4 _sdbg_sother_key(uint o, uint og) {
    uvec3 w = gl_NumWorkGroups;
    uvec3 s = gl_WorkGroupSize;
    uint id = o & 0x3fffffu;
    uint g = id / (s.x * s.y * s.z);
    uint l = id % (s.x * s.y * s.z);
    uint gy = _sdbg_fdiv(g, w.x);
    uint gz = _sdbg_fdiv(gy, w.y);
    uvec3 c = uvec3(g - gy * w.x, gy - gz * w.y, gz) * s + uvec3(l % s.x, (l / s.x) % s.y, l / (s.x * s.y));
    return uvec4(c, og & 4095u);
}
