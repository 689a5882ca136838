#version 450
// The second subpass: what the first drew at this pixel (an input
// attachment), tinted.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput first;
layout(location = 0) out vec4 color;

void main() {
    vec4 seen = subpassLoad(first);
    vec3 tinted = seen.rgb * vec3(0.5, 1.0, 0.25) + vec3(0.25, 0.0, 0.0);
    color = vec4(tinted, 1.0);
}
