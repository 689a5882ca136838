layout(std430, binding = 7) buffer _sdbg_Buffer { uint _sdbg_hit_count; uint _sdbg_hit_cap; uint _sdbg_pad0; uint _sdbg_pad1; uint _sdbg_data[]; };
uint _sdbg_occ0 = 0u;
uint _sdbg_first0 = 0xffffffffu;
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
