#include "engine/api/failure.h"

#include <new>

#include "engine/api/errors.h"
#include "guard/base/atomic_file.h"
#include "engine/media/image.h"

namespace stageload {

Failure classifyFailure(std::exception_ptr error) noexcept {
    if (!error) return {};
    try {
        std::rethrow_exception(error);
    } catch (const SettingError& e) {
        return {FailureKind::Usage, e.what(), e.field()};
    } catch (const UsageError& e) {
        return {FailureKind::Usage, e.what(), {}};
    } catch (const Cancelled& e) {
        return {FailureKind::Cancelled, e.what(), {}};
    } catch (const NoSubjectError& e) {
        return {FailureKind::NoSubject, e.what(), {}};
    } catch (const MissingImageError& e) {
        return {FailureKind::NoPicture, e.what(), {}};
    } catch (const ImageError& e) {
        return {FailureKind::Picture, e.what(), {}};
    } catch (const NotInstalledError& e) {
        return {FailureKind::NotInstalled, e.what(), {}};
    } catch (const WeightFileError& e) {
        return {FailureKind::Weights, e.what(), {}};
    } catch (const FileError& e) {
        // What remains is the output's: AtomicWriteError, its folder (checked before any work).
        return {FailureKind::CannotWrite, e.what(), {}};
    } catch (const std::bad_alloc&) {
        return {FailureKind::OutOfMemory,
                "the run ran out of memory; lower the texture size or the triangle budget, or "
                "close other programs, and try again",
                {}};
    } catch (const std::exception& e) {
        return {FailureKind::Other, e.what(), {}};
    } catch (...) {
        return {FailureKind::Other, "the run failed with an error that is not a std::exception", {}};
    }
}

int exitCode(FailureKind kind) noexcept {
    switch (kind) {
        case FailureKind::Usage: return 2;
        case FailureKind::Picture:
        case FailureKind::NoSubject: return 65;
        case FailureKind::NoPicture: return 66;
        case FailureKind::CannotWrite: return 73;
        case FailureKind::NotInstalled: return 69;
        case FailureKind::Weights: return 78;
        case FailureKind::Cancelled: return 130;
        case FailureKind::OutOfMemory:
        case FailureKind::Other: return 1;
    }
    return 1;
}

}  // namespace stageload
