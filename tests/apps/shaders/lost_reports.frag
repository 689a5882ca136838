#version 430
// Every fragment indexes past the end of `a` in three statements: each
// keeps two reports and loses the third (the sanitizer says so).
out vec4 color;
void main() {
    float a[2] = float[2](1.0, 2.0);
    int i = int(gl_FragCoord.x) + 2;
    float x = a[i];
    float y = a[i + 1];
    float z = a[i + 2];
    color = vec4(x, y, z, 1.0);
}
