// Generators: definitions checked on load, a trace followed while it is written, and real runs of
// tests/generators/fake_port.py under the guard — its stages and its group's memory (a child's
// included) in the merged trace, a runaway stopped with nothing of its group left, bad traces,
// failing and missing commands.
#include <chrono>
#include <fstream>
#include <thread>

#include <QTemporaryDir>
#include <QtTest>

#include "guard/generator/generator_def.h"
#include "guard/generator/generator_run.h"
#include "guard/generator/requirements.h"
#include "guard/generator/trace_follower.h"
#include "guard/memory/system_memory.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_generator {

namespace {

constexpr std::int64_t MiB = std::int64_t(1) << 20;

std::string definitionError(const std::string& json) {
    try {
        parseGeneratorDef(json, "gen.json");
    } catch (const GeneratorDefError& e) {
        return e.field() + " | " + e.what();
    }
    return "accepted";
}

void append(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::app | std::ios::binary);
    out << text;
}

// The pids whose environment holds `token` (every process a run started inherits it).
std::vector<int> processesWith(const std::string& token) {
    std::vector<int> pids;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream env(entry.path() / "environ", std::ios::binary);
        const std::string all((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
        std::ifstream stat(entry.path() / "stat");
        std::string statLine;
        std::getline(stat, statLine);
        const auto close = statLine.rfind(')');
        const bool zombie = close != std::string::npos && statLine.size() > close + 2 &&
                            statLine[close + 2] == 'Z';
        if (!zombie && all.find(token) != std::string::npos) pids.push_back(std::stoi(name));
    }
    return pids;
}

}  // namespace

class TestGenerator : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    int runs_ = 0;

    fs::path path(const QString& name) const { return dir_.filePath(name).toStdString(); }

    /// A definition running fake_port.py with `flags`, writing a trace, with the patterns.
    GeneratorDef fakePort(const std::vector<std::string>& flags, const std::string& token) {
        GeneratorDef d;
        d.name = "fake port";
        d.command = {"python3", STAGELOAD_FAKE_PORT, "--image", "{input}", "--out", "{output}",
                     "--trace", "{trace}", "--seed", "{seed}"};
        d.command.insert(d.command.end(), flags.begin(), flags.end());
        d.trace = "{trace}";
        d.stagePattern = "^\\[stage\\] (\\w+)";
        d.progressPattern = "(\\d+)%\\|";
        d.env = {{"STAGELOAD_TEST_TOKEN", token}};
        d.source = "fake_port.json";
        return d;
    }

    GeneratorRunParams params(GeneratorDef def) {
        const fs::path run = path(QStringLiteral("run%1").arg(++runs_));
        GeneratorRunParams p;
        p.def = std::move(def);
        p.values.input = path("picture.png");
        p.values.runDir = run;
        p.values.output = run / "mesh.glb";
        p.values.trace = run / "command.trace.jsonl";
        p.trace = run / "trace.jsonl";
        p.guard.waitFree = 0;
        p.guard.killFree = 0;
        p.guard.poll = 0.2;
        p.guard.stopGrace = 1.0;
        return p;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        std::ofstream(path("picture.png")) << "not read by the fake port";
    }

    void definitionsAreCheckedWithFileAndField() {
        QCOMPARE(definitionError("{\"name\": \"x\", \"command\": [\"a\", \"{input}\", \"{{literal}}\"]}"),
                 std::string("accepted"));
        const auto missing = definitionError("{\"name\": \"x\"}");
        QVERIFY2(missing.rfind("command | gen.json", 0) == 0, missing.c_str());
        const auto unknown = definitionError("{\"name\": \"x\", \"command\": [\"a\", \"{inptu}\"]}");
        QVERIFY2(unknown.rfind("command[1] |", 0) == 0 && unknown.find("{inptu}") != std::string::npos,
                 unknown.c_str());
        const auto regex = definitionError("{\"name\": \"x\", \"command\": [\"a\"], \"stage_pattern\": \"([\"}");
        QVERIFY2(regex.rfind("stage_pattern |", 0) == 0 && regex.find("bad regex") != std::string::npos,
                 regex.c_str());
        const auto group = definitionError("{\"name\": \"x\", \"command\": [\"a\"], \"progress_pattern\": \"\\\\d+%\"}");
        QVERIFY2(group.rfind("progress_pattern |", 0) == 0, group.c_str());
        // Which formats read is the mesh table's (engine/api's generatorMeshProblem()); here the form.
        QVERIFY(definitionError("{\"name\": \"x\", \"command\": [\"a\"], \"format\": \".glb\"}").rfind("format |", 0) == 0);
        QVERIFY(definitionError("{\"name\": \"x\", \"command\": [\"a\"], \"comand\": []}").rfind("comand |", 0) == 0);
        QVERIFY(definitionError("{\"command\": [\"a\"]}").rfind("name |", 0) == 0);
        QVERIFY(definitionError("not json").find("not valid JSON") != std::string::npos);
        QVERIFY(definitionError("{\"name\": \"x\", \"command\": [\"a\", \"{steps}\"], \"params\": {\"steps\": \"25\"}}") ==
                "accepted");
    }

    void placeholdersAreReplaced() {
        auto d = parseGeneratorDef(
            "{\"name\": \"x\", \"command\": [\"{stageload}\", \"--in={input}\", \"{seed}/{texture_size}\",\n                \"{steps}\", \"{{x}}\"], \"workdir\": \"{run_dir}\", \"trace\": \"{trace}\",\n                \"env\": {\"A\": \"{seed}\"}, \"params\": {\"steps\": \"25\"}}",
            "x.json");
        GeneratorValues v;
        v.input = "/p/hero.png";
        v.seed = 42;
        v.textureSize = 1024;
        v.runDir = "/runs/1";
        v.trace = "/runs/1/t.jsonl";
        v.stageload = "/bin/stageload";
        v.params = {{"steps", "50"}};
        const auto c = expandGenerator(d, v);
        QCOMPARE(c.argv, (std::vector<std::string>{"/bin/stageload", "--in=/p/hero.png", "42/1024", "50", "{x}"}));
        QCOMPARE(c.workdir, std::string("/runs/1"));
        QCOMPARE(c.trace, std::string("/runs/1/t.jsonl"));
        QCOMPARE(c.env.at(0).second, std::string("42"));
        v.params = {{"stepz", "1"}};
        QVERIFY_THROWS_EXCEPTION(GeneratorDefError, expandGenerator(d, v));
        // What the editor saves reads back the same.
        const auto back = parseGeneratorDef(generatorDefJson(d), "x.json");
        QCOMPARE(back.command, d.command);
        QCOMPARE(back.params, d.params);
    }

    // What real programs need: params with choices and help, an optional flag that comes out
    // empty and is left out, stage patterns that each name their stage, N/M progress, "result".
    void realProgramKeysAreCheckedAndRoundTrip() {
        const auto d = parseGeneratorDef(
            R"J({"name": "x", "command": ["{python}", "run.py", "{low_vram}", "--res", "{res}", "x{low_vram}"],
                "params": {"python": "python3", "low_vram": {"default": "--low_vram", "choices": ["--low_vram", ""]},
                           "res": {"choices": ["512", "1024"], "help": "the resolution"}, "checkout_dir": "/c"},
                "requires": ["{python}", {"path": "{checkout_dir}/run.py", "is": "file", "what": "run.py"}],
                "result": "{run_dir}/out/0/mesh.glb",
                "stage_patterns": [{"pattern": "^Sampling shape", "stage": "shape"}, {"pattern": "^\\[(\\w+)\\]"}],
                "progress_pattern": "(\\d+)/(\\d+)"})J",
            "x.json");
        QCOMPARE(findParam(d, "low_vram")->choices, (std::vector<std::string>{"--low_vram", ""}));
        QCOMPARE(findParam(d, "res")->value, std::string("512"));  // the first choice without a default
        QCOMPARE(findParam(d, "res")->help, std::string("the resolution"));
        QCOMPARE(d.stagePatterns.size(), std::size_t(2));
        QCOMPARE(d.requirements.at(1).kind, Requirement::Kind::File);
        GeneratorValues v;
        v.runDir = "/runs/1";
        auto c = expandGenerator(d, v);
        QCOMPARE(c.argv, (std::vector<std::string>{"python3", "run.py", "--low_vram", "--res", "512", "x--low_vram"}));
        QCOMPARE(c.result, std::filesystem::path("/runs/1/out/0/mesh.glb"));
        v.params = {{"low_vram", ""}};
        c = expandGenerator(d, v);
        // Alone and empty: left out; with other text: kept.
        QCOMPARE(c.argv, (std::vector<std::string>{"python3", "run.py", "--res", "512", "x"}));
        v.params = {{"res", "2048"}};
        QVERIFY_THROWS_EXCEPTION(GeneratorDefError, expandGenerator(d, v));
        const auto back = parseGeneratorDef(generatorDefJson(d), "x.json");
        QCOMPARE(back.params, d.params);
        QCOMPARE(back.stagePatterns, d.stagePatterns);
        QCOMPARE(back.requirements, d.requirements);
        QCOMPARE(back.result, d.result);
        QCOMPARE(paramsIn(d, "{checkout_dir}/{python}/{seed}"), (std::vector<std::string>{"checkout_dir", "python"}));
        QVERIFY(usesPlaceholder(d, "python") && !usesPlaceholder(d, "seed"));

        const auto bad = [](const std::string& more) {
            return definitionError(R"({"name": "x", "command": ["a"], )" + more + "}");
        };
        QVERIFY2(bad(R"("stage_patterns": [{"pattern": "^x"}])").rfind("stage_patterns[0].pattern |", 0) == 0,
                 bad(R"("stage_patterns": [{"pattern": "^x"}])").c_str());
        QVERIFY(bad(R"("stage_patterns": [{"regex": "^x", "stage": "a"}])").rfind("stage_patterns[0] |", 0) == 0);
        QVERIFY(bad(R"J("progress_pattern": "(a)(b)(c)")J").rfind("progress_pattern |", 0) == 0);
        QVERIFY(bad(R"("requires": [{"path": "x", "is": "app"}])").rfind("requires[0].is |", 0) == 0);
        QVERIFY(bad(R"("requires": ["{nope}"])").rfind("requires[0] |", 0) == 0);
        QVERIFY(bad(R"("result": "{run_dir}/mesh")").rfind("result |", 0) == 0);
        QVERIFY(bad(R"("params": {"a": {"default": "3", "choices": ["1", "2"]}})").rfind("params.a.default |", 0) == 0);
        QVERIFY(bad(R"("params": {"a": {"defualt": "3"}})").rfind("params.a.defualt |", 0) == 0);
    }

    // "requires" (and the workdir) are looked for before anything starts: each missing one names
    // its path and the param that sets it; what lies under a missing folder is not said twice.
    void requirementsNameThePathAndTheParam() {
        const fs::path here = path("req");
        fs::create_directories(here / "checkout");
        std::ofstream(here / "checkout" / "run.py") << "print()";
        std::ofstream(here / "tool") << "#!/bin/sh\n";
        const auto d = parseGeneratorDef(
            R"({"name": "gen", "command": ["{python}", "run.py"], "workdir": "{checkout}",
                "params": {"checkout": "/nowhere/checkout", "python": "sh", "tool": "/nowhere/tool"},
                "requires": [{"path": "{checkout}", "is": "folder"}, {"path": "{checkout}/run.py", "is": "file"},
                             {"path": "{python}", "is": "program"}, {"path": "{tool}", "is": "program"}]})",
            "gen.json");
        GeneratorValues v;
        auto missing = missingRequirements(d, v);
        QCOMPARE(missing.size(), std::size_t(2));  // the checkout (not its run.py, nor the workdir) and the tool
        QCOMPARE(missing[0].path, std::string("/nowhere/checkout"));
        QCOMPARE(missing[0].params, std::vector<std::string>{"checkout"});
        QVERIFY2(missing[0].message.find("'gen' is not set up: the folder /nowhere/checkout does not exist") == 0 &&
                     missing[0].message.find("--param checkout=") != std::string::npos,
                 missing[0].message.c_str());
        v.params = {{"checkout", (here / "checkout").string()}, {"tool", (here / "tool").string()}};
        missing = missingRequirements(d, v);
        QCOMPARE(missing.size(), std::size_t(1));
        QVERIFY2(missing[0].problem.find("not executable") != std::string::npos, missing[0].problem.c_str());
        fs::permissions(here / "tool", fs::perms::owner_exec, fs::perm_options::add);
        QVERIFY(missingRequirements(d, v).empty());
        v.params["python"] = "no-such-program-here";
        missing = missingRequirements(d, v);
        QCOMPARE(missing.size(), std::size_t(1));
        QCOMPARE(missing[0].problem, std::string("is not in PATH"));
        // A param that leaves the program empty is said as such, with the param.
        auto emptyProgram = d;
        emptyProgram.command = {"{tool}"};
        v.params["tool"] = "";
        missing = missingRequirements(emptyProgram, v);
        QVERIFY(!missing.empty());
        QVERIFY2(missing[0].message.find("its program (command[0]) is empty") != std::string::npos &&
                     missing[0].params == std::vector<std::string>{"tool"},
                 missing[0].message.c_str());
        // The Set up form's fields: a path that goes on below a param makes it a folder.
        const auto fields = setupParams(d);
        QCOMPARE(fields.size(), std::size_t(3));
        QCOMPARE(fields[0], (std::pair<std::string, Requirement::Kind>{"checkout", Requirement::Kind::Folder}));
        QCOMPARE(fields[1], (std::pair<std::string, Requirement::Kind>{"python", Requirement::Kind::Program}));
    }

    // A bare name finds the shipped definition; --load goes to a "load" param.
    void namesAndLoadModes() {
        const auto file = resolveGeneratorFile("stageload-cascade", {"/nowhere", STAGELOAD_GENERATORS_SHIPPED});
        QCOMPARE(file, fs::path(STAGELOAD_GENERATORS_SHIPPED) / "stageload-cascade.json");
        QVERIFY_THROWS_EXCEPTION(GeneratorDefError, resolveGeneratorFile("no-such", {STAGELOAD_GENERATORS_SHIPPED}));
        const auto def = readGeneratorDef(file);
        std::map<std::string, std::string> params;
        setLoadMode(def, params, "eager");
        QCOMPARE(params.at("load"), std::string("eager"));
        QVERIFY_THROWS_EXCEPTION(UsageError, setLoadMode(def, params, "staged"));  // said otherwise already
        GeneratorDef noLoad;
        noLoad.name = "n";
        std::map<std::string, std::string> none;
        QVERIFY_THROWS_EXCEPTION(UsageError, setLoadMode(noLoad, none, "eager"));
        QCOMPARE(parseParamAssignments({"a=1", "b=x=y"}), (std::map<std::string, std::string>{{"a", "1"}, {"b", "x=y"}}));
        QVERIFY_THROWS_EXCEPTION(UsageError, parseParamAssignments({"=1"}));
    }

    // "stage_weights": a name or a list per stage, placeholders and "~" replaced, relative
    // names the generator's (its workdir, else the definition's folder); bad ones named.
    void stageWeightsAreCheckedAndExpanded() {
        const auto d = parseGeneratorDef(
            R"({"name": "x", "command": ["a"], "params": {"ckpt": "/models"},
                "stage_weights": {"shape": ["{ckpt}/shape-*.safetensors", "dino.bin"],
                                  "texture": "~/tex.safetensors"}})",
            "/defs/x.json");
        QCOMPARE(d.stageWeights.size(), std::size_t(2));
        GeneratorValues v;
        const auto files = expandStageWeights(d, v);
        QCOMPARE(files.at(0).first, std::string("shape"));
        QCOMPARE(files.at(0).second,
                 (std::vector<std::filesystem::path>{"/models/shape-*.safetensors", "/defs/dino.bin"}));
        QCOMPARE(files.at(1).second.at(0), std::filesystem::path(qgetenv("HOME").toStdString()) / "tex.safetensors");
        v.params = {{"ckpt", "/other"}};
        QCOMPARE(expandStageWeights(d, v).at(0).second.at(0), std::filesystem::path("/other/shape-*.safetensors"));
        auto withWorkdir = d;
        withWorkdir.workdir = "/src/gen";
        QCOMPARE(expandStageWeights(withWorkdir, v).at(0).second.at(1), std::filesystem::path("/src/gen/dino.bin"));
        const auto back = parseGeneratorDef(generatorDefJson(d), "/defs/x.json");
        QCOMPARE(back.stageWeights, d.stageWeights);

        const auto notObject = definitionError(R"({"name": "x", "command": ["a"], "stage_weights": ["a"]})");
        QVERIFY2(notObject.rfind("stage_weights |", 0) == 0, notObject.c_str());
        const auto notName = definitionError(R"({"name": "x", "command": ["a"], "stage_weights": {"shape": [3]}})");
        QVERIFY2(notName.rfind("stage_weights.shape[0] |", 0) == 0, notName.c_str());
        const auto placeholder =
            definitionError(R"({"name": "x", "command": ["a"], "stage_weights": {"shape": "{ckpt}/a"}})");
        QVERIFY2(placeholder.rfind("stage_weights.shape |", 0) == 0 && placeholder.find("{ckpt}") != std::string::npos,
                 placeholder.c_str());
    }

    void commandLinesAreShownQuoted() {
        QCOMPARE(shellCommandLine({"python3", "run.py", "--image", "/p/my hero.png", "it's", ""}),
                 std::string("python3 run.py --image '/p/my hero.png' 'it'\\''s' ''"));
    }

    void shippedDefinitionsAreValid() {
        const auto catalog = findGenerators({STAGELOAD_GENERATORS_SHIPPED});
        QVERIFY2(catalog.problems.empty(), catalog.problems.empty() ? "" : catalog.problems[0].c_str());
        QVERIFY(catalog.generators.size() >= 11);  // the two built-in ones and the presets
    }

    void catalogReportsBadFilesAndKeepsTheRest() {
        const fs::path d = path("catalog");
        fs::create_directories(d);
        std::ofstream(d / "good.json") << "{\"name\": \"good\", \"command\": [\"true\"]}";
        std::ofstream(d / "bad.json") << "{\"name\": \"bad\", \"command\": [\"x\", \"{nope}\"]}";
        std::ofstream(d / "notes.txt") << "not a generator";
        const auto c = findGenerators({d, path("missing-folder")});
        QCOMPARE(c.generators.size(), std::size_t(1));
        QCOMPARE(c.generators[0].name, std::string("good"));
        QCOMPARE(c.problems.size(), std::size_t(1));
        QVERIFY2(c.problems[0].find("bad.json") != std::string::npos &&
                     c.problems[0].find("{nope}") != std::string::npos,
                 c.problems[0].c_str());
    }

    void followerTakesLinesAsTheyComplete() {
        const fs::path t = path("follow.jsonl");
        TraceFollower follow(t);
        QVERIFY(follow.poll().empty());  // not there yet
        QVERIFY(!follow.found());
        append(t, "{\"type\":\"start\",\"interval\":0.1}" "\n" "{\"type\":\"sample\",\"t\":0.5,\"footprint\":100");
        auto lines = follow.poll();
        QCOMPARE(lines.size(), std::size_t(1));  // the sample is not finished
        QVERIFY(lines[0].kind == TraceLine::Kind::Start);
        append(t, ",\"swap_used\":0,\"level\":50}\nnot json\n{\"type\":\"sample\",\"t\":1e400}\n");
        append(t, "{\"type\":\"event\",\"kind\":\"stage\",\"stage\":\"shape\",\"t\":0.7}" "\n");
        lines = follow.poll();
        QCOMPARE(lines.size(), std::size_t(2));
        QCOMPARE(lines[0].sample.footprint, std::int64_t(100));
        QCOMPARE(lines[1].event.name, std::string("shape"));
        QCOMPARE(follow.badLines(), 2);
        QVERIFY2(follow.firstProblem().rfind("line 3:", 0) == 0, follow.firstProblem().c_str());
        append(t, "{\"type\":\"sample\",\"t\":0.9,\"foot");
        QVERIFY(follow.finish().empty());
        QVERIFY(follow.halfWritten());
    }

    void aRunMergesItsStagesAndCountsItsChild() {
        const std::string token = "gen-merge-" + std::to_string(::getpid());
        auto p = params(fakePort({"--stages", "preprocess:20,shape:40,texture:60,export:10",
                                  "--stage-seconds", "0.5", "--child-stage", "shape",
                                  "--child-mb", "300"},
                                 token));
        std::vector<std::string> progressStages;
        double lastPercent = -1;
        std::vector<Event> events;
        p.onProgress = [&](const std::string& s, double pct) {
            if (progressStages.empty() || progressStages.back() != s) progressStages.push_back(s);
            if (pct >= 0) lastPercent = pct;
        };
        p.onEvent = [&](const Event& e) { events.push_back(e); };
        const auto r = runGenerator(p);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.stages, (std::vector<std::string>{"preprocess", "shape", "texture", "export"}));
        QCOMPARE(progressStages, r.stages);
        QCOMPARE(lastPercent, 100.0);
        QVERIFY(r.commandTraceFound);
        QCOMPARE(r.badTraceLines, 0);
        QVERIFY(fs::exists(p.values.output));
        QVERIFY(fs::file_size(r.log) > 0);

        const auto trace = readTrace(p.trace.string());
        QVERIFY(trace.ended);
        QCOMPARE(trace.start.value("generator", ""), std::string("fake port"));
        int loads = 0, releases = 0;
        for (const auto& e : trace.events) {
            loads += e.kind == EventKind::Load;
            releases += e.kind == EventKind::Release;
        }
        QVERIFY2(loads >= 4 && releases >= 3, qPrintable(QString("%1 loads, %2 releases").arg(loads).arg(releases)));
        const auto s = summarize(trace);
        std::optional<std::int64_t> shapePeak, texturePeak;
        for (const auto& w : s.stages) {
            if (w.name == "shape") shapePeak = w.peakFootprint;
            if (w.name == "texture") texturePeak = w.peakFootprint;
        }
        QVERIFY(shapePeak && texturePeak);
        // The parent holds 40 MiB in shape; its child 300 MiB more: only the group's sum has it.
        QVERIFY2(*shapePeak > 300 * MiB,
                 qPrintable(QString("shape peak %1 MiB").arg(*shapePeak / MiB)));
        QVERIFY2(*texturePeak < *shapePeak, "the child's memory went with the child");
        QVERIFY(processesWith(token).empty());
    }

    // A 64 KiB line of digits once overflowed the stack inside std::regex ("(\\d+)%" recurses
    // per digit); patterns now see the first 2 KiB of a line.
    void aHugeOutputLineIsNoCrash() {
        GeneratorDef d;
        d.name = "long lines";
        d.command = {"python3", "-c", "print('7' * 65536); print('[stage] shape ' + '8' * 65536); print(' 50%|')"};
        d.stagePattern = "^\\[stage\\] (\\w+)";
        d.progressPattern = "(\\d+)%\\|";
        auto p = params(d);
        double lastPercent = -1;
        p.onProgress = [&](const std::string&, double pct) { lastPercent = std::max(lastPercent, pct); };
        const auto r = runGenerator(p);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.stages, std::vector<std::string>{"shape"});
        QCOMPARE(lastPercent, 50.0);
    }

    void aRunawayIsStoppedWithItsWholeGroup() {
        const std::string token = "gen-runaway-" + std::to_string(::getpid());
        auto p = params(fakePort({"--stages", "load:10,grow:10,export:10", "--stage-seconds", "0.3",
                                  "--child-stage", "grow", "--child-mb", "20", "--runaway",
                                  "--ignore-sigterm"},
                                 token));
        // Stop when available memory falls 3 points below where it is now (~0.7 GiB on 24 GiB).
        const double level = readSystemMemory().availablePercent();
        QVERIFY(level > 10);
        p.guard.killFree = level - 3;
        const auto started = std::chrono::steady_clock::now();
        const auto r = runGenerator(p);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.guardStop.find("kill-free") != std::string::npos, r.guardStop.c_str());
        QVERIFY(std::chrono::steady_clock::now() - started < 60s);
        QVERIFY2(processesWith(token).empty(), "a process of the stopped run is still there");
        const auto trace = readTrace(p.trace.string());
        bool marked = false;
        for (const auto& e : trace.events) marked = marked || e.note.find("guard: stop") != std::string::npos ||
                                                   e.name.find("guard: stop") != std::string::npos;
        QVERIFY(marked);
    }

    void aLateAndGarbledTraceIsFollowed() {
        auto p = params(fakePort({"--stages", "a:5,b:5", "--stage-seconds", "0.3", "--trace-delay",
                                  "0.5", "--trace-garbage", "--trace-partial"},
                                 "gen-late"));
        const auto r = runGenerator(p);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.commandTraceFound);
        QVERIFY(r.badTraceLines > 0);
        QVERIFY(!r.firstBadTraceLine.empty());
        const auto trace = readTrace(p.trace.string());
        int stages = 0;
        for (const auto& e : trace.events) stages += e.kind == EventKind::Stage;
        QVERIFY(stages >= 2);
    }

    void failuresAreExitCodesWithTheirStderr() {
        auto failing = params(fakePort({"--stages", "a:5", "--stage-seconds", "0.1", "--exit-code", "5"}, "gen-f"));
        auto r = runGenerator(failing);
        QCOMPARE(r.exitCode, 5);
        QVERIFY(!r.stderrTail.empty());
        QVERIFY2(r.stderrTail.back().find("failing on purpose") != std::string::npos, r.stderrTail.back().c_str());

        GeneratorDef missing;
        missing.name = "missing";
        missing.command = {"/nonexistent/generator", "{input}"};
        r = runGenerator(params(missing));
        QCOMPARE(r.exitCode, 127);

        GeneratorDef noFolder = missing;
        noFolder.command = {"true"};
        noFolder.workdir = "/nonexistent/folder";
        r = runGenerator(params(noFolder));
        QCOMPARE(r.exitCode, 127);
        QVERIFY(r.stderrTail.at(0).find("/nonexistent/folder") != std::string::npos);
    }

    // "result": one inside the run's folder left by an earlier run is removed before the run; one
    // outside it is the user's file, kept, its time noted so that an old one is not taken as new.
    void aResultIsClearedInTheRunFolderAndKeptOutsideIt() {
        GeneratorDef d;
        d.name = "picks its own";
        d.command = {"true"};
        d.result = "{run_dir}/out/0/mesh.glb";
        auto p = params(d);
        fs::create_directories(p.values.runDir / "out/0");
        std::ofstream(p.values.runDir / "out/0/mesh.glb") << "an earlier run's";
        auto r = runGenerator(p);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.result, p.values.runDir / "out/0/mesh.glb");
        QVERIFY(!fs::exists(r.result));
        QVERIFY(!r.resultBefore);

        const fs::path outside = path("elsewhere.glb");
        std::ofstream(outside) << "the user's";
        d.result = outside.string();
        r = runGenerator(params(d));
        QVERIFY(fs::exists(outside));
        QVERIFY(r.resultBefore && *r.resultBefore == fs::last_write_time(outside));
    }

    void cancelStopsTheGroupAndWhatLeftIt() {
        const std::string token = "gen-cancel-" + std::to_string(::getpid());
        // Its child leaves the process group (setsid) and ignores SIGTERM: it must go all the same.
        auto p = params(fakePort({"--stages", "a:5,b:5", "--stage-seconds", "30", "--ignore-sigterm",
                                  "--child-stage", "a", "--child-setsid", "--child-mb", "10"},
                                 token));
        std::atomic<bool> cancel{false};
        p.cancel = &cancel;
        std::thread canceller([&] {
            std::this_thread::sleep_for(1s);
            cancel.store(true);
        });
        const auto r = runGenerator(p);
        canceller.join();
        QCOMPARE(r.exitCode, 130);
        QVERIFY2(processesWith(token).empty(), "a process of the cancelled run is still there");
    }
};

}  // namespace test_generator

STAGELOAD_GUILESS_SUITE(test_generator, test_generator::TestGenerator)
#include "test_generator.moc"
