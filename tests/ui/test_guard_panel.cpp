// The guard panel: every threshold of the guard in and out, errors shown as the user types, the
// live state line, and a policy built from the panel's params deciding as the panel says.
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QPushButton>
#include <QtTest>

#include "guard/base/error.h"
#include "guard/policy/guard_policy.h"
#include "tests/guard/guard_readings_support.h"
#include "ui/studio/guard_panel.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace stageload::test;
using stageload::studio::GuardPanel;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_guard_panel {

namespace {

bool sameParams(const GuardParams& a, const GuardParams& b) {
    return a.waitFree == b.waitFree && a.killFree == b.killFree && a.swapBudget == b.swapBudget &&
           a.swapLimit == b.swapLimit && a.busy == b.busy && a.quietFor == b.quietFor &&
           a.startTimeout == b.startTimeout && a.poll == b.poll && a.stopGrace == b.stopGrace &&
           a.tracePath == b.tracePath && a.traceInterval == b.traceInterval;
}

GuardParams nonDefault() {
    GuardParams p;
    p.waitFree = 35.5;
    p.killFree = 12.0;
    p.swapBudget = 3 * GiB + 512 * MiB;
    p.swapLimit = 16 * GiB;
    p.busy = {"ffmpeg", "python .*train", "blender -b"};
    p.quietFor = 90;
    p.startTimeout = 7200;
    p.poll = 0.25;
    p.stopGrace = 7;  // not in the panel: kept as given
    return p;
}

ProcessInfo proc(pid_t pid, const std::string& cmdline) {
    ProcessInfo p;
    p.pid = pid;
    p.ppid = 1;
    p.pgid = pid;
    p.state = 'S';
    p.cmdline = cmdline;
    return p;
}

template <typename W>
W* field(GuardPanel& panel, const char* name) {
    auto* w = panel.findChild<W*>(QLatin1String(name));
    if (!w) qFatal("the guard panel has no %s", name);
    return w;
}

void retype(QLineEdit* edit, const QString& text) {
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}

}  // namespace

class TestGuardPanel : public QObject {
    Q_OBJECT

private slots:
    void startsWithTheSpecDefaults() {
        GuardPanel panel;
        const auto p = panel.params();
        QVERIFY(p);
        QVERIFY(sameParams(*p, GuardParams{}));
        QVERIFY(panel.guardEnabled());
        QCOMPARE(field<QLineEdit>(panel, "swapBudget")->text(), QStringLiteral("8 GiB"));  // as every size is shown
        QCOMPARE(field<QLineEdit>(panel, "swapLimit")->text(), QString());
        QCOMPARE(field<QLineEdit>(panel, "quietFor")->text(), QStringLiteral("1m"));
        QCOMPARE(field<QLineEdit>(panel, "startTimeout")->text(), QStringLiteral("30m"));
        QCOMPARE(field<QLineEdit>(panel, "poll")->text(), QStringLiteral("5s"));
        QCOMPARE(panel.stateText(), QStringLiteral("Idle"));
    }

    void setParamsThenParamsGivesTheSame() {
        GuardPanel panel;
        QSignalSpy edited(&panel, &GuardPanel::paramsEdited);
        const GuardParams p = nonDefault();
        panel.setParams(p, false);
        QCOMPARE(edited.count(), 0);  // programmatic: no edit signal
        QString error;
        const auto back = panel.params(&error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(sameParams(*back, p));
        QVERIFY(sameParams(panel.lastValidParams(), p));
        QVERIFY(!panel.guardEnabled());
        QCOMPARE(field<QLineEdit>(panel, "swapBudget")->text(), QStringLiteral("3584 MiB"));
        QCOMPARE(field<QLineEdit>(panel, "poll")->text(), QStringLiteral("250ms"));
        QCOMPARE(field<QLineEdit>(panel, "startTimeout")->text(), QStringLiteral("2h"));
        QCOMPARE(field<QPlainTextEdit>(panel, "busy")->toPlainText(),
                 QStringLiteral("ffmpeg\npython .*train\nblender -b"));

        GuardParams unset = p;
        unset.swapLimit.reset();
        unset.busy.clear();
        panel.setParams(unset, true);
        QVERIFY(panel.params());
        QVERIFY(sameParams(*panel.params(), unset));
        QVERIFY(panel.guardEnabled());
    }

    void typingABadSizeShowsTheErrorUntilFixed() {
        GuardPanel panel;
        panel.show();
        QSignalSpy edited(&panel, &GuardPanel::paramsEdited);
        auto* budget = field<QLineEdit>(panel, "swapBudget");
        auto* label = field<QLabel>(panel, "guardError");
        QVERIFY(!label->isVisible());

        retype(budget, "8X");
        QString error;
        QVERIFY(!panel.params(&error));
        QVERIFY2(error.startsWith("Swap growth allowed: not a size: '8X'"), qPrintable(error));
        QVERIFY(label->isVisible());
        QCOMPARE(label->text(), error);
        QCOMPARE(panel.errorText(), error);
        QVERIFY(budget->property("invalid").toBool());
        QCOMPARE(panel.lastValidParams().swapBudget, std::int64_t(8));  // "8" was valid on the way
        const int editsSoFar = edited.count();

        QTest::keyClick(budget, Qt::Key_Backspace);
        QTest::keyClicks(budget, "G");
        QVERIFY(panel.params(&error));
        QVERIFY(!label->isVisible());
        QVERIFY(panel.errorText().isEmpty());
        QVERIFY(!budget->property("invalid").toBool());
        QCOMPARE(panel.lastValidParams().swapBudget, 8 * GiB);
        QVERIFY(edited.count() > editsSoFar);
    }

    void invalidEditsKeepTheLastValidParams() {
        GuardPanel panel;
        panel.setParams(nonDefault(), true);
        QSignalSpy edited(&panel, &GuardPanel::paramsEdited);
        retype(field<QLineEdit>(panel, "quietFor"), "soon");
        QCOMPARE(edited.count(), 0);
        QVERIFY(!panel.params());
        QVERIFY(sameParams(panel.lastValidParams(), nonDefault()));
        QVERIFY2(panel.errorText().startsWith("Quiet for: not a duration: 'soon'"),
                 qPrintable(panel.errorText()));
    }

    void invalidParamsGivenAreShownButNotUsed() {
        GuardPanel panel;
        panel.setParams(nonDefault(), true);
        GuardParams bad = nonDefault();
        bad.poll = 0;
        panel.setParams(bad, true);
        QVERIFY2(panel.errorText().startsWith("Check every: a zero poll is refused"),
                 qPrintable(panel.errorText()));
        QVERIFY(!panel.params());
        QVERIFY(sameParams(panel.lastValidParams(), nonDefault()));
    }

    void swapLimitIsOptionalButMustBeASize() {
        GuardPanel panel;
        auto* limit = field<QLineEdit>(panel, "swapLimit");
        retype(limit, "16g");
        QCOMPARE(panel.params()->swapLimit, std::optional<std::int64_t>(16 * GiB));
        retype(limit, "lots");
        QString error;
        QVERIFY(!panel.params(&error));
        QVERIFY2(error.startsWith("Swap ceiling: not a size: 'lots'"), qPrintable(error));
        QVERIFY(limit->property("invalid").toBool());
        retype(limit, "");
        QVERIFY(panel.params());
        QVERIFY(!panel.params()->swapLimit);
    }

    void badRegexIsRefusedWithItsLine() {
        GuardPanel panel;
        panel.show();
        auto* busy = field<QPlainTextEdit>(panel, "busy");
        busy->setPlainText("ffmpeg\n\n  (unclosed  \n");
        QString error;
        QVERIFY(!panel.params(&error));
        QVERIFY2(error.startsWith("Wait while running: line 3:"), qPrintable(error));
        QVERIFY2(error.contains("bad regex"), qPrintable(error));
        QVERIFY(busy->property("invalid").toBool());
        QVERIFY(field<QLabel>(panel, "guardError")->isVisible());
        busy->setPlainText("ffmpeg\n\n  python .*train  \n");
        QVERIFY(panel.params());
        QCOMPARE(panel.params()->busy, (std::vector<std::string>{"ffmpeg", "python .*train"}));
    }

    void zeroPollIsRefusedNamingTheField() {
        GuardPanel panel;
        auto* poll = field<QLineEdit>(panel, "poll");
        retype(poll, "0");
        QString error;
        QVERIFY(!panel.params(&error));
        QVERIFY2(error.startsWith("Check every: a zero poll is refused"), qPrintable(error));
        QVERIFY(poll->property("invalid").toBool());
    }

    // Kill-free at or above wait-free stops a run that starts with less free than kill-free at
    // once: said in amber under the form, but accepted (a machine with more free runs it).
    void killFreeAtOrAboveWaitFreeIsWarnedOf() {
        GuardPanel panel;
        field<QDoubleSpinBox>(panel, "waitFree")->setValue(40);
        field<QDoubleSpinBox>(panel, "killFree")->setValue(50);
        QVERIFY(panel.params().has_value());
        QVERIFY(panel.errorText().isEmpty());
        QVERIFY2(panel.warningText().startsWith("the stop level (50 % free) is at or above the start level (40 %)"),
                 qPrintable(panel.warningText()));
        QVERIFY(field<QLabel>(panel, "guardError")->isVisibleTo(&panel));
        field<QDoubleSpinBox>(panel, "killFree")->setValue(10);
        QVERIFY(panel.warningText().isEmpty());
        QVERIFY(!field<QLabel>(panel, "guardError")->isVisibleTo(&panel));
    }

    // The tooltips speak of memory, not flags (the flag comes last, for the command line);
    // Restore Defaults puts every threshold back and says so.
    void tooltipsInWordsAndRestoreDefaults() {
        GuardPanel panel;
        const QString tip = field<QDoubleSpinBox>(panel, "waitFree")->toolTip();
        QVERIFY2(tip.startsWith("Start a run only when") && tip.endsWith("On the command line: --wait-free"),
                 qPrintable(tip));
        GuardParams odd;
        odd.waitFree = 70;
        odd.swapBudget = std::int64_t(1) << 30;
        odd.stopGrace = 2;  // not in the form: kept
        panel.setParams(odd, false);
        QSignalSpy edited(&panel, &GuardPanel::paramsEdited);
        panel.findChild<QPushButton*>("restoreDefaults")->click();
        QCOMPARE(edited.count(), 1);
        const auto p = panel.params();
        QVERIFY(p.has_value());
        QCOMPARE(p->waitFree, GuardParams{}.waitFree);
        QCOMPARE(p->swapBudget, GuardParams{}.swapBudget);
        QCOMPARE(p->stopGrace, 2.0);
        QVERIFY(!panel.guardEnabled());  // on or off is not a threshold
    }

    void stateLineForEachState() {
        GuardPanel panel;
        QCOMPARE(panel.stateText(), QStringLiteral("Idle"));
        const QColor idle = panel.stateColor();

        panel.showState(GuardState::Waiting, "available 32.0% < --wait-free 40.0%", 12.7);
        QCOMPARE(panel.stateText(),
                 QStringLiteral("Waiting 12 s — available 32.0% < 40.0% (Start when free)"));
        const QColor waiting = panel.stateColor();
        panel.showState(GuardState::Waiting, "busy: pid 7 'ffmpeg'", 65);
        QCOMPARE(panel.stateText(), QStringLiteral("Waiting 1m05s — busy: pid 7 'ffmpeg'"));

        panel.showState(GuardState::Running, GuardPanel::swapUseText(205 * MiB, 8 * GiB), 3);
        QCOMPARE(panel.stateText(), QStringLiteral("Running — swap +205.0 MiB of 8.00 GiB budget"));
        const QColor running = panel.stateColor();

        panel.showState(GuardState::Stopped,
                        "swap used 9.00 GiB > 0 B at start + --swap-budget "
                        "8.00 GiB",
                        40);
        QVERIFY(panel.stateText().startsWith("Stopped by the guard — swap used 9.00 GiB"));
        const QColor stopped = panel.stateColor();

        panel.showState(GuardState::GaveUp, "no room within --start-timeout 30m00s: ...", 1800);
        QVERIFY(panel.stateText().startsWith("No room in time — no room within"));
        QCOMPARE(panel.stateColor(), stopped);

        panel.showIdle();
        QCOMPARE(panel.stateText(), QStringLiteral("Idle"));
        field<QCheckBox>(panel, "guardEnabled")->setChecked(false);
        QCOMPARE(panel.stateText(), QStringLiteral("Idle — guard off"));
        QCOMPARE(panel.stateColor(), idle);

        QVERIFY(idle != waiting && waiting != running && running != stopped && stopped != idle);
        QVERIFY(stopped.red() > stopped.green() && running.green() > running.red());
    }

    void toggleEnabledEmitsEdited() {
        GuardPanel panel;
        QSignalSpy edited(&panel, &GuardPanel::paramsEdited);
        field<QCheckBox>(panel, "guardEnabled")->setChecked(false);
        QCOMPARE(edited.count(), 1);
        QVERIFY(!panel.guardEnabled());
    }

    void everyThresholdHasATooltip() {
        GuardPanel panel;
        for (const char* name : {"guardEnabled", "waitFree", "killFree", "swapBudget", "swapLimit",
                                 "quietFor", "startTimeout", "poll", "busy"})
            QVERIFY2(!field<QWidget>(panel, name)->toolTip().isEmpty(), name);
    }

    // Guard panel <-> policy: what the user types is what the policy decides on.
    void policyFromPanelParamsDecidesAsThePanelSays() {
        GuardPanel panel;
        field<QDoubleSpinBox>(panel, "waitFree")->setValue(50);
        retype(field<QLineEdit>(panel, "swapBudget"), "4G");
        retype(field<QLineEdit>(panel, "swapLimit"), "16G");
        retype(field<QLineEdit>(panel, "quietFor"), "10s");
        field<QPlainTextEdit>(panel, "busy")->setPlainText("ffmpeg");
        QString error;
        const auto params = panel.params(&error);
        QVERIFY2(params, qPrintable(error));

        GuardPolicy policy(*params);
        const auto show = [&](const GuardDecision& d, double t) {
            panel.showState(policy.state(), QString::fromStdString(d.reason), t - policy.since());
        };
        auto d = policy.admit(readingsAt(0, 45));
        QVERIFY(d.action == GuardAction::Wait);
        show(d, 0);
        QVERIFY2(panel.stateText().startsWith("Waiting 0 s — available 45.0% < 50.0% (Start when free)"),
                 qPrintable(panel.stateText()));

        d = policy.admit(readingsAt(4, 60, 13 * GiB));  // 13G + 4G budget > 16G limit
        QVERIFY(d.action == GuardAction::Wait);
        show(d, 4);
        QVERIFY2(panel.stateText().contains("16.00 GiB (Swap ceiling)"),
                 qPrintable(panel.stateText()));
        QVERIFY(panel.stateText().startsWith("Waiting 4 s"));

        d = policy.admit(readingsAt(8, 60, 1 * GiB, {proc(4242, "ffmpeg -i a.mp4 b.webm")}));
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY(d.reason.find("busy: pid 4242") != std::string::npos);

        d = policy.admit(readingsAt(15, 60, 1 * GiB));  // quiet for 7 s of 10 s
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY2(d.reason.find("--quiet-for 10") != std::string::npos, d.reason.c_str());

        d = policy.admit(readingsAt(18, 60, 1 * GiB));
        QVERIFY(d.action == GuardAction::Start);
        policy.started(readingsAt(18, 60, 1 * GiB));
        show(d, 18);
        QVERIFY(panel.stateText().startsWith("Running"));

        QVERIFY(policy.check(readingsAt(23, 55, 4 * GiB)).action == GuardAction::Continue);  // +3G of 4G
        d = policy.check(readingsAt(28, 55, 5 * GiB + 1));                                   // +4G+1
        QVERIFY(d.action == GuardAction::Stop);
        show(d, 28);
        QVERIFY2(panel.stateText().startsWith("Stopped by the guard — swap used"),
                 qPrintable(panel.stateText()));
        QVERIFY2(panel.stateText().contains("4.00 GiB (Swap growth allowed)"), qPrintable(panel.stateText()));
    }
};

}  // namespace test_guard_panel

STAGELOAD_SUITE(test_guard_panel, test_guard_panel::TestGuardPanel)
#include "test_guard_panel.moc"
