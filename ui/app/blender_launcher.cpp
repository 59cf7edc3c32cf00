#include "ui/app/blender_launcher.h"

#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

#include "engine/media/mesh_formats.h"

namespace stageload::app {
namespace {

// A Python string literal for any path (quotes and backslashes escaped).
QString pythonString(const QString& s) {
    QString out = s;
    out.replace(QLatin1String("\\"), QLatin1String("\\\\")).replace(QLatin1String("'"), QLatin1String("\\'"));
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}

}  // namespace

QString blenderExecutable() { return QStandardPaths::findExecutable(QStringLiteral("blender")); }

QStringList blenderArguments(const QString& meshFile, bool background, bool quitAfterImport) {
    const QString path = pythonString(QFileInfo(meshFile).absoluteFilePath());
    // The format's own importer (its row in meshFormats()); glTF's for a file of no known format,
    // whose error Blender then reports.
    const auto* format = meshFormatOf(meshFile.toStdString());
    const std::string_view call = format ? format->blenderImport : meshFormats().front().blenderImport;
    QString import = QString::fromUtf8(call.data(), static_cast<qsizetype>(call.size()));
    import.replace(QLatin1String("{path}"), path);
    // With a window, the import waits for it (a timer): run at startup, the .obj importer's
    // poll fails ("context is incorrect") and Blender opens empty. Headless, it runs at once.
    // Either way the outcome is one line the app reads back from Blender's output.
    // The user's own startup file emptied, so their preferences, add-ons and keymap stay. The
    // .obj importer turns Y-up into Blender's Z-up with a 90° rotation of the object, where the
    // glTF importer turns the data: the rotation (and any scale) is applied to the data, so
    // every format comes in upright, unrotated, at the size the app wrote (a line says it).
    QString script =
        QStringLiteral("import numpy\n"
                       "if not hasattr(numpy, 'bool'): numpy.bool = bool\n"
                       "import bpy, mathutils\n"
                       "bpy.ops.wm.read_homefile(use_empty=True)\n"
                       "if not hasattr(numpy, 'bool'): numpy.bool = bool\n"
                       "def stageload_import():\n"
                       "    try:\n"
                       "        windows = bpy.context.window_manager.windows\n"
                       "        if windows:\n"
                       "            with bpy.context.temp_override(window=windows[0]):\n"
                       "                %1\n"
                       "        else:\n"
                       "            %1\n"
                       "        meshes = [o for o in bpy.data.objects if o.type == 'MESH']\n"
                       "        for o in meshes:\n"
                       "            if o.parent is None:\n"
                       "                o.data.transform(o.matrix_basis)\n"
                       "                o.matrix_basis = mathutils.Matrix.Identity(4)\n"
                       "        for o in meshes[:1]:\n"
                       "            print('stageload: size %.4f %.4f %.4f rotation %.4f %.4f %.4f' % "
                       "(*o.dimensions, *[round(r, 4) + 0.0 for r in o.rotation_euler]), flush=True)\n"
                       "        print('stageload: imported %d mesh object(s)' % len(meshes), flush=True)\n"
                       "    except Exception as e:\n"
                       "        print('stageload: import failed: %s' % e, flush=True)\n"
                       "%2"
                       "    return None\n"
                       "if bpy.app.background:\n"
                       "    stageload_import()\n"
                       "else:\n"
                       "    bpy.app.timers.register(stageload_import, first_interval=0.2)\n")
            .arg(import, quitAfterImport && !background ? QStringLiteral("    bpy.ops.wm.quit_blender()\n") : QString());
    QStringList args;
    // Headless checks start from the factory settings, so they are the same on every machine.
    if (background) args << QStringLiteral("-b") << QStringLiteral("--factory-startup");
    args << QStringLiteral("--python-expr") << script;
    return args;
}

std::optional<BlenderImport> blenderImportResult(const QString& output) {
    static const QString imported = QStringLiteral("stageload: imported ");
    static const QString failed = QStringLiteral("stageload: import failed: ");
    for (const QString& line : output.split(QLatin1Char('\n'))) {
        if (line.startsWith(imported)) return BlenderImport{true, line.mid(imported.size()).trimmed()};
        if (line.startsWith(failed)) return BlenderImport{false, line.mid(failed.size()).trimmed()};
    }
    return std::nullopt;
}

bool openInBlender(const QString& meshFile, QString* error, const QString& logFile) {
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
    QProcess process;
    process.setProgram(blender);
    process.setArguments(blenderArguments(meshFile));
    if (!logFile.isEmpty()) {
        process.setStandardOutputFile(logFile);
        process.setStandardErrorFile(logFile, QIODevice::Append);
    }
    if (!process.startDetached()) {
        if (error) *error = QObject::tr("Could not start %1.").arg(blender);
        return false;
    }
    return true;
}

}  // namespace stageload::app
