layout(std430, binding = 7) buffer _sdbg_Buffer { uint _sdbg_hit_count; uint _sdbg_hit_cap; uint _sdbg_pad0; uint _sdbg_pad1; uint _sdbg_data[]; };
uint _sdbg_occ0 = 0u;
uint _sdbg_first0 = 0xffffffffu;
