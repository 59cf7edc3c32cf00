#pragma once
// What went wrong with a run, as a kind: every front end classifies an exception once here and
// maps the kind to what it shows — the CLI to its exit codes (exitCode()), the app to a dialog
// title. Nobody reads message text to find out what happened.
//
//   try { runCharacter(p); }
//   catch (...) {
//       const auto f = stageload::classifyFailure(std::current_exception());
//       std::fprintf(stderr, "stageload: error: %s\n", f.message.c_str());
//       return stageload::exitCode(f.kind);          // 65, 66, 73, 78, ...
//   }
//
// No Torch and no Qt here. Pure and thread-safe.

#include <exception>
#include <string>

namespace stageload {

enum class FailureKind {
    Usage,        ///< a setting or flag is not valid (UsageError, SettingError)
    Picture,      ///< the picture cannot be read: corrupt, truncated, too large
    NoSubject,    ///< nothing in the picture stands out from its background
    NoPicture,    ///< the picture does not exist
    NotInstalled, ///< a learned model the run needs is not installed
    Weights,      ///< installed weights are broken
    CannotWrite,  ///< the output cannot be written (nothing half-written is left)
    Cancelled,    ///< stopped because the user or the guard asked
    OutOfMemory,  ///< std::bad_alloc
    Other,        ///< any other error
};

struct Failure {
    FailureKind kind = FailureKind::Other;
    std::string message;  ///< what() of the exception, or a sentence for non-std exceptions
    std::string field;    ///< SettingError::field(), else empty
};

/// Classifies `error` (nullptr gives Other with an empty message). Never throws.
Failure classifyFailure(std::exception_ptr error) noexcept;

/// The CLI's exit code of each kind: 2 usage, 65 picture or no subject, 66 no picture, 69 not
/// installed, 78 broken weights,
/// 73 cannot write, 130 cancelled, 1 out of memory and other errors.
int exitCode(FailureKind kind) noexcept;

}  // namespace stageload
