#pragma once
// Helpers shared by the suites that check learned models (U²-Netp, ISNet) against their
// reference fixtures: reading fixture PNGs, catching weight errors, and the damaged weight
// files (cut short, corrupt header, tensors dropped, added or reshaped) every loader must refuse.
#include <stb/stb_image.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <QtTest>
#include "engine/core/torch_nn.h"

#include "engine/api/errors.h"
#include "engine/load/safetensors.h"

namespace stageload::test {

/// A PNG as uint8 [channels, H, W] (8-bit) or int32 [channels, H, W] (16-bit, `sixteen`).
inline torch::Tensor readPng(const std::filesystem::path& path, int channels, bool sixteen = false) {
    int w = 0, h = 0, n = 0;
    void* pixels = sixteen ? static_cast<void*>(stbi_load_16(path.c_str(), &w, &h, &n, channels))
                           : static_cast<void*>(stbi_load(path.c_str(), &w, &h, &n, channels));
    if (!pixels)
        throw std::runtime_error(path.string() + ": cannot read (" + stbi_failure_reason() + ")");
    std::unique_ptr<void, void (*)(void*)> owner(pixels, stbi_image_free);
    const auto t = torch::from_blob(pixels, {h, w, channels}, sixteen ? torch::kInt16 : torch::kUInt8);
    // int16 holds 0..65535 as two's complement: widen and undo that.
    const auto wide = sixteen ? t.to(torch::kInt32).remainder(65536) : t.clone();
    return wide.permute({2, 0, 1}).contiguous();
}

/// Float [C, H, W], 0..1, as a caller of the engine would hand it over.
inline torch::Tensor toUnit(const torch::Tensor& bytes) { return bytes.to(torch::kFloat32) / 255; }

/// The WeightFileError f throws; an empty optional (failing the caller's check) if none.
template <class F>
std::optional<WeightFileError> weightError(F f) {
    try {
        f();
    } catch (const WeightFileError& e) {
        return e;
    }
    return std::nullopt;
}

/// Checks that `error` exists and names `tensor`, quoted, and the file `edited.safetensors`.
inline void verifyNamesTensor(const std::optional<WeightFileError>& error, const QString& tensor) {
    QVERIFY2(error, "no WeightFileError");
    QCOMPARE(QString::fromStdString(error->tensor()), tensor);
    QVERIFY2(QString(error->what()).contains("'" + tensor + "'"), error->what());
    QVERIFY2(QString(error->what()).contains("edited.safetensors"), error->what());
}

/// Checks that two modules hold equal parameters under the same names.
inline void verifySameParameters(const torch::nn::Module& a, const torch::nn::Module& b) {
    const auto mine = a.named_parameters(), theirs = b.named_parameters();
    for (const auto& item : mine)
        QVERIFY2(torch::equal(item.value(), theirs[item.key()]), item.key().c_str());
}

/// A copy of the weights at `from`, written to `to`, with `drop` left out, `extra` added and
/// `reshape` given a shape that fits nothing.
inline void writeEditedCopy(const std::filesystem::path& from, const std::filesystem::path& to,
                            const std::string& drop, const std::string& extra = {},
                            const std::string& reshape = {}) {
    const auto file = SafetensorsFile::open(from);
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (const auto& t : file.tensors()) {
        if (t.name == drop) continue;
        tensors.emplace_back(t.name,
                             t.name == reshape ? torch::zeros({2, 2}, torch::kHalf) : file.read(t.name));
    }
    if (!extra.empty()) tensors.emplace_back(extra, torch::zeros({1}));
    writeSafetensors(to, tensors, file.metadata());
}

/// Writes the first `keep` bytes of `from` to `to`.
inline void writeTruncatedCopy(const std::filesystem::path& from, const std::filesystem::path& to,
                               std::uintmax_t keep) {
    std::ifstream in(from, std::ios::binary);
    std::string data(keep, '\0');
    in.read(data.data(), static_cast<std::streamsize>(keep));
    std::ofstream(to, std::ios::binary | std::ios::trunc) << data;
}

/// `load` refuses copies of `weights` (in `dir`) cut short anywhere, an absent file, and a
/// header that is not a JSON object, each with a WeightFileError that names the file.
template <class Load>
void verifyDamagedCopiesRefused(const std::filesystem::path& weights, const std::filesystem::path& dir,
                                Load load) {
    const auto bytes = std::filesystem::file_size(weights);
    const auto cut = dir / "truncated.safetensors";
    for (const auto keep : {bytes / 2, bytes - 1, std::uintmax_t(100), std::uintmax_t(0)}) {
        writeTruncatedCopy(weights, cut, keep);
        const auto e = weightError([&] { load(cut); });
        QVERIFY2(e, qPrintable(QString("no WeightFileError for %1 bytes").arg(keep)));
        QVERIFY2(std::string(e->what()).find("truncated.safetensors") != std::string::npos, e->what());
    }
    QVERIFY2(weightError([&] { load(dir / "absent.safetensors"); }), "no WeightFileError for a missing file");
    const auto bad = dir / "corrupt.safetensors";
    {
        std::ifstream in(weights, std::ios::binary);
        std::string head(4096, '\0');
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        head[8] = '[';  // the JSON header no longer parses as an object
        std::ofstream(bad, std::ios::binary | std::ios::trunc) << head;
    }
    const auto e = weightError([&] { load(bad); });
    QVERIFY2(e, "no WeightFileError for a corrupt header");
    QVERIFY2(std::string(e->what()).find("corrupt.safetensors") != std::string::npos, e->what());
}

}  // namespace stageload::test
