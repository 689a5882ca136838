// The shaderdbg demo: a Shadertoy-style shader for the built-in host.
// Rings around three coloured lights; step through `shade` to see why a
// pixel has its colour.

struct Light {
    vec2 pos;
    vec3 color;
};

float ring(vec2 p, float radius, out float dist) {
    dist = length(p);
    return smoothstep(0.02, 0.0, abs(dist - radius));
}

vec3 shade(vec2 uv, Light lights[3]) {
    vec3 c = vec3(0.0);
    for (int i = 0; i < 3; i++) {
        vec2 d = uv - lights[i].pos;
        float falloff = 1.0 / (1.0 + 8.0 * dot(d, d));
        if (falloff < 0.2) continue;
        c += lights[i].color * falloff;
    }
    return c;
}

void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = (fragCoord - 0.5 * iResolution.xy) / iResolution.y;
    Light lights[3] = Light[3](
        Light(vec2(-0.4, 0.0), vec3(1.0, 0.3, 0.2)),
        Light(vec2(0.4, 0.1), vec3(0.2, 0.5, 1.0)),
        Light(vec2(0.0, -0.3), vec3(0.3, 1.0, 0.4)));
    float dist;
    float r = ring(uv, 0.3 + 0.05 * sin(iTime), dist);
    vec3 col = shade(uv, lights);
    col = mix(col, vec3(1.0), r);
    fragColor = vec4(col, 1.0);
}
