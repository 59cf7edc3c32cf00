// The character pipeline end to end on the project's sample pictures: a closed mesh of the
// right size whose front view matches the picture (silhouette IoU, colour PSNR), staged and
// eager giving the same bytes, the registry really staging, and bad input answered clearly.
#include <unistd.h>

#include <array>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "engine/core/torch_nn.h"

#include <QTemporaryDir>
#include <QtTest>

#include "engine/api/errors.h"
#include "engine/api/failure.h"
#include "engine/core/image_tensor.h"
#include "engine/media/image.h"
#include "engine/media/mesh_files.h"
#include "engine/pipelines/character/back_paint.h"
#include "engine/pipelines/character/character_job.h"
#include "engine/pipelines/character/character_run.h"
#include "engine/pipelines/character/detached_parts.h"
#include "engine/pipelines/character/edge_snap.h"
#include "engine/pipelines/character/even_background.h"
#include "engine/pipelines/character/outline_closure.h"
#include "engine/pipelines/character/subject.h"
#include "tests/suite_program.h"
#include "raster.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_character {

// A colour, 0..1 per channel: a column of data-driven tests.
using Colour = std::array<float, 3>;

namespace {

const std::filesystem::path kSamples = STAGELOAD_SAMPLES_DIR;

// A synthetic picture [3,H,W] to paint flat shapes on, with each pixel's coordinates.
struct Canvas {
    Canvas(std::int64_t h, std::int64_t w)
        : ys(torch::arange(h, torch::kFloat32).view({h, 1}).expand({h, w})),
          xs(torch::arange(w, torch::kFloat32).view({1, w}).expand({h, w})),
          rgb(torch::empty({3, h, w})) {}
    void paint(const torch::Tensor& where, const std::array<float, 3>& c) {
        for (int k = 0; k < 3; ++k) rgb[k].masked_fill_(where, c[k]);
    }
    /// A grey background (0.5) with noise of deviation `sigma` drawn pixel by pixel, per channel.
    static Canvas onNoise(std::int64_t h, std::int64_t w, std::uint64_t seed, double sigma) {
        Canvas c(h, w);
        torch::manual_seed(seed);
        c.rgb = (0.5 + sigma * torch::randn({3, h, w})).clamp(0, 1);
        return c;
    }
    torch::Tensor ys, xs, rgb;
};

// A picture [3,H,W] read pixel by pixel: the colour at (x, y), whether it is within 0.05 of a
// colour on every channel, and the words that say it when it is not.
struct Pixels {
    torch::Tensor rgb;
    Colour at(std::int64_t x, std::int64_t y) const {
        return {rgb[0][y][x].item<float>(), rgb[1][y][x].item<float>(), rgb[2][y][x].item<float>()};
    }
    bool near(std::int64_t x, std::int64_t y, const Colour& c) const {
        const auto k = at(x, y);
        return std::abs(k[0] - c[0]) < 0.05f && std::abs(k[1] - c[1]) < 0.05f && std::abs(k[2] - c[2]) < 0.05f;
    }
    QString said(std::int64_t x, std::int64_t y) const {
        const auto k = at(x, y);
        return QStringLiteral("(%1, %2): %3 %4 %5").arg(x).arg(y).arg(k[0]).arg(k[1]).arg(k[2]);
    }
};

// How much of each pixel of an [H,W] picture the shape `inside(x, y)` covers (8 × 8 samples a
// pixel), [H,W] float: shapes drawn anti-aliased, as an artist's tool draws them.
torch::Tensor coverageOf(int h, int w, const std::function<bool(double, double)>& inside) {
    auto coverage = torch::zeros({h, w});
    auto c = coverage.accessor<float, 2>();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int in = 0;
            for (int sy = 0; sy < 8; ++sy)
                for (int sx = 0; sx < 8; ++sx) in += inside(x + (sx + 0.5) / 8, y + (sy + 0.5) / 8);
            c[y][x] = static_cast<float>(in) / 64.0f;
        }
    return coverage;
}

std::vector<char> bytesOf(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

CharacterParams quick(const std::filesystem::path& input, const std::filesystem::path& output) {
    CharacterParams p;
    p.input = input;
    p.output = output;
    p.textureSize = 1024;
    p.triangles = 20000;
    return p;
}

// Separate pieces of the mesh: triangles joined by shared positions (UV seams duplicate
// vertices, so vertices are welded by position first).
int meshParts(const TexturedMesh& mesh) {
    std::map<std::array<float, 3>, std::uint32_t> ids;
    std::vector<std::uint32_t> welded(mesh.vertexCount());
    for (std::size_t v = 0; v < mesh.vertexCount(); ++v) {
        const std::array<float, 3> key{mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]};
        welded[v] = ids.emplace(key, static_cast<std::uint32_t>(ids.size())).first->second;
    }
    std::vector<std::uint32_t> parent(ids.size());
    std::iota(parent.begin(), parent.end(), 0u);
    const std::function<std::uint32_t(std::uint32_t)> find = [&](std::uint32_t i) {
        return parent[i] == i ? i : parent[i] = find(parent[i]);
    };
    for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3)
        for (int k = 1; k < 3; ++k)
            parent[find(welded[mesh.indices[t + k]])] = find(welded[mesh.indices[t]]);
    std::set<std::uint32_t> roots;
    for (std::size_t t = 0; t < mesh.indices.size(); t += 3) roots.insert(find(welded[mesh.indices[t]]));
    return static_cast<int>(roots.size());
}

struct Comparison {
    double iou = 0;
    double psnr = 0;
};

// Renders the mesh from the front where the pipeline put it on the picture (its placement,
// which the mesh must carry). Compares its coverage with `truth` (a mask: channel 0 >= 128 is
// the subject) and its colours with `colours` two pixels inside the truth's edge.
Comparison compareFront(const TexturedMesh& mesh, const Image& truth, const Image& colours) {
    if (!mesh.placement) return {};  // fails the caller's bounds
    const auto view = renderFront(mesh, pictureBox(*mesh.placement), truth.width, truth.height);
    // Truth coverage at (x, y), 0 outside the picture.
    const auto truthAt = [&](int x, int y) -> int {
        return x >= 0 && y >= 0 && x < truth.width && y < truth.height ? truth.at(x, y)[0] : 0;
    };
    double both = 0, either = 0, se = 0, n = 0;
    for (int y = 0; y < truth.height; ++y) {
        for (int x = 0; x < truth.width; ++x) {
            const bool covered = view.image.at(x, y)[3] > 0;
            const bool subject = truthAt(x, y) >= 128;
            both += covered && subject;
            either += covered || subject;
            bool inner = covered;  // colours well inside the subject (two pixels from its edge)
            for (int dy = -2; dy <= 2 && inner; ++dy)
                for (int dx = -2; dx <= 2 && inner; ++dx) inner = truthAt(x + dx, y + dy) == 255;
            if (!inner) continue;
            for (int c = 0; c < 3; ++c) {
                const double d = double(view.image.at(x, y)[c]) - colours.at(x, y)[c];
                se += d * d;
                ++n;
            }
        }
    }
    Comparison r;
    r.iou = both / either;
    r.psnr = 10 * std::log10(255.0 * 255.0 / std::max(1e-9, se / n));
    return r;
}

// The mesh turned half a turn about the vertical axis: what the front view of it shows is the
// model seen from behind.
TexturedMesh turnedAround(TexturedMesh m) {
    for (std::size_t v = 0; v < m.vertexCount(); ++v) {
        m.positions[3 * v] = -m.positions[3 * v];
        m.positions[3 * v + 2] = -m.positions[3 * v + 2];
    }
    return m;
}

// The mesh from the front, its bounds filling `w` × `h`.
Image frontView(const TexturedMesh& m, int w, int h) {
    const auto b = meshBounds(m.positions);
    return renderFront(m, {b[0], b[1], b[3], b[4]}, w, h).image;
}

double colourDistance(const std::uint8_t* p, std::array<double, 3> c) {
    return std::sqrt((p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]));
}

// Covered pixels of `view` within 50 of `colour`, in the rows from `fromTop` to `toTop` (shares
// of the height).
// The mean distance, seen from behind, between the places (mirrored) of a front feature's pixels
// (`feature`, within `near`) and the back's mean colour where the front is `around` (within
// 30), in the rows `fromTop`..`toTop` of the height. 0: no trace of the feature.
double ghostOnTheBack(const Image& front, const Image& back, std::array<double, 3> feature, double near,
                      std::array<double, 3> around, double fromTop, double toTop) {
    std::array<double, 3> plain{0, 0, 0};
    int plainPixels = 0;
    std::vector<std::pair<int, int>> places;
    const int w = front.width;
    for (int y = int(fromTop * front.height); y < int(toTop * front.height); ++y)
        for (int x = 0; x < w; ++x) {
            const auto* p = front.at(x, y);
            const auto* q = back.at(w - 1 - x, y);
            if (p[3] == 0 || q[3] == 0) continue;
            if (colourDistance(p, feature) < near) places.emplace_back(w - 1 - x, y);
            if (colourDistance(p, around) < 30) {
                for (int c = 0; c < 3; ++c) plain[c] += q[c];
                ++plainPixels;
            }
        }
    if (places.size() < 100 || plainPixels < 1000) {
        qWarning("%zu feature and %d plain pixels: the view does not show the feature", places.size(), plainPixels);
        return 1e9;
    }
    for (auto& c : plain) c /= plainPixels;
    double deviation = 0;
    for (const auto& [x, y] : places) deviation += colourDistance(back.at(x, y), plain);
    return deviation / static_cast<double>(places.size());
}

// The knight's shield is two blues split down its middle, with a gold star centred on the split:
// the star's places from behind against the back's colour of the shield's half each lies in.
double starOnTheBack(const Image& front, const Image& back) {
    const std::array<double, 3> gold{242, 193, 78};
    // The star: the gold in the lower left third of the view (the belt's buckle is further right).
    const int w = front.width;
    int x0 = w, x1 = -1, y0 = front.height, y1 = -1;
    for (int y = front.height / 2; y < front.height; ++y)
        for (int x = 0; x < w / 3; ++x)
            if (front.at(x, y)[3] && colourDistance(front.at(x, y), gold) < 40)
                x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    if (x1 < x0 + 10 || y1 < y0 + 10) {
        qWarning("the view does not show the shield's star");
        return 1e9;
    }
    const int split = (x0 + x1 + 1) / 2, margin = (x1 - x0) / 4;
    std::array<std::array<double, 3>, 2> half{};
    std::array<int, 2> halfPixels{0, 0};
    std::vector<std::pair<int, int>> star;
    for (int y = y0 - margin; y <= y1 + margin; ++y)
        for (int x = std::max(0, x0 - margin); x <= x1 + margin; ++x) {
            const auto* p = front.at(x, y);
            const auto* q = back.at(w - 1 - x, y);
            if (p[3] == 0 || q[3] == 0) continue;
            const int side = x < split ? 0 : 1;
            if (colourDistance(p, gold) < 40) {
                star.emplace_back(x, y);
            } else if (p[2] > p[0] + 120) {  // the shield's blue
                for (int c = 0; c < 3; ++c) half[side][c] += q[c];
                ++halfPixels[side];
            }
        }
    if (star.size() < 100 || halfPixels[0] < 100 || halfPixels[1] < 100) {
        qWarning("%zu star pixels, halves of %d and %d: the view does not show the shield", star.size(),
                 halfPixels[0], halfPixels[1]);
        return 1e9;
    }
    for (int side = 0; side < 2; ++side)
        for (auto& c : half[side]) c /= halfPixels[side];
    double deviation = 0;
    for (const auto& [x, y] : star) deviation += colourDistance(back.at(w - 1 - x, y), half[x < split ? 0 : 1]);
    return deviation / static_cast<double>(star.size());
}

int countColour(const Image& view, std::array<double, 3> colour, double fromTop = 0.0, double toTop = 1.0) {
    int n = 0;
    for (int y = int(fromTop * view.height); y < int(toTop * view.height); ++y)
        for (int x = 0; x < view.width; ++x) n += view.at(x, y)[3] > 0 && colourDistance(view.at(x, y), colour) < 50;
    return n;
}

}  // namespace

class TestCharacter : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { torch::set_num_threads(2); }

    void samplesBecomeClosedMeshesThatMatchThePicture_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("truth");  // a picture whose alpha is the true subject
        QTest::addColumn<int>("remover");    // RemoverChoice
        QTest::addColumn<double>("minMaskIou");  // the remover's subject against the truth
        QTest::addColumn<int>("parts");          // separate parts the mesh must have
        const int u2netp = static_cast<int>(RemoverChoice::U2NetP);
        const int isnet = static_cast<int>(RemoverChoice::ISNet);
        const int classical = static_cast<int>(RemoverChoice::Classical);
        const int automatic = static_cast<int>(RemoverChoice::Auto);
        QTest::newRow("knight, alpha") << "knight_alpha.png" << "knight_alpha.png" << u2netp << 0.999 << 1;
        QTest::newRow("lantern, alpha") << "lantern_alpha.png" << "lantern_alpha.png" << u2netp << 0.999 << 1;
        // The learned removers take the near-white breastplate (ISNet) or the outlines between
        // parts (U²-Netp) for background; the figure's drawn outline gives them back (ISNet
        // 0.92 and U²-Netp 0.990 before it).
        QTest::newRow("knight on white, U²-Netp")
            << "knight_white.png" << "knight_alpha.png" << u2netp << 0.995 << 1;
        QTest::newRow("knight on white, ISNet")
            << "knight_white.png" << "knight_alpha.png" << isnet << 0.99 << 1;
        // Without weights: the outline encloses the face, breastplate and blade, which are
        // nearly the background's colour; they are subject all the same.
        QTest::newRow("knight on white, classical")
            << "knight_white.png" << "knight_alpha.png" << classical << 0.97 << 1;
        // A ground shadow darker than the outline's threshold is not part of the subject.
        QTest::newRow("knight with a ground shadow, classical")
            << "knight_shadow.png" << "knight_alpha.png" << classical << 0.99 << 1;
        QTest::newRow("knight with a ground shadow, U²-Netp")
            << "knight_shadow.png" << "knight_alpha.png" << u2netp << 0.97 << 1;
        // Things that do not touch the body (an orb, a star, a potion) are parts of the mesh.
        QTest::newRow("knight with parts, alpha")
            << "knight_parts_alpha.png" << "knight_parts_alpha.png" << u2netp << 0.999 << 4;
        QTest::newRow("knight with parts on white, classical")
            << "knight_parts_white.png" << "knight_parts_alpha.png" << classical << 0.97 << 4;
        QTest::newRow("knight with parts on white, ISNet")
            << "knight_parts_white.png" << "knight_parts_alpha.png" << isnet << 0.99 << 4;
        // What a user gets by default (auto), on every trait: a head drawn apart from its body,
        // an axe held out at arm's length, a hand on the hip enclosing background, a plain
        // beige background, a noisy photo-like one whose greys U²-Netp loses (0.951 without
        // the outline: the legs and a shoulder guard), a busy one, a grey gradient, a
        // thumbnail-sized picture.
        QTest::newRow("robot, alpha") << "robot_alpha.png" << "robot_alpha.png" << automatic << 0.999 << 2;
        QTest::newRow("robot on beige, auto")
            << "robot_beige.png" << "robot_alpha.png" << automatic << 0.998 << 2;  // hole kept
        // With a learned remover the outline gives back the robot's legs, hand, shoulder guard
        // and blade (U²-Netp alone: 0.905). U²-Netp itself bridges the 12 px gap under the
        // floating head; on this even background the classical cut-out completes its mask and
        // takes the bridge, in the background's own colour, out again: two parts, as drawn.
        QTest::newRow("robot on beige, U²-Netp")
            << "robot_beige.png" << "robot_alpha.png" << u2netp << 0.98 << 2;
        QTest::newRow("knight on a photo, auto")
            << "knight_photo.png" << "knight_alpha.png" << automatic << 0.99 << 1;
        QTest::newRow("slime on a busy background, auto")
            << "slime_busy.png" << "slime_alpha.png" << automatic << 0.97 << 1;
        QTest::newRow("creature on grey, auto")
            << "creature_gray.png" << "creature_alpha.png" << automatic << 0.97 << 1;
        QTest::newRow("tiny knight on white, auto")
            << "knight_tiny_white.png" << "knight_tiny_alpha.png" << automatic << 0.97 << 1;
        QTest::newRow("knight with a ground shadow, auto")
            << "knight_shadow.png" << "knight_alpha.png" << automatic << 0.97 << 1;
        QTest::newRow("knight with parts on white, auto")
            << "knight_parts_white.png" << "knight_parts_alpha.png" << automatic << 0.97 << 4;
    }
    void samplesBecomeClosedMeshesThatMatchThePicture() {
        QFETCH(QString, input);
        QFETCH(QString, truth);
        QFETCH(int, remover);
        QFETCH(double, minMaskIou);
        QFETCH(int, parts);
        QTemporaryDir dir;
        const auto out = std::filesystem::path(dir.path().toStdString()) / "out.glb";
        auto p = quick(kSamples / input.toStdString(), out);
        p.textureSize = 2048;  // the default: the front keeps the picture's resolution
        p.remover = static_cast<RemoverChoice>(remover);
        const auto r = runCharacter(p);
        qInfo("%s: %.2f s, mask from %s, %s", qPrintable(input), r.seconds,
              maskSourceName(r.maskSource), r.meshReport.describe().c_str());
        if (p.remover == RemoverChoice::ISNet) QVERIFY(r.maskSource == MaskSource::ISNet);
        QVERIFY2(r.meshReport.closedManifold(), r.meshReport.describe().c_str());
        QCOMPARE(r.parts, parts);
        QCOMPARE(meshParts(r.mesh), parts);
        QVERIFY(r.mesh.triangleCount() <= 20000);
        QVERIFY(r.mesh.triangleCount() > 10000);
        QCOMPARE(r.mesh.texture.width, 2048);

        // What was written is what was built.
        const auto back = readGlb(out);
        QCOMPARE(back.triangleCount(), r.mesh.triangleCount());
        const auto b = meshBounds(back.positions);
        QVERIFY2(std::abs(b[4] - b[1] - 1.8f) < 1e-3f, qPrintable(QString::number(b[4] - b[1])));
        QVERIFY(std::abs(b[1]) < 1e-5f);  // feet on the ground

        // The mesh against the subject the pipeline found: silhouette and colours.
        const auto colours = readImageFile(kSamples / input.toStdString()).image;
        const auto c = compareFront(back, r.subjectMask, colours);
        qInfo("  front view: IoU %.4f, PSNR %.2f dB", c.iou, c.psnr);
        // Drawn where it lies on the picture, the mesh is within a fraction of a pixel of the
        // subject found: 0.994 at the lowest (the knight on white at U²-Netp's mask), and its
        // colours at 35.9 dB or more (the knight with parts). Fitted to the subject's box by
        // its bounds instead, as before the mesh said where it lies, the colours were half a
        // pixel off at the figure's edges: 28 dB.
        QVERIFY2(c.iou >= 0.99, qPrintable(QString::number(c.iou)));
        QVERIFY2(c.psnr >= 35.0, qPrintable(QString::number(c.psnr)));

        // The subject the pipeline found against the true one.
        const auto t = readImageFile(kSamples / truth.toStdString()).image;
        double both = 0, either = 0;
        for (int y = 0; y < t.height; ++y)
            for (int x = 0; x < t.width; ++x) {
                const bool a = t.at(x, y)[3] >= 128, f = r.subjectMask.at(x, y)[0] >= 128;
                both += a && f;
                either += a || f;
            }
        qInfo("  subject mask vs truth: IoU %.4f", both / either);
        QVERIFY2(both / either >= minMaskIou, qPrintable(QString::number(both / either)));

        // Where the remover is good enough, the mesh itself against the true subject: what
        // the artist sees in Blender must cover what they drew.
        if (minMaskIou < 0.97) return;
        Image truthMask(t.width, t.height, 1);
        for (int y = 0; y < t.height; ++y)
            for (int x = 0; x < t.width; ++x) *truthMask.at(x, y) = t.at(x, y)[3];
        const auto f = compareFront(back, truthMask, colours);
        qInfo("  front view vs truth: IoU %.4f, PSNR %.2f dB", f.iou, f.psnr);
        QVERIFY2(f.iou >= 0.97, qPrintable(QString::number(f.iou)));
        QVERIFY2(f.psnr >= 35.0, qPrintable(QString::number(f.psnr)));
    }

    void stagedAndEagerWriteTheSameBytes() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        auto staged = quick(kSamples / "slime_busy.png", d / "staged.glb");
        staged.remover = RemoverChoice::U2NetP;  // the network is built mid-run when staged
        auto eager = staged;
        eager.output = d / "eager.glb";
        eager.mode = LoadMode::Eager;
        auto again = staged;
        again.output = d / "again.glb";
        const auto rs = runCharacter(staged);
        const auto re = runCharacter(eager);
        runCharacter(again);
        QVERIFY(bytesOf(d / "staged.glb") == bytesOf(d / "again.glb"));
        QVERIFY(bytesOf(d / "staged.glb") == bytesOf(d / "eager.glb"));
        // Another seed changes the back's grain, so the bytes.
        auto seeded = staged;
        seeded.output = d / "seeded.glb";
        seeded.seed = 2;
        runCharacter(seeded);
        QVERIFY(bytesOf(d / "staged.glb") != bytesOf(d / "seeded.glb"));

        // Staged: each object loaded in its stage and released when the next begins; eager: all
        // loaded before the first stage, none released until the end.
        auto count = [](const CharacterResult& r, EventKind kind) {
            return std::count_if(r.events.begin(), r.events.end(), [&](const Event& e) { return e.kind == kind; });
        };
        const auto objects = count(re, EventKind::Load);
        QCOMPARE(count(rs, EventKind::Load), objects);
        QVERIFY(objects >= 4);
        QVERIFY(count(rs, EventKind::Release) >= objects - 1);
        int stagedLoadsInStage = 0;
        for (const auto& s : rs.stages) stagedLoadsInStage += s.loads;
        QCOMPARE(stagedLoadsInStage, static_cast<int>(objects));
        for (const auto& s : re.stages) QCOMPARE(s.loads, 0);
    }

    void objOnRequest() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        const auto r = runCharacter(quick(kSamples / "lantern_alpha.png", d / "lantern.obj"));
        QCOMPARE(r.files.size(), std::size_t(3));
        for (const auto& f : r.files) QVERIFY(std::filesystem::file_size(f) > 0);
        QVERIFY(std::filesystem::exists(d / "lantern.mtl"));
        QVERIFY(std::filesystem::exists(d / "lantern.png"));
    }

    // .ply is a format of the table like the others: the run writes it and its texture.
    void plyOnRequest() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        const auto r = runCharacter(quick(kSamples / "lantern_alpha.png", d / "lantern.ply"));
        QCOMPARE(r.files.size(), std::size_t(2));
        const auto back = readMeshFile(d / "lantern.ply");
        QCOMPARE(back.triangleCount(), r.mesh.triangleCount());
        QCOMPARE(back.texture.width, r.mesh.texture.width);
        QVERIFY(checkMesh(back.positions, back.indices).closedManifold());
    }

    // The guarded run's child gets its job as one JSON form made from the settings table: every
    // setting, path and the meta come back as they were; what is not a job is refused by name.
    void aJobRoundTripsThroughItsJson() {
        CharacterJobParams p;
        p.run.input = "hero.png";
        p.run.output = "out/hero.ply";
        p.run.weightsDir = "w";
        p.trace = "t.jsonl";
        p.cutout = "c.png";
        p.sampleInterval = 0.2;
        p.meta = {{"tool", "test"}};
        p.run.mode = LoadMode::Eager;
        p.run.seed = 77;
        p.run.textureSize = 4096;
        p.run.thickness = 1.25;
        p.run.remover = RemoverChoice::Classical;
        p.run.threads = 3;
        const auto back = characterJobFromJson(nlohmann::json::parse(characterJobJson(p).dump()));
        for (const auto& f : runFields())
            QCOMPARE(settingText(back.run, f.field), settingText(p.run, f.field));
        QCOMPARE(back.run.input, p.run.input);
        QCOMPARE(back.run.output, p.run.output);
        QCOMPARE(back.run.weightsDir, p.run.weightsDir);
        QCOMPARE(back.trace, p.trace);
        QCOMPARE(back.cutout, p.cutout);
        QCOMPARE(back.sampleInterval, p.sampleInterval);
        QCOMPARE(back.meta, p.meta);

        const auto refused = [](const std::string& text) -> QString {
            try {
                characterJobFromJson(nlohmann::json::parse(text));
            } catch (const UsageError& e) {
                return e.what();
            }
            return {};
        };
        QVERIFY(refused(R"({"output":"a.glb"})").contains("\"input\""));
        QVERIFY(refused(R"({"input":"a.png","output":"a.glb","colour":1})").contains("\"colour\""));
        QVERIFY(refused(R"({"input":"a.png","output":"a.glb","settings":{"seeds":"1"}})").contains("\"seeds\""));
        QVERIFY(refused(R"({"input":"a.png","output":"a.glb","settings":{"seed":"one"}})").contains("seed"));
        QVERIFY(refused(R"({"input":"a.png","output":"a.glb","settings":{"textureSize":"999"}})").contains("exture"));
        QVERIFY(refused("[1]").contains("object"));
    }

    void badInputIsAnsweredClearly() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        auto expectError = [&](const std::filesystem::path& input, const std::filesystem::path& output,
                               const QString& expected) {
            try {
                runCharacter(quick(input, output));
                QFAIL(qPrintable("no error for " + QString::fromStdString(input.string())));
            } catch (const Error& e) {
                QVERIFY2(QString(e.what()).contains(expected), e.what());
            }
            QVERIFY2(!std::filesystem::exists(output), "an output was left behind");
        };
        std::ofstream(d / "empty.png").close();
        expectError(d / "empty.png", d / "a.glb", "empty (0 bytes)");
        std::ofstream(d / "text.png") << "not a picture at all";
        expectError(d / "text.png", d / "a.glb", "not a picture");
        const auto png = bytesOf(kSamples / "knight_white.png");
        std::ofstream(d / "cut.png", std::ios::binary).write(png.data(), static_cast<std::streamsize>(png.size() / 3));
        expectError(d / "cut.png", d / "a.glb", "corrupt or truncated");
        expectError(d / "missing.png", d / "a.glb", "no such file");
        // A picture with nothing in it.
        Image blank(300, 400, 3);
        std::fill(blank.pixels.begin(), blank.pixels.end(), 250);
        writePngFile(d / "blank.png", blank);
        expectError(d / "blank.png", d / "a.glb", "no subject found");
        // Outputs that cannot be written: said before any work.
        expectError(kSamples / "knight_alpha.png", d / "no-such-folder" / "a.glb", "does not exist");
        expectError(kSamples / "knight_alpha.png", d / "a.fbx", "must end in .glb, .obj or .ply");
        QDir().mkdir(dir.path() + "/locked");
        QFile::setPermissions(dir.path() + "/locked", QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        if (::geteuid() != 0)  // root writes anywhere; the message is tested above either way
            expectError(kSamples / "knight_alpha.png", d / "locked" / "a.glb", "not writable");
    }

    // Seen from behind, the knight shows no eyes (the front's small features are painted over
    // on the back) but keeps his large colour regions: the red plume, the blue tunic.
    void theBackRepeatsNoEyesButKeepsTheColours_data() {
        QTest::addColumn<QString>("picture");
        QTest::addColumn<int>("textureSize");
        QTest::newRow("alpha, 1024") << "knight_alpha.png" << 1024;
        QTest::newRow("alpha, 2048") << "knight_alpha.png" << 2048;  // the default: not a matter of resolution
        // The classical cut-out leaves the eyes' white highlights out of the subject: the eyes
        // are features all the same.
        QTest::newRow("white, 1024") << "knight_white.png" << 1024;
    }
    void theBackRepeatsNoEyesButKeepsTheColours() {
        QFETCH(QString, picture);
        QFETCH(int, textureSize);
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        auto p = quick(kSamples / picture.toStdString(), d / "k.glb");
        p.textureSize = textureSize;
        const auto r = runCharacter(p);
        constexpr int W = 384, H = 512;
        const Image front = frontView(r.mesh, W, H), back = frontView(turnedAround(r.mesh), W, H);
        // In the head (the top 45 %: the blue tunic starts below it): the eyes (the iris's blue)
        // and the blush (a soft pink over the skin, which a flood fill joins to the skin) in
        // front; the same places seen from behind (mirrored) must have the colour of the skin
        // around them there, not a ghost of the face.
        const std::array<double, 3> skin{255, 217, 189}, iris{47, 99, 201}, blush{255, 177, 173};
        const double eyes = ghostOnTheBack(front, back, iris, 60, skin, 0.0, 0.45);
        const double blushes = ghostOnTheBack(front, back, blush, 20, skin, 0.0, 0.45);
        qInfo("from behind, the eyes' places are %.1f and the blush's %.1f from the skin", eyes, blushes);
        QVERIFY2(eyes < 40, qPrintable(QString::number(eyes)));  // the mirrored, softened front: 107
        QVERIFY2(blushes < 12, qPrintable(QString::number(blushes)));
        // The star on the two-tone shield: each of its places from behind has the colour of the
        // shield's half it lies in, not a blend of both halves in the star's shape.
        const double star = starOnTheBack(front, back);
        qInfo("from behind, the shield's star is %.1f from the half it lies in", star);
        QVERIFY2(star < 8, qPrintable(QString::number(star)));
        // Large regions keep their colour on the back.
        const std::array<double, 3> plume{229, 72, 77}, tunic{63, 111, 214};
        const int frontRed = countColour(front, plume, 0.0, 0.3), backRed = countColour(back, plume, 0.0, 0.3);
        const int frontBlue = countColour(front, tunic, 0.5, 0.85), backBlue = countColour(back, tunic, 0.5, 0.85);
        qInfo("plume red: front %d, back %d; tunic blue: front %d, back %d", frontRed, backRed, frontBlue, backBlue);
        QVERIFY(backRed * 10 > frontRed * 7);
        QVERIFY(backBlue * 2 > frontBlue);
    }

    // A blush is painted over on the back however its outline joins the figure into one region
    // (the mushroom) and however near the silhouette it lies (the knight holding its parts).
    // Front colours are the pictures' own: the skin, and the blush blended over it
    // (make_samples.py's face()). The slime's, drawn on shaded skin, this measure cannot tell.
    void noSampleShowsItsBlushFromBehind_data() {
        QTest::addColumn<QString>("picture");
        QTest::addColumn<QVector<double>>("skin");
        QTest::addColumn<QVector<double>>("blush");
        QTest::addColumn<double>("limit");
        const auto over = [](QVector<double> skin, double alpha) {
            const double pink[3] = {255, 127, 154};
            for (int c = 0; c < 3; ++c) skin[c] = skin[c] * (1 - alpha) + pink[c] * alpha;
            return skin;
        };
        const QVector<double> knight{255, 217, 189}, cream{251, 233, 207};
        // Measured: the mushroom 52 before (its blush kept whole), 24 (one blush lay on the body's
        // lilac shading, which the fill follows), 29 since the painter's enclosed details and
        // edge span (back_paint.cpp, paint::kSpan); the knight with parts 32, then 19 (the blush
        // next to the silhouette kept), 5 now.
        QTest::newRow("mushroom") << "creature_alpha.png" << cream << over(cream, 0.45) << 32.0;
        QTest::newRow("knight with parts") << "knight_parts_alpha.png" << knight << over(knight, 0.45) << 12.0;
    }
    void noSampleShowsItsBlushFromBehind() {
        QFETCH(QString, picture);
        QFETCH(QVector<double>, skin);
        QFETCH(QVector<double>, blush);
        QFETCH(double, limit);
        QTemporaryDir dir;
        const auto r = runCharacter(quick(kSamples / picture.toStdString(),
                                          std::filesystem::path(dir.path().toStdString()) / "b.glb"));
        constexpr int W = 384, H = 512;
        const Image front = frontView(r.mesh, W, H), back = frontView(turnedAround(r.mesh), W, H);
        const double ghost = ghostOnTheBack(front, back, {blush[0], blush[1], blush[2]}, 20,
                                            {skin[0], skin[1], skin[2]}, 0.0, 1.0);
        qInfo("from behind, the blush's places are %.1f from the skin", ghost);
        QVERIFY2(ghost < limit, qPrintable(QString::number(ghost)));
    }

    // Small parts at the silhouette's edge are seen from behind too: the robot's hand round the
    // axe's haft and the ball of its antenna stay on the back (painted over as features, they
    // were grey rings there).
    void theBackKeepsSmallPartsAtTheEdge() {
        QTemporaryDir dir;
        auto p = quick(kSamples / "robot_alpha.png", std::filesystem::path(dir.path().toStdString()) / "r.glb");
        const auto r = runCharacter(p);
        constexpr int W = 384, H = 512;
        const Image front = frontView(r.mesh, W, H), back = frontView(turnedAround(r.mesh), W, H);
        const std::array<double, 3> ball{255, 93, 115}, hand{242, 140, 56};
        const int frontBall = countColour(front, ball, 0.0, 0.25), backBall = countColour(back, ball, 0.0, 0.25);
        // The hands are at 45-75 % of the height (the feet, far larger, below).
        const int frontHand = countColour(front, hand, 0.45, 0.75), backHand = countColour(back, hand, 0.45, 0.75);
        qInfo("antenna ball: front %d, back %d; hands: front %d, back %d", frontBall, backBall, frontHand, backHand);
        QVERIFY(frontBall > 50 && frontHand > 200);
        QVERIFY(backBall * 10 > frontBall * 7);
        QVERIFY(backHand * 10 > frontHand * 7);
    }

    // A learned mask that lost the lower part of a drawn figure (grey, near the background's
    // colour) gets it back from the outline; a gap of the background's own colour inside the
    // figure stays open, and so does everything outside, a ground shadow under the figure
    // included. An outline is ink by being dark against the background behind it: a dark grey
    // on green (luma 0.24 against 0.43) as black on grey-blue (above 0.2, it was not ink, and
    // the lower part stayed lost).
    void theOutlineCompletesALearnedMask_data() {
        QTest::addColumn<Colour>("bg");
        QTest::addColumn<Colour>("ink");
        QTest::newRow("black on grey-blue") << Colour{0.60f, 0.65f, 0.70f} << Colour{0.12f, 0.10f, 0.16f};
        QTest::newRow("dark grey on green") << Colour{0.35f, 0.50f, 0.25f} << Colour{0.24f, 0.25f, 0.22f};
    }

    void theOutlineCompletesALearnedMask() {
        QFETCH(Colour, bg);
        QFETCH(Colour, ink);
        constexpr std::int64_t H = 240, W = 200;
        const auto ys = torch::arange(H, torch::kFloat32).view({H, 1}).expand({H, W});
        const auto xs = torch::arange(W, torch::kFloat32).view({1, W}).expand({H, W});
        const auto disc = [&](double cx, double cy, double r) { return ((xs - cx).pow(2) + (ys - cy).pow(2)).sqrt() < r; };
        const Colour skin{1.0f, 0.85f, 0.74f}, grey{0.50f, 0.56f, 0.64f}, shadow{bg[0] * 0.55f, bg[1] * 0.55f, bg[2] * 0.55f};
        auto rgb = torch::empty({3, H, W});
        const auto paint = [&](const torch::Tensor& where, Colour c) {
            for (int k = 0; k < 3; ++k) rgb[k].masked_fill_(where, c[k]);
        };
        // The lost part is a foot's share of the figure (a gap a quarter of the mask or more
        // is left to the remover).
        const auto inside = disc(100, 120, 60), upper = inside & (ys < 160), lower = inside & (ys >= 160);
        const auto hole = disc(100, 90, 10);
        paint(torch::ones({H, W}, torch::kBool), bg);
        paint(disc(100, 120, 62), ink);
        paint(upper, skin);
        paint(lower, grey);
        paint(hole, bg);
        // A ground shadow touching the outline, with a JPEG's noise (±0.04) that breaks its
        // evenness here and there: such pixels are dark against the green, and 4 of them were
        // taken as ink before the pixels round a shadow were left out.
        const auto ground = (ys >= 182) & (ys < 186) & (xs >= 60) & (xs < 140) & ~disc(100, 120, 62);
        for (int k = 0; k < 3; ++k) {
            const auto noise = ((xs * 7 + ys * 13 + 5 * k).remainder(5) - 2) * 0.02f;
            rgb[k] = torch::where(ground, shadow[k] + noise, rgb[k]);
        }
        auto soft = (upper & ~hole).to(torch::kFloat32);
        const auto out = closeByOutline(rgb, soft);
        QCOMPARE((out.gt(0.5) & ground).sum().item<int>(), 0);  // the ground shadow
        QCOMPARE(out[170][100].item<float>(), 1.0f);  // the lost lower part
        QCOMPARE(out[120][39].item<float>(), 1.0f);   // the outline
        QCOMPARE(out[90][100].item<float>(), 0.0f);   // the gap of the background's colour
        QCOMPARE(out[5][5].item<float>(), 0.0f);      // outside
        QCOMPARE(out[60][100].item<float>(), 1.0f);   // what the mask had stays
        // Without the outline nothing is enclosed: the mask comes back as it was.
        paint(disc(100, 120, 62) & ~inside, bg);
        QVERIFY(torch::equal(closeByOutline(rgb, soft), soft));
    }

    // A horizon (a thin dark line the figure stands against, running out of the picture) that
    // touches the mask is scenery, not the figure's outline, except beside the mask; the
    // outline of a leg the frame cuts, which reaches the border beside the leg, is outline.
    void aHorizonIsNotTheFiguresOutline() {
        constexpr std::int64_t H = 240, W = 200;
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        const std::array<float, 3> sky{0.60f, 0.65f, 0.70f}, ink{0.12f, 0.10f, 0.16f}, skin{1.0f, 0.85f, 0.74f};
        const auto body = ((xs - 100).pow(2) + (ys - 100).pow(2)).sqrt() < 50;
        const auto leg = (xs >= 90) & (xs < 110) & (ys >= 140);  // cut by the bottom edge
        const auto legOutline = (((xs >= 87) & (xs < 90)) | ((xs >= 110) & (xs < 113))) & (ys >= 150);
        c.paint(torch::ones({H, W}, torch::kBool), sky);
        c.paint((ys >= 120) & (ys < 122) & (xs < 60), ink);  // the horizon, from the left edge to the body
        c.paint(body | leg, skin);
        c.paint(legOutline, ink);
        const auto soft = (body | leg).to(torch::kFloat32);
        const auto out = closeByOutline(c.rgb, soft);
        QCOMPARE(out[120][5].item<float>(), 0.0f);    // the horizon at the picture's edge
        QCOMPARE(out[121][30].item<float>(), 0.0f);   // and away from the body
        QCOMPARE(out[H - 1][88].item<float>(), 1.0f);  // the leg's outline at the bottom edge
        QCOMPARE(out[200][111].item<float>(), 1.0f);
        QCOMPARE(out[20][20].item<float>(), 0.0f);
    }

    // What a learned remover leaves out beside the figure, on a gradient: an outlined orb whose
    // inside is its glow's colour and a small potion are added whole; a glow alone, a ground
    // shadow (the background darkened), a faint smudge and scenery at the frame are not.
    void detachedPartsCompleteALearnedMask() {
        constexpr std::int64_t H = 300, W = 400;
        const auto ys = torch::arange(H, torch::kFloat32).view({H, 1}).expand({H, W});
        const auto xs = torch::arange(W, torch::kFloat32).view({1, W}).expand({H, W});
        const auto radius = [&](double cx, double cy) { return ((xs - cx).pow(2) + (ys - cy).pow(2)).sqrt(); };
        auto rgb = torch::stack({0.25f + 0.5f * ys / H, 0.35f + 0.2f * xs / W, 0.7f - 0.3f * ys / H});
        const auto paint = [&](const torch::Tensor& where, std::array<float, 3> c) {
            for (int k = 0; k < 3; ++k) rgb[k].masked_fill_(where, c[k]);
        };
        const auto glowAt = [&](double cx, double cy, std::array<float, 3> c) {
            const auto weight = 0.8f * torch::exp(-radius(cx, cy).pow(2) / (2.0 * 20.0 * 20.0));
            for (int k = 0; k < 3; ++k) rgb[k] = rgb[k] * (1 - weight) + c[k] * weight;
        };
        const std::array<float, 3> glow{0.3f, 0.9f, 1.0f};
        const auto body = radius(200, 160) < 70;
        paint(body, {0.8f, 0.3f, 0.2f});
        glowAt(330, 70, glow);  // the orb's
        paint((radius(330, 70) < 16) & (radius(330, 70) >= 13), {0.1f, 0.1f, 0.15f});
        glowAt(70, 70, glow);  // a glow alone
        paint(radius(60, 250) < 6, {0.95f, 0.9f, 0.2f});  // the potion
        for (int k = 0; k < 3; ++k)
            rgb[k] = torch::where((((xs - 330) / 40).pow(2) + ((ys - 260) / 8).pow(2)) < 1, rgb[k] * 0.5f, rgb[k]);
        rgb = torch::where(radius(120, 260) < 10, rgb + 0.03f, rgb);  // a smudge
        paint((xs < 12) & (ys > 120) & (ys < 180), {0.1f, 0.6f, 0.1f});  // scenery at the frame
        const auto soft = body.to(torch::kFloat32);
        const auto out = addDetachedParts(rgb, soft, 16);
        QCOMPARE(out[70][330].item<float>(), 1.0f);   // the orb's inside
        QCOMPARE(out[70][345].item<float>(), 1.0f);   // its outline
        QCOMPARE(out[70][352].item<float>(), 0.0f);   // its glow
        QCOMPARE(out[250][60].item<float>(), 1.0f);   // the potion
        QCOMPARE(out[70][70].item<float>(), 0.0f);    // the glow alone
        QCOMPARE(out[260][330].item<float>(), 0.0f);  // the shadow
        QCOMPARE(out[260][120].item<float>(), 0.0f);  // the smudge
        QCOMPARE(out[150][5].item<float>(), 0.0f);    // the scenery
        QVERIFY(torch::equal(out.masked_select(body), soft.masked_select(body)));
        // Nothing apart: the mask comes back as it was.
        const auto alone = torch::stack({0.25f + 0.5f * ys / H, 0.35f + 0.2f * xs / W, 0.7f - 0.3f * ys / H});
        QVERIFY(torch::equal(addDetachedParts(alone, soft, 16), soft));
    }

    // A part two of smoothBackground's cells wide (a star on a grainy background) fills the
    // cells it lies in and would pull their estimate to its own colour (29 % of it was kept):
    // the first estimate is made in large cells, which it does not pull, so it stands out and
    // is kept whole.
    void aPartAsWideAsACellIsNotTakenForBackground() {
        constexpr std::int64_t H = 300, W = 400;  // cells of 12.5 px, the star 26 px
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        torch::manual_seed(3);
        c.rgb = (torch::stack({0.55f + 0.2f * ys / H, 0.65f + 0.1f * xs / W, torch::full({H, W}, 0.45f)}) +
                 0.03f * torch::randn({3, H, W}))
                    .clamp(0, 1)
                    .contiguous();
        const auto body = ((xs - 220).pow(2) + (ys - 170).pow(2)) < 70 * 70;
        const auto star = (xs >= 60) & (xs < 86) & (ys >= 40) & (ys < 66);
        c.paint(body, {0.5f, 0.25f, 0.45f});
        c.paint(star, {0.95f, 0.8f, 0.2f});
        const auto out = addDetachedParts(c.rgb, body.to(torch::kFloat32), 16) >= 0.5;
        const auto kept = (out & star).sum().item<double>() / star.sum().item<double>();
        QVERIFY2(kept > 0.9, std::to_string(kept).c_str());
    }

    // On heavy noise a potion apart from the body does not stand out pixel by pixel (the noise
    // floor is larger than its contrast), but its mean around each pixel does: it is kept, and
    // no part of the noise is.
    void aPartOnNoiseStandsOutInItsMean() {
        auto c = Canvas::onNoise(240, 220, 5, 0.2);
        const auto &xs = c.xs, &ys = c.ys;
        const auto body = (xs >= 40) & (xs < 120) & (ys >= 50) & (ys < 210);
        const auto potion = ((xs - 175).pow(2) + (ys - 60).pow(2)) < 10 * 10;
        c.paint(body, {0.75f, 0.2f, 0.3f});
        c.paint(potion, {0.9f, 0.15f, 0.5f});
        const auto out = addDetachedParts(c.rgb, body.to(torch::kFloat32), 16) >= 0.5;
        const auto kept = (out & potion).sum().item<double>() / potion.sum().item<double>();
        QVERIFY2(kept > 0.9, std::to_string(kept).c_str());
        const auto aroundPotion = ((xs - 175).pow(2) + (ys - 60).pow(2)) < 16 * 16;
        const auto noise = (out & ~body & ~aroundPotion).sum().item<std::int64_t>();
        QVERIFY2(noise == 0, std::to_string(noise).c_str());
    }

    // A remover cuts off a part at the mask's edge when its colour is close to the background's
    // hue (a crescent of hair over the head, a hammer's head): on noise, what stands out of the
    // background pixel by pixel beside the mask and ends in a step is taken back. A glow round
    // the body fades out instead, a shadow under it is the background darkened evenly, and a
    // strip a pixel wide along the mask is the edge's (the edge snap's to judge): none is taken.
    void aPartTheRemoverCutOffAtTheEdgeIsTakenBack() {
        constexpr std::int64_t H = 240, W = 220;
        auto c = Canvas::onNoise(H, W, 11, 0.04);
        const auto &xs = c.xs, &ys = c.ys;
        const auto body = (xs >= 60) & (xs < 160) & (ys >= 60) & (ys < 200);
        const auto cap = (xs >= 70) & (xs < 150) & (ys >= 57) & (ys < 60);
        const auto glow = (xs < 60) & (ys >= 100) & (ys < 160);
        const auto shadow = ((((xs - 110) / 75).pow(2) + ((ys - 200) / 10).pow(2)) < 1) & ~body;
        const auto strip = (xs == 159) & (ys >= 80) & (ys < 180);
        c.paint(body, {0.75f, 0.2f, 0.3f});
        c.paint(cap, {0.15f, 0.6f, 0.3f});
        const auto weight = torch::where(glow, 0.8f * torch::exp(-(60 - xs).pow(2) / (2.0 * 8.0 * 8.0)),
                                         torch::zeros({H, W}));
        const std::array<float, 3> glowColour{0.3f, 0.9f, 1.0f};
        for (int k = 0; k < 3; ++k) {
            c.rgb[k] = c.rgb[k] * (1 - weight) + glowColour[k] * weight;
            c.rgb[k] = torch::where(shadow, c.rgb[k] * 0.55f, c.rgb[k]);
        }
        const auto soft = (body & ~strip).to(torch::kFloat32);
        const auto out = addDetachedParts(c.rgb, soft, 16) >= 0.5;
        const auto taken = (out & cap).sum().item<double>() / cap.sum().item<double>();
        QVERIFY2(taken > 0.9, std::to_string(taken).c_str());
        for (const auto& [what, where] : {std::pair{"glow", glow}, {"shadow", shadow}, {"strip", strip}}) {
            const auto wrong = (out & where).sum().item<std::int64_t>();
            QVERIFY2(wrong == 0, (std::string(what) + ": " + std::to_string(wrong)).c_str());
        }
        QCOMPARE((out & ~body & ~cap).sum().item<std::int64_t>(), 0);
    }

    // A learned mask a pixel or two off the figure's edge (U²-Netp's, grown from 320 × 320) is
    // moved onto it where the background is smooth: a figure anti-aliased onto a gradient, with
    // a stalk two pixels wide, masked two pixels too fat or one and a half too thin, ends within
    // the half-covered pixels of its edge, and the stalk stays whole. On a noisy background
    // where the figure does not stand clear of the noise, the mask is left as it was.
    void aLearnedMasksEdgeSnapsToTheFigure() {
        constexpr std::int64_t H = 300, W = 400;
        const auto ys = torch::arange(H, torch::kFloat32).view({H, 1}).expand({H, W});
        const auto xs = torch::arange(W, torch::kFloat32).view({1, W}).expand({H, W});
        const auto gradient = torch::stack({0.85f - 0.3f * ys / H, 0.8f - 0.1f * xs / W, 0.6f + 0.3f * ys / H});
        // Coverage of each pixel by a disc and a vertical stalk, anti-aliased (a pixel is as
        // much figure as the edge crosses it).
        const auto disc = [&](double grow) {
            return (70.5 + grow - ((xs - 200).pow(2) + (ys - 170).pow(2)).sqrt()).clamp(0, 1);
        };
        const auto stalk = [&](double grow) {
            const auto across = (1.5 + grow - (xs - 199.5).abs()).clamp(0, 1);
            return torch::where((ys > 40) & (ys < 110), across, torch::zeros_like(across));
        };
        const auto cover = torch::maximum(disc(0), stalk(0));
        const std::array<float, 3> skin{0.95f, 0.62f, 0.45f}, ink{0.15f, 0.12f, 0.2f};
        const auto drawOn = [&](const torch::Tensor& bg) {
            auto rgb = bg.clone();
            for (int k = 0; k < 3; ++k) {
                rgb[k] = rgb[k] * (1 - disc(0)) + skin[k] * disc(0);
                rgb[k] = rgb[k] * (1 - stalk(0)) + ink[k] * stalk(0);
            }
            return rgb;
        };
        const auto truth = cover >= 0.5;
        const auto wrong = [&](const torch::Tensor& soft) {
            return (((soft >= 0.5) != truth)).sum().item<std::int64_t>();
        };
        // The figure's edge is about 2π·70 + 2·70 ≈ 580 px long.
        const auto rgb = drawOn(gradient);
        for (const double off : {2.0, -1.5}) {
            const auto soft = torch::maximum(disc(off), stalk(std::max(0.0, off))).ge(0.5).to(torch::kFloat32);
            const auto snapped = snapToColourEdge(rgb, soft);
            qInfo("mask %+.1f px off: %lld pixels wrong before, %lld after", off,
                  static_cast<long long>(wrong(soft)), static_cast<long long>(wrong(snapped)));
            QVERIFY(wrong(soft) > 500);
            QVERIFY(wrong(snapped) < 40);
            QVERIFY((snapped >= 0.5).masked_select(stalk(0) >= 0.5).all().item<bool>());
        }
        // The same on a background of noise as strong as the figure's contrast.
        torch::manual_seed(7);
        const auto noisy = (gradient + 0.5f * (torch::rand({3, H, W}) - 0.5f)).clamp(0, 1);
        auto faint = noisy.clone();
        const auto figure = disc(0);
        for (int k = 0; k < 3; ++k) faint[k] = faint[k] * (1 - figure) + (faint[k] + 0.15f).clamp(0, 1) * figure;
        const auto fat = disc(2).ge(0.5).to(torch::kFloat32);
        QVERIFY(torch::equal(snapToColourEdge(faint, fat), fat));
    }

    // An artist's alpha with the ground shadow drawn in (black, 60 % opaque, under the feet):
    // the shadow is not subject; a translucent cape as opaque, or a dark translucent patch
    // beside the figure rather than under it, is.
    void aShadowInTheArtistsAlphaIsNotSubject() {
        constexpr std::int64_t H = 300, W = 300;
        const auto ys = torch::arange(H, torch::kFloat32).view({H, 1}).expand({H, W});
        const auto xs = torch::arange(W, torch::kFloat32).view({1, W}).expand({H, W});
        auto rgba = torch::zeros({4, H, W});
        const auto paint = [&](const torch::Tensor& where, std::array<float, 4> c) {
            for (int k = 0; k < 4; ++k) rgba[k].masked_fill_(where, c[k]);
        };
        const auto shadow = (((xs - 150) / 90).pow(2) + ((ys - 262) / 16).pow(2)) < 1;
        const auto body = (xs > 110) & (xs < 190) & (ys > 40) & (ys < 260);
        const auto cape = (xs > 190) & (xs < 230) & (ys > 80) & (ys < 200);
        const auto patch = (xs > 20) & (xs < 70) & (ys > 60) & (ys < 110);
        paint(shadow, {0.0f, 0.0f, 0.0f, 0.6f});
        paint(body, {0.8f, 0.4f, 0.2f, 1.0f});
        paint(cape, {0.2f, 0.5f, 0.6f, 0.6f});
        paint(patch, {0.05f, 0.05f, 0.1f, 0.6f});
        const auto s = extractSubject(rgba, true, {}, MaskSource::Alpha, 0.005, "shadow.png");
        QCOMPARE(s.region[270][80].item<int>(), 0);   // the shadow, left of the feet
        QCOMPARE(s.region[262][150].item<int>(), 0);  // and just under them
        QCOMPARE(s.region[150][150].item<int>(), 1);  // the body
        QCOMPARE(s.region[150][210].item<int>(), 1);  // the cape
        QCOMPARE(s.region[80][40].item<int>(), 1);    // the dark patch up beside the figure
    }

    // A learned remover that takes the hard ground shadow for part of the figure (the
    // background under the feet darkened by half): the shadow is left out, the feet (dark, but
    // of their own colour) and the body stay. On a light gradient; and on dark blobs of navy
    // with dithering of ±1.3/255, a tenth of the background's red of 0.05 and a fifth in the
    // shadow. There each channel's factor is noisy: the background darkened evenly is where
    // each channel's colour lies within 0.03 of what their mean factor gives, or its factor
    // within 0.06 of the mean. With the factors alone, 99 % of the dark shadow was kept.
    void aLearnedMaskLosesTheGroundShadow_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light gradient") << false;
        QTest::newRow("dark blobs, dithered") << true;
    }

    void aLearnedMaskLosesTheGroundShadow() {
        QFETCH(bool, dark);
        constexpr std::int64_t H = 300, W = 300;
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        const auto blob = [&](double x, double y, double sigma) {
            return (-((xs - x).pow(2) + (ys - y).pow(2)) / (2 * sigma * sigma)).exp();
        };
        c.rgb = dark ? torch::stack({0.05 + 0.05 * blob(60, 250, 70), 0.07 + 0.06 * blob(250, 200, 80),
                                     0.16 + 0.08 * blob(150, 280, 90)})
                     : torch::stack({0.5f + 0.3f * ys / H, 0.6f + 0.1f * xs / W, 0.8f - 0.2f * ys / H});
        const auto shadow = (((xs - 150) / 90).pow(2) + ((ys - 262) / 16).pow(2)) < 1;
        const auto body = (xs > 110) & (xs < 190) & (ys > 40) & (ys < 250);
        const auto feet = (((xs - 130) / 18).pow(2) + ((ys - 255) / 8).pow(2) < 1) |
                          (((xs - 170) / 18).pow(2) + ((ys - 255) / 8).pow(2) < 1);
        c.rgb = torch::where(shadow, c.rgb * 0.5f, c.rgb);
        c.paint(body, {0.8f, 0.4f, 0.2f});
        c.paint(feet, dark ? std::array<float, 3>{0.9f, 0.9f, 0.85f} : std::array<float, 3>{0.25f, 0.15f, 0.1f});
        if (dark) {
            torch::manual_seed(3);
            c.rgb = (c.rgb + 0.005 * torch::randn({3, H, W})).clamp(0, 1);
        }
        const auto learnedMask = (body | feet | shadow).to(torch::kFloat32);
        const MaskPredictor learned = [&](const torch::Tensor&) { return learnedMask; };
        const auto found = extractSubject(c.rgb, false, learned, MaskSource::U2NetP, 0.005, "shadow.png").region.to(torch::kBool);
        const auto share = [&](const torch::Tensor& truth) {
            return (found & truth).sum().item<double>() / truth.sum().item<double>();
        };
        const auto visible = shadow & ~body & ~feet;
        qInfo("shadow kept %.3f, body %.3f, feet %.3f", share(visible), share(body), share(feet));
        QVERIFY2(share(visible) < 0.05, qPrintable(QString::number(share(visible))));
        QVERIFY(!found[270][150].item<bool>());  // the shadow under the feet
        QVERIFY2(share(feet) > 0.95, qPrintable(QString::number(share(feet))));
        QVERIFY2(share(body) > 0.99, qPrintable(QString::number(share(body))));
    }

    // The classical cut-out on white: a light arm without an outline is subject though it lies
    // nearer the background's colour than Otsu's threshold, while a glow around an orb, as
    // light, fades out and is not.
    void classicalCutOutKeepsLightPartsButNotGlows() {
        constexpr std::int64_t H = 240, W = 240;
        const auto ys = torch::arange(H, torch::kFloat32).view({H, 1}).expand({H, W});
        const auto xs = torch::arange(W, torch::kFloat32).view({1, W}).expand({H, W});
        const auto radius = [&](double cx, double cy) { return ((xs - cx).pow(2) + (ys - cy).pow(2)).sqrt(); };
        auto rgb = torch::ones({3, H, W});
        const auto weight = 0.5f * torch::exp(-radius(190, 60).pow(2) / (2.0 * 14.0 * 14.0));
        const std::array<float, 3> green{0.2f, 0.8f, 0.3f};
        for (int k = 0; k < 3; ++k) rgb[k] = rgb[k] * (1 - weight) + green[k] * weight;
        const auto paint = [&](const torch::Tensor& where, std::array<float, 3> c) {
            for (int k = 0; k < 3; ++k) rgb[k].masked_fill_(where, c[k]);
        };
        paint(radius(190, 60) < 10, green);                                     // the orb
        paint((radius(90, 140) < 50), {0.3f, 0.2f, 0.5f});                      // the body
        paint((xs > 130) & (xs < 200) & (ys > 130) & (ys < 142), {0.93f, 0.86f, 0.8f});  // the arm
        const auto mask = classicalMask(rgb);
        QCOMPARE(mask[136][185].item<float>(), 1.0f);  // the arm's end
        QCOMPARE(mask[60][190].item<float>(), 1.0f);   // the orb
        QCOMPARE(mask[60][190 + 15].item<float>(), 0.0f);  // its glow, at 5 px out
        QCOMPARE(mask[60 + 20][190].item<float>(), 0.0f);
        QCOMPARE(mask[5][5].item<float>(), 0.0f);
    }

    // The back paints over what one solid colour region encloses, whatever its share of the
    // figure: a slime's large eye, and an eye's white with its pupil (each over the 1.5 % a
    // feature had to stay under before), get the body's colour. Kept: a part at the silhouette's
    // edge (a ball), a part only its thin outline encloses (an arm), and a ring around background
    // seen through the figure (a shield with a hole).
    void theBackPaintsOverWhatOneRegionEncloses() {
        constexpr std::int64_t H = 256, W = 256;
        const auto ys = torch::arange(H, torch::kFloat32).view({H, 1}).expand({H, W});
        const auto xs = torch::arange(W, torch::kFloat32).view({1, W}).expand({H, W});
        const auto disc = [&](double cx, double cy, double r) { return ((xs - cx).pow(2) + (ys - cy).pow(2)).sqrt() < r; };
        auto rgb = torch::ones({3, H, W});
        const auto paint = [&](const torch::Tensor& where, std::array<float, 3> c) {
            for (int k = 0; k < 3; ++k) rgb[k].masked_fill_(where, c[k]);
        };
        const std::array<float, 3> body{0.3f, 0.7f, 0.4f}, dark{0.1f, 0.1f, 0.15f}, red{0.9f, 0.2f, 0.2f},
            blue{0.2f, 0.3f, 0.9f}, yellow{0.95f, 0.85f, 0.2f};
        const auto arm = (xs >= 10) & (xs < 70) & (ys >= 150) & (ys < 170);
        const auto armInside = (xs >= 13) & (xs < 67) & (ys >= 153) & (ys < 167);
        auto subject = disc(128, 128, 100) | disc(128, 30, 14) | arm;
        paint(disc(128, 128, 100), body);
        paint(disc(95, 100, 16), dark);                              // an eye: 804 px, 2.4 %
        paint(disc(160, 100, 17), {0.97f, 0.97f, 0.97f});            // an eye's white...
        paint(disc(160, 104, 8), dark);                              // ... and its pupil
        paint(disc(128, 30, 14), blue);                              // a ball at the edge
        paint(arm, dark);                                            // an arm, outlined
        paint(armInside, red);
        paint(disc(150, 190, 20), yellow);                           // a shield...
        paint(disc(150, 190, 8), {1.0f, 1.0f, 1.0f});                // ... with a hole
        subject = subject & ~disc(150, 190, 8);
        const auto back = paintOverFeatures(rgb, subject.to(torch::kFloat32));
        const auto colourAt = [&](std::int64_t x, std::int64_t y) {
            return std::array<float, 3>{back[0][y][x].item<float>(), back[1][y][x].item<float>(),
                                        back[2][y][x].item<float>()};
        };
        const auto near = [](std::array<float, 3> a, std::array<float, 3> b) {
            return std::abs(a[0] - b[0]) < 0.05f && std::abs(a[1] - b[1]) < 0.05f && std::abs(a[2] - b[2]) < 0.05f;
        };
        QVERIFY(near(colourAt(95, 100), body));   // the eye
        QVERIFY(near(colourAt(160, 104), body));  // the pupil
        QVERIFY(near(colourAt(160, 90), body));   // the eye's white
        QVERIFY(near(colourAt(128, 22), blue));   // the ball, inside and outside the body
        QVERIFY(near(colourAt(128, 34), blue));
        QVERIFY(near(colourAt(40, 160), red));    // the arm, inside its outline
        QVERIFY(near(colourAt(150, 175), yellow));  // the shield's ring
        QVERIFY(near(colourAt(200, 128), body));  // the body itself
    }

    // A visor across a helmet shaded in two tones lies in neither tone's region, and is too large
    // to be a small feature (4 % of the figure): the two tones lie round it together, and the
    // back gets them in its place (the quality suite's seed 177; a visor on a striped helmet,
    // seed 119). A stripe of the same size at the helmet's side, which the background lies
    // beside, stays.
    void theBackPaintsOverAVisorAcrossTwoTones() {
        Canvas c(256, 256);
        const Colour grey{0.6f, 0.6f, 0.62f}, white{0.95f, 0.95f, 0.97f}, visor{0.15f, 0.1f, 0.2f},
            body{0.7f, 0.25f, 0.4f}, stripe{0.2f, 0.5f, 0.9f};
        c.paint(c.ys >= 0, {1.0f, 1.0f, 1.0f});
        const auto torso = (c.xs - 128).pow(2) + (c.ys - 170).pow(2) < 80 * 80;
        const auto helmet = (c.xs >= 78) & (c.xs < 178) & (c.ys >= 20) & (c.ys < 95);
        c.paint(torso, body);
        c.paint(helmet & (c.xs + c.ys < 200), grey);  // lit and shaded halves, split diagonally
        c.paint(helmet & (c.xs + c.ys >= 200), white);
        c.paint((c.xs >= 98) & (c.xs < 158) & (c.ys >= 45) & (c.ys < 60), visor);
        c.paint((c.xs >= 78) & (c.xs < 84) & (c.ys >= 30) & (c.ys < 85), stripe);
        const Pixels back{paintOverFeatures(c.rgb, (torso | helmet).to(torch::kFloat32))};
        QVERIFY2(back.near(106, 52, grey), qPrintable(back.said(106, 52)));   // the visor's lit end
        QVERIFY2(back.near(154, 52, white), qPrintable(back.said(154, 52)));  // its shaded end
        QVERIFY2(back.near(81, 60, stripe), qPrintable(back.said(81, 60)));   // the stripe at the side
        QVERIFY2(back.near(128, 170, body), qPrintable(back.said(128, 170)));
    }

    // An eye's white on a head striped across lies among a dozen stripes, each holding a few
    // hundredths of the ring round it (the quality suite's seed 111: the whites stayed on the
    // back). The stripes, alike, lie round it together; the eye goes, the stripes stay.
    void theBackPaintsOverAnEyeOnAStripedHead() {
        Canvas c(256, 256);
        const Colour light{0.55f, 0.3f, 0.85f}, dark{0.45f, 0.22f, 0.75f}, white{0.97f, 0.97f, 0.97f},
            body{0.3f, 0.55f, 0.7f};
        c.paint(c.ys >= 0, {1.0f, 1.0f, 1.0f});
        const auto torso = (c.xs - 128).pow(2) + (c.ys - 190).pow(2) < 60 * 60;
        const auto head = (c.xs - 128).pow(2) + (c.ys - 80).pow(2) < 70 * 70;
        c.paint(torso, body);
        c.paint(head, light);
        c.paint(head & (c.ys.floor_divide(3).remainder(2) == 1), dark);  // stripes 3 px tall
        c.paint((c.xs - 100).pow(2) / 196 + (c.ys - 75).pow(2) / 289 < 1, white);  // 14 × 17 px
        const Pixels back{paintOverFeatures(c.rgb, (torso | head).to(torch::kFloat32))};
        QVERIFY2(back.near(100, 75, light) || back.near(100, 75, dark), qPrintable(back.said(100, 75)));  // the eye
        QVERIFY2(back.near(160, 76, dark), qPrintable(back.said(160, 76)));   // a dark stripe (76 / 3 = 25, odd)
        QVERIFY2(back.near(160, 79, light), qPrintable(back.said(160, 79)));  // a light one (79 / 3 = 26)
    }

    // An emblem drawn without an outline a shade lighter than the chest it is on (0.07 a
    // channel), its edge anti-aliased, joins the chest's colour region: each step across its edge
    // is half that (the quality suite's seeds 7, 102, 129, 133 and 148: the star stayed on the
    // back). It goes; the chest's smooth shading, a belt as faint that crosses the chest from
    // side to side, and a JPEG's grain stay.
    void theBackPaintsOverAnEmblemNearItsChestsColour() {
        constexpr int H = 240, W = 200;
        Canvas c(H, W);
        const Colour white{1.0f, 1.0f, 1.0f}, emblem{0.64f, 0.52f, 0.32f}, belt{0.46f, 0.34f, 0.14f};
        c.paint(c.ys >= 0, white);
        const auto chest = (c.xs >= 30) & (c.xs < 170) & (c.ys >= 40) & (c.ys < 220);
        // Brown, lighter towards the top by 0.1 over the chest's height: shading, not an edge.
        // Row `y` (a row number or the tensor of them) is lighter by shadeAt(y).
        const auto shadeAt = [](const auto& y) { return 0.1f * (220 - y) / 180; };
        const Colour brown{0.5f, 0.38f, 0.18f};
        for (int ch = 0; ch < 3; ++ch) c.rgb[ch] = torch::where(chest, brown[ch] + shadeAt(c.ys), c.rgb[ch]);
        const auto hexagon = [](double x, double y) {
            const double dx = std::abs(x - 100), dy = std::abs(y - 100);
            return dy < 17.3 && dx < 20 - dy / 1.732;
        };
        const auto cover = coverageOf(H, W, hexagon);
        for (int ch = 0; ch < 3; ++ch) c.rgb[ch] = c.rgb[ch] * (1 - cover) + emblem[ch] * cover;
        c.paint((c.xs >= 30) & (c.xs < 170) & (c.ys >= 180) & (c.ys < 188), belt);
        torch::manual_seed(7);
        c.rgb = (c.rgb + 0.004 * torch::randn({3, H, W})).clamp(0, 1);
        const Pixels front{c.rgb.clone()};
        const Pixels back{paintOverFeatures(c.rgb, chest.to(torch::kFloat32))};
        const auto chestAt = [&](std::int64_t y) {
            const float s = shadeAt(static_cast<float>(y));
            return Colour{brown[0] + s, brown[1] + s, brown[2] + s};
        };
        for (const auto& [x, y] : {std::pair{100, 100}, {100, 86}, {85, 100}, {112, 110}})  // the emblem
            QVERIFY2(back.near(x, y, chestAt(y)) && !back.near(x, y, emblem), qPrintable(back.said(x, y)));
        QVERIFY2(back.near(100, 184, belt), qPrintable(back.said(100, 184)));  // the belt
        for (const auto& [x, y] : {std::pair{60, 50}, {150, 140}, {60, 210}})  // the chest, shaded
            QVERIFY2(std::abs(back.at(x, y)[0] - front.at(x, y)[0]) < 0.01f, qPrintable(back.said(x, y)));
    }

    // On a small picture an eye is a mosaic of one- and two-pixel colour regions (its white, its
    // pupil and the pixels mixed between them and the face), and those near the side of the head
    // lie within the depth at which small regions at the silhouette's edge are kept (a hand, an
    // antenna's ball). Painted over without them, the eye left a crescent of itself on the back
    // (the quality suite's seeds 1, 27 and 70: eyes 3-8 px across). What touches a painted
    // feature goes with it.
    void theBackShowsNoRingOfASmallEye() {
        constexpr int H = 120, W = 100;
        Canvas c(H, W);
        const Colour skin{0.98f, 0.85f, 0.72f}, white{0.98f, 0.98f, 0.98f}, pupil{0.1f, 0.08f, 0.08f};
        c.paint(c.ys >= 0, skin);
        const auto inEllipse = [](double cx, double cy, double rx, double ry) {
            return [=](double x, double y) { return (x - cx) * (x - cx) / (rx * rx) + (y - cy) * (y - cy) / (ry * ry) < 1; };
        };
        const auto head = inEllipse(50, 30, 17, 17), body = inEllipse(50, 80, 26, 38);
        const auto figure = coverageOf(H, W, [&](double x, double y) { return head(x, y) || body(x, y); });
        auto& rgb = c.rgb;
        const auto blend = [&rgb](const std::function<bool(double, double)>& shape, const Colour& k) {
            const auto cover = coverageOf(H, W, shape);
            for (int ch = 0; ch < 3; ++ch) rgb[ch] = rgb[ch] * (1 - cover) + k[ch] * cover;
        };
        for (const auto side : {-1.0, 1.0}) {  // an eye's white 4 px from the side of the head
            blend(inEllipse(50 + side * 9.1, 28.6, 3.6, 4.2), white);
            blend(inEllipse(50 + side * 9.6, 29.3, 2.0, 2.5), pupil);
        }
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        writePngFile(d / "small.png", tensorToImage(torch::cat({c.rgb, figure.unsqueeze(0)})));
        const auto r = runCharacter(quick(d / "small.png", d / "s.glb"));
        constexpr int VW = 400, VH = 480;
        const Image front = frontView(r.mesh, VW, VH), back = frontView(turnedAround(r.mesh), VW, VH);
        const auto to255 = [](const Colour& k) { return std::array<double, 3>{k[0] * 255.0, k[1] * 255.0, k[2] * 255.0}; };
        const double ghost = ghostOnTheBack(front, back, to255(pupil), 80, to255(skin), 0.0, 0.4);
        qInfo("from behind, the pupils' places are %.1f from the face", ghost);
        QVERIFY2(ghost < 6, qPrintable(QString::number(ghost)));  // the rim kept: 12.5; the grain: 3
    }

    // The classical cut-out on a drawn figure: a light part its outline encloses is subject,
    // and so is one only a shade off the background (under the lower threshold); a gap of the
    // background's own colour stays a hole, and a ground shadow (the background darkened) is
    // not subject, while a grey part drawn without an outline (the background darkened too,
    // but not where a ground shadow lies) is, and so is a round grey hand held low (a ground
    // shadow lies flat).
    void classicalCutOutKeepsEnclosedPartsAndLeavesHolesAndShadows() {
        constexpr std::int64_t H = 240, W = 200;
        const auto ys = torch::arange(H, torch::kFloat32).view({H, 1}).expand({H, W});
        const auto xs = torch::arange(W, torch::kFloat32).view({1, W}).expand({H, W});
        const auto disc = [&](double cx, double cy, double r) { return ((xs - cx).pow(2) + (ys - cy).pow(2)).sqrt() < r; };
        const std::array<float, 3> bg{0.98f, 0.98f, 0.97f}, ink{0.17f, 0.12f, 0.22f}, skin{1.0f, 0.85f, 0.74f};
        auto rgb = torch::empty({3, H, W});
        const auto shadow = (((xs - 100) / 80).pow(2) + ((ys - 200) / 14).pow(2)) < 1;
        const auto paint = [&](const torch::Tensor& where, std::array<float, 3> c) {
            for (int k = 0; k < 3; ++k) rgb[k].masked_fill_(where, c[k]);
        };
        paint(torch::ones({H, W}, torch::kBool), bg);
        for (int k = 0; k < 3; ++k) rgb[k].masked_fill_(shadow, bg[k] * 0.45f);  // 55 % darker
        paint(disc(100, 110, 66), ink);
        paint(disc(100, 110, 60), skin);
        paint(disc(100, 110, 18), ink);
        paint(disc(100, 110, 13), bg);  // a hole: the background seen through the figure
        paint(disc(172, 28, 14), {0.6f, 0.6f, 0.6f});  // a grey orb above, 39 % darker
        paint(disc(30, 160, 10), {0.6f, 0.6f, 0.6f});  // a grey hand held low
        paint(disc(40, 40, 16), ink);
        paint(disc(40, 40, 13), {0.95f, 0.955f, 0.94f});  // a head a shade off the background
        const auto mask = classicalMask(rgb);
        QCOMPARE(mask[40][40].item<float>(), 1.0f);
        QCOMPARE(mask[70][100].item<float>(), 1.0f);   // the light skin, enclosed by the outline
        QCOMPARE(mask[110][100].item<float>(), 0.0f);  // the hole stays open
        QCOMPARE(mask[200][30].item<float>(), 0.0f);   // the shadow beside the figure
        QCOMPARE(mask[205][100].item<float>(), 0.0f);  // and under it
        QCOMPARE(mask[5][5].item<float>(), 0.0f);
        QCOMPARE(mask[110][37].item<float>(), 1.0f);   // the outline
        QCOMPARE(mask[28][172].item<float>(), 1.0f);   // the grey orb
        QCOMPARE(mask[16][172].item<float>(), 1.0f);
        QCOMPARE(mask[160][30].item<float>(), 1.0f);   // the grey hand
    }

    // The classical cut-out's edge lies where the figure covers half of a pixel, also around
    // a chain's beads (4 px across), which the guided filter's reach (refineMask) shrinks:
    // each edge pixel is judged by its colour (snapToColourEdge). Unjudged, 46 pixels of the
    // beads' rims were lost. A grey figure on white darkens the background evenly where it
    // half covers a pixel, as a shadow does; only a wide such patch is one, and the grey
    // figure's edge is judged too (its rim taken for a shadow's, 46 pixels were off).
    void theClassicalEdgeLiesWhereTheFigureCoversHalfAPixel_data() {
        QTest::addColumn<float>("red");
        QTest::addColumn<float>("green");
        QTest::addColumn<float>("blue");
        QTest::newRow("dark red") << 0.35f << 0.08f << 0.1f;
        QTest::newRow("grey") << 0.6f << 0.6f << 0.6f;
    }

    void theClassicalEdgeLiesWhereTheFigureCoversHalfAPixel() {
        QFETCH(float, red);
        QFETCH(float, green);
        QFETCH(float, blue);
        constexpr int H = 200, W = 220;
        // A body and a chain of beads, anti-aliased; the truth: what they cover half of or more.
        std::vector<std::array<double, 3>> discs{{80.3, 99.6, 40.2}};
        for (int k = 0; k < 16; ++k) discs.push_back({133.0 + 5.3 * k, 20.0 + 9.7 * k, 2.2});
        const auto coverage = coverageOf(H, W, [&](double x, double y) {
            return std::any_of(discs.begin(), discs.end(), [&](const auto& d) { return std::hypot(x - d[0], y - d[1]) < d[2]; });
        });
        const auto truth = coverage >= 0.5f;
        const float figure[3] = {red, green, blue};
        const float background = 0.95f;
        auto rgba = torch::ones({4, H, W});
        for (int k = 0; k < 3; ++k) rgba[k] = background * (1 - coverage) + figure[k] * coverage;
        const auto s = extractSubject(rgba, false, {}, MaskSource::Classical, 0.001, "beads.png");
        const auto wrong = (s.region.to(torch::kBool) != truth).sum().template item<int>();
        qInfo("%d pixels off of %d", wrong, truth.sum().template item<int>());
        QVERIFY2(wrong <= 16, qPrintable(QString::number(wrong)));
    }

    // A pixel the figure covers exactly half of (a hat's brim drawn on pixel middles) is the
    // figure's. Stored in 8 bits, its colour rounds half a step towards one side, and its
    // coverage from colour came out a hair under ½, and a blue box on mauve lost every pixel
    // of its sides (276 of 276) before the edge snap allowed for the rounding.
    void aPixelCoveredHalfIsTheFigures() {
        constexpr int H = 120, W = 160;
        // A box from (40.5, 30.5) to (120.5, 90.5): every pixel on its sides is covered half.
        auto coverage = torch::zeros({H, W});
        coverage.slice(0, 31, 90).slice(1, 41, 120).fill_(1.0f);
        coverage.select(0, 30).slice(0, 41, 120).fill_(0.5f);
        coverage.select(0, 90).slice(0, 41, 120).fill_(0.5f);
        coverage.select(1, 40).slice(0, 31, 90).fill_(0.5f);
        coverage.select(1, 120).slice(0, 31, 90).fill_(0.5f);
        const float hat[3] = {97, 128, 197}, mauve[3] = {180, 150, 163};
        auto rgb = torch::empty({3, H, W});
        for (int k = 0; k < 3; ++k) rgb[k] = (mauve[k] * (1 - coverage) + hat[k] * coverage + 0.5f).floor() / 255.0f;
        const auto region = extractSubject(rgb, false, {}, MaskSource::Classical, 0.001, "hat.png").region.to(torch::kBool);
        const auto half = coverage == 0.5f;
        const auto lost = (half & ~region).sum().item<int>();
        const auto added = (region & (coverage < 0.5f)).sum().item<int>();
        qInfo("%d of %d half-covered pixels lost, %d added", lost, half.sum().item<int>(), added);
        QCOMPARE(lost, 0);
        QCOMPARE(added, 0);
    }

    // A part thinner than the guided filter's window and of low contrast (a brown spear's shaft
    // 2 px wide on a mauve background, 0.07 from it) is kept by the classical cut-out: the
    // filter averaged it under ½ and the whole shaft was lost. The anti-aliased rim of a hard
    // ground shadow running out of the frame is as thin, and stays out: with a learned mask of
    // the body on white, nothing more than 4 px from the body is taken (42 pixels of the rim
    // were, before thinPieces left out what lies beside a shadow).
    void theClassicalCutOutKeepsAThinPartOfLowContrast() {
        constexpr int H = 160, W = 200;
        const auto body = coverageOf(H, W, [](double x, double y) { return std::hypot(x - 70, y - 80) < 35; });
        const auto shaft = coverageOf(H, W, [](double x, double y) {
            // Within 1 px of the segment from (130, 140) to (185, 30).
            const double dx = 55, dy = -110;
            const double t = std::clamp(((x - 130) * dx + (y - 140) * dy) / (dx * dx + dy * dy), 0.0, 1.0);
            return std::hypot(x - 130 - t * dx, y - 140 - t * dy) < 1.0;
        });
        const float mauve[3] = {0.34f, 0.26f, 0.28f}, skin[3] = {0.45f, 0.9f, 0.75f}, wood[3] = {0.42f, 0.29f, 0.2f};
        auto rgb = torch::empty({3, H, W});
        for (int k = 0; k < 3; ++k) rgb[k] = (mauve[k] * (1 - shaft) + wood[k] * shaft) * (1 - body) + skin[k] * body;
        const auto spear = extractSubject(rgb, false, {}, MaskSource::Classical, 0.001, "spear.png").region.to(torch::kBool);
        const auto shaftTruth = (shaft >= 0.5f) & (body < 0.5f);
        const auto kept = (spear & shaftTruth).sum().item<double>() / shaftTruth.sum().item<double>();
        const auto added = (spear & (body < 0.5f) & (shaft < 0.5f)).sum().item<int>();
        qInfo("shaft kept %.3f, %d pixels added around", kept, added);
        QVERIFY2(kept > 0.95, qPrintable(QString::number(kept)));
        QVERIFY2(added <= 20, qPrintable(QString::number(added)));

        constexpr int H2 = 208, W2 = 308;
        const auto shadow = coverageOf(H2, W2, [](double x, double y) {
            return std::pow((x - 165) / 150, 2) + std::pow((y - 190) / 40, 2) < 1;
        });
        const auto blob = coverageOf(H2, W2, [](double x, double y) {
            return std::pow((x - 170) / 115, 2) + std::pow((y - 110) / 68, 2) < 1;
        });
        const float white[3] = {0.97f, 0.97f, 0.96f}, purple[3] = {0.55f, 0.3f, 0.45f};
        auto onWhite = torch::empty({3, H2, W2});
        for (int k = 0; k < 3; ++k) onWhite[k] = white[k] * (1 - 0.5f * shadow) * (1 - blob) + purple[k] * blob;
        const MaskPredictor learned = [&](const torch::Tensor&) { return (blob >= 0.5f).to(torch::kFloat32); };
        const auto found = extractSubject(onWhite, false, learned, MaskSource::U2NetP, 0.001, "shadow.png").region.to(torch::kBool);
        const auto far = (found & (dilate((blob > 0.0f).to(torch::kFloat32), 4) < 0.5)).sum().item<int>();
        qInfo("%d pixels taken more than 4 px from the body", far);
        QCOMPARE(far, 0);
    }

    // An eye's white in the background's own colour (white on white) is the figure's: it holds
    // its pupil, an island of the figure. A hole of the same size holding nothing, or only a
    // speck under 5 % of its size, stays open.
    void classicalCutOutKeepsAnEyesWhiteOfTheBackgroundsColour() {
        constexpr std::int64_t H = 240, W = 200;
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        const auto disc = [&xs, &ys](double cx, double cy, double r) {
            return ((xs - cx).pow(2) + (ys - cy).pow(2)).sqrt() < r;
        };
        const std::array<float, 3> white{0.98f, 0.98f, 0.98f}, ink{0.1f, 0.08f, 0.12f};
        c.paint(torch::ones({H, W}, torch::kBool), white);
        c.paint(disc(100, 110, 70), {0.55f, 0.56f, 0.6f});  // a grey head
        c.paint(disc(70, 90, 14), white);                    // an eye's white
        c.paint(disc(70, 92, 6), ink);                       // and its pupil
        c.paint(disc(130, 90, 14), white);                   // a hole
        c.paint(disc(100, 145, 14), white);                  // a hole with a 2x2 speck
        c.paint((xs >= 99) & (xs < 101) & (ys >= 144) & (ys < 146), ink);
        const auto mask = classicalMask(c.rgb);
        QCOMPARE(mask[80][70].item<float>(), 1.0f);   // the eye's white
        QCOMPARE(mask[92][70].item<float>(), 1.0f);   // the pupil
        QCOMPARE(mask[90][130].item<float>(), 0.0f);  // the hole
        QCOMPARE(mask[140][100].item<float>(), 0.0f); // the hole with the speck
        QCOMPARE(mask[110][100].item<float>(), 1.0f); // the head
        QCOMPARE(mask[10][10].item<float>(), 0.0f);
    }

    // On a clean (lossless) flat background, a part drawn a shade off it without an outline (a
    // leg 0.02 from a white background, hard-edged) is subject; the background beside it is not.
    void classicalCutOutFindsAPartAShadeOffACleanBackground() {
        constexpr std::int64_t H = 240, W = 200;
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        const std::array<float, 3> bg{0.96f, 0.97f, 0.95f}, body{0.7f, 0.2f, 0.25f}, leg{0.94f, 0.95f, 0.93f};
        c.paint(torch::ones({H, W}, torch::kBool), bg);
        c.paint((xs >= 70) & (xs < 130) & (ys >= 40) & (ys < 150), body);
        c.paint((xs >= 80) & (xs < 100) & (ys >= 150) & (ys < 220), leg);
        const auto mask = classicalMask(c.rgb);
        QCOMPARE(mask[100][100].item<float>(), 1.0f);  // the body
        QCOMPARE(mask[200][90].item<float>(), 1.0f);   // the leg a shade off the background
        QCOMPARE(mask[200][110].item<float>(), 0.0f);  // the background beside it
        QCOMPARE(mask[10][10].item<float>(), 0.0f);
    }

    // A hard ground shadow running out of the frame leaves a white background even: it is white
    // darkened evenly, not another colour. `auto` takes the classical cut-out there, which
    // leaves the shadow out; the learned remover's path measured the background behind its
    // mask with the shadow in it, a grey that blended into the white beside the shadow's rim,
    // and took the white corners the shadow and the frame enclose (seed 42 of the quality
    // suite: 1284 pixels). A blob of another colour crossing the frame as the shadow does
    // still makes the background uneven.
    void aShadowRunningOutOfTheFrameLeavesTheBackgroundEven() {
        constexpr std::int64_t H = 200, W = 240;
        const auto shadow = coverageOf(H, W, [](double x, double y) {
            return std::pow((x - 60) / 110, 2) + std::pow((y - 200) / 45, 2) < 1;
        });
        const auto body = coverageOf(H, W, [](double x, double y) {
            return std::pow((x - 120) / 45, 2) + std::pow((y - 100) / 60, 2) < 1;
        });
        const float white[3] = {0.98f, 0.98f, 0.97f}, red[3] = {0.7f, 0.2f, 0.25f}, blue[3] = {0.2f, 0.3f, 0.8f};
        const auto draw = [&](const float* under, float darkening) {
            auto rgb = torch::empty({3, H, W});
            for (int k = 0; k < 3; ++k) {
                const auto ground = under ? white[k] * (1 - shadow) + under[k] * shadow : white[k] * (1 - darkening * shadow);
                rgb[k] = ground * (1 - body) + red[k] * body;
            }
            return rgb;
        };
        const auto shaded = draw(nullptr, 0.45f);
        const auto background = evenBackground(shaded);
        QVERIFY2(background.even(), std::to_string(background.spread).c_str());
        QVERIFY(plainBackground(shaded));  // `auto` takes the classical cut-out
        const auto truth = body >= 0.5f;
        const auto found = extractSubject(shaded, false, {}, MaskSource::Classical, 0.001, "shadow.png").region.to(torch::kBool);
        const auto iou = (found & truth).sum().item<double>() / (found | truth).sum().item<double>();
        QVERIFY2(iou > 0.99, std::to_string(iou).c_str());
        QVERIFY(!plainBackground(draw(blue, 0.0f)));
    }

    // A gradient background is even too: the shade fitted to the border (the figure the frame
    // cuts left out of the fit) lies within kEvenBackgroundSpread of it. The classical cut-out
    // measures each pixel against the shade behind it: an arm in a colour the gradient has
    // elsewhere is found, and no corner of the background is taken; and it completes a learned
    // remover's mask that missed the arm. A flat background with a figure crossing the frame
    // stays one colour; a noise background is not even.
    void aGradientBackgroundIsEvenWhereTheFrameCutsTheFigure() {
        constexpr std::int64_t H = 240, W = 200;
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        const auto top = torch::tensor({0.15f, 0.25f, 0.75f}).view({3, 1, 1});
        const auto bottom = torch::tensor({0.95f, 0.85f, 0.6f}).view({3, 1, 1});
        const auto shadeAt = [&](double t) { return top + (bottom - top) * t; };
        c.rgb = (top + (bottom - top) * ((xs + ys) / (H + W)).unsqueeze(0)).contiguous();  // diagonal
        const auto hole = (xs >= 85) & (xs < 115) & (ys >= 100) & (ys < 130);  // the background
        const auto body = (xs >= 50) & (xs < 150) & (ys >= 60) & ~hole;  // leaves at the bottom
        const auto arm = (xs >= 150) & (ys >= 80) & (ys < 95);            // and at the right
        const auto armColour = shadeAt(0.1).flatten();
        c.paint(body, {0.55f, 0.15f, 0.2f});
        c.paint(arm, {armColour[0].item<float>(), armColour[1].item<float>(), armColour[2].item<float>()});

        const auto truth = body | arm;
        const auto iouOf = [&](const torch::Tensor& mask) {
            return (mask & truth).sum().item<double>() / (mask | truth).sum().item<double>();
        };
        const auto background = evenBackground(c.rgb);
        QVERIFY2(background.even(), std::to_string(background.spread).c_str());
        QVERIFY(!background.flat());
        QVERIFY(!plainBackground(c.rgb));  // `auto` takes the learned remover, completed
        const auto mask = classicalMask(c.rgb) >= 0.5;
        QVERIFY2(iouOf(mask) > 0.98, std::to_string(iouOf(mask)).c_str());
        QVERIFY(mask[87][190].item<bool>());  // the arm
        QVERIFY(!mask[5][5].item<bool>());    // the corners of the background
        QVERIFY(!mask[235][195].item<bool>());

        // A learned mask that misses the arm and fills the hole.
        const MaskPredictor bodyOnly = [&](const torch::Tensor&) { return (body | hole).to(torch::kFloat32); };
        const auto subject = extractSubject(c.rgb, false, bodyOnly, MaskSource::U2NetP, 0.002, "gradient");
        const auto completed = subject.region > 0;
        QVERIFY2(iouOf(completed) > 0.98, std::to_string(iouOf(completed)).c_str());
        QVERIFY(!completed[115][100].item<bool>());

        Canvas flat(H, W);
        flat.paint(torch::ones({H, W}, torch::kBool), {0.3f, 0.6f, 0.35f});
        flat.paint(body, {0.55f, 0.15f, 0.2f});
        QVERIFY(evenBackground(flat.rgb).flat());
        QVERIFY(!plainBackground(flat.rgb));  // the body covers too much of the border

        c.rgb = 0.5 + 0.3 * torch::stack({(xs * 1.7).sin() * (ys * 2.3).cos(), (xs * 0.9).cos(), (ys * 1.3).sin()});
        QVERIFY(!evenBackground(c.rgb).even());
    }

    // Blurred blobs of colour are no shade the border can be fitted with, but the background
    // beside a learned remover's mask is as smooth: the classical cut-out against it completes
    // the mask with an arm the remover missed, as wide as several of smoothBackground's cells
    // (its rough first estimate keeps the arm out of the fine one). Noise is smooth nowhere:
    // the background behind the mask is not even there, so nothing completes it.
    void aBlobBackgroundBehindTheMaskCompletesIt() {
        constexpr std::int64_t H = 240, W = 220;
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        const auto blob = [&](double x, double y, double sigma) {
            return (-((xs - x).pow(2) + (ys - y).pow(2)) / (2 * sigma * sigma)).exp();
        };
        c.rgb = torch::stack({0.35 + 0.5 * blob(30, 40, 35) + 0.3 * blob(200, 200, 30),
                              0.45 + 0.4 * blob(180, 60, 30) - 0.3 * blob(40, 210, 35),
                              0.3 + 0.5 * blob(110, 230, 40) + 0.4 * blob(200, 20, 25)})
                    .clamp(0, 1)
                    .contiguous();
        const auto body = (xs >= 60) & (xs < 140) & (ys >= 50) & (ys < 200);
        const auto arm = (xs >= 140) & (xs < 190) & (ys >= 80) & (ys < 94);
        c.paint(body, {0.75f, 0.2f, 0.3f});
        c.paint(arm, {0.95f, 0.85f, 0.2f});
        const auto truth = body | arm;
        const auto iouOf = [&](const torch::Tensor& mask) {
            return (mask & truth).sum().item<double>() / (mask | truth).sum().item<double>();
        };
        QVERIFY(!evenBackground(c.rgb).even());
        const auto behind = backgroundBehind(c.rgb, body.to(torch::kFloat32));
        QVERIFY2(behind.even(), std::to_string(behind.spread).c_str());

        const MaskPredictor bodyOnly = [&](const torch::Tensor&) { return body.to(torch::kFloat32); };
        const auto completed = extractSubject(c.rgb, false, bodyOnly, MaskSource::U2NetP, 0.002, "blobs").region > 0;
        QVERIFY2(iouOf(completed) > 0.98, std::to_string(iouOf(completed)).c_str());
        QVERIFY(completed[87][185].item<bool>());  // the arm's end
        QVERIFY(!completed[87][195].item<bool>());

        torch::manual_seed(7);
        c.rgb = (0.5 + 0.25 * torch::randn({3, H, W})).clamp(0, 1);
        c.paint(body, {0.75f, 0.2f, 0.3f});
        QVERIFY(!backgroundBehind(c.rgb, body.to(torch::kFloat32)).even());
    }

    // On noise, a learned remover fills a ring's inside; the background seen through it is
    // like the background beside the mask, in mean colour and in grain, and is taken out. The
    // ring stays, and so does a flat panel in the background's mean colour (without its grain).
    void theBackgroundSeenThroughARingIsTakenOut() {
        constexpr std::int64_t H = 240, W = 220;
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        torch::manual_seed(11);
        c.rgb = (torch::tensor({0.45f, 0.5f, 0.55f}).view({3, 1, 1}) + 0.12 * torch::randn({3, H, W})).clamp(0, 1);
        const auto fromRing = ((xs - 160).pow(2) + (ys - 120).pow(2)).sqrt();
        const auto body = (xs >= 50) & (xs < 140) & (ys >= 40) & (ys < 210);
        const auto panel = (xs >= 75) & (xs < 115) & (ys >= 100) & (ys < 140);
        const auto ring = (fromRing >= 14) & (fromRing < 26);
        c.paint(body, {0.75f, 0.2f, 0.3f});
        c.paint(panel, {0.45f, 0.5f, 0.55f});
        c.paint(ring, {0.2f, 0.3f, 0.85f});
        const auto filled = (body | (fromRing < 26)).to(torch::kFloat32);  // the inside taken too

        const auto mask = withoutBackgroundSeenThrough(c.rgb, filled) >= 0.5;
        QVERIFY(!mask[120][160].item<bool>());  // the ring's inside
        QVERIFY(!mask[120][148].item<bool>());  // up to its rim
        QVERIFY(mask[120][145].item<bool>());   // the ring
        QVERIFY(mask[120][184].item<bool>());
        QVERIFY(mask[120][95].item<bool>());    // the panel
        QVERIFY(mask[60][95].item<bool>());     // the body

        const MaskPredictor fills = [&](const torch::Tensor&) { return filled; };
        const auto region = extractSubject(c.rgb, false, fills, MaskSource::U2NetP, 0.002, "noise").region > 0;
        QVERIFY(!region[120][160].item<bool>());
        QVERIFY(region[120][95].item<bool>());
        QVERIFY(region[120][184].item<bool>());
    }

    // A part's size counts what it encloses: a chain's ring drawn as an outline (68 px, its
    // disc 137 px) is a part at a minimum share of 0.6 % (87 px) of a 14 400-px body, a solid
    // speck of 16 px is not; the ring's inside stays open.
    void aRingIsAsLargeAsWhatItEncloses() {
        constexpr std::int64_t H = 180, W = 180;
        Canvas c(H, W);
        const auto &xs = c.xs, &ys = c.ys;
        const auto radius = ((xs - 160).pow(2) + (ys - 20).pow(2)).sqrt();
        const auto body = (xs >= 20) & (xs < 140) & (ys >= 40) & (ys < 160);
        const auto ring = (radius >= 4.5) & (radius < 6.5);
        const auto speck = (xs >= 160) & (xs < 164) & (ys >= 160) & (ys < 164);
        const auto parts = subjectParts(body | ring | speck, 0.006, 0.0015);
        QCOMPARE(parts.kept, 2);
        QCOMPARE(parts.dropped, 1);
        QCOMPARE(parts.mask[20][155].item<std::uint8_t>(), std::uint8_t{1});  // the ring
        QCOMPARE(parts.mask[20][160].item<std::uint8_t>(), std::uint8_t{0});  // its inside
        QCOMPARE(parts.mask[161][161].item<std::uint8_t>(), std::uint8_t{0}); // the speck
    }

    // A subject cut by the frame gets a notice naming the edge; one that is not gets none.
    void aSubjectCutByThePictureIsNoticed() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        const auto whole = readImageFile(kSamples / "knight_alpha.png").image;
        Image cut(whole.width, whole.height * 3 / 4, whole.channels);
        std::copy_n(whole.pixels.begin(), cut.pixels.size(), cut.pixels.begin());
        writePngFile(d / "cut.png", cut);
        const auto r = runCharacter(quick(d / "cut.png", d / "cut.glb"));
        QVERIFY(r.meshReport.closedManifold());
        const auto notice = std::find_if(r.notices.begin(), r.notices.end(), [](const std::string& n) {
            return n.find("cut off") != std::string::npos;
        });
        QVERIFY2(notice != r.notices.end(), "no notice for a subject cut at the bottom");
        QVERIFY2(notice->find("bottom edge") != std::string::npos, notice->c_str());
        QVERIFY2(notice->find("top") == std::string::npos, notice->c_str());
        const auto fine = runCharacter(quick(kSamples / "knight_alpha.png", d / "whole.glb"));
        for (const auto& n : fine.notices) QVERIFY2(n.find("cut off") == std::string::npos, n.c_str());
    }

    // The mesh carries where it lies on the picture: drawn there, it covers the subject to
    // within a fraction of a pixel along the outline, also where the crop ran past the picture's
    // left edge, and on a picture over 2048 px that the work was done on scaled down. (Its
    // bounds fitted to the subject's box instead, a small figure is off by up to half a pixel
    // on every side.)
    void theMeshLiesWhereTheSubjectIsOnThePicture_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<double>("bodyX");  // the body's centre and radii, the orb's centre
        QTest::addColumn<double>("bodyY");
        QTest::addColumn<double>("radiusX");
        QTest::addColumn<double>("radiusY");
        QTest::addColumn<double>("orbX");
        QTest::addColumn<double>("orbY");
        QTest::newRow("small, crop past the left edge") << 160 << 120 << 32.0 << 70.0 << 30.0 << 40.0 << 128.0 << 24.0;
        QTest::newRow("scaled down for the work") << 2100 << 150 << 1000.0 << 80.0 << 90.0 << 60.0 << 1900.0 << 40.0;
    }
    void theMeshLiesWhereTheSubjectIsOnThePicture() {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(double, bodyX);
        QFETCH(double, bodyY);
        QFETCH(double, radiusX);
        QFETCH(double, radiusY);
        QFETCH(double, orbX);
        QFETCH(double, orbY);
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        Image picture(width, height, 4);
        Image truth(width, height, 1);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const double cx = x + 0.5, cy = y + 0.5;
                const bool body = std::pow((cx - bodyX) / radiusX, 2) + std::pow((cy - bodyY) / radiusY, 2) < 1;
                const bool orb = std::pow(cx - orbX, 2) + std::pow(cy - orbY, 2) < 64;
                auto* p = picture.at(x, y);
                p[0] = body ? 200 : 40, p[1] = 120, p[2] = orb ? 230 : 60;
                p[3] = body || orb ? 255 : 0;
                *truth.at(x, y) = p[3];
            }
        writePngFile(d / "placed.png", picture);
        const auto r = runCharacter(quick(d / "placed.png", d / "placed.glb"));
        QCOMPARE(r.parts, 2);
        const auto back = readGlb(d / "placed.glb");
        QVERIFY(back.placement);
        QCOMPARE(back.placement->width, width);
        QCOMPARE(back.placement->height, height);
        const auto c = compareFront(back, truth, picture);
        qInfo("front view on the picture: IoU %.4f", c.iou);
        QVERIFY2(c.iou >= 0.985, qPrintable(QString::number(c.iou)));
        auto off = back;  // half a pixel to the right shows
        off.placement->x0 += 0.5;
        const auto shifted = compareFront(off, truth, picture).iou;
        QVERIFY2(shifted < c.iou - 0.004, qPrintable(QString::number(shifted)));
    }

    // Specks under the minimum share are dropped and counted; a share of 0 keeps them all, a
    // share above every part keeps the largest.
    void theMinimumPartShareSortsPartsFromSpecks() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        auto p = quick(kSamples / "knight_parts_alpha.png", d / "a.glb");
        p.minPart = 2.2;  // the star (1.9 % of the subject) becomes a speck; potion (2.5 %) and orb stay
        const auto some = runCharacter(p);
        QCOMPARE(some.parts, 3);
        QCOMPARE(some.droppedParts, 1);
        QCOMPARE(meshParts(some.mesh), 3);
        p.minPart = 50.0;
        const auto one = runCharacter(p);
        QCOMPARE(one.parts, 1);
        QCOMPARE(one.droppedParts, 3);
        QCOMPARE(meshParts(one.mesh), 1);
    }

    void brokenWeightsAreNamed() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        std::filesystem::create_directories(d / "weights");
        std::ofstream(d / "weights" / "u2netp.safetensors") << "garbage";
        // On a background that is not even (a grey gradient), auto wants the learned remover.
        auto p = quick(kSamples / "creature_gray.png", d / "a.glb");
        p.weightsDir = d / "weights";
        try {
            runCharacter(p);
            QFAIL("no error");
        } catch (const NotInstalledError& e) {
            QFAIL(e.what());  // there is a file: broken, not missing
        } catch (const WeightFileError& e) {  // named, with how to mend it
            QVERIFY2(QString(e.what()).contains(QString::fromStdString((d / "weights" / "u2netp.safetensors").string())) &&
                         QString(e.what()).contains("to replace it, install it with `stageload install-weights`"),
                     e.what());
        }
        QVERIFY(!std::filesystem::exists(p.output));
        // Missing weights: learned refused with the fix; auto falls back with a notice.
        p.weightsDir = d / "none";
        p.remover = RemoverChoice::U2NetP;
        try {
            runCharacter(p);
            QFAIL("no error");
        } catch (const NotInstalledError& e) {  // missing is not installed, not broken
            QVERIFY2(QString(e.what()).contains("not installed") && QString(e.what()).contains("stageload install-weights"),
                     e.what());
            QVERIFY(classifyFailure(std::current_exception()).kind == FailureKind::NotInstalled);
        }
        p.remover = RemoverChoice::Auto;
        const auto r = runCharacter(p);
        QVERIFY(r.maskSource == MaskSource::Classical);
        QVERIFY(!r.notices.empty());
        QVERIFY(QString::fromStdString(r.notices.front()).contains("stageload install-weights"));
        QVERIFY(QString::fromStdString(r.notices.front()).contains("classical cut-out was used"));
        QVERIFY(r.meshReport.closedManifold());
        // On an even background auto chooses the classical cut-out, installed weights or not
        // (the broken file is never opened), and has nothing to excuse.
        p.input = kSamples / "knight_white.png";
        p.weightsDir = d / "weights";
        const auto plain = runCharacter(p);
        QVERIFY(plain.maskSource == MaskSource::Classical);
        QVERIFY2(plain.notices.empty(), plain.notices.empty() ? "" : plain.notices.front().c_str());
    }

    // Auto on the knight with detached things on white: every part, none missing (U²-Netp
    // alone drops the potion).
    void autoKeepsEveryPartOnAPlainBackground() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        const auto r = runCharacter(quick(kSamples / "knight_parts_white.png", d / "a.glb"));
        QVERIFY(r.maskSource == MaskSource::Classical);
        QCOMPARE(r.parts, 4);
        QCOMPARE(meshParts(r.mesh), 4);
    }

    void cancelStopsBetweenStages() {
        QTemporaryDir dir;
        std::atomic<bool> cancel{false};
        auto p = quick(kSamples / "knight_alpha.png", std::filesystem::path(dir.path().toStdString()) / "a.glb");
        p.cancel = &cancel;
        p.onStage = [&](const std::string& stage, bool begins) {
            if (stage == "texture" && !begins) cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(Cancelled, runCharacter(p));
        QVERIFY(!std::filesystem::exists(p.output));
    }

    // A guarded built-in run: a pressure threshold on a machine without PSI is said before
    // admission, once, and the run goes on; with PSI, or with no such threshold, nothing is said.
    void aPressureOptionWithoutPsiIsSaidAtStart_data() {
        QTest::addColumn<bool>("psi");
        QTest::addColumn<bool>("threshold");
        QTest::addColumn<bool>("said");
        QTest::newRow("no PSI, --pressure-kill") << false << true << true;
        QTest::newRow("PSI, --pressure-kill") << true << true << false;
        QTest::newRow("no PSI, no threshold") << false << false << false;
    }
    void aPressureOptionWithoutPsiIsSaidAtStart() {
        QFETCH(bool, psi);
        QFETCH(bool, threshold);
        QFETCH(bool, said);
        QTemporaryDir dir;
        CharacterJobParams p;
        p.run = quick(kSamples / "knight_alpha.png", std::filesystem::path(dir.path().toStdString()) / "a.glb");
        GuardParams g;
        g.waitFree = 0;
        g.quietFor = 0;
        if (threshold) g.pressureKill = PressureLimit{60, 10};
        p.guard = g;
        p.pressure = [psi] { return psi ? std::optional<MemoryPressure>(MemoryPressure{}) : std::nullopt; };
        std::vector<std::string> notices;
        bool admitted = false;
        p.onGuardNotice = [&](const std::string& n) {
            QVERIFY(!admitted);  // before the guard's first word
            notices.push_back(n);
        };
        p.onGuard = [&](const GuardUpdate&) { admitted = true; };
        const auto j = runCharacterJob(p);
        QVERIFY2(j.ok(), j.message.c_str());
        QCOMPARE(notices.size(), std::size_t(said ? 1 : 0));
        if (said)
            QVERIFY2(notices.front().find("--pressure-kill cannot work here: this machine reports no memory pressure") !=
                         std::string::npos,
                     notices.front().c_str());
    }

    // Memory pressure above --pressure-kill for its duration stops a built-in run too, with the
    // pressure stop's own exit code (6) and a stop mark naming it.
    void pressureStopsABuiltInRun() {
        QTemporaryDir dir;
        const std::filesystem::path d = dir.path().toStdString();
        CharacterJobParams p;
        p.run = quick(kSamples / "knight_alpha.png", d / "a.glb");
        p.trace = d / "a.jsonl";
        GuardParams g;
        g.waitFree = 0;
        g.quietFor = 0;
        g.poll = 0.05;
        g.pressureKill = PressureLimit{60, 0.1};
        p.guard = g;
        std::atomic<bool> thrashing{false};
        p.pressure = [&] { return MemoryPressure{95, thrashing ? 90.0 : 0.0}; };
        p.onStage = [&](const std::string& stage, int, int, bool begins) {
            if (stage == "shape_512" && begins) thrashing = true;
        };
        const auto j = runCharacterJob(p);
        QVERIFY2(j.end == JobEnd::StoppedByGuard, j.message.c_str());
        QVERIFY(j.guardStop == GuardStop::Pressure);
        QCOMPARE(j.exitCode(), 6);
        QVERIFY2(j.message.find("--pressure-kill") != std::string::npos, j.message.c_str());
        QVERIFY(!std::filesystem::exists(p.run.output));
    }
};

}  // namespace test_character

STAGELOAD_APPLESS_SUITE(test_character, test_character::TestCharacter)
#include "test_character.moc"
