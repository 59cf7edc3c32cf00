#pragma once
// The unit family the app writes sizes in for people: GiB/MiB (the default) or GB/MB, as the
// user chose in Preferences. One choice for the whole process, like QLocale::setDefault(): set
// it on the GUI thread, then have each widget that shows sizes redraw
// (MemoryChart::refreshUnits(), ...). Typed sizes are not affected: "8G" is 8 GiB either way.
//
//   stageload::chart::setDisplayUnits(stageload::ByteUnits::Decimal);
//   label->setText(stageload::chart::sizeText(bytes));          // "1.61 GB"
//   axis->setLabel(QStringLiteral("memory (%1)").arg(stageload::chart::unitSymbol()));
//   const double y = bytes / stageload::chart::unitBytes();     // in GB
//
// Reading and setting are thread-safe (an atomic); redrawing is the widgets' business.

#include <cstdint>
#include <optional>

#include <QString>

#include "guard/base/units.h"

namespace stageload::chart {

ByteUnits displayUnits();
void setDisplayUnits(ByteUnits units);

/// formatBytes() in the display family: "1.50 GiB" / "1.61 GB".
QString sizeText(std::int64_t bytes);
/// The large unit charts and tables plot in: "GiB" / "GB", and its size in bytes.
QString unitSymbol();
double unitBytes();
/// `bytes` in the large unit with 2 decimals ("1.50"); "" for nullopt (a table cell).
QString unitNumber(std::optional<std::int64_t> bytes);
/// What the large unit is, for tooltips: "GiB = 2^30 bytes" / "GB = 10^9 bytes".
QString unitDefinition();

/// The family's setting word ("binary", "decimal") and back; unknown words give nullopt.
QString unitsWord(ByteUnits units);
std::optional<ByteUnits> unitsFromWord(const QString& word);

}  // namespace stageload::chart
