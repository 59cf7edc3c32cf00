#pragma once
// Call hooks: run something before (and after) a call you do not own, e.g. to mark where a stage
// begins inside third-party pipeline code that takes callbacks.
//
//   pipeline.decode = stageload::wrapCall(pipeline.decode, [&] { models.enter("decode"); });
//   auto timed = stageload::wrapCall(step, [&] { t0 = now(); }, [&] { log(now() - t0); });
//
// `before` runs before every call; `after` runs after every call that returns normally (not when
// it throws). The wrapper returns what the wrapped callable returns.

#include <functional>
#include <type_traits>
#include <utility>

namespace stageload {

struct NoHook {
    void operator()() const {}
};

template <class F, class Before, class After = NoHook>
auto wrapCall(F f, Before before, After after = {}) {
    return [f = std::move(f), before = std::move(before),
            after = std::move(after)](auto&&... args) mutable -> decltype(auto) {
        before();
        using R = std::invoke_result_t<F&, decltype(args)...>;
        if constexpr (std::is_void_v<R>) {
            std::invoke(f, std::forward<decltype(args)>(args)...);
            after();
        } else {
            R result = std::invoke(f, std::forward<decltype(args)>(args)...);
            after();
            return result;
        }
    };
}

}  // namespace stageload
