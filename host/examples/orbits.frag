// shaderdbg demo: three glowing circles orbit over a Julia-set background.
// Render it:   shaderdbg-host host/examples/orbits.frag --png orbits.png
// Debug it:    set a breakpoint in `julia` or inside the circle loop, F5.

struct Circle {
    vec2 center;
    float radius;
    vec3 color;
};

const int MAX_ITER = 48;

// Escape-time iteration count of z^2 + c, scaled to 0..1.
float julia(vec2 z, vec2 c) {
    float n = 0.0;
    for (int i = 0; i < MAX_ITER; i++) {
        z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
        if (dot(z, z) > 16.0) {
            break;
        }
        n += 1.0;
    }
    return n / float(MAX_ITER);
}

// Soft glow of a circle's rim at p.
float ring(vec2 p, Circle circle) {
    float d = abs(length(p - circle.center) - circle.radius);
    return 0.004 / (d + 0.004);
}

void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = (2.0 * fragCoord - iResolution.xy) / iResolution.y;

    float t = iTime * 0.5;
    vec2 c = vec2(-0.8, 0.156) + 0.05 * vec2(cos(t), sin(t));
    float shade = julia(uv * 1.2, c);
    vec3 color = vec3(0.1, 0.05, 0.2) + shade * vec3(0.3, 0.5, 0.9);

    Circle circles[3];
    circles[0] = Circle(vec2(cos(t), sin(t)) * 0.6, 0.25, vec3(1.0, 0.4, 0.2));
    circles[1] = Circle(vec2(cos(t + 2.1), sin(t + 2.1)) * 0.6, 0.2, vec3(0.2, 1.0, 0.5));
    circles[2] = Circle(vec2(cos(t + 4.2), sin(t + 4.2)) * 0.6, 0.15, vec3(0.4, 0.6, 1.0));

    float glow = 0.0;
    for (int k = 0; k < 3; k++) {
        float g = ring(uv, circles[k]);
        color += g * circles[k].color;
        glow += g;
        if (glow > 1.5) {
            break; // saturated: the remaining circles cannot be seen here
        }
    }

    fragColor = vec4(clamp(color, 0.0, 1.0), 1.0);
}
