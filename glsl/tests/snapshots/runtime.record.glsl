layout(std430, binding = 7) buffer _sdbg_Buffer { uint _sdbg_len; uint _sdbg_cap; uint _sdbg_overflow; uint _sdbg_invocations; uint _sdbg_data[]; };
bool _sdbg_active = false;
uint _sdbg_tag = 0u;
uint _sdbg_alloc(uint p, uint n) {
    if (!_sdbg_active || _sdbg_overflow != 0u) return 0xffffffffu;
    uint at = atomicAdd(_sdbg_len, n + 2u);
    if (at + n + 2u > _sdbg_cap) { _sdbg_overflow = 1u; return 0xffffffffu; }
    _sdbg_data[at] = p;
    _sdbg_data[at + 1u] = _sdbg_tag;
    return at + 2u;
}
void _sdbg_step(uint p) { _sdbg_alloc(p, 0u); }
bool _sdbg_cond(uint p, bool c) {
    uint at = _sdbg_alloc(p, 1u);
    if (at != 0xffffffffu) _sdbg_data[at] = c ? 1u : 0u;
    return c;
}
void _sdbg_begin(uint p) {
    _sdbg_active = (gl_VertexID == 2 && gl_InstanceID == 0);
    if (!_sdbg_active) return;
    _sdbg_tag = atomicAdd(_sdbg_invocations, 1u);
    uint at = _sdbg_alloc(p, 4u);
    if (at == 0xffffffffu) return;
    _sdbg_data[at] = uint(gl_VertexID); _sdbg_data[at + 1u] = uint(gl_InstanceID); _sdbg_data[at + 2u] = 0u; _sdbg_data[at + 3u] = 0u;
}
