#pragma once
// Typed errors of the engine. All derive from stageload::Error (guard/base/error.h).
//
//   try { auto unet = models.get("unet"); }
//   catch (const stageload::ReleasedModelError& e) { /* e.model(), e.stage() */ }
//
// No Torch types here: the UI may include this header.

#include <string>
#include <vector>

#include "guard/base/error.h"

namespace stageload {

/// A stage plan, pin list or registration that cannot work (names without loaders, duplicates).
class PlanError : public Error {
public:
    using Error::Error;
};

/// enter() with a stage the plan does not have. The message lists the known stages.
class UnknownStageError : public Error {
public:
    UnknownStageError(const std::string& stage, const std::vector<std::string>& known);
    const std::string& stage() const { return stage_; }

private:
    std::string stage_;
};

/// A model name the registry does not have. The message lists the known models.
class UnknownModelError : public Error {
public:
    UnknownModelError(const std::string& model, const std::vector<std::string>& known);
    const std::string& model() const { return model_; }

private:
    std::string model_;
};

/// get<T>() of a model whose module is not a T.
class ModelTypeError : public Error {
public:
    using Error::Error;
};

/// A model whose weights were released was used. Names the model and what released it.
class ReleasedModelError : public Error {
public:
    /// `stage` is the stage whose entry released the model; `how` overrides the default
    /// "when entering stage '<stage>'" (e.g. "when the registry was closed").
    ReleasedModelError(const std::string& model, const std::string& stage, const std::string& how);
    const std::string& model() const { return model_; }
    const std::string& stage() const { return stage_; }

private:
    std::string model_;
    std::string stage_;
};

/// A weight file that cannot be read or does not fit the model. Names the file and, where one is
/// involved, the tensor.
class WeightFileError : public FileError {
public:
    WeightFileError(const std::string& file, const std::string& tensor, const std::string& problem);
    const std::string& file() const { return file_; }
    const std::string& tensor() const { return tensor_; }

private:
    std::string file_;
    std::string tensor_;
};

/// A learned model whose weight file is not there: not broken, not installed. Names the file,
/// the model and how to install it.
class NotInstalledError : public WeightFileError {
public:
    NotInstalledError(const std::string& file, const std::string& model, const std::string& howToInstall);
};

/// A picture in which no subject could be found. The message names the picture and what to do.
class NoSubjectError : public Error {
public:
    using Error::Error;
};

/// A run stopped because its caller asked it to (cancel flag, guard).
class Cancelled : public Error {
public:
    using Error::Error;
};

/// Joins names as "'a', 'b', 'c'" for messages.
std::string quotedList(const std::vector<std::string>& names);

}  // namespace stageload
