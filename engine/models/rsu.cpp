#include "engine/models/rsu.h"

#include "engine/api/errors.h"
#include "engine/load/safetensors.h"

namespace stageload {

namespace F = torch::nn::functional;

namespace {

torch::nn::Conv2d conv3x3(std::int64_t in, std::int64_t out, std::int64_t dilation) {
    return torch::nn::Conv2d(
        torch::nn::Conv2dOptions(in, out, 3).padding(dilation).dilation(dilation));
}

// One axis of the JavaScript bilinear resize: source position x * in / out, its floor and ceil
// (the ceil clamped to the last pixel) and the fraction between them.
struct Axis {
    torch::Tensor lo, hi, frac;
};

Axis resizeAxis(std::int64_t in, std::int64_t out, torch::Dtype dtype) {
    const double scale = static_cast<double>(in) / static_cast<double>(out);
    const auto src = torch::arange(out, torch::kFloat64) * scale;
    const auto lo = src.floor();
    return {lo.to(torch::kLong), src.ceil().clamp_max(static_cast<double>(in - 1)).to(torch::kLong),
            (src - lo).to(dtype)};
}

bool startsWith(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

}  // namespace

RebnConvImpl::RebnConvImpl(std::int64_t in, std::int64_t out, std::int64_t dilation)
    : conv_s1(register_module("conv_s1", conv3x3(in, out, dilation))) {}

torch::Tensor RebnConvImpl::forward(const torch::Tensor& x) {
    return torch::relu(conv_s1(x));
}

RsuImpl::RsuImpl(int height, std::int64_t in, std::int64_t mid, std::int64_t out, bool dilated)
    : dilated_(dilated) {
    in_ = register_module("rebnconvin", RebnConv(in, out, 1));
    // Encoder rebnconv1 … rebnconv<height>; the last one is the block's bottom.
    for (int i = 1; i <= height; ++i) {
        const std::int64_t dilation =
            dilated ? (std::int64_t{1} << (i - 1)) : (i == height ? 2 : 1);
        encoder_.push_back(register_module("rebnconv" + std::to_string(i),
                                           RebnConv(i == 1 ? out : mid, mid, dilation)));
    }
    // Decoder rebnconv<height-1>d … rebnconv1d, registered (and run) top down.
    decoder_.resize(height - 1, RebnConv(nullptr));
    for (int i = height - 1; i >= 1; --i) {
        const std::int64_t dilation = dilated ? (std::int64_t{1} << (i - 1)) : 1;
        decoder_[i - 1] = register_module("rebnconv" + std::to_string(i) + "d",
                                          RebnConv(2 * mid, i == 1 ? out : mid, dilation));
    }
}

torch::Tensor RsuImpl::forward(const torch::Tensor& x) {
    const auto hxin = in_(x);
    const auto levels = static_cast<int>(decoder_.size());  // height - 1
    std::vector<torch::Tensor> skip;                        // hx1 … hx<height-1>
    skip.push_back(encoder_[0](hxin));
    for (int i = 1; i < levels; ++i)
        skip.push_back(encoder_[i](dilated_ ? skip.back() : rsuPool(skip.back())));
    auto d = encoder_[levels](skip.back());
    for (int i = levels - 1; i >= 0; --i) {
        d = decoder_[i](torch::cat({d, skip[i]}, 1));
        if (i > 0 && !dilated_) d = upsampleLike(d, skip[i - 1]);
    }
    return d + hxin;
}

torch::Tensor rsuPool(const torch::Tensor& x) {
    return F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2).ceil_mode(true));
}

torch::Tensor upsampleLike(const torch::Tensor& x, const torch::Tensor& like) {
    return F::interpolate(x, F::InterpolateFuncOptions()
                                 .size(std::vector<std::int64_t>{like.size(2), like.size(3)})
                                 .mode(torch::kBilinear)
                                 .align_corners(false));
}

std::shared_ptr<torch::nn::Module> foldedConvView(torch::nn::Module& net, const std::string& prefix,
                                                  int first) {
    auto view = std::make_shared<torch::nn::Module>(net.name() + "(onnx names)");
    for (const auto& child : net.named_children())
        if (!startsWith(child.key(), "stage")) view->register_module(child.key(), child.value());
    int folded = 0;
    for (const auto& item : net.named_parameters(/*recurse=*/true)) {
        const auto& name = item.key();
        if (!startsWith(name, "stage")) continue;
        const bool bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
        view->register_parameter(prefix + std::to_string(first + 3 * (folded / 2) + (bias ? 1 : 0)),
                                 item.value(), item.value().requires_grad());
        ++folded;
    }
    return view;
}

void loadRemoverWeights(torch::nn::Module& net, const std::filesystem::path& safetensors,
                        const std::string& prefix, int first) {
    const auto file = SafetensorsFile::open(safetensors);
    if (file.find("stage1.rebnconvin.conv_s1.weight"))
        loadWeights(net, file);
    else
        loadWeights(*foldedConvView(net, prefix, first), file);
}

torch::Tensor removerMask(torch::nn::Module& net, const torch::Tensor& x,
                          const std::function<torch::Tensor(const torch::Tensor&)>& forward,
                          std::int64_t height, std::int64_t width, torch::Tensor* probabilities) {
    // Not InferenceMode: its tensors refuse in-place updates outside it, a trap for callers.
    torch::NoGradGuard noGrad;
    const auto params = net.parameters();
    const auto device = params.empty() ? torch::Device(torch::kCPU) : params.front().device();
    const auto out = forward(x.to(device)).to(torch::kCPU, torch::kFloat32);  // [1, 1, R, R]
    if (probabilities) *probabilities = out;
    const auto same = [](const torch::Tensor& v) { return v; };
    return resizeBilinearJs(out[0], height, width, torch::kFloat32, same)[0].clamp_(0, 1);
}

torch::Tensor resizeBilinearJs(const torch::Tensor& img, std::int64_t outH, std::int64_t outW,
                               torch::Dtype dtype,
                               const std::function<torch::Tensor(const torch::Tensor&)>& texel) {
    const auto y = resizeAxis(img.size(1), outH, dtype);
    const auto x = resizeAxis(img.size(2), outW, dtype);
    const auto top = img.index_select(1, y.lo), bottom = img.index_select(1, y.hi);
    const auto dx = x.frac.view({1, 1, outW}), dy = y.frac.view({1, outH, 1});
    const auto term = [&](const torch::Tensor& rows, const torch::Tensor& cols,
                          const torch::Tensor& weight) {
        return texel(rows.index_select(2, cols)).mul_(weight);
    };
    auto out = term(top, x.lo, (1 - dx) * (1 - dy));
    out.add_(term(top, x.hi, dx * (1 - dy)));
    out.add_(term(bottom, x.lo, (1 - dx) * dy));
    out.add_(term(bottom, x.hi, dx * dy));
    return out;
}

torch::Tensor roundHalfUp(const torch::Tensor& t) {
    return torch::floor(t + 0.5);
}

void checkPicture(const torch::Tensor& rgb, const char* caller) {
    if (rgb.dim() != 3 || rgb.size(0) != 3 || rgb.size(1) < 1 || rgb.size(2) < 1 ||
        !rgb.is_floating_point())
        throw Error(std::string(caller) + ": expected a floating-point [3, H, W] picture, got " +
                    std::string(c10::toString(rgb.scalar_type())) + " " + c10::str(rgb.sizes()));
}

torch::Tensor pictureBytes(const torch::Tensor& values) {
    return roundHalfUp(values.to(torch::kFloat64).clamp_(0, 1).mul_(255));
}

}  // namespace stageload
