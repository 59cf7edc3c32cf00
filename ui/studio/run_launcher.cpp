#include "ui/studio/run_launcher.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include "engine/api/run_meta.h"
#include "guard/generator/generator_run.h"
#include "guard/generator/requirements.h"

namespace stageload::studio {
namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

// A built-in run's settings for its record: the trace's meta keys, and the guard's switch.
QJsonObject builtinSettingsJson(const StudioSettings& s, const QString& input) {
    auto json = QJsonDocument::fromJson(QByteArray::fromStdString(runMeta(s.run, input.toStdString()).dump())).object();
    json.remove(QStringLiteral("input"));
    json.insert(QStringLiteral("threads"), s.run.threads);
    json.insert(QStringLiteral("guard"), s.guardEnabled);
    return json;
}

// A generator run's settings for its record: what its command is given.
QJsonObject generatorSettingsJson(const StudioSettings& s, const GeneratorDef& g,
                                  const std::map<std::string, std::string>& params) {
    QJsonObject values;
    for (const auto& p : g.params) values.insert(q(p.name), q(p.value));
    for (const auto& [k, v] : params) values.insert(q(k), q(v));
    QJsonObject json{{QStringLiteral("generator"), q(g.name)},
                     {QStringLiteral("generator_file"), q(g.source.string())},
                     {QStringLiteral("params"), values},
                     {QStringLiteral("guard"), s.guardEnabled}};
    if (usesPlaceholder(g, "seed")) json.insert(QStringLiteral("seed"), static_cast<double>(s.run.seed));
    if (usesPlaceholder(g, "texture_size")) json.insert(QStringLiteral("texture_size"), s.run.textureSize);
    return json;
}

std::map<std::string, std::string> knownParams(const GeneratorDef& generator, const QMap<QString, QString>& saved) {
    std::map<std::string, std::string> params;
    for (auto it = saved.begin(); it != saved.end(); ++it)
        if (findParam(generator, it.key().toStdString())) params[it.key().toStdString()] = it.value().toStdString();
    return params;
}

}  // namespace

std::map<std::string, std::string> generatorRunParams(const StudioSettings& settings, const GeneratorDef& generator,
                                                      const std::map<std::string, std::string>& overrides) {
    auto params = knownParams(
        generator, settings.generatorParams.value(StudioSettings::generatorKey(q(generator.source.string()))));
    for (const auto& [k, v] : overrides) params[k] = v;
    if (findParam(generator, kLoadParam) && !overrides.count(kLoadParam))
        params[kLoadParam] = std::string(choiceName(settings.run.mode));
    return params;
}

QString stageloadCommand() {
    return QString::fromStdString(
        stageloadCommandNear(QCoreApplication::applicationFilePath().toStdString()).string());
}

QStringList missingSetup(const GeneratorDef& generator, const std::map<std::string, std::string>& params) {
    GeneratorValues values;
    values.params = params;
    values.stageload = stageloadCommand().toStdString();  // else a {stageload} program is "empty"
    QStringList out;
    try {
        for (const auto& m : missingRequirements(generator, values)) out << q(m.message);
    } catch (const Error& e) {  // a value that is not one of a param's choices
        out << q(e.what());
    }
    return out;
}

QStringList missingSetup(const GeneratorDef& generator, const QMap<QString, QString>& saved) {
    return missingSetup(generator, knownParams(generator, saved));
}

LaunchedRun launchRun(RunHistory& history, const StudioSettings& settings, const QString& picture,
                      const GeneratorDef* generator, const std::map<std::string, std::string>& params,
                      const QString& stageloadCommand) {
    // A generator is given the load mode only through its own "load" param.
    const QString loadMode = !generator ? QString::fromUtf8(choiceName(settings.run.mode).data())
                             : params.count(kLoadParam) ? q(params.at(kLoadParam))
                                                        : QString();
    LaunchedRun run;
    RunRecord& r = run.record;
    r = history.create(picture, generator ? q(generator->name) : q(settings.run.pipeline), loadMode,
                       generator ? generatorSettingsJson(settings, *generator, params)
                                 : builtinSettingsJson(settings, picture));
    r.output = r.filePath(QStringLiteral("mesh.") + (generator ? q(generator->format) : QStringLiteral("glb")));
    r.trace = r.filePath(QStringLiteral("trace.jsonl"));
    r.cutout = r.filePath(QStringLiteral("cutout.png"));
    history.save(r);

    GenerateRequest& request = run.request;
    request.input = r.input;
    request.output = r.output;
    request.trace = r.trace;
    request.cutout = r.cutout;
    request.run = settings.run;
    request.guardEnabled = settings.guardEnabled;
    request.guard = settings.guard;
    if (generator) {
        request.generator = *generator;
        request.generatorParams = params;
        request.runDir = r.dir;
        request.stageloadCommand = stageloadCommand;
    }
    return run;
}

void recordOutcome(RunRecord& r, const GenerateOutcome& outcome) {
    r.status = toStatus(outcome.end);
    r.message = outcome.end == RunEnd::Done ? outcome.notices.join(QLatin1Char('\n')) : outcome.message;
    r.seconds = outcome.seconds;
    r.stageSeconds = outcome.stageSeconds;
    if (outcome.mesh) {
        r.vertices = static_cast<qint64>(outcome.mesh->vertexCount());
        r.triangles = static_cast<qint64>(outcome.mesh->triangleCount());
    }
    r.summary = outcome.summary;
    if (!outcome.command.isEmpty()) r.settings.insert(QStringLiteral("command"), QJsonArray::fromStringList(outcome.command));
    if (!QFileInfo::exists(r.output)) r.output.clear();
    if (!QFileInfo::exists(r.cutout)) r.cutout.clear();
}

}  // namespace stageload::studio
