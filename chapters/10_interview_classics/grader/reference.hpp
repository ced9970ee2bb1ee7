/// @file 10_interview_classics/grader/reference.hpp
/// @brief Chapter 10's CPU references and tolerances, in double precision.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ch10 {

/// sum x_i (y empty) or sum x_i * y_i, in double: exact for the small-integer inputs, and for other
/// inputs its own error (about n * 2^-53 * sum|term|) is far below any float tolerance.
inline double sum_reference(const std::vector<float>& x, const std::vector<float>& y)
{
    double s = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) s += y.empty() ? x[i] : static_cast<double>(x[i]) * y[i];
    return s;
}

/// sum |term|: the scale of the rounding error of a float sum or dot product.
inline double sum_abs_reference(const std::vector<float>& x, const std::vector<float>& y)
{
    double s = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
        s += std::fabs(y.empty() ? static_cast<double>(x[i]) : static_cast<double>(x[i]) * y[i]);
    return s;
}

/// The longest chain of float additions through one value that a stage may build (stages.cuh): n
/// for stage 1 (every atomic on one address), ceil(n / 128) + 32 for a block of at least 128 threads
/// that reduces before its one atomic (its per-thread chain plus the tree plus one atomic per block;
/// the first two shrink as the grid grows, the last grows with it, and their sum stays below this).
inline double depth_for(int stage, std::int64_t n)
{
    const double whole = static_cast<double>(n);
    if (stage == 1) return whole;
    return std::min(whole, std::ceil(whole / 128.0) + 32.0);
}

/// Softmax of the whole vector, in double.
inline std::vector<double> softmax_reference(const std::vector<float>& x)
{
    double m = -std::numeric_limits<double>::infinity();
    for (float v : x) m = std::max(m, static_cast<double>(v));
    double s = 0.0;
    for (float v : x) s += std::exp(static_cast<double>(v) - m);
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::exp(static_cast<double>(x[i]) - m) / s;
    return y;
}

/// Values more than this far below the maximum have exp(x - max) < 2^-126: they underflow in float
/// and do not count in the error bound.
inline constexpr double kSpreadLimit = 88.0;

/// D of the error bound: the largest max - x among the values within kSpreadLimit of the maximum.
inline double value_spread(const std::vector<float>& x)
{
    double m = -std::numeric_limits<double>::infinity();
    for (float v : x) m = std::max(m, static_cast<double>(v));
    double spread = 0.0;
    for (float v : x) {
        const double d = m - static_cast<double>(v);
        if (d <= kSpreadLimit) spread = std::max(spread, d);
    }
    return spread;
}

/// The relative error bound of a float softmax (chapter 3's, README "Tolerances"): 3 D units of
/// 2^-24 for exp(x - max) (the subtraction's rounding, magnified by the exponential), 5 per addition
/// in the longest chain, 32 for the exponential, the reciprocal, the product and the last rounding;
/// doubled, so that a correct kernel never fails by bad luck.
inline double softmax_error_bound(double spread, double depth)
{
    return 2.0 * (3.0 * spread + 5.0 * depth + 32.0) * 0x1.0p-24;
}

}   // namespace ch10
