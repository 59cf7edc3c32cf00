#pragma once
// GLSL 330 core sources of MeshView (ui/view/mesh_view.cpp), kept apart from the C++ so they read
// as shaders. Vertex layout of the mesh: location 0 position (vec3), 1 normal (vec3), 2 uv (vec2;
// v = 0 at the top row, which is also the first row uploaded, so no flip).
//
//   program.addShaderFromSourceCode(QOpenGLShader::Vertex, shaders::kMeshVertex);
//
// Constants only: nothing throws, safe from any thread.

namespace stageload::view::shaders {

/// Mesh: world-space positions (the model matrix is the identity).
inline constexpr const char* kMeshVertex = R"(#version 330 core
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec2 aUv;
uniform mat4 uMvp;
uniform mat4 uView;
out vec3 vNormalWorld;
out vec3 vNormalView;
out vec3 vPositionView;
out vec2 vUv;
void main() {
    vNormalWorld = aNormal;
    vNormalView = mat3(uView) * aNormal;  // the view is a rotation + translation
    vPositionView = (uView * vec4(aPosition, 1.0)).xyz;
    vUv = aUv;
    gl_Position = uMvp * vec4(aPosition, 1.0);
}
)";

/// uMode: 0 textured (texture × headlight; clay without a texture), 1 clay (light grey,
/// headlight lambert + a little rim), 2 normals (world normal → RGB), 3 flat uColor (wireframe
/// lines). uAlpha fades the clay look (the wireframe's faint fill). Two-sided: a face seen from
/// behind is lit like its front, so open sheets and flipped normals still read.
inline constexpr const char* kMeshFragment = R"(#version 330 core
in vec3 vNormalWorld;
in vec3 vNormalView;
in vec3 vPositionView;
in vec2 vUv;
uniform int uMode;
uniform bool uHasTexture;
uniform sampler2D uTexture;
uniform vec4 uColor;
uniform float uAlpha;
out vec4 fragColor;
void main() {
    if (uMode == 3) {
        fragColor = uColor;
        return;
    }
    if (uMode == 2) {
        vec3 n = length(vNormalWorld) > 1e-8 ? normalize(vNormalWorld) : vec3(0.0, 0.0, 1.0);
        fragColor = vec4(n * 0.5 + 0.5, 1.0);
        return;
    }
    vec3 toEye = normalize(-vPositionView);
    vec3 n = length(vNormalView) > 1e-8 ? normalize(vNormalView) : toEye;
    float lambert = abs(dot(n, toEye));  // headlight, two-sided
    if (uMode == 0 && uHasTexture) {
        vec3 albedo = texture(uTexture, vUv).rgb;
        fragColor = vec4(albedo * (0.35 + 0.65 * lambert), 1.0);
        return;
    }
    vec3 clay = vec3(0.78, 0.78, 0.80) * (0.40 + 0.60 * lambert);
    clay += vec3(0.15) * pow(1.0 - lambert, 3.0);  // rim
    fragColor = vec4(clay, uAlpha);
}
)";

/// Background: one triangle that covers the viewport (no vertex buffer: gl_VertexID), a
/// vertical gradient from uTop (top row) to uBottom (bottom row).
inline constexpr const char* kBackgroundVertex = R"(#version 330 core
out float vFromTop;
void main() {
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    vFromTop = 0.5 - 0.5 * p.y;
    gl_Position = vec4(p, 0.0, 1.0);
}
)";

inline constexpr const char* kBackgroundFragment = R"(#version 330 core
in float vFromTop;
uniform vec3 uTop;
uniform vec3 uBottom;
out vec4 fragColor;
void main() {
    fragColor = vec4(mix(uTop, uBottom, vFromTop), 1.0);
}
)";

/// Ground grid: lines in the plane y = const, white at uAlpha fading out towards uExtent from
/// uCentre (x, z).
inline constexpr const char* kGridVertex = R"(#version 330 core
layout(location = 0) in vec3 aPosition;
uniform mat4 uMvp;
out vec2 vGround;
void main() {
    vGround = aPosition.xz;
    gl_Position = uMvp * vec4(aPosition, 1.0);
}
)";

inline constexpr const char* kGridFragment = R"(#version 330 core
in vec2 vGround;
uniform vec2 uCentre;
uniform float uExtent;
uniform float uAlpha;
out vec4 fragColor;
void main() {
    float fade = 1.0 - smoothstep(0.3, 1.0, length(vGround - uCentre) / uExtent);
    fragColor = vec4(1.0, 1.0, 1.0, uAlpha * fade);
}
)";

}  // namespace stageload::view::shaders
