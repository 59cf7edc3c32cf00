#pragma once
// Writing a file so that it is either complete or not there: bytes go to a temporary file in
// the same folder, which commit() flushes, syncs and renames into place. Destroyed without
// commit() (an error, an exception), the temporary file is removed and the old file is intact.
//
//   stageload::AtomicFile out("fingerprints/texture.json");
//   out.write(text.data(), text.size());
//   out.commit();
//
// Throws AtomicWriteError (a FileError naming the file) when the temporary file cannot be
// created, a write fails (disk full) or the rename fails. Not thread-safe.

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "guard/base/error.h"

namespace stageload {

class AtomicWriteError : public FileError {
public:
    AtomicWriteError(const std::filesystem::path& file, std::string problem)
        : FileError(file.string() + ": " + problem), problem_(std::move(problem)) {}
    /// The problem without the file name.
    const std::string& problem() const { return problem_; }

private:
    std::string problem_;
};

class AtomicFile {
public:
    explicit AtomicFile(std::filesystem::path path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, std::size_t size);
    void write(std::string_view text) { write(text.data(), text.size()); }
    void commit();

private:
    [[noreturn]] void fail(const std::string& problem) const;

    std::filesystem::path final_;
    std::filesystem::path temp_;
    std::FILE* file_ = nullptr;
    bool committed_ = false;
};

/// Writes `text` to `path` atomically.
void writeFileAtomically(const std::filesystem::path& path, std::string_view text);

}  // namespace stageload
