layout(std430, binding = 7) buffer _sdbg_Buffer { uint _sdbg_san_count; uint _sdbg_san_cap; uint _sdbg_san_overflow; uint _sdbg_san_flags; uint _sdbg_data[]; };
bool _sdbg_ok = true;
const bool _sdbg_oob = true;
uint _sdbg_r0k = 0u; uint _sdbg_r0p = 0u; uint _sdbg_r0i = 0u; uint _sdbg_r0b = 0u;
uint _sdbg_r1k = 0u; uint _sdbg_r1p = 0u; uint _sdbg_r1i = 0u; uint _sdbg_r1b = 0u;
bool _sdbg_more = false;
void _sdbg_report(uint kind, uint p, uint idx, uint bound) {
    if (_sdbg_r0p == 0u) { _sdbg_r0k = kind; _sdbg_r0p = p; _sdbg_r0i = idx; _sdbg_r0b = bound; }
    else if (_sdbg_r0p != p || _sdbg_r0k != kind) {
        if (_sdbg_r1p == 0u) { _sdbg_r1k = kind; _sdbg_r1p = p; _sdbg_r1i = idx; _sdbg_r1b = bound; }
        else if (_sdbg_r1p != p || _sdbg_r1k != kind) _sdbg_more = true;
    }
}
