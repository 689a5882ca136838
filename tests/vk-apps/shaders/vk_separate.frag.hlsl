// vk_textured.frag in HLSL, as engines write it for DXC: a texture and a
// sampler of their own (decompiled: `texture2D`, `sampler`,
// `sampler2D(t, s)`), the texel tinted by a constant buffer.
cbuffer Frame : register(b0) { float4 tint; };
Texture2D tex : register(t1);
SamplerState smp : register(s2);

float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target
{
    float4 texel = tex.Sample(smp, uv);
    float4 shaded = texel * tint;
    return shaded;
}
