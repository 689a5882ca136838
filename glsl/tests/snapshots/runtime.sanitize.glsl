layout(std430, binding = 7) buffer _sdbg_Buffer { uint _sdbg_san_count; uint _sdbg_san_cap; uint _sdbg_san_overflow; uint _sdbg_san_flags; uint _sdbg_data[]; };
bool _sdbg_ok = true;
const bool _sdbg_oob = true;
uint _sdbg_v = 0u;
uint _sdbg_g = 0u;
uint _sdbg_r0k = 0u; uint _sdbg_r0p = 0u; uint _sdbg_r0i = 0u; uint _sdbg_r0b = 0u; uint _sdbg_r0o = 0u; uint _sdbg_r0g = 0u; uint _sdbg_r0v = 0u; uint _sdbg_r0w = 0u; uint _sdbg_r0q = 0u;
uint _sdbg_r1k = 0u; uint _sdbg_r1p = 0u; uint _sdbg_r1i = 0u; uint _sdbg_r1b = 0u; uint _sdbg_r1o = 0u; uint _sdbg_r1g = 0u; uint _sdbg_r1v = 0u; uint _sdbg_r1w = 0u; uint _sdbg_r1q = 0u;
bool _sdbg_more = false;
bool _sdbg_rpend = false;
uint _sdbg_rlast = 0u;
uint _sdbg_skipw = 0u;
uint _sdbg_pkey(uint kind, uint other, uint og) {
    // What tells reports of a step apart beyond their kind: a race's other
    // step (+ 1; a shared race's other access word holds it in 11 bits, a
    // storage race's generation word in 12), 1 for other kinds.
    if ((kind & 0xffu) != 3u) return 1u;
    return (kind & 8192u) != 0u ? (og & 4095u) + 0x1001u : (other & 2047u) + 1u;
}
void _sdbg_rep(uint kind, uint p, uint idx, uint bound, uint other, uint og, uint v, uint w) {
    // Inlined, masked, at every check (SIMD drivers run it whether or not
    // a lane reports): straight-line, each slot's key kept (`_sdbg_r0q`).
    uint pk = _sdbg_pkey(kind, other, og);
    bool s0 = _sdbg_r0p == p && ((_sdbg_r0k ^ kind) & 0xffu) == 0u && _sdbg_r0q == pk;
    bool s1 = _sdbg_r1p == p && ((_sdbg_r1k ^ kind) & 0xffu) == 0u && _sdbg_r1q == pk;
    bool to0 = _sdbg_r0p == 0u;
    bool to1 = !to0 && !s0 && _sdbg_r1p == 0u;
    _sdbg_more = _sdbg_more || !(to0 || to1 || s0 || s1);
    if (to0) { _sdbg_r0k = kind; _sdbg_r0p = p; _sdbg_r0i = idx; _sdbg_r0b = bound; _sdbg_r0o = other; _sdbg_r0g = og; _sdbg_r0v = v; _sdbg_r0w = w; _sdbg_r0q = pk; }
    if (to1) { _sdbg_r1k = kind; _sdbg_r1p = p; _sdbg_r1i = idx; _sdbg_r1b = bound; _sdbg_r1o = other; _sdbg_r1g = og; _sdbg_r1v = v; _sdbg_r1w = w; _sdbg_r1q = pk; }
    _sdbg_rlast = to1 ? 1u : 0u;
    // A read's race report takes the value read, right after the read.
    _sdbg_rpend = (to0 || to1) && (kind & 767u) == 3u;
}
void _sdbg_rcap(uint b) {
    if (!_sdbg_rpend) return;
    if (_sdbg_rlast == 0u) { _sdbg_r0v = b; _sdbg_r0k |= 16384u; } else { _sdbg_r1v = b; _sdbg_r1k |= 16384u; }
    _sdbg_rpend = false;
}
void _sdbg_report(uint kind, uint p, uint idx, uint bound, uint other) { _sdbg_rep(kind, p, idx, bound, other, 0u, 0u, 0u); }
uint _sdbg_key(uint j) { return j == 0u ? uint(gl_VertexID) : j == 1u ? uint(gl_InstanceID) : 0u; }
uvec4 _sdbg_other_words(uint kind, uint other, uint og) { uvec4 o = uvec4(0u); if ((kind & 65536u) != 0u) o = uvec4(other, og, 0u, 0u); return o; }
bool _sdbg_put(uint kind, uint p, uint idx, uint bound, uint other, uint og, uint v, uint w) {
    // A report into the buffer; false if it is lost (to the record cap,
    // or to a step's race partner words).
    uint base = p * 7u;
    uint k = kind & 0xffu;
    if (base + 7u <= _sdbg_san_flags) {
        // The first report of each kind of a step: its key (1; a race's,
        // the partner's, into the first free of the step's race words:
        // the first of each pair of steps) into its dedup word.
        uint key = _sdbg_pkey(kind, other, og);
        uint tries = k == 3u ? 4u : 1u;
        bool fresh = false;
        bool seen = false;
        for (uint j = 0u; j < tries && !fresh && !seen; j++) {
            uint at = j == 0u ? base + k - 1u : base + 4u + j - 1u;
            uint was = _sdbg_data[at];
            if (was == 0u) was = atomicCompSwap(_sdbg_data[at], 0u, key);
            fresh = was == 0u;
            seen = was == key;
        }
        if (!fresh) return seen;
    }
    uint i = atomicAdd(_sdbg_san_count, 1u);
    if (i >= _sdbg_san_cap) return false;
    uint at = _sdbg_san_flags + i * 13u;
    uvec4 o = _sdbg_other_words(kind, other, og);
    // The record's words by one store in a loop: SIMD drivers run a
    // store at every lane, masked, where no lane reports, a loop's body
    // once where no lane enters it. The step is 1 (probe ids are small)
    // where the compiler cannot see it: a loop it can count, it unrolls.
    for (uint j = 0u; j < 13u; j += 1u + (p >> 31u)) {
        _sdbg_data[at + j] = j == 0u ? kind : j == 1u ? p : j < 5u ? _sdbg_key(j - 2u)
            : j == 5u ? idx : j == 6u ? bound : j < 11u ? o[j - 7u] : j == 11u ? v : w;
    }
    return true;
}
void _sdbg_flush() {
    // One path writes both slots, a loop over those in use: SIMD drivers
    // run every path, taken or not, so two would cost twice.
    uint n = _sdbg_r0p == 0u ? 0u : _sdbg_r1p == 0u ? 1u : 2u;
    bool lost = _sdbg_more;
    for (uint s = 0u; s < n; s++) {
        bool z = s == 0u;
        lost = !_sdbg_put(z ? _sdbg_r0k : _sdbg_r1k, z ? _sdbg_r0p : _sdbg_r1p, z ? _sdbg_r0i : _sdbg_r1i, z ? _sdbg_r0b : _sdbg_r1b,
            z ? _sdbg_r0o : _sdbg_r1o, z ? _sdbg_r0g : _sdbg_r1g, z ? _sdbg_r0v : _sdbg_r1v, z ? _sdbg_r0w : _sdbg_r1w) || lost;
    }
    uint why = (lost ? 1u : 0u) | _sdbg_skipw;
    if (why != 0u) atomicOr(_sdbg_san_overflow, why);
    _sdbg_r0p = 0u; _sdbg_r1p = 0u; _sdbg_more = false; _sdbg_skipw = 0u;
}
int _sdbg_cl(uint p, int i, int n) {
    _sdbg_ok = i >= 0 && i < n;
    if (_sdbg_ok) return i;
    if (_sdbg_oob) _sdbg_report(257u, p, uint(i), uint(n), 0u);
    return 0;
}
uint _sdbg_cl(uint p, uint i, int n) {
    _sdbg_ok = n > 0 && i < uint(n);
    if (_sdbg_ok) return i;
    if (_sdbg_oob) _sdbg_report(1u, p, i, uint(n), 0u);
    return 0u;
}
bool _sdbg_chk(bool prev, uint p, int i, int n, out int t) {
    t = i;
    bool ok = i >= 0 && i < n;
    if (!ok && _sdbg_oob) _sdbg_report(257u, p, uint(i), uint(n), 0u);
    return prev && ok;
}
bool _sdbg_chk(bool prev, uint p, uint i, int n, out uint t) {
    t = i;
    bool ok = n > 0 && i < uint(n);
    if (!ok && _sdbg_oob) _sdbg_report(1u, p, i, uint(n), 0u);
    return prev && ok;
}
uint _sdbg_lr(uint p, uint d, uint m, uint need) {
    uint miss = need & ~m;
    if (miss != 0u) _sdbg_report(2u, p, uint(findLSB(miss)), d, 0u);
    return 0u;
}
uint _sdbg_bit(int i, int n) { return i >= 0 && i < n ? 1u << uint(i) : 0u; }
uint _sdbg_bit(uint i, int n) { return i < uint(n) ? 1u << i : 0u; }
void _sdbg_irep(uint p, uint t, ivec3 c, ivec3 s) {
    _sdbg_rep(65793u | t, p, uint(c.x), uint(s.x), uint(c.y), uint(c.z), uint(s.y), uint(s.z));
}
int _sdbg_ic(uint p, int c, int s, uint t) {
    if (_sdbg_oob && (c < 0 || c >= s)) _sdbg_irep(p, t, ivec3(c, 0, 0), ivec3(s, 0, 0));
    return c;
}
ivec2 _sdbg_ic(uint p, ivec2 c, ivec2 s, uint t) {
    if (_sdbg_oob && (any(lessThan(c, ivec2(0))) || any(greaterThanEqual(c, s)))) _sdbg_irep(p, t, ivec3(c, 0), ivec3(s, 0));
    return c;
}
ivec3 _sdbg_ic(uint p, ivec3 c, ivec3 s, uint t) {
    if (_sdbg_oob && (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, s)))) _sdbg_irep(p, t, c, s);
    return c;
}
int _sdbg_tc(uint p, int c, int l, int n, int s, uint t) {
    if (l < 0 || l >= n) { if (_sdbg_oob) _sdbg_irep(p, t | 524288u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }
    return _sdbg_ic(p, c, s, t);
}
ivec2 _sdbg_tc(uint p, ivec2 c, int l, int n, ivec2 s, uint t) {
    if (l < 0 || l >= n) { if (_sdbg_oob) _sdbg_irep(p, t | 524288u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }
    return _sdbg_ic(p, c, s, t);
}
ivec3 _sdbg_tc(uint p, ivec3 c, int l, int n, ivec3 s, uint t) {
    if (l < 0 || l >= n) { if (_sdbg_oob) _sdbg_irep(p, t | 524288u, ivec3(l, 0, 0), ivec3(n, 0, 0)); return c; }
    return _sdbg_ic(p, c, s, t);
}
