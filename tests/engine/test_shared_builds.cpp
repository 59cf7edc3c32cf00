#include <QtTest>

#include "engine/registry/call_hooks.h"
#include "engine/registry/shared_builds.h"
#include "engine/registry/staged_models.h"
#include "tests/suite_program.h"
#include "test_support.h"

using namespace stageload;
using stageload::test::Blob;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_shared_builds {

class TestSharedBuilds : public QObject {
    Q_OBJECT

private slots:
    void sameKeyInAScopeIsOneInstance() {
        int builds = 0;
        auto make = [&] {
            ++builds;
            return std::make_shared<Blob>(8);
        };
        SharedBuilds::Scope scope;
        auto a = SharedBuilds::get<Blob>("backbone", make);
        auto b = SharedBuilds::get<Blob>("backbone", make);
        auto c = SharedBuilds::get<Blob>("other", make);
        QCOMPARE(a.get(), b.get());
        QVERIFY(a.get() != c.get());
        QCOMPARE(builds, 2);
    }

    void outsideAScopeEveryBuildIsSeparate() {
        QVERIFY(!SharedBuilds::active());
        auto make = [] { return std::make_shared<Blob>(8); };
        auto a = SharedBuilds::get<Blob>("backbone", make);
        auto b = SharedBuilds::get<Blob>("backbone", make);
        QVERIFY(a.get() != b.get());
    }

    void scopesNestAndEndTogether() {
        auto make = [] { return std::make_shared<Blob>(8); };
        std::shared_ptr<Blob> outer;
        {
            SharedBuilds::Scope s1;
            outer = SharedBuilds::get<Blob>("k", make);
            {
                SharedBuilds::Scope s2;
                QCOMPARE(SharedBuilds::get<Blob>("k", make).get(), outer.get());
            }
            QCOMPARE(SharedBuilds::get<Blob>("k", make).get(), outer.get());
        }
        QVERIFY(!SharedBuilds::active());
        SharedBuilds::Scope s3;
        QVERIFY(SharedBuilds::get<Blob>("k", make).get() != outer.get());
    }

    void sameKeyOtherTypeIsAnError() {
        SharedBuilds::Scope scope;
        SharedBuilds::get<Blob>("k", [] { return std::make_shared<Blob>(8); });
        QVERIFY_THROWS_EXCEPTION(PlanError, SharedBuilds::get<torch::nn::Module>("k", [] {
            return std::make_shared<torch::nn::Module>();
        }));
    }

    // Four extractors built in one scope hold one backbone: its bytes count once.
    void fourExtractorsShareOneBackbone() {
        int backbones = 0;
        auto extractors = [&]() -> std::shared_ptr<torch::nn::Module> {
            SharedBuilds::Scope scope;
            auto group = std::make_shared<torch::nn::Module>();
            for (int i = 0; i < 4; ++i) {
                auto e = std::make_shared<torch::nn::Module>();
                e->register_module("backbone", SharedBuilds::get<Blob>("dinov3", [&] {
                                       ++backbones;
                                       return std::make_shared<Blob>(1000);
                                   }));
                e->register_parameter("head", torch::zeros({10}));
                group->register_module("extractor" + std::to_string(i), e);
            }
            return group;
        };
        EventLog log;
        StagedModels models({{"extractors", extractors}}, {}, {.events = log.sink()});
        models.get("extractors");
        QCOMPARE(backbones, 1);
        QCOMPARE(log.events(EventKind::Load)[0].nbytes, std::int64_t(1000 * 4 + 4 * 10 * 4));
    }

    void wrapCallRunsHooksAroundTheCall() {
        std::vector<std::string> order;
        auto f = wrapCall([&](int x) { order.push_back("call"); return x + 1; },
                          [&] { order.push_back("before"); }, [&] { order.push_back("after"); });
        QCOMPARE(f(1), 2);
        QCOMPARE(order, (std::vector<std::string>{"before", "call", "after"}));

        order.clear();
        auto g = wrapCall([&] { order.push_back("call"); throw std::runtime_error("x"); },
                          [&] { order.push_back("before"); }, [&] { order.push_back("after"); });
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, g());
        QCOMPARE(order, (std::vector<std::string>{"before", "call"}));
    }
};

}  // namespace test_shared_builds

STAGELOAD_APPLESS_SUITE(test_shared_builds, test_shared_builds::TestSharedBuilds)
#include "test_shared_builds.moc"
