// Reading meshes back: writeObj → readObj and writeGlb → readMeshFile round trips, handwritten
// OBJ files (polygons, negative indices, every corner form, materials), and the messages for
// malformed, missing and unsupported files.
#include <cmath>
#include <fstream>

#include <QTemporaryDir>
#include <QtTest>

#include "engine/media/mesh.h"
#include "engine/media/mesh_files.h"
#include "tests/mesh_support.h"

using namespace stageload;

namespace {

// A 1 × 1.25 × 0.75 box whose faces map onto the middle of a 4 × 2 texture: red on the left
// half, blue on the right, the rows told apart by their green.
TexturedMesh texturedCube() {
    Image texture = testmesh::halves(4, 2, {230, 0, 30}, {20, 0, 220});
    for (int x = 0; x < 4; ++x) texture.at(x, 1)[1] = 10;
    TexturedMesh m = testmesh::box({-0.5f, 0.0f, -0.25f}, {0.5f, 1.25f, 0.5f}, {0.125f, 0.25f},
                                   {0.875f, 0.75f}, std::move(texture));
    m.name = "cube";
    return m;
}

// The same triangles, corner by corner: positions, UVs and normals within `tolerance`.
void compareCorners(const TexturedMesh& a, const TexturedMesh& b, float tolerance) {
    QCOMPARE(b.triangleCount(), a.triangleCount());
    QCOMPARE(b.positions.size(), 3 * b.vertexCount());
    QCOMPARE(b.uvs.size(), 2 * b.vertexCount());
    QCOMPARE(b.normals.size(), 3 * b.vertexCount());
    for (std::size_t i = 0; i < a.indices.size(); ++i) {
        const auto va = a.indices[i], vb = b.indices[i];
        QVERIFY(vb < b.vertexCount());
        for (int c = 0; c < 3; ++c) {
            QVERIFY2(std::abs(a.positions[3 * va + c] - b.positions[3 * vb + c]) <= tolerance,
                     qPrintable(QString("corner %1 position %2").arg(i).arg(c)));
            QVERIFY(std::abs(a.normals[3 * va + c] - b.normals[3 * vb + c]) <= 1e-5f);
        }
        for (int c = 0; c < 2; ++c)
            QVERIFY2(std::abs(a.uvs[2 * va + c] - b.uvs[2 * vb + c]) <= tolerance,
                     qPrintable(QString("corner %1 uv %2").arg(i).arg(c)));
    }
}

void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// The message of the FileError `f` throws ("" and a failed check when it throws nothing).
template <class F>
QString fileErrorOf(F f) {
    try {
        f();
    } catch (const FileError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class TestMeshRead : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    std::filesystem::path file(const char* name) const {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void objRoundTrip() {
        const auto mesh = texturedCube();
        writeObj(mesh, file("cube.obj"));
        const auto back = readObj(file("cube.obj"));
        QCOMPARE(back.name, mesh.name);
        QCOMPARE(back.vertexCount(), mesh.vertexCount());  // one vertex per (v, vt, vn) triple
        compareCorners(mesh, back, 1e-6f);
        QCOMPARE(back.texture.width, mesh.texture.width);
        QCOMPARE(back.texture.height, mesh.texture.height);
        QCOMPARE(back.texture.channels, 3);
        QVERIFY(back.texture.pixels == mesh.texture.pixels);
    }

    void glbRoundTripThroughReadMeshFile() {
        const auto mesh = texturedCube();
        writeGlb(mesh, file("cube.glb"));
        const auto back = readMeshFile(file("cube.glb"));
        QCOMPARE(back.vertexCount(), mesh.vertexCount());
        compareCorners(mesh, back, 1e-6f);
        QCOMPARE(back.texture.width, mesh.texture.width);
        QCOMPARE(back.texture.channels, 3);  // readMeshFile hands out RGB
        QVERIFY(back.texture.pixels == mesh.texture.pixels);
        // The extension decides, in any case.
        std::filesystem::copy_file(file("cube.obj"), file("upper.OBJ"));
        QCOMPARE(readMeshFile(file("upper.OBJ")).triangleCount(), mesh.triangleCount());
    }

    void handwrittenPolygonsAndNegativeIndices() {
        writeText(file("shapes.mtl"),
                  "newmtl plain\nKd 1 1 1\n"
                  "newmtl checker\nmap_Kd -s 1 1 1 -clamp on tex dir\\c.png\n");
        std::filesystem::create_directories(file("tex dir"));
        Image texture(2, 2, 4);
        for (std::size_t i = 0; i < texture.pixels.size(); ++i)
            texture.pixels[i] = static_cast<std::uint8_t>(40 * i);
        writePngFile(file("tex dir") / "c.png", texture);
        writeText(file("shapes.obj"),
                  "# a quad, a pentagon and a triangle\r\n"
                  "mtllib shapes.mtl\r\n"
                  "o shapes\r\n"
                  "v 0 0 0\r\nv 1 0 0\r\nv 1 1 0\r\nv 0 1 0\r\n"
                  "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                  "vn 0 0 1\n"
                  "usemtl plain\n"
                  "g quad\ns off\n"
                  "f 1/1/1 2/2/1 3/3/1 4/4/1\n"
                  "usemtl checker\n"
                  "v 2 0 0\nv 3 0 0\nv 3.5 1 0\nv 2.5 2 0\nv 1.5 1 0\n"
                  "f -5 -4 -3 -2 -1   # pentagon, relative indices\n"
                  "f -5//1 \\\n -4//1 -3//1\n"
                  "f 1/-4 2/-3 3/-2\n");
        const auto m = readObj(file("shapes.obj"));
        QCOMPARE(m.name, std::string("shapes"));
        QCOMPARE(m.triangleCount(), std::size_t(2 + 3 + 1 + 1));
        // quad 4 + pentagon 5 + (v//vn) 3 + (v/vt) 3: all distinct triples.
        QCOMPARE(m.vertexCount(), std::size_t(15));
        QCOMPARE(m.indices[0], 0u);  // fan: 0 1 2, 0 2 3
        QCOMPARE(m.indices[5], 3u);
        // OBJ's vt (1, 1) is glTF's (1, 0).
        QCOMPARE(m.uvs[2 * 2], 1.0f);
        QCOMPARE(m.uvs[2 * 2 + 1], 0.0f);
        QCOMPARE(m.uvs[2 * 5 + 1], 0.0f);  // no vt: zeros
        // Given normals kept, missing ones computed (unit length, +z for this flat sheet).
        for (std::size_t v = 0; v < m.vertexCount(); ++v) QCOMPARE(m.normals[3 * v + 2], 1.0f);
        // The first used material with a texture, RGB.
        QCOMPARE(m.texture.width, 2);
        QCOMPARE(m.texture.channels, 3);
        QCOMPARE(int(m.texture.pixels[3]), 160);  // pixel 1, red = byte 4 of the RGBA picture
    }

    void missingTextureIsNotAnError() {
        writeText(file("lost.mtl"), "newmtl m\nmap_Kd nowhere.png\n");
        writeText(file("lost.obj"),
                  "mtllib lost.mtl\nusemtl m\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
        const auto m = readObj(file("lost.obj"));
        QCOMPARE(m.triangleCount(), std::size_t(1));
        QVERIFY(m.texture.empty());
        writeText(file("nomtl.obj"),
                  "mtllib gone.mtl\nusemtl m\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
        QVERIFY(readObj(file("nomtl.obj")).texture.empty());
    }

    void malformedLinesNameTheLine() {
        writeText(file("bad.obj"), "v 0 0 0\nv 1 0 0\n\nv 0 1 0\nf 1 2 x\n");
        auto message = fileErrorOf([&] { readObj(file("bad.obj")); });
        QVERIFY2(message.contains("bad.obj, line 5"), qPrintable(message));

        writeText(file("range.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n");
        message = fileErrorOf([&] { readObj(file("range.obj")); });
        QVERIFY2(message.contains("range.obj, line 5") && message.contains("vertex 4"),
                 qPrintable(message));

        writeText(file("neg.obj"), "v 0 0 0\nv 1 0 0\nf -1 -2 -3\n");
        message = fileErrorOf([&] { readObj(file("neg.obj")); });
        QVERIFY2(message.contains("neg.obj, line 3"), qPrintable(message));

        writeText(file("uv.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n");
        message = fileErrorOf([&] { readObj(file("uv.obj")); });
        QVERIFY2(message.contains("uv.obj, line 5") && message.contains("texture coordinate 2"),
                 qPrintable(message));

        writeText(file("short.obj"), "v 0 0\n");
        message = fileErrorOf([&] { readObj(file("short.obj")); });
        QVERIFY2(message.contains("short.obj, line 1"), qPrintable(message));

        writeText(file("two.obj"), "v 0 0 0\nv 1 0 0\nf 1 2\n");
        message = fileErrorOf([&] { readObj(file("two.obj")); });
        QVERIFY2(message.contains("two.obj, line 3"), qPrintable(message));

        writeText(file("empty.obj"), "# nothing\nv 0 0 0\n");
        message = fileErrorOf([&] { readObj(file("empty.obj")); });
        QVERIFY2(message.contains("empty.obj") && message.contains("no faces"),
                 qPrintable(message));
    }

    void unsupportedAndMissingFiles() {
        writeText(file("x.fbx"), "not a mesh");
        QCOMPARE(fileErrorOf([&] { readMeshFile(file("x.fbx")); }),
                 QString::fromStdString(file("x.fbx").string() +
                                        ": unsupported mesh format, expected .glb, .gltf or .obj"));
        for (const char* name : {"missing.obj", "missing.glb"}) {
            const auto message = fileErrorOf([&] { readMeshFile(file(name)); });
            QVERIFY2(message.contains(name) && message.contains("no such file"),
                     qPrintable(message));
        }
        QVERIFY(fileErrorOf([&] { readObj(file("missing.obj")); }).contains("missing.obj"));
        writeText(file("junk.glb"), "junk");
        QVERIFY(fileErrorOf([&] { readMeshFile(file("junk.glb")); }).contains("junk.glb"));
    }
};

QTEST_APPLESS_MAIN(TestMeshRead)
#include "test_mesh_read.moc"
