#include <QtTest>

#include "engine/registry/staged_models.h"
#include "tests/suite_program.h"
#include "test_support.h"

using namespace stageload;
using stageload::test::Blob;
using stageload::test::countingLoader;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_staged_models {

namespace {

using Counter = std::shared_ptr<std::atomic<int>>;

struct Fixture {
    Counter a = std::make_shared<std::atomic<int>>(0);
    Counter b = std::make_shared<std::atomic<int>>(0);
    Counter c = std::make_shared<std::atomic<int>>(0);
    EventLog log;

    std::unique_ptr<StagedModels> make(StagedModelsOptions options = {}) {
        if (!options.events) options.events = log.sink();
        return std::make_unique<StagedModels>(
            std::vector<std::pair<std::string, Loader>>{
                {"a", countingLoader(a)}, {"b", countingLoader(b, 32)}, {"c", countingLoader(c)}},
            std::vector<Stage>{{"one", {"a"}}, {"two", {"a", "b"}}, {"three", {"c"}}, {"end", {}}},
            std::move(options));
    }
};

std::vector<std::string> kindsAndNames(const std::vector<Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(std::string(toString(e.kind)) + ":" + e.name);
    return out;
}

}  // namespace

class TestStagedModels : public QObject {
    Q_OBJECT

private slots:
    void constructionLoadsNothing() {
        Fixture f;
        auto m = f.make();
        QCOMPARE(f.a->load() + f.b->load() + f.c->load(), 0);
        QVERIFY(f.log.events().empty());
        QCOMPARE(m->currentStage(), std::string());
    }

    void missingLoadersAreNamedSorted() {
        try {
            StagedModels m({{"a", countingLoader(std::make_shared<std::atomic<int>>())}},
                           {{"s", {"zeta", "a", "alpha"}}, {"t", {"alpha"}}},
                           {.pinned = {"mid"}});
            QFAIL("a plan naming models without loaders must throw");
        } catch (const PlanError& e) {
            QVERIFY2(QString(e.what()).contains("'alpha', 'mid', 'zeta'"), e.what());
        }
    }

    void duplicateNamesAreErrors() {
        auto l = countingLoader(std::make_shared<std::atomic<int>>());
        QVERIFY_THROWS_EXCEPTION(PlanError, StagedModels({{"a", l}, {"a", l}}, {}));
        QVERIFY_THROWS_EXCEPTION(PlanError, StagedModels({{"a", l}}, {{"s", {}}, {"s", {}}}));
        QVERIFY_THROWS_EXCEPTION(PlanError, StagedModels({{"a", Loader{}}}, {}));
    }

    void inspectionNeverLoads() {
        Fixture f;
        auto m = f.make();
        QVERIFY(m->contains("a"));
        QVERIFY(!m->contains("zz"));
        QCOMPARE(m->size(), std::size_t(3));
        QCOMPARE(m->names(), (std::vector<std::string>{"a", "b", "c"}));
        QVERIFY(m->loaded().empty());
        QVERIFY(!m->isLoaded("a"));
        QCOMPARE(m->stages(), (std::vector<std::string>{"one", "two", "three", "end"}));
        QCOMPARE(m->loadedBytes(), std::int64_t(0));
        QCOMPARE(f.a->load() + f.b->load() + f.c->load(), 0);
    }

    void lazyLoadOnceThenSameInstance() {
        Fixture f;
        auto m = f.make();
        m->enter("one");
        auto first = m->get("a");
        auto second = (*m)["a"];
        QCOMPARE(f.a->load(), 1);
        QCOMPARE(first.unchecked().get(), second.unchecked().get());
        QCOMPARE(m->loaded(), std::vector<std::string>{"a"});

        const auto loads = f.log.events(EventKind::Load);
        QCOMPARE(loads.size(), std::size_t(1));
        QCOMPARE(loads[0].name, std::string("a"));
        QCOMPARE(loads[0].stage, std::string("one"));
        QCOMPARE(loads[0].nbytes, std::int64_t(16 * 4));
        QVERIFY(loads[0].seconds >= 0.0);
        QVERIFY(loads[0].note.empty());
    }

    void unknownModelListsKnownOnes() {
        Fixture f;
        auto m = f.make();
        try {
            m->get("nope");
            QFAIL("unknown model must throw");
        } catch (const UnknownModelError& e) {
            QVERIFY2(QString(e.what()).contains("'a', 'b', 'c'"), e.what());
        }
    }

    void enterUnknownStageListsKnownOnes() {
        Fixture f;
        auto m = f.make();
        try {
            m->enter("texture");
            QFAIL("unknown stage must throw");
        } catch (const UnknownStageError& e) {
            QCOMPARE(e.stage(), std::string("texture"));
            QVERIFY2(QString(e.what()).contains("'one', 'two', 'three', 'end'"), e.what());
        }
    }

    void enterEmitsStageThenReleasesInRegistrationOrder() {
        Fixture f;
        auto m = f.make();
        m->enter("two");
        m->get("b");
        m->get("a");
        f.log.clear();
        m->enter("three");
        QCOMPARE(kindsAndNames(f.log.events()),
                 (std::vector<std::string>{"stage:three", "release:a", "release:b"}));
        const auto rel = f.log.events(EventKind::Release);
        QCOMPARE(rel[0].nbytes, std::int64_t(16 * 4));
        QCOMPARE(rel[1].nbytes, std::int64_t(32 * 4));
        QCOMPARE(rel[0].stage, std::string("three"));
        QVERIFY(m->loaded().empty());
        QCOMPARE(f.c->load(), 0);  // entering loads nothing
    }

    void keepsWhatTheStageLists() {
        Fixture f;
        auto m = f.make();
        m->enter("two");
        m->get("a");
        m->get("b");
        m->enter("one");
        QCOMPARE(m->loaded(), std::vector<std::string>{"a"});
    }

    void reloadAfterReleaseIsANewInstance() {
        Fixture f;
        auto m = f.make();
        m->enter("one");
        auto old = m->get("a");
        m->enter("three");
        m->enter("one");
        auto fresh = m->get("a");
        QCOMPARE(f.a->load(), 2);
        QVERIFY(old.unchecked().get() != fresh.unchecked().get());
        QCOMPARE(f.log.events(EventKind::Reload).size(), std::size_t(1));
        QCOMPARE(f.log.events(EventKind::Reload)[0].name, std::string("a"));
    }

    void outsideStageAccessLoadsAndIsFlagged() {
        Fixture f;
        auto m = f.make();
        m->enter("one");
        m->get("c");
        const auto loads = f.log.events(EventKind::Load);
        QCOMPARE(loads.size(), std::size_t(1));
        QCOMPARE(loads[0].note, std::string("outside_stage"));
    }

    void releasedHandleThrowsNamingModelAndStage() {
        Fixture f;
        auto m = f.make();
        m->enter("one");
        auto a = m->get<Blob>("a");
        QCOMPARE(a(torch::ones({2})).sizes(), (torch::IntArrayRef{2}));
        m->enter("three");
        QVERIFY(a.released());
        try {
            a(torch::ones({2}));
            QFAIL("calling a released model must throw");
        } catch (const ReleasedModelError& e) {
            QCOMPARE(e.model(), std::string("a"));
            QCOMPARE(e.stage(), std::string("three"));
            QCOMPARE(QString(e.what()),
                     QString("'a' was released when entering stage 'three' and its weights are "
                             "gone. Get the model from the registry again instead of keeping a "
                             "reference to it."));
        }
        QVERIFY_THROWS_EXCEPTION(ReleasedModelError, a->weight);
    }

    void typedGetChecksTheType() {
        Fixture f;
        auto m = f.make();
        QVERIFY_THROWS_EXCEPTION(ModelTypeError, m->get<torch::nn::LinearImpl>("a"));
        QVERIFY(m->get<Blob>("a"));
        // A retyped handle shares the original's release check.
        auto blob = m->get("a").as<Blob>();
        QVERIFY(blob);
        QVERIFY(!m->get("a").as<torch::nn::LinearImpl>());
        m->close();
        QVERIFY_THROWS_EXCEPTION(ReleasedModelError, blob->weight);
    }

    void pinnedModelsSurviveStagesUntilClose() {
        Fixture f;
        auto m = f.make({.pinned = {"a"}});
        m->enter("one");
        m->get("a");
        m->enter("three");
        QCOMPARE(m->loaded(), std::vector<std::string>{"a"});
        m->unpin("a");
        m->enter("end");
        QVERIFY(m->loaded().empty());

        m->pin("b");
        QCOMPARE(m->pinned(), std::vector<std::string>{"b"});
        m->get("b");
        m->enter("one");
        QCOMPARE(m->loaded(), std::vector<std::string>{"b"});
        m->close();
        QVERIFY(m->loaded().empty());
        QVERIFY_THROWS_EXCEPTION(UnknownModelError, m->pin("zz"));
    }

    void closeReleasesEverythingAndNamesIt() {
        Fixture f;
        auto m = f.make();
        auto a = m->get("a");
        m->close();
        try {
            a.shared();
            QFAIL("must throw");
        } catch (const ReleasedModelError& e) {
            QVERIFY2(QString(e.what()).contains("when the registry was closed"), e.what());
        }
        m->get("a");  // the registry stays usable
        QCOMPARE(f.a->load(), 2);
    }

    void prebuiltModuleCannotComeBackAfterRelease() {
        Fixture f;
        auto m = f.make();
        auto built = std::make_shared<Blob>(8);
        m->add("prebuilt", built);
        QVERIFY(m->isLoaded("prebuilt"));
        // Announced with its bytes, not counted as a load: the registry loaded nothing.
        QVERIFY(f.log.events(EventKind::Load).empty());
        QCOMPARE(f.log.events(EventKind::Mark).back().name, std::string("prebuilt"));
        QCOMPARE(f.log.events(EventKind::Mark).back().note, std::string("prebuilt"));
        QCOMPARE(f.log.events(EventKind::Mark).back().nbytes, std::int64_t(8 * 4));
        QCOMPARE(m->get("prebuilt").unchecked().get(), static_cast<torch::nn::Module*>(built.get()));
        m->enter("one");  // does not list it
        QVERIFY(!m->isLoaded("prebuilt"));
        QCOMPARE(built->weight.numel(), std::int64_t(0));  // storage dropped under our handle too
        try {
            m->get("prebuilt");
            QFAIL("a released prebuilt module must throw");
        } catch (const ReleasedModelError& e) {
            QCOMPARE(e.model(), std::string("prebuilt"));
            QCOMPARE(e.stage(), std::string("one"));
        }
        QVERIFY_THROWS_EXCEPTION(PlanError, m->add("a", built));
    }

    // Two models that share storage and leave together free it once, and say so once.
    void sharedStorageLeavingTogetherIsCountedOnce() {
        const auto shared = torch::randn({1024});
        auto sharingLoader = [shared]() -> std::shared_ptr<torch::nn::Module> {
            auto b = std::make_shared<Blob>(1);
            torch::NoGradGuard noGrad;
            b->weight.set_data(shared);
            return b;
        };
        EventLog log;
        StagedModels m({{"x", sharingLoader}, {"y", sharingLoader}}, {{"both", {"x", "y"}}, {"none", {}}},
                       {.events = log.sink()});
        m.enter("both");
        m.get("x");
        m.get("y");
        m.enter("none");
        std::int64_t freed = 0;
        for (const auto& e : log.events(EventKind::Release)) freed += e.nbytes;
        QCOMPARE(log.events(EventKind::Release).size(), std::size_t(2));
        QCOMPARE(freed, std::int64_t(1024 * 4));
    }

    // After close() the run is over: a later load belongs to no stage and is not flagged.
    void closeLeavesTheCurrentStage() {
        Fixture f;
        auto m = f.make();
        m->enter("one");
        m->get("a");
        m->close();
        QCOMPARE(m->currentStage(), std::string());
        f.log.clear();
        m->get("c");
        const auto load = f.log.events(EventKind::Load).at(0);
        QCOMPARE(load.stage, std::string());
        QCOMPARE(load.note, std::string());
    }

    void eagerBuildsUpFrontAndNeverReleases() {
        Fixture f;
        auto m = f.make({.mode = LoadMode::Eager});
        QCOMPARE(f.a->load() + f.b->load() + f.c->load(), 3);
        QCOMPARE(kindsAndNames(f.log.events()),
                 (std::vector<std::string>{"load:a", "load:b", "load:c"}));
        f.log.clear();
        m->enter("one");
        m->enter("three");
        QCOMPARE(kindsAndNames(f.log.events()),
                 (std::vector<std::string>{"stage:one", "stage:three"}));
        QCOMPARE(m->loaded().size(), std::size_t(3));
        m->close();
        QCOMPARE(f.log.events(EventKind::Release).size(), std::size_t(3));
    }

    void markAndEventTimes() {
        Fixture f;
        auto m = f.make();
        m->enter("one");
        m->mark("checkpoint", "latent ready");
        m->get("a");
        const auto ev = f.log.events();
        QVERIFY(ev[1].kind == EventKind::Mark);
        QCOMPARE(ev[1].name, std::string("checkpoint"));
        QCOMPARE(ev[1].note, std::string("latent ready"));
        QCOMPARE(ev[1].stage, std::string("one"));
        for (std::size_t i = 1; i < ev.size(); ++i) QVERIFY(ev[i].t >= ev[i - 1].t);
        QVERIFY(ev[0].t >= 0.0 && ev[0].t < 60.0);
    }

    void sharedStorageIsKeptAndNoted() {
        // Two models holding one shared submodule: releasing one keeps the shared weights.
        auto shared = std::make_shared<Blob>(1000);
        auto makeHolder = [shared] {
            auto h = std::make_shared<torch::nn::Module>();
            h->register_module("backbone", shared);
            h->register_parameter("own", torch::zeros({10}));
            return h;
        };
        EventLog log;
        StagedModels m({{"x", makeHolder}, {"y", makeHolder}}, {{"xy", {"x", "y"}}, {"y", {"y"}}},
                       {.events = log.sink()});
        m.enter("xy");
        m.get("x");
        m.get("y");
        m.enter("y");
        const auto rel = log.events(EventKind::Release);
        QCOMPARE(rel.size(), std::size_t(1));
        QCOMPARE(rel[0].name, std::string("x"));
        QCOMPARE(rel[0].note, std::string("kept=1"));
        QCOMPARE(rel[0].nbytes, std::int64_t(10 * 4));
        QCOMPARE(shared->weight.numel(), std::int64_t(1000));  // still usable by y
    }

    void enterOnCallMarksAStageAroundForeignCode() {
        Fixture f;
        auto m = f.make();
        int calls = 0;
        auto decode = m->enterOnCall("three", [&](int x) {
            ++calls;
            return x * 2;
        });
        QCOMPARE(decode(21), 42);
        QCOMPARE(calls, 1);
        QCOMPARE(m->currentStage(), std::string("three"));
        QCOMPARE(f.log.events(EventKind::Stage).back().name, std::string("three"));
    }

    void loaderErrorsPropagateAndLeaveNothingLoaded() {
        EventLog log;
        StagedModels m({{"bad", []() -> std::shared_ptr<torch::nn::Module> {
                            throw std::runtime_error("checkpoint missing");
                        }},
                        {"null", [] { return std::shared_ptr<torch::nn::Module>(); }}},
                       {{"s", {"bad", "null"}}}, {.events = log.sink()});
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, m.get("bad"));
        QVERIFY_THROWS_EXCEPTION(PlanError, m.get("null"));
        QVERIFY(m.loaded().empty());
        QVERIFY(log.events(EventKind::Load).empty());
    }
};

}  // namespace test_staged_models

STAGELOAD_APPLESS_SUITE(test_staged_models, test_staged_models::TestStagedModels)
#include "test_staged_models.moc"
