#include <tiny_gltf.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>

#include "guard/base/atomic_file.h"
#include "guard/base/text.h"
#include "engine/media/mesh_files.h"

namespace stageload {
namespace {

constexpr int kArrayBuffer = 34962;
constexpr int kElementArrayBuffer = 34963;

void validate(const TexturedMesh& m) {
    const auto n = m.vertexCount();
    if (n == 0 || m.indices.empty() || m.indices.size() % 3 != 0)
        throw Error("mesh '" + m.name + "' has no triangles to export");
    if (m.normals.size() != m.positions.size() || m.uvs.size() != 2 * n)
        throw Error("mesh '" + m.name + "' needs one normal and one UV per vertex");
    for (auto i : m.indices)
        if (i >= n) throw Error("mesh '" + m.name + "' has an index past its last vertex");
    if (m.texture.empty() || m.texture.channels < 3)
        throw Error("mesh '" + m.name + "' has no RGB texture");
}

// Appends `bytes` to the buffer (4-byte aligned) as a new buffer view; returns its index.
int addView(tinygltf::Model& model, const void* data, std::size_t bytes, int target) {
    auto& buffer = model.buffers[0].data;
    while (buffer.size() % 4) buffer.push_back(0);
    tinygltf::BufferView view;
    view.buffer = 0;
    view.byteOffset = buffer.size();
    view.byteLength = bytes;
    view.target = target;
    const auto* p = static_cast<const std::uint8_t*>(data);
    buffer.insert(buffer.end(), p, p + bytes);
    model.bufferViews.push_back(view);
    return static_cast<int>(model.bufferViews.size() - 1);
}

int addAccessor(tinygltf::Model& model, int view, int componentType, int type, std::size_t count,
                std::vector<double> min = {}, std::vector<double> max = {}) {
    tinygltf::Accessor a;
    a.bufferView = view;
    a.componentType = componentType;
    a.type = type;
    a.count = count;
    a.minValues = std::move(min);
    a.maxValues = std::move(max);
    model.accessors.push_back(a);
    return static_cast<int>(model.accessors.size() - 1);
}

constexpr const char* kPlacementKey = "stageloadPicture";

tinygltf::Value placementValue(const PicturePlacement& p) {
    auto pair = [](auto a, auto b) { return tinygltf::Value(tinygltf::Value::Array{tinygltf::Value(a), tinygltf::Value(b)}); };
    tinygltf::Value::Object o;
    o["size"] = pair(p.width, p.height);
    o["origin"] = pair(p.x0, p.y0);
    o["pixelsPerUnit"] = pair(p.sx, p.sy);
    return tinygltf::Value(tinygltf::Value::Object{{kPlacementKey, tinygltf::Value(std::move(o))}});
}

// The placement a mesh's extras hold, if they hold a well-formed one.
std::optional<PicturePlacement> placementOf(const tinygltf::Value& extras) {
    if (!extras.IsObject() || !extras.Has(kPlacementKey)) return std::nullopt;
    const auto& o = extras.Get(kPlacementKey);
    auto pair = [&o](const char* key, double& a, double& b) {
        if (!o.IsObject() || !o.Has(key)) return false;
        const auto& v = o.Get(key);
        if (!v.IsArray() || v.ArrayLen() != 2 || !v.Get(0).IsNumber() || !v.Get(1).IsNumber()) return false;
        a = v.Get(0).GetNumberAsDouble(), b = v.Get(1).GetNumberAsDouble();
        return std::isfinite(a) && std::isfinite(b);
    };
    PicturePlacement p;
    double w = 0, h = 0;
    if (!pair("size", w, h) || !pair("origin", p.x0, p.y0) || !pair("pixelsPerUnit", p.sx, p.sy)) return std::nullopt;
    constexpr double kLargestSide = 1 << 24;  // pixels; a larger picture is no picture
    if (!(w >= 1 && h >= 1 && w <= kLargestSide && h <= kLargestSide) || p.sx <= 0 || p.sy <= 0)
        return std::nullopt;
    p.width = static_cast<int>(w), p.height = static_cast<int>(h);
    return p;
}

}  // namespace

std::vector<std::uint8_t> encodeGlb(const TexturedMesh& mesh) {
    validate(mesh);
    tinygltf::Model model;
    model.asset.version = "2.0";
    model.asset.generator = "Stageload Studio";
    model.buffers.resize(1);

    const auto n = mesh.vertexCount();
    const auto b = meshBounds(mesh.positions);
    tinygltf::Primitive primitive;
    primitive.mode = TINYGLTF_MODE_TRIANGLES;
    primitive.indices = addAccessor(
        model, addView(model, mesh.indices.data(), mesh.indices.size() * 4, kElementArrayBuffer),
        TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT, TINYGLTF_TYPE_SCALAR, mesh.indices.size());
    primitive.attributes["POSITION"] = addAccessor(
        model, addView(model, mesh.positions.data(), mesh.positions.size() * 4, kArrayBuffer),
        TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, n, {b[0], b[1], b[2]}, {b[3], b[4], b[5]});
    primitive.attributes["NORMAL"] = addAccessor(
        model, addView(model, mesh.normals.data(), mesh.normals.size() * 4, kArrayBuffer),
        TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, n);
    primitive.attributes["TEXCOORD_0"] = addAccessor(
        model, addView(model, mesh.uvs.data(), mesh.uvs.size() * 4, kArrayBuffer),
        TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC2, n);
    primitive.material = 0;

    const auto png = encodePng(mesh.texture);
    tinygltf::Image image;
    image.name = mesh.name + "_texture";
    image.mimeType = "image/png";
    image.bufferView = addView(model, png.data(), png.size(), 0);
    model.images.push_back(image);

    tinygltf::Sampler sampler;
    sampler.magFilter = TINYGLTF_TEXTURE_FILTER_LINEAR;
    sampler.minFilter = TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR;
    sampler.wrapS = sampler.wrapT = TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE;
    model.samplers.push_back(sampler);

    tinygltf::Texture texture;
    texture.sampler = 0;
    texture.source = 0;
    model.textures.push_back(texture);

    tinygltf::Material material;
    material.name = mesh.name + "_material";
    material.pbrMetallicRoughness.baseColorTexture.index = 0;
    material.pbrMetallicRoughness.metallicFactor = 0.0;
    material.pbrMetallicRoughness.roughnessFactor = 0.8;
    model.materials.push_back(material);

    tinygltf::Mesh gmesh;
    gmesh.name = mesh.name;
    gmesh.primitives.push_back(primitive);
    if (mesh.placement) gmesh.extras = placementValue(*mesh.placement);
    model.meshes.push_back(gmesh);

    tinygltf::Node node;
    node.name = mesh.name;
    node.mesh = 0;
    model.nodes.push_back(node);
    tinygltf::Scene scene;
    scene.name = mesh.name;
    scene.nodes.push_back(0);
    model.scenes.push_back(scene);
    model.defaultScene = 0;

    std::ostringstream out;
    tinygltf::TinyGLTF writer;
    if (!writer.WriteGltfSceneToStream(&model, out, false, true))
        throw Error("mesh '" + mesh.name + "': the glTF writer failed");
    const auto s = out.str();
    return {s.begin(), s.end()};
}

void writeGlb(const TexturedMesh& mesh, const std::filesystem::path& path) {
    const auto bytes = encodeGlb(mesh);
    writeFileAtomically(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

TexturedMesh readGlb(const std::filesystem::path& path) {
    tinygltf::TinyGLTF loader;
    tinygltf::Model model;
    std::string err, warn;
    const bool binary = asciiLower(path.extension().string()) == ".glb";
    const bool ok = binary ? loader.LoadBinaryFromFile(&model, &err, &warn, path.string())
                           : loader.LoadASCIIFromFile(&model, &err, &warn, path.string());
    if (!ok) throw FileError(path.string() + ": not a glTF file Stageload can read (" + err + ")");
    TexturedMesh out;
    out.name = path.stem().string();
    // Node transforms of the default scene, depth first, applied to each mesh.
    std::function<void(int, const std::array<double, 16>&)> visit;
    const std::array<double, 16> identity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    auto multiply = [](const std::array<double, 16>& a, const std::array<double, 16>& b) {
        std::array<double, 16> c{};
        for (int col = 0; col < 4; ++col)
            for (int row = 0; row < 4; ++row)
                for (int k = 0; k < 4; ++k) c[col * 4 + row] += a[k * 4 + row] * b[col * 4 + k];
        return c;
    };
    auto localMatrix = [](const tinygltf::Node& node) {
        std::array<double, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        if (node.matrix.size() == 16) {
            std::copy(node.matrix.begin(), node.matrix.end(), m.begin());
            return m;
        }
        const auto& t = node.translation;
        const auto& r = node.rotation;
        const auto& s = node.scale;
        const double qx = r.size() == 4 ? r[0] : 0, qy = r.size() == 4 ? r[1] : 0,
                     qz = r.size() == 4 ? r[2] : 0, qw = r.size() == 4 ? r[3] : 1;
        const double sx = s.size() == 3 ? s[0] : 1, sy = s.size() == 3 ? s[1] : 1,
                     sz = s.size() == 3 ? s[2] : 1;
        const double R[9] = {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qz * qw), 2 * (qx * qz - qy * qw),
                             2 * (qx * qy - qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qx * qw),
                             2 * (qx * qz + qy * qw), 2 * (qy * qz - qx * qw), 1 - 2 * (qx * qx + qy * qy)};
        for (int col = 0; col < 3; ++col)
            for (int row = 0; row < 3; ++row)
                m[col * 4 + row] = R[col * 3 + row] * (col == 0 ? sx : col == 1 ? sy : sz);
        if (t.size() == 3) m[12] = t[0], m[13] = t[1], m[14] = t[2];
        return m;
    };
    auto readFloats = [&](int accessorIndex, int components) {
        std::vector<float> values;
        if (accessorIndex < 0) return values;
        const auto& a = model.accessors.at(accessorIndex);
        if (a.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT || a.bufferView < 0)
            throw FileError(path.string() + ": only float vertex attributes are supported");
        const auto& view = model.bufferViews.at(a.bufferView);
        const auto& data = model.buffers.at(view.buffer).data;
        const std::size_t stride = view.byteStride ? view.byteStride : components * 4;
        const std::size_t start = view.byteOffset + a.byteOffset;
        if (a.count > 0 && start + (a.count - 1) * stride + components * 4 > data.size())
            throw FileError(path.string() + ": an accessor runs past the end of its buffer");
        values.resize(a.count * components);
        for (std::size_t i = 0; i < a.count; ++i)
            std::memcpy(&values[i * components], data.data() + start + i * stride, components * 4);
        return values;
    };
    visit = [&](int nodeIndex, const std::array<double, 16>& parent) {
        const auto& node = model.nodes.at(nodeIndex);
        const auto world = multiply(parent, localMatrix(node));
        if (node.mesh >= 0) {
            // A placement maps one mesh's own coordinates: it holds for the file only when that
            // mesh is all there is and no transform moves it.
            const bool first = out.indices.empty() && !out.placement;
            out.placement.reset();
            if (first && world == identity) out.placement = placementOf(model.meshes.at(node.mesh).extras);
            for (const auto& prim : model.meshes.at(node.mesh).primitives) {
                if (prim.mode != TINYGLTF_MODE_TRIANGLES && prim.mode != -1) continue;
                if (!prim.attributes.count("POSITION")) continue;
                const auto base = static_cast<std::uint32_t>(out.vertexCount());
                const auto pos = readFloats(prim.attributes.at("POSITION"), 3);
                const auto count = pos.size() / 3;
                auto uv = prim.attributes.count("TEXCOORD_0")
                              ? readFloats(prim.attributes.at("TEXCOORD_0"), 2)
                              : std::vector<float>(count * 2, 0.0f);
                for (std::size_t i = 0; i < count; ++i) {
                    const double x = pos[3 * i], y = pos[3 * i + 1], z = pos[3 * i + 2];
                    for (int r = 0; r < 3; ++r)
                        out.positions.push_back(static_cast<float>(
                            world[r] * x + world[4 + r] * y + world[8 + r] * z + world[12 + r]));
                }
                out.uvs.insert(out.uvs.end(), uv.begin(), uv.end());
                if (prim.indices >= 0) {
                    const auto& a = model.accessors.at(prim.indices);
                    const auto& view = model.bufferViews.at(a.bufferView);
                    const auto* data = model.buffers.at(view.buffer).data.data() + view.byteOffset +
                                       a.byteOffset;
                    const int size = tinygltf::GetComponentSizeInBytes(a.componentType);
                    for (std::size_t i = 0; i < a.count; ++i) {
                        std::uint32_t v = 0;
                        std::memcpy(&v, data + i * size, size);  // little-endian
                        if (v >= count) throw FileError(path.string() + ": an index is out of range");
                        out.indices.push_back(base + v);
                    }
                } else {
                    for (std::uint32_t i = 0; i < count; ++i) out.indices.push_back(base + i);
                }
                if (out.texture.empty() && prim.material >= 0) {
                    const auto tex = model.materials.at(prim.material)
                                         .pbrMetallicRoughness.baseColorTexture.index;
                    if (tex >= 0 && model.textures.at(tex).source >= 0) {
                        const auto& img = model.images.at(model.textures.at(tex).source);
                        if (img.width > 0 && img.component >= 3 && img.bits == 8) {
                            out.texture = Image(img.width, img.height, img.component);
                            std::memcpy(out.texture.pixels.data(), img.image.data(),
                                        out.texture.pixels.size());
                        }
                    }
                }
            }
        }
        for (int child : node.children) visit(child, world);
    };
    const int sceneIndex = model.defaultScene >= 0 ? model.defaultScene : 0;
    if (model.scenes.empty()) {
        for (std::size_t i = 0; i < model.nodes.size(); ++i) visit(static_cast<int>(i), identity);
    } else {
        for (int node : model.scenes.at(sceneIndex).nodes) visit(node, identity);
    }
    if (out.indices.empty()) throw FileError(path.string() + ": has no triangle meshes");
    out.normals = smoothNormals(out.positions, out.indices);  // the viewer's shading, per mesh
    return out;
}

}  // namespace stageload
