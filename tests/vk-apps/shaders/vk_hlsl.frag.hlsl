// vk_triangle.frag's pattern in HLSL, which the debugger does not instrument.
struct Frame {
    float t;
};
[[vk::push_constant]] ConstantBuffer<Frame> frame;

float4 main(float4 pos : SV_Position) : SV_Target
{
    float2 p = pos.xy / 32.0;
    float t = frame.t;
    float ring = frac(length(p - 1.0) * 2.0 - t);
    return float4(frac(p.x + t), ring, frac((p.x + p.y) * 0.5 - t), 1.0);
}
