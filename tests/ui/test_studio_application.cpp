// An exception that escapes an event handler ends in a report, not an abort: scripted, the app
// quits with exit code 70; the event loop before and after it keeps working.
#include <QTimer>
#include <QtTest>
#include <stdexcept>

#include "ui/app/studio_application.h"

using stageload::app::StudioApplication;

namespace {

// Throws from its event handler, as a slot with a bug would.
class Thrower : public QObject {
public:
    bool event(QEvent* e) override {
        if (e->type() == QEvent::User) throw std::runtime_error("a handler threw");
        return QObject::event(e);
    }
};

}  // namespace

class TestStudioApplication : public QObject {
    Q_OBJECT

private slots:
    void anEscapedExceptionIsReportedAndEndsAScriptedRun() {
        auto* app = static_cast<StudioApplication*>(QCoreApplication::instance());
        app->setScripted(true);
        Thrower thrower;
        bool ranBefore = false;
        QTimer::singleShot(0, [&] { ranBefore = true; });
        QCoreApplication::postEvent(&thrower, new QEvent(QEvent::User));
        const int code = QCoreApplication::exec();
        QCOMPARE(code, StudioApplication::kExitInternalError);
        QCOMPARE(app->caughtErrors(), 1);
        QVERIFY(ranBefore);
    }
};

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    StudioApplication app(argc, argv);
    TestStudioApplication test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_studio_application.moc"
