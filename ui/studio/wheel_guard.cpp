#include "ui/studio/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QWheelEvent>
#include <QWidget>

namespace stageload::studio {
namespace {

class WheelFilter : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::Wheel) return false;
        const auto* w = qobject_cast<QWidget*>(watched);
        if (!w || w->hasFocus()) return false;
        // To the scroll area it sits in, whose viewport scrolls: QApplication hands an ignored
        // wheel on only when it came from the window system, so it is sent there outright.
        const auto* wheel = static_cast<QWheelEvent*>(event);
        for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
                QWidget* viewport = area->viewport();
                QWheelEvent moved(viewport->mapFromGlobal(wheel->globalPosition()), wheel->globalPosition(),
                                  wheel->pixelDelta(), wheel->angleDelta(), wheel->buttons(), wheel->modifiers(),
                                  wheel->phase(), wheel->inverted(), wheel->source());
                QCoreApplication::sendEvent(viewport, &moved);
                return true;
            }
        event->ignore();
        return true;
    }
};

WheelFilter* filter() {
    static auto* f = new WheelFilter(QCoreApplication::instance());  // lives as long as the app
    return f;
}

void guardOne(QWidget* w) {
    w->setFocusPolicy(Qt::StrongFocus);  // not WheelFocus: the wheel does not take focus either
    w->removeEventFilter(filter());      // once, however often it is called
    w->installEventFilter(filter());
}

}  // namespace

void guardWheel(QWidget* root) {
    if (!root) return;
    if (qobject_cast<QComboBox*>(root) || qobject_cast<QAbstractSpinBox*>(root)) guardOne(root);
    for (auto* box : root->findChildren<QComboBox*>()) guardOne(box);
    for (auto* spin : root->findChildren<QAbstractSpinBox*>()) guardOne(spin);
}

}  // namespace stageload::studio
