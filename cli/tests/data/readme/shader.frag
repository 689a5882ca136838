#version 330 core
// The README's `shader.frag`: cli/tests/readme.rs runs the commands of
// the README's "Using it" in a directory holding it under that name, in
// the built-in host (which sets iResolution). They name line 27, where
// `falloff` is in scope (and exceeds 0.5 near a light), and line 30,
// where `n` and `l` are.

uniform vec3 iResolution;
out vec4 fragColor;

struct Light {
    vec2 pos;
    vec3 color;
};

Light lightAt(int i) {
    float a = float(i) * 2.094;
    return Light(vec2(cos(a), sin(a)) * 0.5, vec3(0.5 + 0.5 * cos(a), 0.5, 0.8));
}

void main() {
    vec2 uv = (gl_FragCoord.xy - 0.5 * iResolution.xy) / iResolution.y;
    vec3 col = vec3(0.05);
    for (int i = 0; i < 3; i++) {
        vec2 d = uv - lightAt(i).pos;
        float falloff = 1.0 / (1.0 + 16.0 * dot(d, d));
        col += lightAt(i).color * falloff;
    }
    vec3 n = normalize(vec3(uv, 1.0)), l = normalize(vec3(0.3, 0.5, 1.0));
    float diffuse = max(dot(n, l), 0.0);
    fragColor = vec4(col * (0.5 + 0.5 * diffuse), 1.0);
}
