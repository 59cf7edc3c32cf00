#pragma once
// The 3D view with its toolbar row: shading mode, Reset, and the mesh's stats
// ("12,345 vertices · 24,000 triangles", "No mesh"), and under it the notes of the run that
// made the mesh ("the classical cut-out was used ...", "the subject touches ... edge"), where
// the artist looks at the result.
//
//   stageload::view::MeshPanel panel;
//   QString error;
//   if (!panel.openFile("hero.obj", &error)) QMessageBox::warning(&panel, "Open", error);
//   panel.view()->setMesh(result.mesh);             // or hand it a mesh directly
//
// Throws nothing (openFile reports errors through its result). GUI thread only.

#include <QString>
#include <QStringList>
#include <QWidget>

#include "ui/view/mesh_view.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace stageload::view {

class MeshPanel : public QWidget {
    Q_OBJECT

public:
    explicit MeshPanel(QWidget* parent = nullptr);

    MeshView* view() const { return view_; }

    /// Reads a .glb, .gltf or .obj (stageload::readMeshFile) and shows it. On failure the view
    /// keeps what it showed, `*error` (when given) gets a message that names the file, and the
    /// result is false. Reading happens on the calling thread (a large file takes a moment).
    bool openFile(const QString& path, QString* error = nullptr);

    /// What the stats label shows: "12,345 vertices · 24,000 triangles" (" · no texture" when
    /// the mesh has none), or "No mesh".
    QString statsText() const;

    /// Shows the run's notes above the view (hidden when empty), with `action` as a link
    /// after them when given (clicking it emits noteActionClicked). A mesh opened from a file
    /// clears them: they belong to the run that made the mesh.
    void setNotes(const QStringList& notes, const QString& action = {});
    /// The notes as plain text, the action's words included.
    QString notesText() const;

signals:
    void noteActionClicked();

private:
    void updateStats();

    MeshView* view_ = nullptr;
    QComboBox* mode_ = nullptr;
    QPushButton* reset_ = nullptr;
    QLabel* stats_ = nullptr;
    QLabel* notes_ = nullptr;
    QString notesPlain_;
};

}  // namespace stageload::view
