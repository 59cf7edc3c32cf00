// Meshes: the closed-manifold checks (each must catch its defect), the silhouette mesher on
// shapes that trip naive meshers, simplification, and glb/obj export (deterministic, atomic,
// read back).
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <fstream>

#include "engine/media/mesh.h"
#include "engine/media/mesh_files.h"
#include "engine/pipelines/character/inflation.h"
#include "engine/pipelines/character/surface_mesh.h"
#include "tests/suite_program.h"
#include "raster.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_mesh {

namespace {

// A unit cube, outward-facing.
TexturedMesh cube() {
    TexturedMesh m;
    m.name = "cube";
    m.positions = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    m.indices = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                 2, 3, 7, 2, 7, 6, 1, 2, 6, 1, 6, 5, 0, 4, 7, 0, 7, 3};
    m.normals = smoothNormals(m.positions, m.indices);
    for (std::size_t i = 0; i < m.vertexCount(); ++i)
        m.uvs.insert(m.uvs.end(), {m.positions[3 * i], m.positions[3 * i + 1]});
    m.texture = Image(8, 8, 3);
    for (std::size_t i = 0; i < m.texture.pixels.size(); ++i) m.texture.pixels[i] = static_cast<std::uint8_t>(i * 7);
    return m;
}

// A mask from a predicate over [H,W] pixels.
template <class F>
torch::Tensor maskOf(std::int64_t h, std::int64_t w, F inside) {
    auto m = torch::zeros({h, w});
    auto a = m.accessor<float, 2>();
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) a[y][x] = inside(x + 0.5, y + 0.5) ? 1.0f : 0.0f;
    return m;
}

MeshReport meshMask(const torch::Tensor& mask, std::int64_t cells, std::size_t budget = 0) {
    SurfaceSolver solver(std::max(mask.size(0), mask.size(1)));
    auto u = solver->solve(mask, {}, 400);
    auto h = inflateHeight(u, 0.75);
    auto sheet = buildSheetMesh(mask, h, h, cells);
    if (budget && !decimateSheetMesh(sheet, budget)) return {};  // not closed: fails the caller
    return checkMesh(sheet.positions, sheet.indices);
}

}  // namespace

class TestMesh : public QObject {
    Q_OBJECT

private slots:
    void checksAcceptAClosedCube() {
        const auto m = cube();
        const auto r = checkMesh(m.positions, m.indices);
        QVERIFY2(r.closedManifold(), r.describe().c_str());
        QCOMPARE(r.triangles, 12);
        QCOMPARE(r.vertices, 8);
        QVERIFY(std::abs(r.volume - 1.0) < 1e-9);
    }

    void checksCatchEachDefect() {
        auto m = cube();
        auto open = m.indices;
        open.resize(open.size() - 3);
        QCOMPARE(checkMesh(m.positions, open).openEdges, 3);

        auto flipped = m.indices;
        std::swap(flipped[1], flipped[2]);
        QVERIFY(checkMesh(m.positions, flipped).misorientedEdges > 0);

        auto inward = m.indices;
        for (std::size_t f = 0; f < inward.size(); f += 3) std::swap(inward[f + 1], inward[f + 2]);
        const auto r = checkMesh(m.positions, inward);
        QVERIFY(r.volume < 0);
        QVERIFY(!r.closedManifold());

        auto degenerate = m.indices;
        degenerate.insert(degenerate.end(), {0, 0, 1});
        QCOMPARE(checkMesh(m.positions, degenerate).degenerateTriangles, 1);

        // Two cubes sharing one corner: every edge fine, one vertex with two fans.
        auto positions = m.positions;
        auto indices = m.indices;
        for (std::size_t i = 0; i < 24; ++i) positions.push_back(m.positions[i] + 1.0f);  // moved by (1,1,1)
        for (auto i : m.indices) indices.push_back(i + 8);
        const auto twin = checkMesh(positions, indices);
        QCOMPARE(twin.nonManifoldVertices, 1);
        QCOMPARE(twin.openEdges, 0);
    }

    void weldedSeamsStayClosed() {
        // Duplicating a vertex (as a UV seam does) must not open the surface.
        auto m = cube();
        m.positions.insert(m.positions.end(), {0, 0, 0});
        m.indices[0] = 8;
        QVERIFY(checkMesh(m.positions, m.indices).closedManifold());
    }

    void mesherClosesAwkwardShapes_data() {
        QTest::addColumn<int>("shape");
        QTest::newRow("disc") << 0;
        QTest::newRow("two blobs and a thin bridge") << 1;
        QTest::newRow("diagonal touch") << 2;
        QTest::newRow("ring") << 3;
        QTest::newRow("comb") << 4;
        QTest::newRow("three separate parts") << 5;
    }
    void mesherClosesAwkwardShapes() {
        QFETCH(int, shape);
        const std::int64_t n = 160;
        auto mask = maskOf(n, n, [&](double x, double y) {
            auto disc = [](double x, double y, double cx, double cy, double r) {
                return (x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r;
            };
            switch (shape) {
            case 0: return disc(x, y, 80, 80, 60);
            case 1: return disc(x, y, 40, 80, 30) || disc(x, y, 120, 80, 30) || (std::abs(y - 80) < 1.2);
            case 2: return (x < 80 && y < 80 && x > 20 && y > 20) || (x >= 80 && y >= 80 && x < 140 && y < 140);
            case 3: return disc(x, y, 80, 80, 70) && !disc(x, y, 80, 80, 30);
            case 5: return disc(x, y, 50, 60, 40) || disc(x, y, 130, 40, 18) || disc(x, y, 120, 130, 12);
            default: return (y > 20 && y < 60 && x > 10 && x < 150) ||
                            (y >= 60 && y < 150 && x > 10 && x < 150 && (static_cast<int>(x) / 7) % 2 == 0);
            }
        });
        for (std::int64_t cells : {40, 97, 160}) {
            const auto r = meshMask(mask, cells);
            QVERIFY2(r.closedManifold(), (std::to_string(cells) + " cells: " + r.describe()).c_str());
        }
    }

    void simplificationKeepsItClosedAndMeetsTheBudget() {
        auto mask = maskOf(200, 120, [](double x, double y) {
            const double dx = (x - 60) / 50, dy = (y - 100) / 90;
            return dx * dx + dy * dy < 1 || (std::abs(x - 60) < 8 && y < 30);
        });
        const auto full = meshMask(mask, 200);
        const auto simple = meshMask(mask, 200, 3000);
        QVERIFY2(simple.closedManifold(), simple.describe().c_str());
        QVERIFY(simple.triangles <= 3000);
        QVERIFY(simple.triangles < full.triangles / 4);
        // The volume is kept within a few percent.
        QVERIFY2(std::abs(simple.volume / full.volume - 1) < 0.03,
                 qPrintable(QString::number(simple.volume / full.volume)));
    }

    void silhouetteFollowsTheMask() {
        // A disc of radius 60 px: the mesh seen from the front covers it with IoU ≥ 0.98.
        const std::int64_t n = 160;
        auto mask = maskOf(n, n, [](double x, double y) { return std::hypot(x - 80, y - 80) < 60; });
        SurfaceSolver solver(n);
        auto h = inflateHeight(solver->solve(mask, {}, 400), 0.75);
        auto sheet = buildSheetMesh(mask, h, h, 64);
        TexturedMesh m;
        m.positions = sheet.positions;
        m.indices = sheet.indices;
        // Positions: the long side is 1, x centred, y up from the bottom edge.
        const auto view = renderFront(m, {-0.5f, 0.0f, 0.5f, 1.0f}, static_cast<int>(n), static_cast<int>(n));
        double both = 0, either = 0;
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const bool a = view.image.at(x, y)[3] > 0, b = mask[y][x].item<float>() > 0.5f;
                both += a && b;
                either += a || b;
            }
        QVERIFY2(both / either >= 0.98, qPrintable(QString::number(both / either)));
        // Round: the centre is about as deep as the radius × 0.75 × √2 / √2 (a hemisphere-like dome).
        const auto b = meshBounds(sheet.positions);
        QVERIFY(b[5] > 0.2f && b[5] < 0.35f);
    }

    // Parts narrower than the mesher's cells: a stalk 2 px wide ending in a ball, and a ring
    // apart whose stroke is 2 px, meshed with cells of 4 px. Both stay in the mesh, each about
    // its own width, and the mesh ends where the mask does.
    void thinPartsStayInTheMesh() {
        const std::int64_t n = 240;
        auto mask = maskOf(n, n, [](double x, double y) {
            const double ring = std::hypot(x - 200, y - 200);
            return std::hypot(x - 100, y - 150) < 50 || (std::abs(x - 100) < 1.0 && y > 40 && y < 110) ||
                   std::hypot(x - 100, y - 36) < 6 || (ring > 9 && ring < 11);
        });
        SurfaceSolver solver(n);
        auto h = inflateHeight(solver->solve(mask, {}, 400), 0.75);
        auto sheet = buildSheetMesh(mask, h, h, n / 4);
        const auto report = checkMesh(sheet.positions, sheet.indices);
        QVERIFY2(report.closedManifold(), report.describe().c_str());
        TexturedMesh m;
        m.positions = sheet.positions;
        m.indices = sheet.indices;
        const auto view = renderFront(m, {-0.5f, 0.0f, 0.5f, 1.0f}, static_cast<int>(n), static_cast<int>(n));
        const auto covered = [&](int x, int y) { return view.image.at(x, y)[3] > 0; };
        QVERIFY2(covered(100, 36), "the ball on the stalk is gone");
        for (int y : {50, 75, 95}) {
            QVERIFY2(covered(100, y), qPrintable(QString("the stalk is cut at row %1").arg(y)));
            int width = 0;
            for (int x = 80; x < 120; ++x) width += covered(x, y);
            QVERIFY2(width <= 7, qPrintable(QString("the stalk is %1 px wide at row %2").arg(width).arg(y)));
        }
        QVERIFY2(covered(190, 200) && covered(210, 200) && covered(200, 190), "the ring is gone");
        // The mesh's top is the ball's top (y = 30), give or take a pixel.
        const auto b = meshBounds(sheet.positions);
        QVERIFY2(std::abs((1.0f - b[4]) * n - 30.0f) < 1.5f, qPrintable(QString::number((1.0f - b[4]) * n)));
    }

    void glbIsDeterministicAndReadsBack() {
        const auto m = cube();
        const auto a = encodeGlb(m), b = encodeGlb(m);
        QVERIFY(a == b);
        QCOMPARE(std::string(a.begin(), a.begin() + 4), std::string("glTF"));
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "cube.glb";
        writeGlb(m, path);
        const auto back = readGlb(path);
        QCOMPARE(back.triangleCount(), m.triangleCount());
        QVERIFY(back.positions == m.positions);
        QVERIFY(back.uvs == m.uvs);
        QCOMPARE(back.texture.width, 8);
        QVERIFY(std::equal(back.texture.pixels.begin(), back.texture.pixels.begin() + 3, m.texture.pixels.begin()));
        QVERIFY(!back.placement);
    }

    void glbKeepsWhereTheMeshLiesOnThePicture() {
        auto m = cube();
        m.placement = PicturePlacement{640, 480, 101.25, 470.5, 212.125, 210.0625};
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "placed.glb";
        writeGlb(m, path);
        const auto back = readGlb(path);
        QVERIFY(back.placement);
        QVERIFY(*back.placement == *m.placement);
        QVERIFY(back.positions == m.positions);
    }

    // A placement that is not one (wrong types, lengths, sizes, scales) is read as none; the
    // mesh still reads.
    void glbIgnoresAMalformedPlacement() {
        auto m = cube();
        m.placement = PicturePlacement{640, 480, 101.25, 470.5, 212.125, 210.0625};
        const auto bytes = encodeGlb(m);
        // The JSON chunk starts at byte 20 and is padded with spaces to a multiple of 4.
        std::uint32_t jsonLength = 0;
        std::memcpy(&jsonLength, bytes.data() + 12, 4);
        const std::string json(bytes.begin() + 20, bytes.begin() + 20 + jsonLength);
        const std::string good = R"("size":[640,480])";
        QVERIFY2(json.find(good) != std::string::npos, json.c_str());
        QTemporaryDir dir;
        for (const std::string bad : {R"("size":[640])", R"("size":"640x480")", R"("size":[1e30,480])",
                                      R"("size":[-640,480])", R"("sizes":[640,480])",
                                      R"("size":[640,[480]])", R"("size":[0,0])"}) {
            auto text = json;
            text.replace(text.find(good), good.size(), bad);
            while (text.size() % 4) text += ' ';
            std::vector<std::uint8_t> glb(bytes.begin(), bytes.begin() + 12);
            const auto newLength = static_cast<std::uint32_t>(text.size());
            glb.insert(glb.end(), reinterpret_cast<const std::uint8_t*>(&newLength),
                       reinterpret_cast<const std::uint8_t*>(&newLength) + 4);
            glb.insert(glb.end(), bytes.begin() + 16, bytes.begin() + 20);  // "JSON"
            glb.insert(glb.end(), text.begin(), text.end());
            glb.insert(glb.end(), bytes.begin() + 20 + jsonLength, bytes.end());  // the binary chunk
            const auto total = static_cast<std::uint32_t>(glb.size());
            std::memcpy(glb.data() + 8, &total, 4);
            const auto path = std::filesystem::path(dir.path().toStdString()) / "bad.glb";
            std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(glb.data()),
                                                        static_cast<std::streamsize>(glb.size()));
            const auto back = readGlb(path);
            QVERIFY2(!back.placement, bad.c_str());
            QCOMPARE(back.triangleCount(), m.triangleCount());
        }
    }

    void objWritesThreeFilesAtomically() {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "cube.obj";
        const auto files = writeObj(cube(), path);
        QCOMPARE(files.size(), std::size_t(3));
        std::ifstream obj(path);
        std::string text((std::istreambuf_iterator<char>(obj)), std::istreambuf_iterator<char>());
        QVERIFY(text.find("mtllib cube.mtl") != std::string::npos);
        std::size_t faces = 0;
        for (std::size_t at = 0; (at = text.find("\nf ", at)) != std::string::npos; ++at) ++faces;
        QCOMPARE(faces, std::size_t(12));
        QVERIFY(std::filesystem::exists(path.parent_path() / "cube.png"));
        // Into a missing folder: an error, and nothing anywhere.
        const auto bad = std::filesystem::path(dir.path().toStdString()) / "missing" / "x.obj";
        QVERIFY_THROWS_EXCEPTION(FileError, writeObj(cube(), bad));
        QVERIFY_THROWS_EXCEPTION(FileError, writeGlb(cube(), bad.parent_path() / "x.glb"));
    }

    void exportRefusesBrokenMeshes() {
        auto m = cube();
        m.uvs.pop_back();
        QVERIFY_THROWS_EXCEPTION(Error, encodeGlb(m));
        auto n = cube();
        n.indices.push_back(99);
        n.indices.push_back(0);
        n.indices.push_back(1);
        QVERIFY_THROWS_EXCEPTION(Error, encodeGlb(n));
    }

    void unreadableGlbSaysWhy() {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "broken.glb";
        std::ofstream(path) << "glTF but not really";
        QVERIFY_THROWS_EXCEPTION(FileError, readGlb(path));
    }
};

}  // namespace test_mesh

STAGELOAD_APPLESS_SUITE(test_mesh, test_mesh::TestMesh)
#include "test_mesh.moc"
