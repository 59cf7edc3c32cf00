#pragma once
// The guard's --busy patterns: POSIX extended regexes searched in whole command lines, like
// `pgrep -f`.
//
//   stageload::BusyPatterns busy({"ffmpeg", "blender -b"});   // throws UsageError on a bad regex
//   if (auto i = busy.match("ffmpeg -i a.mp4 b.webm")) ...    // index of the first pattern hit
//
// Matching is const and thread-safe (regexec on compiled patterns); the object is move-only.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stageload {

class BusyPatterns {
public:
    BusyPatterns();
    explicit BusyPatterns(const std::vector<std::string>& patterns);
    ~BusyPatterns();
    BusyPatterns(BusyPatterns&&) noexcept;
    BusyPatterns& operator=(BusyPatterns&&) noexcept;

    bool empty() const { return patterns_.empty(); }
    std::optional<std::size_t> match(const std::string& commandLine) const;
    const std::string& pattern(std::size_t i) const { return texts_.at(i); }

private:
    struct Compiled;
    std::vector<std::unique_ptr<Compiled>> patterns_;
    std::vector<std::string> texts_;
};

}  // namespace stageload
