#pragma once
// A small swap file and a memory cgroup whose limit pushes what a process in it holds beyond the
// limit into that swap: real swap growth on demand, for the guard's --swap-budget test. Needs
// root, a memory controller we may make a cgroup under (v1 `memory`, or v2 with `memory`
// enabled) and a file system that takes swap files (not tmpfs, not overlayfs); where the machine
// allows none of it, active() is false and why() says what was missing.
//
//   ConfinedSwap swap(1 << 30, 256 << 20);   // 1 GiB of swap, 256 MiB of RAM for the cgroup
//   if (swap.active()) run({"hog", "--cgroup", swap.cgroup()});
//   else qInfo("no real swap: %s", qPrintable(swap.why()));
//
// The destructor removes the cgroup (once its processes are gone), turns the swap off and deletes
// the file. Swap files a crashed earlier run left on (named kSwapFilePrefix*) are turned off and
// deleted first.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThread>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

namespace faults {

inline constexpr const char* kSwapFilePrefix = "stageload-test-swap-";

class ConfinedSwap {
public:
    ConfinedSwap(std::int64_t swapBytes, std::int64_t ramLimit) {
        if (::geteuid() != 0) {
            why_ = QStringLiteral("not root (swapon and cgroups need it)");
            return;
        }
        turnOffStale();
        if (!makeSwap(swapBytes) || !makeCgroup(ramLimit)) return;
        active_ = true;
    }
    ~ConfinedSwap() {
        if (!cgroup_.isEmpty())
            for (int i = 0; i < 100 && !QDir().rmdir(cgroup_); ++i) QThread::msleep(20);  // procs leaving
        if (swapOn_) ::swapoff(QFile::encodeName(file_).constData());
        if (!file_.isEmpty()) QFile::remove(file_);
    }
    ConfinedSwap(const ConfinedSwap&) = delete;
    ConfinedSwap& operator=(const ConfinedSwap&) = delete;

    bool active() const { return active_; }
    QString why() const { return why_; }
    QString cgroup() const { return cgroup_; }
    QString swapFile() const { return file_; }

private:
    bool fail(const QString& what, int err) {
        why_ = what + QStringLiteral(": ") + QString::fromLocal8Bit(std::strerror(err));
        return false;
    }

    static void turnOffStale() {
        QFile swaps(QStringLiteral("/proc/swaps"));
        if (!swaps.open(QIODevice::ReadOnly)) return;
        for (const QByteArray& line : swaps.readAll().split('\n')) {
            const QByteArray path = line.split(' ').value(0);
            if (!QFileInfo(QString::fromLocal8Bit(path)).fileName().startsWith(QLatin1String(kSwapFilePrefix))) continue;
            ::swapoff(path.constData());
            QFile::remove(QString::fromLocal8Bit(path));
        }
    }

    bool makeSwap(std::int64_t bytes) {
        file_ = QDir::temp().filePath(QLatin1String(kSwapFilePrefix) + QString::number(::getpid()));
        const QByteArray path = QFile::encodeName(file_);
        const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) return fail(QStringLiteral("cannot create ") + file_, errno);
        const QByteArray zeros(1 << 20, '\0');
        bool written = true;
        for (std::int64_t left = bytes; written && left > 0; left -= zeros.size())
            written = ::write(fd, zeros.constData(), static_cast<size_t>(zeros.size())) == zeros.size();
        const int err = errno;
        written = written && ::fsync(fd) == 0;
        ::close(fd);
        if (!written) return fail(QStringLiteral("cannot fill ") + file_, err);
        QProcess mkswap;
        mkswap.start(QStringLiteral("mkswap"), {file_});
        if (!mkswap.waitForFinished(30000) || mkswap.exitStatus() != QProcess::NormalExit || mkswap.exitCode() != 0) {
            why_ = QStringLiteral("mkswap %1 failed: %2").arg(file_, mkswap.errorString() + ' ' + QString::fromLocal8Bit(mkswap.readAllStandardError()).trimmed());
            return false;
        }
        if (::swapon(path.constData(), 0) != 0)
            return fail(QStringLiteral("swapon %1 (its file system takes no swap files?)").arg(file_), errno);
        swapOn_ = true;
        return true;
    }

    bool makeCgroup(std::int64_t ramLimit) {
        QFile self(QStringLiteral("/proc/self/cgroup"));
        if (!self.open(QIODevice::ReadOnly)) return fail(QStringLiteral("cannot read /proc/self/cgroup"), errno);
        QString dir;
        QString limitFile;
        for (const QByteArray& line : self.readAll().split('\n')) {
            const QList<QByteArray> f = line.split(':');  // "4:memory:/path" (v1) or "0::/path" (v2)
            if (f.size() < 3) continue;
            const QString path = QString::fromLocal8Bit(f.mid(2).join(':'));
            if (f[1].split(',').contains("memory")) {
                dir = QStringLiteral("/sys/fs/cgroup/memory") + path;
                limitFile = QStringLiteral("memory.limit_in_bytes");
                break;
            }
            if (f[0] == "0" && f[1].isEmpty() && QFile::exists(QStringLiteral("/sys/fs/cgroup/cgroup.controllers"))) {
                dir = QStringLiteral("/sys/fs/cgroup") + path;
                limitFile = QStringLiteral("memory.max");
            }
        }
        if (dir.isEmpty()) {
            why_ = QStringLiteral("no memory cgroup controller is mounted");
            return false;
        }
        const QString child = dir + QStringLiteral("/stageload-hog-") + QString::number(::getpid());
        if (!QDir().mkpath(child)) return fail(QStringLiteral("cannot make cgroup ") + child, errno);
        cgroup_ = child;
        QFile limit(child + '/' + limitFile);
        if (!limit.open(QIODevice::WriteOnly) || limit.write(QByteArray::number(static_cast<qlonglong>(ramLimit))) < 0 ||
            !limit.flush())
            return fail(QStringLiteral("cannot set %1 (is the memory controller enabled there?)").arg(limit.fileName()), errno);
        return true;
    }

    bool active_ = false;
    bool swapOn_ = false;
    QString why_;
    QString file_;
    QString cgroup_;
};

}  // namespace faults
