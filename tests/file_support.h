#pragma once
// Whole files in and out for the suites that write fixtures (broken traces, fake scripts, run
// records, weight files) and read back what a program wrote.
//
//   testfile::write(dir.filePath("broken.jsonl"), "{\"type\":\"sam\n");
//   QVERIFY(testfile::read(out).startsWith("glTF"));
//
// A fixture that cannot be written stops the suite (qFatal): every check after it would be
// about the wrong thing. A file that cannot be read reads as empty, which a check then names.

#include <QByteArray>
#include <QFile>
#include <QString>

namespace testfile {

/// Writes `bytes` to `path`, replacing it; qFatal when it cannot.
inline void write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
}

/// The whole file, or empty when it is missing or unreadable.
inline QByteArray read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// A safetensors file's bytes: the 8-byte little-endian length of `header` (its JSON), the
/// header, then `dataBytes` zero bytes (what the header's offsets must describe).
inline QByteArray safetensors(const QByteArray& header, qsizetype dataBytes) {
    QByteArray bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((quint64(header.size()) >> (8 * i)) & 0xff);
    return bytes + header + QByteArray(dataBytes, '\0');
}

}  // namespace testfile
