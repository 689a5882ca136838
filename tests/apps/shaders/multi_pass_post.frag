#version 330 core
// Pass 2: a post-process that samples pass 1's texture.
uniform sampler2D scene;
uniform vec2 size;
out vec4 color;

void main() {
    vec2 uv = gl_FragCoord.xy / size;
    vec4 s = texture(scene, uv);
    float edge = s.r > 0.5 ? 1.0 : 0.0;
    color = vec4(1.0 - s.r, s.g * 0.5 + edge * 0.25, s.b, 1.0);
}
