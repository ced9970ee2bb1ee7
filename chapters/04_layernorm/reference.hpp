/// @file 04_layernorm/reference.hpp
/// @brief Chapter 4's CPU reference and the error bounds it is compared with, in double precision.
#pragma once

#include "04_layernorm/stages.cuh"
#include "common/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ch04 {

/// The exact outputs of one LayerNorm, and how far a correct float kernel may be from them.
struct LayerNormReference {
    std::vector<double> y, mean, rstd;
    double y_abs = 0.0;      ///< bound on |y error| (float arithmetic, before rounding y to T)
    double mean_abs = 0.0;   ///< bound on |mean error|
    double rstd_rel = 0.0;   ///< bound on the relative rstd error
};

/// LayerNorm of every row in double, with the error bounds of README.md ("Tolerances"), each the
/// maximum over the rows and doubled for safety. With u = 2^-24, A = max|x| of the row, var and
/// r = 1 / sqrt(var + eps) exact, X = max |x - mean| * r, G = max|gamma|, B = max|beta|:
///   mean:  dm = depth u A                      (a float sum or a Welford mean of values up to A)
///   var:   dv = 2 (depth + 4) u var + 2 dm sqrt(var) + dm^2
///   rstd:  er = dv / (2 (var + eps)) + 3 u     (relative; rsqrtf adds 2 ulps)
///   y:     G (dm r + X er + 2 u X) + 2 u (G X + B)
template <typename T>
LayerNormReference layernorm_reference(const std::vector<T>& x, const std::vector<T>& gamma,
                                       const std::vector<T>& beta, std::int64_t rows, std::int64_t cols, double eps,
                                       double depth)
{
    constexpr double u = 0x1.0p-24;
    LayerNormReference ref;
    ref.y.resize(x.size());
    ref.mean.resize(rows);
    ref.rstd.resize(rows);
    double g_max = 0.0, b_max = 0.0;
    for (std::int64_t c = 0; c < cols; ++c) {
        g_max = std::max(g_max, std::fabs(wb::to_double(gamma[c])));
        b_max = std::max(b_max, std::fabs(wb::to_double(beta[c])));
    }
    for (std::int64_t r = 0; r < rows; ++r) {
        const T* xr = x.data() + r * cols;
        double sum = 0.0, a = 0.0;
        for (std::int64_t c = 0; c < cols; ++c) {
            sum += wb::to_double(xr[c]);
            a = std::max(a, std::fabs(wb::to_double(xr[c])));
        }
        const double mu = sum / cols;
        double squares = 0.0, dev = 0.0;
        for (std::int64_t c = 0; c < cols; ++c) {
            const double d = wb::to_double(xr[c]) - mu;
            squares += d * d;
            dev = std::max(dev, std::fabs(d));
        }
        const double var = squares / cols;
        const double rs = 1.0 / std::sqrt(var + eps);
        ref.mean[r] = mu;
        ref.rstd[r] = rs;
        for (std::int64_t c = 0; c < cols; ++c) {
            ref.y[r * cols + c] = (wb::to_double(xr[c]) - mu) * rs * wb::to_double(gamma[c]) + wb::to_double(beta[c]);
        }
        const double dm = depth * u * a;
        const double dv = 2.0 * (depth + 4.0) * u * var + 2.0 * dm * std::sqrt(var) + dm * dm;
        const double er = dv / (2.0 * (var + eps)) + 3.0 * u;
        const double xn = dev * rs;
        const double ey = g_max * (dm * rs + xn * er + 2.0 * u * xn) + 2.0 * u * (g_max * xn + b_max);
        ref.mean_abs = std::max(ref.mean_abs, 2.0 * dm);
        ref.rstd_rel = std::max(ref.rstd_rel, 2.0 * er);
        ref.y_abs = std::max(ref.y_abs, 2.0 * ey);
    }
    ref.mean_abs += 1e-30;   // rows of zeros: an exact 0 must still pass
    return ref;
}

}  // namespace ch04
