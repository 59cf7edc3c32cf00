#pragma once
// The one exception base of Stageload. Every library error derives from stageload::Error, so a
// boundary (a CLI's main, the app's worker) can catch Error, show what() and pick an exit code.
//
//   try { models.enter("decode"); }
//   catch (const stageload::Error& e) { spdlog::error("{}", e.what()); return 1; }
//
// Messages name the thing that failed (file, tensor, stage, model) and, where it helps, what to do.

#include <stdexcept>
#include <string>
#include <utility>

namespace stageload {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A file could not be read, written or parsed. The message names the file.
class FileError : public Error {
public:
    using Error::Error;
};

/// A value the user typed is not valid (a size, a duration, a percentage, a regex, a missing
/// command). Boundaries map it to a usage error (the CLI exits 2). The message says what is
/// wrong and shows a valid example.
class UsageError : public Error {
public:
    using Error::Error;
};

/// A setting that is not valid, with the setting's key as data ("textureSize", "waitFree"), so a
/// form can mark its field and word the message its own way without reading what(). what() is
/// "<subject>: <problem>", e.g. "--texture-size 3000: must be 1024, 2048 or 4096".
class SettingError : public UsageError {
public:
    SettingError(std::string field, const std::string& subject, std::string problem)
        : UsageError(subject + ": " + problem), field_(std::move(field)),
          problem_(std::move(problem)) {}
    const std::string& field() const { return field_; }
    /// What is wrong, without the subject: "must be 1024, 2048 or 4096".
    const std::string& problem() const { return problem_; }

private:
    std::string field_;
    std::string problem_;
};

}  // namespace stageload
