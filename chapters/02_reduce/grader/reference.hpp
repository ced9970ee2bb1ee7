/// @file 02_reduce/grader/reference.hpp
/// @brief Chapter 2's CPU references, accumulated in double precision.
#pragma once

#include <cmath>
#include <vector>

namespace ch02 {

/// The sum of @p x in double. Exact for the small-integer inputs of the exact checks; for other
/// inputs its own error (about n * 2^-53 * sum|x|) is far below any float32 tolerance.
inline double sum_reference(const std::vector<float>& x)
{
    double s = 0.0;
    for (float v : x) s += v;
    return s;
}

/// sum |x_i|: the scale of the rounding error of a float sum.
inline double sum_abs_reference(const std::vector<float>& x)
{
    double s = 0.0;
    for (float v : x) s += std::fabs(static_cast<double>(v));
    return s;
}

/// sum x_i * y_i in double (each product of two floats is exact in double).
inline double dot_reference(const std::vector<float>& x, const std::vector<float>& y)
{
    double s = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) s += static_cast<double>(x[i]) * y[i];
    return s;
}

/// sum |x_i * y_i|: the scale of the rounding error of a float dot product.
inline double dot_abs_reference(const std::vector<float>& x, const std::vector<float>& y)
{
    double s = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) s += std::fabs(static_cast<double>(x[i]) * y[i]);
    return s;
}

}   // namespace ch02
