#include "ui/app/blender_launcher.h"

#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace stageload::studio {
namespace {

// A Python string literal for any path (quotes and backslashes escaped).
QString pythonString(const QString& s) {
    QString out = s;
    out.replace(QLatin1String("\\"), QLatin1String("\\\\")).replace(QLatin1String("'"), QLatin1String("\\'"));
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}

}  // namespace

QString blenderExecutable() { return QStandardPaths::findExecutable(QStringLiteral("blender")); }

QStringList blenderArguments(const QString& meshFile, bool background) {
    const QString path = pythonString(QFileInfo(meshFile).absoluteFilePath());
    const bool obj = meshFile.endsWith(QLatin1String(".obj"), Qt::CaseInsensitive);
    const QString import =
        obj ? QStringLiteral("(bpy.ops.wm.obj_import if hasattr(bpy.ops.wm, 'obj_import') else "
                             "bpy.ops.import_scene.obj)(filepath=%1)")
                  .arg(path)
            : QStringLiteral("bpy.ops.import_scene.gltf(filepath=%1)").arg(path);
    QString script =
        QStringLiteral("import numpy\n"
                       "if not hasattr(numpy, 'bool'): numpy.bool = bool\n"
                       "import bpy\n"
                       "bpy.ops.wm.read_factory_settings(use_empty=True)\n"
                       "if not hasattr(numpy, 'bool'): numpy.bool = bool\n"
                       "%1\n")
            .arg(import);
    if (background)  // headless checks: say what was imported, then quit
        script += QStringLiteral("print('stageload: imported %d mesh object(s)' % "
                                 "len([o for o in bpy.data.objects if o.type == 'MESH']))\n");
    QStringList args;
    if (background) args << QStringLiteral("-b");
    args << QStringLiteral("--factory-startup") << QStringLiteral("--python-expr") << script;
    return args;
}

bool openInBlender(const QString& meshFile, QString* error) {
    const QString blender = blenderExecutable();
    if (blender.isEmpty()) {
        if (error) *error = QObject::tr("Blender is not on PATH. Install it (Debian: apt install blender) "
                                        "or export the mesh and open it from Blender.");
        return false;
    }
    if (!QFileInfo::exists(meshFile)) {
        if (error) *error = QObject::tr("%1: no such file; generate or export the mesh first.").arg(meshFile);
        return false;
    }
    if (!QProcess::startDetached(blender, blenderArguments(meshFile))) {
        if (error) *error = QObject::tr("Could not start %1.").arg(blender);
        return false;
    }
    return true;
}

}  // namespace stageload::studio
