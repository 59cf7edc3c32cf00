#pragma once
// A weight file open for reading (RAII): mapped read-only for the header and zero-copy views,
// and read with pread() for copies. Copies never go through the mapping, so a load does not make
// the file's pages resident in this process (they stay in the page cache).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace stageload {

class MappedFile {
public:
    /// Opens and maps `path` read-only. Throws WeightFileError naming the file if it cannot.
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::uint8_t* data() const { return data_; }
    std::uint64_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

    /// Reads [offset, offset + length) into `dst`. Safe from several threads at once. Throws
    /// WeightFileError naming the file, `tensor` and the byte where reading failed (an I/O
    /// error, or the file shrank since it was opened).
    void read(std::uint64_t offset, std::uint64_t length, void* dst,
              const std::string& tensor = {}) const;

private:
    std::filesystem::path path_;
    int fd_ = -1;
    const std::uint8_t* data_ = nullptr;
    std::uint64_t size_ = 0;
};

}  // namespace stageload
