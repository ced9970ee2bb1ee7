/// @file 01_elementwise/grader/reference.hpp
/// @brief Chapter 1's CPU references, in double precision.
#pragma once

#include "01_elementwise/stages.cuh"

#include <cmath>
#include <vector>

namespace ch01 {

/// act(x) in double.
inline double activate_reference(double x, Activation act)
{
    if (act == Activation::relu) return x > 0.0 ? x : 0.0;
    return 1.0 / (1.0 + std::exp(-x));
}

/// c = a + b, rounded to float as the GPU's single correctly rounded addition does.
inline std::vector<double> add_reference(const std::vector<float>& a, const std::vector<float>& b)
{
    std::vector<double> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];   // float + float: rounded once, like the GPU
    return c;
}

/// y = act(a + b): the sum rounded to float first (as every kernel computes it), the activation in double.
template <typename Input>
std::vector<double> add_act_reference(const std::vector<Input>& a, const std::vector<Input>& b, Activation act)
{
    std::vector<double> y(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const float sum = static_cast<float>(a[i]) + static_cast<float>(b[i]);
        y[i] = activate_reference(sum, act);
    }
    return y;
}

}   // namespace ch01
