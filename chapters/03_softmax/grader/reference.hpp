/// @file 03_softmax/grader/reference.hpp
/// @brief Chapter 3's CPU reference and the tolerance it is compared with, in double precision.
#pragma once

#include "03_softmax/stages.cuh"
#include "harness/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ch03 {

/// Softmax (or log-softmax) of every row of a rows x cols matrix, computed in double.
template <typename T>
std::vector<double> softmax_reference(const std::vector<T>& x, std::int64_t rows, std::int64_t cols, bool log_softmax)
{
    std::vector<double> y(x.size());
    for (std::int64_t r = 0; r < rows; ++r) {
        const T* xr = x.data() + r * cols;
        double* yr = y.data() + r * cols;
        double m = -std::numeric_limits<double>::infinity();
        for (std::int64_t c = 0; c < cols; ++c) m = std::max(m, wb::to_double(xr[c]));
        double s = 0.0;
        for (std::int64_t c = 0; c < cols; ++c) s += std::exp(wb::to_double(xr[c]) - m);
        for (std::int64_t c = 0; c < cols; ++c) {
            const double d = wb::to_double(xr[c]) - m;
            yr[c] = log_softmax ? d - std::log(s) : std::exp(d) / s;
        }
    }
    return y;
}

/// Values more than this far below the row maximum have exp(x - max) < 2^-126: they underflow in
/// float and do not count in the error bound.
inline constexpr double kSpreadLimit = 88.0;

/// D of the error bound: over the rows, the largest max - x among the values x within
/// kSpreadLimit of their row maximum (0 for a row with one finite value among -inf).
template <typename T>
double value_spread(const std::vector<T>& x, std::int64_t rows, std::int64_t cols)
{
    double spread = 0.0;
    for (std::int64_t r = 0; r < rows; ++r) {
        const T* xr = x.data() + r * cols;
        double m = -std::numeric_limits<double>::infinity();
        for (std::int64_t c = 0; c < cols; ++c) m = std::max(m, wb::to_double(xr[c]));
        for (std::int64_t c = 0; c < cols; ++c) {
            const double d = m - wb::to_double(xr[c]);
            if (d <= kSpreadLimit) spread = std::max(spread, d);
        }
    }
    return spread;
}

/// The relative error bound E of a float softmax (README.md, "Tolerances"): 3 D units of 2^-24
/// for computing exp(x - max) (the subtraction and the fast exponential's argument), 5 per addition
/// in the longest chain of additions or rescalings, 32 for the exponential, the reciprocal, the
/// product and the final rounding; then doubled, so that a correct kernel never fails by bad luck.
inline double softmax_error_bound(double spread, double depth)
{
    return 2.0 * (3.0 * spread + 5.0 * depth + 32.0) * 0x1.0p-24;
}

}   // namespace ch03
