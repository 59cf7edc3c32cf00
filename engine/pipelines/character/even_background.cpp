#include "engine/pipelines/character/even_background.h"

#include <algorithm>
#include <vector>

#include "engine/core/image_tensor.h"
#include "engine/core/order_statistics.h"
#include "engine/pipelines/character/shade.h"

namespace stageload {
namespace {

// The border ring: this share of the picture's short side wide, at least kLeastRing px.
constexpr std::int64_t kRingDivisor = 100;
constexpr std::int64_t kLeastRing = 2;
// Each side of the ring is cut into this many pieces to measure the spread.
constexpr std::int64_t kPiecesPerSide = 4;
// The shade is fitted again this many times, each time to the border pixels within
// kKeptFactor times the median distance from the last fit (at least kLeastKept): the figure
// where the frame cuts it is far from the shade and drops out.
constexpr int kFitRounds = 4;
constexpr double kKeptFactor = 3.0;
constexpr double kLeastKept = 0.02;
// A tiny ridge keeps a border whose kept pixels lie on one line solvable.
constexpr double kRidge = 1e-6;

std::int64_t ringWidth(std::int64_t h, std::int64_t w) {
    return std::max<std::int64_t>(kLeastRing, std::min(h, w) / kRingDivisor);
}

// The quadratic terms 1, x, y, x², xy, y² of coordinates x, y (in -1..1; broadcast together).
std::vector<torch::Tensor> quadraticTerms(const torch::Tensor& x, const torch::Tensor& y) {
    return {torch::ones_like(x * y), x, y, x * x, x * y, y * y};
}

// The smooth shade behind `rgb` [3,H,W], fitted to its border. [3,H,W].
torch::Tensor shadeFromBorder(const torch::Tensor& rgb) {
    const auto h = rgb.size(1), w = rgb.size(2);
    const auto options = torch::TensorOptions().dtype(torch::kFloat64);
    const auto ys = torch::linspace(-1.0, 1.0, h, options).view({1, h, 1});
    const auto xs = torch::linspace(-1.0, 1.0, w, options).view({1, 1, w});
    const auto colours = borderPixels(rgb).to(torch::kFloat64).t();  // [N,3]
    const auto terms = torch::stack(quadraticTerms(borderPixels(xs.expand({1, h, w}))[0],
                                                   borderPixels(ys.expand({1, h, w}))[0]),
                                    1);  // [N,6]
    const auto ridge = kRidge * torch::eye(terms.size(1), options);
    auto kept = torch::ones({terms.size(0)}, options.dtype(torch::kBool));
    torch::Tensor coefficients;  // [6,3]
    for (int round = 0; round < kFitRounds; ++round) {
        const auto a = terms.index({kept}), b = colours.index({kept});
        coefficients = torch::linalg_solve(a.t().mm(a) + ridge, a.t().mm(b));
        const auto distance = colourDistance(colours.t(), terms.mm(coefficients).t());
        kept = distance <= std::max(kLeastKept, kKeptFactor * distance.median().item<double>());
    }
    auto shade = torch::zeros({3, h, w});
    const auto everywhere = quadraticTerms(xs.to(torch::kFloat32), ys.to(torch::kFloat32));
    const auto c = coefficients.to(torch::kFloat32);
    for (std::size_t k = 0; k < everywhere.size(); ++k) shade += c[k].view({3, 1, 1}) * everywhere[k];
    return shade;
}

// How far the whole border strays from `reference` ([3,1] or [3,N], as borderPixels): the
// 95th percentile of its colour distances.
double wholeBorderSpread(const torch::Tensor& border, const torch::Tensor& reference) {
    return colourDistance(border, reference).quantile(0.95).item<double>();
}

// How far the border of `rgb` [3,H,W] strays from `reference` ([3,1,1] or [3,H,W]) along most
// of it: the ring's sides are cut into kPiecesPerSide pieces, and of their 95th-percentile
// colour distances the median is taken. A figure, a shadow or a blob crossing the frame covers
// a few pieces; a gradient, noise or texture covers them all.
double mostBorderSpread(const torch::Tensor& rgb, const torch::Tensor& reference) {
    const auto h = rgb.size(1), w = rgb.size(2), ring = ringWidth(h, w);
    std::vector<float> pieces;
    // One side of the ring: rows (dim 1) or columns (dim 2) start..end, cut along the other.
    const auto measure = [&](std::int64_t dim, std::int64_t start, std::int64_t end) {
        const auto behind = reference.size(dim) == 1 ? reference : reference.slice(dim, start, end);
        const auto distance = colourDistance(rgb.slice(dim, start, end), behind);
        for (const auto& piece : distance.tensor_split(kPiecesPerSide, dim == 1 ? 1 : 0))
            if (piece.numel() > 0) pieces.push_back(piece.flatten().quantile(0.95).item<float>());
    };
    measure(1, 0, ring);
    measure(1, h - ring, h);
    measure(2, 0, ring);
    measure(2, w - ring, w);
    return median(pieces);
}

}  // namespace

torch::Tensor borderPixels(const torch::Tensor& image) {
    const auto c = image.size(0), h = image.size(1), w = image.size(2), ring = ringWidth(h, w);
    return torch::cat({image.slice(1, 0, ring).reshape({c, -1}), image.slice(1, h - ring, h).reshape({c, -1}),
                       image.slice(2, 0, ring).reshape({c, -1}), image.slice(2, w - ring, w).reshape({c, -1})},
                      1);
}

EvenBackground evenBackground(const torch::Tensor& rgbIn) {
    const auto rgb = rgbIn.to(torch::kFloat32);
    const auto border = borderPixels(rgb);
    const auto colour = std::get<0>(border.median(1)).view({3, 1});
    EvenBackground flat{colour.view({3, 1, 1}), wholeBorderSpread(border, colour)};
    if (flat.spread < kEvenBackgroundSpread) return flat;
    // Where most of the border is the median colour, what strays is local (a figure, a
    // shadow or a blob crossing the frame): no shade explains it. A ground shadow running out
    // of the frame is that colour darkened evenly, and the background as even as without it:
    // its spread is measured on the rest.
    if (mostBorderSpread(rgb, flat.colour) < kEvenBackgroundSpread) {
        const auto shadow = darkenedEvenly(border.unsqueeze(1), flat.colour)[0];
        if (const auto lit = border.index({torch::indexing::Slice(), ~shadow}); lit.size(1) > 0)
            flat.spread = wholeBorderSpread(lit, colour);
        return flat;
    }
    const auto shade = shadeFromBorder(rgb);
    EvenBackground shaded{shade, mostBorderSpread(rgb, shade)};
    return shaded.spread < flat.spread ? shaded : flat;
}

}  // namespace stageload
