#pragma once
// Shared builds: inside a scope, identical build requests return one instance.
//
//   {
//       stageload::SharedBuilds::Scope scope;
//       auto a = std::make_shared<Extractor>(SharedBuilds::get<Backbone>("dinov3", makeBackbone));
//       auto b = std::make_shared<Extractor>(SharedBuilds::get<Backbone>("dinov3", makeBackbone));
//       // a and b hold the same backbone: its weights are in memory once
//   }
//   // outside any scope, every get() builds anew
//
// Scopes are per thread and nest; a nested scope shares its outermost scope's instances. A key
// requested again with another type is a PlanError.

#include <functional>
#include <memory>
#include <string>
#include <typeindex>
#include <utility>

namespace stageload {

class SharedBuilds {
public:
    class Scope {
    public:
        Scope();
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;
    };

    /// The instance built for `key` in the current scope, else build() (stored when in a scope).
    template <class T, class Build>
    static std::shared_ptr<T> get(const std::string& key, Build&& build) {
        auto found = lookup(key, typeid(T));
        if (found) return std::static_pointer_cast<T>(found);
        std::shared_ptr<T> made = std::forward<Build>(build)();
        store(key, typeid(T), made);
        return made;
    }

    /// Whether this thread is inside a scope.
    static bool active();

private:
    static std::shared_ptr<void> lookup(const std::string& key, std::type_index type);
    static void store(const std::string& key, std::type_index type, std::shared_ptr<void> value);
};

}  // namespace stageload
