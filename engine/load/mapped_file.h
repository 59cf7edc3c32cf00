#pragma once
// A read-only memory mapping of a whole file (RAII). Pages are read on first touch; dropPages()
// gives touched pages back so copying a large file does not keep it resident as well.

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace stageload {

class MappedFile {
public:
    /// Maps `path` read-only. Throws WeightFileError naming the file if it cannot.
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::uint8_t* data() const { return data_; }
    std::uint64_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

    /// Drops the whole pages inside [offset, offset + length) from this process's resident set.
    /// The contents stay valid: touching them again reads them back from the page cache.
    void dropPages(std::uint64_t offset, std::uint64_t length) const;

private:
    std::filesystem::path path_;
    const std::uint8_t* data_ = nullptr;
    std::uint64_t size_ = 0;
};

}  // namespace stageload
