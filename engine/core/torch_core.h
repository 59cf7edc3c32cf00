#pragma once
// The part of LibTorch the engine's tensor code uses: torch::Tensor with its dtypes, devices and
// options, the factories (torch::zeros, torch::from_blob, ...), every ATen operator as torch::op,
// NoGradGuard, manual_seed and set_num_threads.
//
// Include this (or torch_nn.h), never <torch/torch.h>: the umbrella header adds the optimizers,
// data loaders, serialization and every nn module, and GCC instantiates their templates in every
// file that sees them, used or not. An empty file took 16.6 s to compile through a precompiled
// <torch/torch.h>, 8.4 s through the engine's precompiled torch_nn.h (2-core machine, -O2 -g).

#include <torch/types.h>
#include <torch/utils.h>
