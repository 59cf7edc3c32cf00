#include <QtTest>

#include "guard/base/event.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_events {

class TestEvents : public QObject {
    Q_OBJECT

private slots:
    void kindNamesRoundTrip() {
        for (auto kind : {EventKind::Load, EventKind::Reload, EventKind::Release, EventKind::Stage,
                          EventKind::Mark})
            QVERIFY(eventKindFromString(toString(kind)) == kind);
        QCOMPARE(toString(EventKind::Release), std::string_view("release"));
    }

    void unknownKindIsAnError() {
        try {
            eventKindFromString("unload");
            QFAIL("an unknown kind must throw");
        } catch (const EventError& e) {
            const QString msg = e.what();
            QVERIFY2(msg.contains("'unload'"), e.what());
            QVERIFY2(msg.contains("load, reload, release, stage, mark"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(EventError, eventKindFromString(""));
        QVERIFY_THROWS_EXCEPTION(EventError, eventKindFromString("Load"));
    }

    void fanOutReachesEverySinkInOrder() {
        std::vector<std::string> seen;
        auto sink = fanOut({[&](const Event& e) { seen.push_back("a:" + e.name); }, nullptr,
                            [&](const Event& e) { seen.push_back("b:" + e.name); }});
        sink(Event{EventKind::Mark, "x"});
        QCOMPARE(seen, (std::vector<std::string>{"a:x", "b:x"}));
    }

    void eventLogFiltersByKind() {
        EventLog log;
        auto sink = log.sink();
        sink(Event{EventKind::Load, "m"});
        sink(Event{EventKind::Stage, "s"});
        sink(Event{EventKind::Release, "m"});
        QCOMPARE(log.events().size(), std::size_t(3));
        QCOMPARE(log.events(EventKind::Stage).size(), std::size_t(1));
        QCOMPARE(log.events(EventKind::Stage).front().name, std::string("s"));
        log.clear();
        QVERIFY(log.events().empty());
    }
};

}  // namespace test_events

STAGELOAD_APPLESS_SUITE(test_events, test_events::TestEvents)
#include "test_events.moc"
