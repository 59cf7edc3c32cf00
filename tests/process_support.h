#pragma once
// Running a program as a user or a script does, for the suites that check the `stageload` and
// `stageload-studio` programs from outside: its exit code, both outputs and how long it took.
//
//   const auto r = testproc::runProgram(STAGELOAD_EXE, {"summary", "t.jsonl"});
//   QCOMPARE(r.code, 0);
//   QCOMPARE(testproc::stageload({"summary", "t.jsonl"}).code, 0);  // the same
//
// A program that does not finish in time is killed and comes back with code -1 and "timed out"
// on stderr; one killed by signal N comes back with 128 + N, as a shell reports it.

#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace testproc {

struct ProgramResult {
    int code = -1;
    QString out;
    QString err;
    qint64 ms = 0;
};

inline ProgramResult runProgram(const QString& program, const QStringList& args, int timeoutMs = 300000,
                                const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    p.start(program, args);
    ProgramResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = program + QStringLiteral(" timed out");
        r.ms = timer.elapsed();
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : 128 + p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.ms = timer.elapsed();
    return r;
}

#ifdef STAGELOAD_EXE
/// `stageload ARGS...` as a user types it (suites that define STAGELOAD_EXE).
inline ProgramResult stageload(const QStringList& args, int timeoutMs = 300000,
                               const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    return runProgram(QStringLiteral(STAGELOAD_EXE), args, timeoutMs, env);
}
#endif

}  // namespace testproc
