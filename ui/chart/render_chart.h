#pragma once
// Renders recorded runs as a memory chart picture without showing a window (what
// `stageload plot` writes): the first run is the primary one, with stage bands and load/release
// ticks; the others are overlaid dashed and lighter.
//
//   QApplication app(argc, argv);   // with QT_QPA_PLATFORM=offscreen on a headless machine
//   stageload::chart::renderTraceChart({{stageload::readTrace("staged-1.trace.jsonl"), "staged-1"},
//                                       {stageload::readTrace("eager-1.trace.jsonl"), "eager-1"}},
//                                      "chart.png");
//
// The format follows the extension of `out` (.png, .svg, .pdf); the file is written through a
// temporary file in the same folder and renamed (see chart_export.h). Throws stageload::FileError
// naming the file and what to do when it cannot be written (unknown extension, missing or
// read-only folder, failed write) and stageload::UsageError when `runs` is empty or the size is
// not positive. Needs a QApplication; call it on the GUI thread.

#include <utility>
#include <vector>

#include <QSize>
#include <QString>

#include "guard/trace/trace_reader.h"

namespace stageload::chart {

/// `title` empty: the chart composes one from the labels ("staged-1 (solid) vs eager-1 (dashed)").
void renderTraceChart(const std::vector<std::pair<Trace, QString>>& runs, const QString& out,
                      QSize size = {1600, 900}, const QString& title = {});

}  // namespace stageload::chart
