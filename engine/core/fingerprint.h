#pragma once
// A stable 64-bit fingerprint of a tensor's bytes (FNV-1a over dtype, shape and data), for
// proving that two runs produced bit-identical latents.
//
//   if (stageload::fingerprint(a) == stageload::fingerprint(b)) { /* same bits */ }

#include <cstdint>
#include <string>

#include "engine/core/torch_core.h"

namespace stageload {

std::uint64_t fingerprint(const torch::Tensor& tensor);

/// 16 lowercase hex digits.
std::string fingerprintHex(const torch::Tensor& tensor);

}  // namespace stageload
