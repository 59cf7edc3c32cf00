#pragma once
// The staged model registry: a model is built the first time a stage asks for it, and its
// weights are freed as soon as the pipeline enters a stage that does not list it.
//
//   stageload::StagedModels models(
//       {{"encoder", [] { return loadEncoder(); }}, {"decoder", [] { return loadDecoder(); }}},
//       {{"encode", {"encoder"}}, {"decode", {"decoder"}}},
//       {.events = stageload::loggingSink()});
//   models.enter("encode");
//   auto z = models.get<Encoder>("encoder")(image);   // built now: a `load` event
//   models.enter("decode");                           // `stage` event, then encoder released
//   auto y = models.get<Decoder>("decoder")(z);
//
// In eager mode every model is built at construction and nothing is released until close();
// both modes emit the same stage events, so runs compare one to one.
//
// Every load runs with the random generators saved and restored (preserveRng), so a pipeline
// that seeds once and draws noise stage by stage gets the same noise whether models are built up
// front or mid-run.
//
// Thread safety: all member functions may be called from any thread (one internal recursive
// mutex); loaders and event sinks run on the calling thread with that mutex held, so a loader may
// call get() for another model. Errors: see each function; all derive from stageload::Error,
// except what a loader itself throws, which propagates unchanged.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Generator.h>
#include "engine/core/torch_nn.h"

#include "engine/api/choices.h"
#include "engine/api/errors.h"
#include "guard/base/event.h"
#include "engine/registry/call_hooks.h"
#include "engine/registry/model.h"
#include "engine/registry/release.h"
#include "engine/registry/stage.h"

namespace stageload {

/// Builds one model, directly on its target device with its weights.
using Loader = std::function<std::shared_ptr<torch::nn::Module>()>;

struct StagedModelsOptions {
    std::vector<std::string> pinned;  ///< never released by enter(); only close() frees them
    EventSink events;                 ///< receives load, reload, release, stage, mark
    bool preserveRng = true;
    LoadMode mode = LoadMode::Staged;
    /// Event times are seconds since this point; default: construction.
    std::optional<std::chrono::steady_clock::time_point> epoch;
};

class StagedModels {
public:
    /// Validates the plan (PlanError names every model a stage or pin lists without a loader,
    /// sorted; duplicate names are errors too). Loads nothing in staged mode; in eager mode
    /// builds every model in registration order.
    StagedModels(std::vector<std::pair<std::string, Loader>> loaders, std::vector<Stage> stages,
                 StagedModelsOptions options = {});
    /// close(): frees every model still loaded.
    ~StagedModels();
    StagedModels(const StagedModels&) = delete;
    StagedModels& operator=(const StagedModels&) = delete;

    // --- Access -----------------------------------------------------------------------------

    /// The model, built on first access (`load`, or `reload` after a release; flagged
    /// `outside_stage` when the current stage does not list it). UnknownModelError for unknown
    /// names; ReleasedModelError for a released model that was registered built (no loader).
    Model<torch::nn::Module> get(const std::string& name);
    Model<torch::nn::Module> operator[](const std::string& name) { return get(name); }

    /// As get(), typed; ModelTypeError when the module is not a T.
    template <class T>
    Model<T> get(const std::string& name) {
        auto m = get(name);
        auto typed = m.template as<T>();
        if (!typed)
            throw ModelTypeError("model '" + name + "' is a " + m.unchecked()->name() +
                                 ", not the requested type");
        return typed;
    }

    // --- Inspection: never loads -------------------------------------------------------------

    bool contains(const std::string& name) const;
    std::size_t size() const;
    std::vector<std::string> names() const;        ///< registration order
    std::vector<std::string> loaded() const;       ///< loaded now, registration order
    bool isLoaded(const std::string& name) const;
    std::int64_t loadedBytes() const;              ///< distinct storages of all loaded models
    std::vector<std::string> stages() const;       ///< plan order
    std::string currentStage() const;              ///< "" before the first enter(), after close()
    std::vector<std::string> pinned() const;
    LoadMode mode() const { return mode_; }

    // --- Stages ------------------------------------------------------------------------------

    /// Makes `stage` current: emits `stage`, then (staged mode) releases every loaded, unpinned
    /// model the stage does not list, in registration order, one `release` event each.
    /// Loads nothing. UnknownStageError (listing the known stages) for an unknown stage.
    void enter(const std::string& stage);

    /// Emits a `mark` event (a labelled point in the trace), with a byte count and a duration
    /// where the label gives them a meaning (kStagePeakMark).
    void mark(const std::string& label, const std::string& note = {}, std::int64_t nbytes = 0,
              double seconds = 0.0);

    /// A callable that enters `stage` and then calls f (a call hook around code you do not own).
    template <class F>
    auto enterOnCall(const std::string& stage, F f) {
        return wrapCall(std::move(f), [this, stage] { enter(stage); });
    }

    // --- Lifetime ----------------------------------------------------------------------------

    void pin(const std::string& name);
    void unpin(const std::string& name);
    /// Releases one model now (no-op when not loaded).
    void release(const std::string& name);
    /// Releases every loaded model, pinned ones too, and leaves the current stage (later loads
    /// belong to none). The registry stays usable.
    void close();

    // --- Prebuilt modules --------------------------------------------------------------------
    /// Adds an already built module (emits a `mark` named after it, note "prebuilt", with its
    /// bytes: the registry loaded nothing). After its release it cannot come back: access
    /// throws ReleasedModelError. PlanError if the name exists or the module is null.
    void add(const std::string& name, std::shared_ptr<torch::nn::Module> module);

    /// A generator (besides the global ones) to save and restore around every load.
    void registerGenerator(at::Generator generator);

private:
    struct Entry;

    Entry* find(const std::string& name);
    const Entry* find(const std::string& name) const;
    Entry& at(const std::string& name);
    std::shared_ptr<torch::nn::Module> loadLocked(Entry& entry);
    void releaseLocked(Entry& entry, const std::vector<ModulePtr>& keep, const std::string& how);
    /// Releases entries leaving together (shared storage counted once).
    void releaseLocked(std::span<Entry* const> leaving, const std::vector<ModulePtr>& keep,
                       const std::string& how);
    void publishPrebuilt(const std::string& name, const torch::nn::Module& module);
    std::vector<ModulePtr> loadedExcept(const Entry& entry) const;
    bool stageLists(const std::string& stage, const std::string& model) const;
    void publish(EventKind kind, const std::string& name, std::int64_t nbytes = 0,
              double seconds = 0.0, const std::string& note = {});

    mutable std::recursive_mutex mutex_;
    std::vector<Entry> entries_;
    std::vector<Stage> stages_;
    std::string current_;
    EventSink sink_;
    bool preserveRng_;
    LoadMode mode_;
    std::chrono::steady_clock::time_point epoch_;
    std::vector<at::Generator> generators_;
};

}  // namespace stageload
