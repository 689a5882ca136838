// A sphere-traced scene: a 64-step march calling a distance function, a
// normal from six more calls (the hit-test cost benchmark's realistic shader).
float sdf(vec3 p) {
    vec3 q = mod(p + 1.0, 2.0) - 1.0;
    float s = length(q) - 0.4 - 0.1 * sin(iTime + p.z);
    float plane = p.y + 1.0;
    return min(s, plane);
}

vec3 normalAt(vec3 p) {
    vec2 e = vec2(0.001, 0.0);
    return normalize(vec3(sdf(p + e.xyy) - sdf(p - e.xyy),
                          sdf(p + e.yxy) - sdf(p - e.yxy),
                          sdf(p + e.yyx) - sdf(p - e.yyx)));
}

void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = (fragCoord - 0.5 * iResolution.xy) / iResolution.y;
    vec3 ro = vec3(0.0, 0.0, -3.0 + iTime);
    vec3 rd = normalize(vec3(uv, 1.5));
    float t = 0.0;
    float d = 1.0;
    for (int i = 0; i < 64; i++) {
        vec3 p = ro + rd * t;
        d = sdf(p);
        t += d;
        if (d < 0.001 || t > 40.0) break;
    }
    vec3 col = vec3(0.1);
    if (d < 0.001) {
        vec3 n = normalAt(ro + rd * t);
        col = vec3(0.5) + 0.5 * n;
    }
    fragColor = vec4(col * exp(-0.05 * t), 1.0);
}
