#include "engine/registry/staged_models.h"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "engine/registry/release.h"
#include "engine/registry/rng.h"

namespace stageload {

struct StagedModels::Entry {
    std::string name;
    Loader loader;                               // empty for modules registered already built
    std::shared_ptr<torch::nn::Module> module;   // null while not loaded
    std::shared_ptr<detail::ModelLife> life;     // the current (or last) loaded instance
    bool everLoaded = false;                     // the next load is a `reload`
    bool pinned = false;
};

namespace {

using Clock = std::chrono::steady_clock;

template <class Range>
bool containsName(const Range& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

StagedModels::StagedModels(std::vector<std::pair<std::string, Loader>> loaders,
                           std::vector<Stage> stages, StagedModelsOptions options)
    : stages_(std::move(stages))
    , sink_(std::move(options.events))
    , preserveRng_(options.preserveRng)
    , mode_(options.mode)
    , epoch_(options.epoch.value_or(Clock::now())) {
    std::set<std::string> known;
    for (auto& [name, loader] : loaders) {
        if (!known.insert(name).second) throw PlanError("model '" + name + "' is registered twice");
        if (!loader) throw PlanError("model '" + name + "' has an empty loader");
        entries_.push_back(Entry{name, std::move(loader), nullptr, nullptr, false, false});
    }

    std::set<std::string> stageNames;
    std::set<std::string> missing;  // sorted, unique
    for (const auto& stage : stages_) {
        if (!stageNames.insert(stage.name).second)
            throw PlanError("stage '" + stage.name + "' appears twice in the plan");
        for (const auto& m : stage.models)
            if (!known.count(m)) missing.insert(m);
    }
    for (const auto& p : options.pinned)
        if (!known.count(p)) missing.insert(p);
    if (!missing.empty())
        throw PlanError("the stage plan or pins name models that have no loader: " +
                        quotedList({missing.begin(), missing.end()}));
    for (const auto& p : options.pinned) find(p)->pinned = true;

    if (mode_ == LoadMode::Eager)
        for (auto& e : entries_) loadLocked(e);
}

StagedModels::~StagedModels() {
    try {
        close();
    } catch (const std::exception& e) {
        spdlog::error("closing the model registry failed: {}", e.what());
    }
}

// --- lookup ----------------------------------------------------------------------------------

StagedModels::Entry* StagedModels::find(const std::string& name) {
    for (auto& e : entries_)
        if (e.name == name) return &e;
    return nullptr;
}

const StagedModels::Entry* StagedModels::find(const std::string& name) const {
    return const_cast<StagedModels*>(this)->find(name);
}

StagedModels::Entry& StagedModels::at(const std::string& name) {
    if (auto* e = find(name)) return *e;
    std::vector<std::string> known;
    for (const auto& e : entries_) known.push_back(e.name);
    throw UnknownModelError(name, known);
}

bool StagedModels::stageLists(const std::string& stage, const std::string& model) const {
    for (const auto& s : stages_)
        if (s.name == stage) return containsName(s.models, model);
    return false;
}

// --- events ----------------------------------------------------------------------------------

void StagedModels::publish(EventKind kind, const std::string& name, std::int64_t nbytes,
                        double seconds, const std::string& note) {
    if (!sink_) return;
    sink_(Event{.kind = kind,
                .name = name,
                .stage = current_,
                .nbytes = nbytes,
                .seconds = seconds,
                .note = note,
                .t = std::chrono::duration<double>(Clock::now() - epoch_).count()});
}

// --- access ----------------------------------------------------------------------------------

Model<torch::nn::Module> StagedModels::get(const std::string& name) {
    std::lock_guard lock(mutex_);
    auto& entry = at(name);
    auto module = loadLocked(entry);
    return Model<torch::nn::Module>(std::move(module), entry.life);
}

std::shared_ptr<torch::nn::Module> StagedModels::loadLocked(Entry& entry) {
    if (entry.module) return entry.module;
    if (!entry.loader) entry.life->check();  // a released prebuilt module: throws

    const auto start = Clock::now();
    std::shared_ptr<torch::nn::Module> module;
    {
        std::optional<PreserveRng> keepRng;
        if (preserveRng_) keepRng.emplace(generators_);
        module = entry.loader();
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!module) throw PlanError("the loader of model '" + entry.name + "' returned no module");

    entry.module = module;
    entry.life = std::make_shared<detail::ModelLife>(entry.name);
    const bool outside = !current_.empty() && !stageLists(current_, entry.name);
    publish(entry.everLoaded ? EventKind::Reload : EventKind::Load, entry.name, moduleBytes(*module),
         seconds, outside ? "outside_stage" : "");
    entry.everLoaded = true;
    return module;
}

// --- inspection ------------------------------------------------------------------------------

bool StagedModels::contains(const std::string& name) const {
    std::lock_guard lock(mutex_);
    return find(name) != nullptr;
}

std::size_t StagedModels::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

std::vector<std::string> StagedModels::names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.name);
    return out;
}

std::vector<std::string> StagedModels::loaded() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& e : entries_)
        if (e.module) out.push_back(e.name);
    return out;
}

bool StagedModels::isLoaded(const std::string& name) const {
    std::lock_guard lock(mutex_);
    const auto* e = find(name);
    return e && e->module;
}

std::int64_t StagedModels::loadedBytes() const {
    std::lock_guard lock(mutex_);
    auto holder = std::make_shared<torch::nn::Module>();
    int i = 0;
    for (const auto& e : entries_)
        if (e.module) holder->register_module("m" + std::to_string(i++), e.module);
    return moduleBytes(*holder);  // counts storage shared between models once
}

std::vector<std::string> StagedModels::stages() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& s : stages_) out.push_back(s.name);
    return out;
}

std::string StagedModels::currentStage() const {
    std::lock_guard lock(mutex_);
    return current_;
}

std::vector<std::string> StagedModels::pinned() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& e : entries_)
        if (e.pinned) out.push_back(e.name);
    return out;
}

// --- stages ----------------------------------------------------------------------------------

void StagedModels::enter(const std::string& stage) {
    std::lock_guard lock(mutex_);
    const auto it = std::find_if(stages_.begin(), stages_.end(),
                                 [&](const Stage& s) { return s.name == stage; });
    if (it == stages_.end()) throw UnknownStageError(stage, stages());

    current_ = stage;
    publish(EventKind::Stage, stage);
    if (mode_ == LoadMode::Eager) return;

    std::vector<Entry*> leaving;
    std::vector<ModulePtr> staying;
    for (auto& e : entries_) {
        if (!e.module) continue;
        if (e.pinned || containsName(it->models, e.name)) staying.push_back(e.module);
        else leaving.push_back(&e);
    }
    releaseLocked(leaving, staying, "");
    if (!leaving.empty()) returnFreedMemory();
}

void StagedModels::mark(const std::string& label, const std::string& note, std::int64_t nbytes,
                        double seconds) {
    std::lock_guard lock(mutex_);
    publish(EventKind::Mark, label, nbytes, seconds, note);
}

// --- lifetime --------------------------------------------------------------------------------

void StagedModels::releaseLocked(Entry& entry, const std::vector<ModulePtr>& keep,
                                 const std::string& how) {
    Entry* one[] = {&entry};
    releaseLocked(one, keep, how);
}

void StagedModels::releaseLocked(std::span<Entry* const> leaving, const std::vector<ModulePtr>& keep,
                                 const std::string& how) {
    std::vector<ModulePtr> modules;
    std::vector<Entry*> loaded;
    for (auto* e : leaving) {
        if (!e->module) continue;
        modules.push_back(e->module);
        loaded.push_back(e);
    }
    if (loaded.empty()) return;
    const auto stats = releaseModules(modules, keep, /*returnMemory=*/false);
    for (std::size_t i = 0; i < loaded.size(); ++i) {
        Entry& entry = *loaded[i];
        entry.life->markReleased(current_, how);
        entry.module.reset();
        publish(EventKind::Release, entry.name, stats[i].nbytes, 0.0,
                stats[i].kept ? "kept=" + std::to_string(stats[i].kept) : "");
    }
}

void StagedModels::pin(const std::string& name) {
    std::lock_guard lock(mutex_);
    at(name).pinned = true;
}

void StagedModels::unpin(const std::string& name) {
    std::lock_guard lock(mutex_);
    at(name).pinned = false;
}

std::vector<ModulePtr> StagedModels::loadedExcept(const Entry& entry) const {
    std::vector<ModulePtr> others;
    for (const auto& e : entries_)
        if (e.module && &e != &entry) others.push_back(e.module);
    return others;
}

void StagedModels::release(const std::string& name) {
    std::lock_guard lock(mutex_);
    auto& entry = at(name);
    if (!entry.module) return;
    releaseLocked(entry, loadedExcept(entry),
                  current_.empty() ? "explicitly" : "explicitly in stage '" + current_ + "'");
    returnFreedMemory();
}

void StagedModels::close() {
    std::lock_guard lock(mutex_);
    std::vector<Entry*> loaded;
    for (auto& e : entries_)
        if (e.module) loaded.push_back(&e);
    releaseLocked(loaded, {}, "when the registry was closed");
    // The run is over: what loads after this belongs to no stage (and is not outside one).
    current_.clear();
    if (!loaded.empty()) returnFreedMemory();
}

// --- changing entries ------------------------------------------------------------------------

// A module built elsewhere is announced, not counted as a load: the registry loaded nothing.
void StagedModels::publishPrebuilt(const std::string& name, const torch::nn::Module& module) {
    publish(EventKind::Mark, name, moduleBytes(module), 0.0, "prebuilt");
}

void StagedModels::add(const std::string& name, std::shared_ptr<torch::nn::Module> module) {
    std::lock_guard lock(mutex_);
    if (find(name)) throw PlanError("model '" + name + "' is already registered");
    if (!module) throw PlanError("model '" + name + "' is registered with no module");
    auto life = std::make_shared<detail::ModelLife>(name);
    entries_.push_back(Entry{name, nullptr, module, life, true, false});
    publishPrebuilt(name, *module);
}

void StagedModels::registerGenerator(at::Generator generator) {
    std::lock_guard lock(mutex_);
    generators_.push_back(std::move(generator));
}

}  // namespace stageload
