#include "engine/registry/shared_builds.h"

#include <map>

#include "engine/api/errors.h"

namespace stageload {
namespace {

struct Built {
    std::type_index type;
    std::shared_ptr<void> value;
};

struct ThreadScopes {
    int depth = 0;
    std::map<std::string, Built> built;
};

ThreadScopes& scopes() {
    thread_local ThreadScopes s;
    return s;
}

}  // namespace

SharedBuilds::Scope::Scope() { ++scopes().depth; }

SharedBuilds::Scope::~Scope() {
    if (--scopes().depth == 0) scopes().built.clear();
}

bool SharedBuilds::active() { return scopes().depth > 0; }

std::shared_ptr<void> SharedBuilds::lookup(const std::string& key, std::type_index type) {
    auto& s = scopes();
    if (s.depth == 0) return nullptr;
    auto it = s.built.find(key);
    if (it == s.built.end()) return nullptr;
    if (it->second.type != type)
        throw PlanError("shared build '" + key + "' was built as " + it->second.type.name() +
                        " and is now requested as " + type.name());
    return it->second.value;
}

void SharedBuilds::store(const std::string& key, std::type_index type, std::shared_ptr<void> value) {
    auto& s = scopes();
    if (s.depth == 0) return;
    s.built.insert_or_assign(key, Built{type, std::move(value)});
}

}  // namespace stageload
