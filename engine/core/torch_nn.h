#pragma once
// torch_core.h plus the nn pieces the engine builds its networks from: torch::nn::Module, the
// Conv and Linear layers, and the functional convolution, pooling, padding and interpolation
// (torch::nn::functional). Not <torch/nn.h>: see torch_core.h for why the umbrella headers stay out.

#include "engine/core/torch_core.h"

#include <torch/nn/functional/conv.h>
#include <torch/nn/functional/padding.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/functional/upsampling.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
