// Reading meshes back: writeObj → readObj, writeGlb → readMeshFile and writePly → readPly round
// trips, every writable row of the format table through readMeshFile, handwritten OBJ and PLY
// files (polygons, negative indices, every corner form, materials; ascii and big-endian PLY with
// other types and elements), and the messages for malformed, truncated, missing and unsupported
// files.
#include <cctype>
#include <cmath>
#include <fstream>

#include <QTemporaryDir>
#include <QtTest>

#include "engine/media/mesh.h"
#include "engine/media/mesh_files.h"
#include "engine/media/mesh_formats.h"
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

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
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

    // PLY: the same corners and texture back; the file's structure checked byte by byte here,
    // apart from the reader (header lines, then exactly 32 bytes a vertex and 13 a triangle).
    void plyRoundTripAndItsBytes() {
        const auto mesh = texturedCube();
        const auto files = writePly(mesh, file("cube.ply"));
        QCOMPARE(files.size(), std::size_t(2));
        QCOMPARE(files[1], file("cube.png"));
        const auto back = readPly(file("cube.ply"));
        QCOMPARE(back.vertexCount(), mesh.vertexCount());
        compareCorners(mesh, back, 0.0f);  // binary floats: exact (t = 1 - v twice is exact here)
        QCOMPARE(back.texture.width, mesh.texture.width);
        QCOMPARE(back.texture.channels, 3);
        QVERIFY(back.texture.pixels == mesh.texture.pixels);

        std::ifstream in(file("cube.ply"), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto end = bytes.find("end_header\n");
        QVERIFY(end != std::string::npos);
        const std::string header = bytes.substr(0, end);
        QVERIFY(header.rfind("ply\nformat binary_little_endian 1.0\n", 0) == 0);
        QVERIFY(header.find("comment TextureFile cube.png\n") != std::string::npos);
        QVERIFY(header.find("element vertex " + std::to_string(mesh.vertexCount()) + "\n") != std::string::npos);
        QVERIFY(header.find("element face " + std::to_string(mesh.triangleCount()) + "\n") != std::string::npos);
        QVERIFY(header.find("property list uchar uint vertex_indices\n") != std::string::npos);
        QCOMPARE(bytes.size() - (end + 11), 32 * mesh.vertexCount() + 13 * mesh.triangleCount());
    }

    // Every row of the table that writes reads back through readMeshFile with the same
    // triangles and texture, whatever the case of its extension: a new format is tested here
    // by its row alone.
    void everyWritableFormatReadsBack() {
        const auto mesh = texturedCube();
        int writable = 0;
        for (const auto& f : meshFormats()) {
            QVERIFY(meshFormatOf("x" + std::string(f.extension)) == &f);
            QVERIFY(meshFormatNamed(f.word) == &f);
            QVERIFY(f.read != nullptr);
            QVERIFY(std::string(f.blenderImport).find("{path}") != std::string::npos);
            if (!f.write) continue;
            ++writable;
            const auto path = file(("table" + upper(f.extension)).c_str());
            const auto written = writeMeshFile(mesh, path);
            QVERIFY(!written.empty() && written.front() == path);
            for (const auto& w : written) QVERIFY2(std::filesystem::exists(w), w.c_str());
            const auto back = readMeshFile(path);
            QVERIFY2(back.triangleCount() == mesh.triangleCount(), f.extension.data());
            compareCorners(mesh, back, 1e-6f);
            QVERIFY2(back.texture.pixels == mesh.texture.pixels, f.extension.data());
        }
        QVERIFY(writable >= 3);
        QCOMPARE(writableMeshExtensions(), std::string(".glb, .obj or .ply"));
        QVERIFY(meshFormatOf("x.fbx") == nullptr);
        QVERIFY_THROWS_EXCEPTION(FileError, writeMeshFile(mesh, file("x.fbx")));
        QVERIFY_THROWS_EXCEPTION(FileError, writeMeshFile(mesh, file("x.gltf")));  // reads only
    }

    // Written by other tools: ascii with quads, u/v names, no normals, vertex colours and an
    // element of their own; big-endian binary with double positions and ushort indices.
    void handwrittenPly() {
        writeText(file("quad.ply"), "ply\r\nformat ascii 1.0\r\ncomment made by hand\r\n"
                                    "element vertex 4\r\nproperty float x\r\nproperty float y\r\n"
                                    "property float z\r\nproperty uchar red\r\nproperty float u\r\n"
                                    "property float v\r\nelement material 1\r\nproperty int id\r\n"
                                    "element face 1\r\nproperty list uchar int vertex_index\r\n"
                                    "end_header\r\n0 0 0 255 0 0\r\n1 0 0 0 1 0\r\n1 1 0 9 1 1\r\n"
                                    "0 1 0 7 0 1\r\n42\r\n4 0 1 2 3\r\n");
        const auto quad = readPly(file("quad.ply"));
        QCOMPARE(quad.vertexCount(), std::size_t(4));
        QCOMPARE(quad.indices, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3}));
        QCOMPARE(quad.uvs[2 * 2 + 1], 0.0f);  // v = 1 (the top) is TexturedMesh's row 0
        QCOMPARE(quad.uvs[2 * 1 + 1], 1.0f);
        QCOMPARE(quad.normals[2], 1.0f);  // computed: the quad faces +Z
        QVERIFY(quad.texture.empty());

        std::string be = "ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty double x\n"
                         "property double y\nproperty double z\nelement face 1\n"
                         "property list uchar ushort vertex_indices\nend_header\n";
        const auto putBig = [&be](const void* p, std::size_t n) {
            for (std::size_t i = n; i-- > 0;) be += static_cast<const char*>(p)[i];
        };
        for (const double v : {0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0, 0.0}) putBig(&v, 8);
        be += '\3';
        for (const std::uint16_t i : {0, 1, 2}) putBig(&i, 2);
        writeText(file("big.PLY"), be);  // the extension in any case
        const auto tri = readMeshFile(file("big.PLY"));
        QCOMPARE(tri.triangleCount(), std::size_t(1));
        QCOMPARE(tri.positions[3], 2.0f);
        QCOMPARE(tri.positions[7], 3.0f);
    }

    // Broken files: each message names the file and what is wrong, and nothing is allocated for
    // counts the file cannot hold.
    void brokenPlyFilesAreNamed() {
        writePly(texturedCube(), file("whole.ply"));
        std::ifstream in(file("whole.ply"), std::ios::binary);
        const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const std::string head = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                                 "property float y\nproperty float z\nelement face 1\n"
                                 "property list uchar int vertex_indices\nend_header\n";
        const std::pair<std::string, std::string> cases[] = {
            {whole.substr(0, whole.size() - 7), "truncated"},
            {"solid cube\n", "does not start with 'ply'"},
            {"ply\nformat ascii 1.0\nelement vertex 3\n", "no end_header"},
            {"ply\nelement vertex 0\nend_header\n", "no format line"},
            {"ply\nformat ascii 1.0\nbogus line\nend_header\n", "unknown keyword 'bogus'"},
            {"ply\nformat ascii 1.0\nelement vertex 1\nproperty quad x\nend_header\n", "unknown type 'quad'"},
            {head + "0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n", "vertex index 7 is out of range"},
            {head + "0 0 0\n1 0 0\n0 1 0\n2 0 1\n", "a face of 2 corners"},
            {head + "0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n", "'zero' is not a number"},
            {head + "0 0 0 5\n1 0 0\n0 1 0\n3 0 1 2\n", "more values than its properties"},
            {"ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\n"
             "property float y\nproperty float z\nend_header\n",
             "more than the file holds"},
            {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
             "property float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n",
             "no faces"},
        };
        for (const auto& [text, expected] : cases) {
            writeText(file("broken.ply"), text);
            const auto message = fileErrorOf([&] { readPly(file("broken.ply")); });
            QVERIFY2(message.contains(QString::fromStdString(file("broken.ply").string())) &&
                         message.contains(QString::fromStdString(expected)),
                     qPrintable(QString::fromStdString(expected) + " → " + message));
        }
        // A failed write leaves nothing behind.
        QVERIFY_THROWS_EXCEPTION(FileError, writePly(texturedCube(), file("no-folder/x.ply")));
        QVERIFY(!std::filesystem::exists(file("no-folder")));
    }

    void unsupportedAndMissingFiles() {
        writeText(file("x.fbx"), "not a mesh");
        QCOMPARE(fileErrorOf([&] { readMeshFile(file("x.fbx")); }),
                 QString::fromStdString(file("x.fbx").string() +
                                        ": unsupported mesh format, expected .glb, .gltf, .obj or .ply"));
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
