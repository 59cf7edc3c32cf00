#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/core/errors.h"
#include "engine/load/safetensors.h"

namespace stageload {
namespace {

// Closes and removes the temporary file unless commit() renamed it into place.
class TempFile {
public:
    explicit TempFile(std::filesystem::path final)
        : final_(std::move(final))
        , temp_(final_.string() + ".tmp-" + std::to_string(::getpid())) {
        file_ = std::fopen(temp_.c_str(), "wb");
        if (!file_) fail(std::string("cannot create ") + temp_.string() + ": " + std::strerror(errno));
    }
    ~TempFile() {
        if (file_) std::fclose(file_);
        if (!committed_) std::remove(temp_.c_str());
    }
    void write(const void* data, std::size_t n) {
        if (n && std::fwrite(data, 1, n, file_) != n)
            fail(std::string("write failed: ") + std::strerror(errno) + " (disk full?)");
    }
    void commit() {
        const bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
        const int err = errno;
        std::fclose(file_);
        file_ = nullptr;
        if (!ok) fail(std::string("write failed: ") + std::strerror(err) + " (disk full?)");
        std::error_code ec;
        std::filesystem::rename(temp_, final_, ec);
        if (ec) fail("cannot rename the finished file into place: " + ec.message());
        committed_ = true;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw WeightFileError(final_.string(), "", problem);
    }

    std::filesystem::path final_;
    std::filesystem::path temp_;
    std::FILE* file_ = nullptr;
    bool committed_ = false;
};

}  // namespace

void writeSafetensors(const std::filesystem::path& path,
                      const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::set<std::string> seen;
    std::uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        if (name == "__metadata__" || !seen.insert(name).second)
            throw WeightFileError(path.string(), name, "duplicate or reserved tensor name");
        if (!t.defined()) throw WeightFileError(path.string(), name, "tensor is undefined");
        std::string dtype;
        try {
            dtype = safetensorsDtypeName(t.scalar_type());
        } catch (const Error& e) {
            throw WeightFileError(path.string(), name, e.what());
        }
        const auto bytes = static_cast<std::uint64_t>(t.numel()) * t.element_size();
        header[name] = {{"dtype", dtype}, {"shape", t.sizes().vec()},
                        {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string json = header.dump();
    json.append((8 - json.size() % 8) % 8, ' ');  // data section starts 8-byte aligned

    TempFile out(path);
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>((json.size() >> (8 * i)) & 0xff);
    out.write(len, 8);
    out.write(json.data(), json.size());
    for (const auto& [name, t] : tensors) {
        auto cpu = t.detach().to(torch::kCPU).contiguous();  // one tensor at a time
        out.write(cpu.data_ptr(), static_cast<std::size_t>(cpu.numel()) * cpu.element_size());
    }
    out.commit();
}

}  // namespace stageload
