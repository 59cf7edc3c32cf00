#include "ui/chart/display_units.h"

#include <atomic>

namespace stageload::chart {
namespace {
std::atomic<ByteUnits> g_units{ByteUnits::Binary};
}  // namespace

ByteUnits displayUnits() { return g_units.load(std::memory_order_relaxed); }
void setDisplayUnits(ByteUnits units) { g_units.store(units, std::memory_order_relaxed); }

QString sizeText(std::int64_t bytes) { return QString::fromStdString(formatBytes(bytes, displayUnits())); }
QString unitSymbol() { return QString::fromLatin1(largeUnit(displayUnits()).symbol); }
double unitBytes() { return largeUnit(displayUnits()).bytes; }

QString unitNumber(std::optional<std::int64_t> bytes) {
    return bytes ? QString::number(static_cast<double>(*bytes) / unitBytes(), 'f', 2) : QString();
}

QString unitDefinition() {
    return displayUnits() == ByteUnits::Decimal ? QStringLiteral("GB = 10^9 bytes")
                                                : QStringLiteral("GiB = 2^30 bytes");
}

QString unitsWord(ByteUnits units) {
    return units == ByteUnits::Decimal ? QStringLiteral("decimal") : QStringLiteral("binary");
}

std::optional<ByteUnits> unitsFromWord(const QString& word) {
    if (word == QLatin1String("binary")) return ByteUnits::Binary;
    if (word == QLatin1String("decimal")) return ByteUnits::Decimal;
    return std::nullopt;
}

}  // namespace stageload::chart
