/// @file 01_elementwise/activation.cuh
/// @brief The activations of chapter 1, for device code. Use them in your fused stages: the lesson
/// of stages 3 and 4 is fusion and data types, not how to write a sigmoid.
#pragma once

#include "01_elementwise/stages.cuh"

namespace ch01 {

/// act(x) in float. Sigmoid uses the fast hardware exponential (__expf): a few ulps of error, far
/// cheaper than expf, and sigmoid(-inf) = 0, sigmoid(+inf) = 1 still hold.
template <Activation act>
__device__ __forceinline__ float activate(float x)
{
    if constexpr (act == Activation::relu) {
        return fmaxf(x, 0.0f);
    } else {
        return 1.0f / (1.0f + __expf(-x));
    }
}

}   // namespace ch01
