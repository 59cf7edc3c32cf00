#include "ui/worker/generate_request.h"

namespace stageload::studio {

QString toStatus(RunEnd end) {
    switch (end) {
        case RunEnd::Done: return QStringLiteral("done");
        case RunEnd::Failed: return QStringLiteral("failed");
        case RunEnd::Cancelled: return QStringLiteral("cancelled");
        case RunEnd::Stopped: return QStringLiteral("stopped");
    }
    return QStringLiteral("failed");
}

}  // namespace stageload::studio
