#include "ui/view/mesh_panel.h"

#include <exception>

#include <QComboBox>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "guard/base/error.h"
#include "engine/media/mesh_files.h"

namespace stageload::view {

MeshPanel::MeshPanel(QWidget* parent) : QWidget(parent) {
    view_ = new MeshView(this);
    mode_ = new QComboBox(this);
    mode_->setObjectName("shadingMode");
    // In ShadingMode's order.
    mode_->addItems({tr("Textured"), tr("Clay"), tr("Normals"), tr("Wireframe")});
    mode_->setCurrentIndex(int(view_->shadingMode()));
    mode_->setToolTip(tr("How the mesh is shaded"));
    reset_ = new QPushButton(tr("Reset view"), this);
    reset_->setObjectName("resetView");
    reset_->setToolTip(tr("Frame the whole mesh again (F, or double-click the view)"));
    stats_ = new QLabel(this);
    stats_->setObjectName("meshStats");
    stats_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    notes_ = new QLabel(this);
    notes_->setObjectName("runNotes");
    notes_->setWordWrap(true);
    notes_->setTextFormat(Qt::RichText);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse |
                                    Qt::LinksAccessibleByKeyboard);
    connect(notes_, &QLabel::linkActivated, this, [this] { emit noteActionClicked(); });
    notes_->setStyleSheet(QStringLiteral("QLabel { background: #fff4d6; color: #5c4300; "
                                         "border: 1px solid #e8c66a; padding: 4px 6px; }"));
    notes_->hide();

    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(new QLabel(tr("Shading"), this));
    toolbar->addWidget(mode_);
    toolbar->addWidget(reset_);
    toolbar->addStretch(1);
    toolbar->addWidget(stats_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(toolbar);
    layout->addWidget(notes_);
    layout->addWidget(view_, 1);

    connect(mode_, &QComboBox::currentIndexChanged, view_,
            [this](int index) { view_->setShadingMode(ShadingMode(index)); });
    connect(view_, &MeshView::shadingModeChanged, mode_, [this](ShadingMode mode) {
        const QSignalBlocker block(mode_);
        mode_->setCurrentIndex(int(mode));
    });
    connect(reset_, &QPushButton::clicked, view_, &MeshView::resetView);
    connect(view_, &MeshView::meshChanged, this, &MeshPanel::updateStats);
    updateStats();
}

bool MeshPanel::openFile(const QString& path, QString* error) {
    auto fail = [&](const QString& message) {
        if (error) *error = message;
        return false;
    };
    const std::filesystem::path file(QFile::encodeName(path).toStdString());
    stageload::TexturedMesh mesh;
    try {
        mesh = stageload::readMeshFile(file);
    } catch (const stageload::Error& e) {
        return fail(QString::fromStdString(e.what()));  // names the file
    } catch (const std::exception& e) {
        return fail(tr("%1: cannot be read (%2)").arg(path, QString::fromLocal8Bit(e.what())));
    }
    try {
        view_->setMesh(mesh);
    } catch (const stageload::Error& e) {
        return fail(tr("%1: %2").arg(path, QString::fromStdString(e.what())));
    }
    setNotes({});
    return true;
}

void MeshPanel::setNotes(const QStringList& notes, const QString& action) {
    QStringList plain, html;
    for (const auto& n : notes) {
        plain << QStringLiteral("⚠ ") + n;
        html << QStringLiteral("⚠ ") + n.toHtmlEscaped();
    }
    if (!notes.isEmpty() && !action.isEmpty()) {
        plain << action;
        html << QStringLiteral("<a href=\"action\">%1</a>").arg(action.toHtmlEscaped());
    }
    notesPlain_ = plain.join(QLatin1Char('\n'));
    notes_->setText(html.join(QStringLiteral("<br>")));
    notes_->setVisible(!notes.isEmpty());
}

QString MeshPanel::notesText() const {
    return notesPlain_;
}

QString MeshPanel::statsText() const {
    return stats_->text();
}

void MeshPanel::updateStats() {
    if (!view_->hasMesh()) {
        stats_->setText(tr("No mesh"));
        return;
    }
    const QLocale english(QLocale::English);
    const int triangles = view_->triangleCount();
    QString text = tr("%1 vertices · %2 %3")
                       .arg(english.toString(view_->vertexCount()), english.toString(triangles),
                            triangles == 1 ? tr("triangle") : tr("triangles"));
    if (!view_->hasTexture()) text += tr(" · no texture");
    stats_->setText(text);
}

}  // namespace stageload::view
