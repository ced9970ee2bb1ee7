/// @file 01_elementwise/grader/baselines.hpp
/// @brief What stage 3 must beat: add and activation as two separate, well-written kernels.
#pragma once

#include "01_elementwise/stages.cuh"

namespace ch01 {

/// y = act(x) in its own pass (float4 accesses, scalar tail): the second kernel of the unfused pair.
void activation_pass(const float* x, float* y, std::int64_t n, Activation act, cudaStream_t stream);

}   // namespace ch01
