#include <set>

#include <nlohmann/json.hpp>

#include "engine/api/errors.h"
#include "guard/base/atomic_file.h"
#include "engine/load/safetensors.h"

namespace stageload {

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

    try {
        AtomicFile out(path);
        unsigned char len[8];
        for (int i = 0; i < 8; ++i)
            len[i] = static_cast<unsigned char>((json.size() >> (8 * i)) & 0xff);
        out.write(len, 8);
        out.write(json);
        for (const auto& [name, t] : tensors) {
            auto cpu = t.detach().to(torch::kCPU).contiguous();  // one tensor at a time
            out.write(cpu.data_ptr(), static_cast<std::size_t>(cpu.numel()) * cpu.element_size());
        }
        out.commit();
    } catch (const AtomicWriteError& e) {
        throw WeightFileError(path.string(), "", e.problem());
    }
}

}  // namespace stageload
