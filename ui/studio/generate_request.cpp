#include "ui/studio/generate_request.h"

#include "ui/studio/run_record.h"

namespace stageload::studio {

QString toStatus(RunEnd end) {
    switch (end) {
        case RunEnd::Done: return RunRecord::statusDone();
        case RunEnd::Failed: return RunRecord::statusFailed();
        case RunEnd::Cancelled: return RunRecord::statusCancelled();
        case RunEnd::Stopped: return RunRecord::statusStopped();
        case RunEnd::Interrupted: return RunRecord::statusInterrupted();
    }
    return RunRecord::statusFailed();
}

}  // namespace stageload::studio
