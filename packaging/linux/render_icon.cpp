// `stageload-render-icon ICON.svg OUT.png SIZE`: the icon drawn at SIZE×SIZE pixels, for the PNG
// sizes of the icon theme (a build step; not installed). Exit 1 with a message when the SVG
// cannot be read or the PNG written.
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");  // a build machine has no display
    QGuiApplication app(argc, argv);
    const QStringList args = app.arguments();
    bool ok = false;
    const int size = args.size() == 4 ? args[3].toInt(&ok) : 0;
    if (!ok || size < 8 || size > 4096) {
        std::fprintf(stderr, "usage: stageload-render-icon ICON.svg OUT.png SIZE (8..4096)\n");
        return 2;
    }
    QSvgRenderer svg(args[1]);
    if (!svg.isValid()) {
        std::fprintf(stderr, "stageload-render-icon: %s is not a readable SVG\n", qPrintable(args[1]));
        return 1;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    svg.render(&painter);
    painter.end();
    if (!image.save(args[2], "PNG")) {
        std::fprintf(stderr, "stageload-render-icon: cannot write %s\n", qPrintable(args[2]));
        return 1;
    }
    return 0;
}
