#pragma once
// A handle to a model held by the registry that refuses to run once the weights are released.
//
//   stageload::Model<Decoder> dec = models.get<Decoder>("shape_decoder");
//   auto mesh = dec(latent);          // calls dec->forward(latent)
//   models.enter("texture");          // releases shape_decoder
//   dec(latent);                      // throws ReleasedModelError naming the model and the stage
//
// The check happens on every operator-> / operator* / call. Code that takes the raw module out
// with unchecked() bypasses it and, after a release, sees empty weights. Handles are cheap to
// copy; checking is thread-safe.

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "engine/api/errors.h"

namespace stageload {
namespace detail {

/// One loaded instance of a model: released at most once, then stays released.
class ModelLife {
public:
    explicit ModelLife(std::string name) : name_(std::move(name)) {}

    const std::string& name() const { return name_; }

    void markReleased(std::string stage, std::string how) {
        std::lock_guard lock(mutex_);
        released_ = true;
        stage_ = std::move(stage);
        how_ = std::move(how);
    }
    bool released() const {
        std::lock_guard lock(mutex_);
        return released_;
    }
    void check() const {
        std::lock_guard lock(mutex_);
        if (released_) throw ReleasedModelError(name_, stage_, how_);
    }

private:
    const std::string name_;
    mutable std::mutex mutex_;
    bool released_ = false;
    std::string stage_;
    std::string how_;
};

}  // namespace detail

template <class T>
class Model {
public:
    Model() = default;
    Model(std::shared_ptr<T> module, std::shared_ptr<const detail::ModelLife> life)
        : module_(std::move(module)), life_(std::move(life)) {}

    T* operator->() const { return checked(); }
    T& operator*() const { return *checked(); }

    /// Calls the module's forward() with these arguments.
    template <class... Args>
    decltype(auto) operator()(Args&&... args) const {
        return checked()->forward(std::forward<Args>(args)...);
    }

    /// The module, after checking it is still loaded. Keep the handle, not this pointer.
    std::shared_ptr<T> shared() const {
        checked();
        return module_;
    }
    /// The module without any check (for code that must hand it to APIs taking shared_ptr).
    const std::shared_ptr<T>& unchecked() const { return module_; }

    /// The same model as a U (sharing this handle's check); an empty handle when it is not one.
    template <class U>
    Model<U> as() const {
        return Model<U>(std::dynamic_pointer_cast<U>(module_), life_);
    }

    bool released() const { return life_ && life_->released(); }
    const std::string& name() const {
        static const std::string none;
        return life_ ? life_->name() : none;
    }
    explicit operator bool() const { return module_ != nullptr; }

private:
    T* checked() const {
        if (life_) life_->check();
        return module_.get();
    }

    std::shared_ptr<T> module_;
    std::shared_ptr<const detail::ModelLife> life_;
};

}  // namespace stageload
