// Where an installed program finds its shipped data and its weights (guard/base/data_dirs.h,
// engine/api/weights.h): from its own location, the user's folder before the machine's, the
// first folder that has a file winning.
#include <QCoreApplication>
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/api/weights.h"
#include "guard/base/data_dirs.h"
#include "tests/file_support.h"

using namespace stageload;
namespace fs = std::filesystem;

namespace {

// Sets (or, with nullptr, unsets) an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name), had_(qEnvironmentVariableIsSet(name)) {
        old_ = qgetenv(name);
        value ? qputenv(name, value) : qunsetenv(name);
    }
    ~ScopedEnv() { had_ ? qputenv(name_, old_) : qunsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    bool had_;
    QByteArray old_;
};

}  // namespace

class TestDataDirs : public QObject {
    Q_OBJECT

private slots:
    void theDataIsBesideTheProgram() {
        QCOMPARE(QString::fromStdString(programDir().string()), QCoreApplication::applicationDirPath());
        ScopedEnv unset("STAGELOAD_DATA_DIR", nullptr);
        const QString expected = QDir::cleanPath(QCoreApplication::applicationDirPath() + "/../share/stageload");
        QCOMPARE(QString::fromStdString(dataDir().string()), expected);
        QCOMPARE(QString::fromStdString(systemWeightsDir().string()), expected + "/weights");
        ScopedEnv set("STAGELOAD_DATA_DIR", "/somewhere/else");
        QCOMPARE(QString::fromStdString(dataDir().string()), QStringLiteral("/somewhere/else"));
    }

    // The programs in <prefix>/bin and the engine and keeper in <prefix>/libexec/stageload find
    // the same prefix, so the engine reads the same shipped data and weights as `stageload`.
    void bothProgramFoldersGiveTheSamePrefix() {
        QCOMPARE(prefixOf("/opt/stageload-studio/bin"), fs::path("/opt/stageload-studio"));
        QCOMPARE(prefixOf("/opt/stageload-studio/libexec/stageload"), fs::path("/opt/stageload-studio"));
        QCOMPARE(prefixOf("/usr/libexec/stageload/"), fs::path("/usr"));
        QCOMPARE(prefixOf("/work/build/ui/cli"), fs::path("/work/build/ui"));
        QCOMPARE(prefixOf("/work/build/ui/libexec/stageload"), fs::path("/work/build/ui"));
        QCOMPARE(prefixOf("/work/build/ui/cli/../libexec/stageload"), fs::path("/work/build/ui"));
        // A folder that is merely called stageload is not libexec's.
        QCOMPARE(prefixOf("/home/ann/stageload"), fs::path("/home/ann"));
        QCOMPARE(prefixOf(""), fs::path());
        QCOMPARE(programPrefix(), prefixOf(programDir()));
    }

    void theMachinesFoldersFollowXdgDataDirs() {
        {
            ScopedEnv dirs("XDG_DATA_DIRS", "/a:/b/::relative:/a/");
            const auto got = sharedWeightsDirs();
            QCOMPARE(got.size(), std::size_t(3));  // relative and empty entries ignored, /a once
            QCOMPARE(got[0], fs::path("/a/stageload/weights"));
            QCOMPARE(got[1], fs::path("/b/stageload/weights"));
            QCOMPARE(got[2], systemWeightsDir());
        }
        ScopedEnv unset("XDG_DATA_DIRS", nullptr);
        const auto got = sharedWeightsDirs();
        QVERIFY(got.size() >= 2);
        QCOMPARE(got[0], fs::path("/usr/local/share/stageload/weights"));
        QCOMPARE(got[1], fs::path("/usr/share/stageload/weights"));
    }

    void theUsersWeightsComeBeforeTheMachines() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QByteArray user = tmp.filePath("user").toUtf8(), machine = tmp.filePath("machine").toUtf8();
        ScopedEnv noOverride("STAGELOAD_WEIGHTS_DIR", nullptr);
        ScopedEnv home("XDG_DATA_HOME", user.constData());
        ScopedEnv dirs("XDG_DATA_DIRS", machine.constData());
        const fs::path userDir = fs::path(user.toStdString()) / "stageload" / "weights";
        const fs::path machineDir = fs::path(machine.toStdString()) / "stageload" / "weights";

        const auto search = weightsSearchDirs();
        QVERIFY(search.size() >= 2);
        QCOMPARE(search[0], userDir);
        QCOMPARE(search[1], machineDir);

        // Nowhere: the user's folder is where it would go, and it is not installed.
        QCOMPARE(removerWeightsFile(RemoverChoice::U2NetP), userDir / "u2netp.safetensors");
        QVERIFY(!removerInstalled(RemoverChoice::U2NetP));
        // Installed for every user: found there.
        fs::create_directories(machineDir);
        testfile::write(QString::fromStdString((machineDir / "u2netp.safetensors").string()), "x");
        QCOMPARE(removerWeightsFile(RemoverChoice::U2NetP), machineDir / "u2netp.safetensors");
        QVERIFY(removerInstalled(RemoverChoice::U2NetP));
        QVERIFY(!removerInstalled(RemoverChoice::ISNet));
        // The user's own copy wins.
        fs::create_directories(userDir);
        testfile::write(QString::fromStdString((userDir / "u2netp.safetensors").string()), "x");
        QCOMPARE(removerWeightsFile(RemoverChoice::U2NetP), userDir / "u2netp.safetensors");
        // Classical and auto have no file.
        QVERIFY(removerWeightsFile(RemoverChoice::Classical).empty());
        QVERIFY(removerInstalled(RemoverChoice::Auto));
    }

    void aGivenFolderOrTheVariableIsTheOnlyPlace() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        ScopedEnv dirs("XDG_DATA_DIRS", tmp.path().toUtf8().constData());
        const fs::path machineDir = fs::path(tmp.path().toStdString()) / "stageload" / "weights";
        fs::create_directories(machineDir);
        testfile::write(QString::fromStdString((machineDir / "u2netp.safetensors").string()), "x");

        const fs::path given = fs::path(tmp.path().toStdString()) / "given";
        QCOMPARE(weightsSearchDirs(given), std::vector<fs::path>{given});
        QVERIFY(!removerInstalled(RemoverChoice::U2NetP, given));  // the machine's copy is not looked at
        ScopedEnv only("STAGELOAD_WEIGHTS_DIR", given.c_str());
        QCOMPARE(weightsSearchDirs(), std::vector<fs::path>{given});
        QCOMPARE(defaultWeightsDir(), given);
        QVERIFY(!removerInstalled(RemoverChoice::U2NetP));
    }
};

QTEST_GUILESS_MAIN(TestDataDirs)
#include "test_data_dirs.moc"
