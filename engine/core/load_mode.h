#pragma once
// How a pipeline holds its models. No Torch here: the UI and run parameters use it.

namespace stageload {

/// Staged: each model is built when a stage first needs it and freed when a stage that does not
/// list it begins. Eager: every model is built up front and kept until the run ends.
enum class LoadMode { Staged, Eager };

}  // namespace stageload
