/// @file 04_layernorm/grader/reference.hpp
/// @brief Chapter 4's CPU reference and the error bounds it is compared with, in double precision.
#pragma once

#include "04_layernorm/stages.cuh"
#include "harness/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ch04 {

/// The exact outputs of one LayerNorm, and how far a correct float kernel may be from them.
struct LayerNormReference {
    std::vector<double> y, mean, rstd;
    std::vector<double> var;   ///< the population variance of each row, sum((x - mean)^2) / cols
    double y_abs = 0.0;        ///< bound on |y error| (float arithmetic, before rounding y to T)
    double mean_abs = 0.0;     ///< bound on |mean error|
    double rstd_rel = 0.0;     ///< bound on the relative rstd error
};

/// LayerNorm of every row in double, with the error bounds of README.md ("Tolerances"), each the
/// maximum over the rows and doubled for safety. With u = 2^-24, A = max|x| of the row, var and
/// r = 1 / sqrt(var + eps) exact, X = max |x - mean| * r, G = max|gamma|, B = max|beta|:
///   mean:  dm = depth u A                      (a float sum or a Welford mean of values up to A)
///   var:   dv = 2 (depth + 4) u var + 2 dm sqrt(var) + dm^2
///   rstd:  er = dv / (2 (var + eps)) + 3 u     (relative; rsqrtf adds 2 ulps)
///   y:     G (dm r + X er + 2 u X) + 2 u (G X + B)
template <typename T>
LayerNormReference layernorm_reference(const std::vector<T>& x, const std::vector<T>& gamma, const std::vector<T>& beta,
                                       std::int64_t rows, std::int64_t cols, double eps, double depth)
{
    constexpr double u = 0x1.0p-24;
    LayerNormReference ref;
    ref.y.resize(x.size());
    ref.mean.resize(rows);
    ref.rstd.resize(rows);
    ref.var.resize(rows);
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
        ref.var[r] = var;
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

/// Whether @p got is @p alternative within the relative tolerance (NaN matches NaN, inf matches inf).
inline bool matches_within(double alternative, double got, double rel)
{
    if (std::isnan(alternative) || std::isinf(alternative))
        return std::isnan(alternative) ? std::isnan(got) : got == alternative;
    return std::isfinite(got) && std::fabs(got - alternative) <= rel * std::fabs(alternative) + 1e-30;
}

/// The wrong variance formula that every wrong rstd follows, if one does: the sample variance (divisor
/// n - 1, Bessel's correction), eps outside the square root, or another statistic stored (the standard
/// deviation, var + eps, the variance). Empty when none explains them.
inline std::string variance_formula_hint(const std::vector<double>& var, const std::vector<float>& rstd_got,
                                         std::int64_t cols, double eps, double rstd_rel)
{
    const double n = static_cast<double>(cols);
    struct Formula {
        double (*rstd)(double var, double n, double eps);
        const char* cause;
    };
    const Formula formulas[] = {
        {[](double v, double m, double e) { return 1.0 / std::sqrt(v * m / (m - 1.0) + e); },
         "the variance is divided by n - 1 (Bessel's correction, the sample variance): LayerNorm normalises by "
         "the population variance, sum((x - mean)^2) / n. Divide by n."},
        {[](double v, double, double e) { return 1.0 / (std::sqrt(v) + e); },
         "eps is added outside the square root, 1 / (sqrt(var) + eps): the formula is 1 / sqrt(var + eps) "
         "(rsqrtf(var + eps)). Rows of small variance show the difference."},
        // Another statistic stored in rstd (y, computed from the right rstd, may still be right).
        {[](double v, double, double e) { return std::sqrt(v + e); },
         "rstd holds the standard deviation sqrt(var + eps), not its reciprocal 1 / sqrt(var + eps): store the "
         "value you multiply (x - mean) by."},
        {[](double v, double, double e) { return v + e; },
         "rstd holds var + eps, not 1 / sqrt(var + eps): store the value you multiply (x - mean) by."},
        {[](double v, double, double) { return v; },
         "rstd holds the variance, not 1 / sqrt(var + eps): store the value you multiply (x - mean) by."},
    };
    for (const Formula& f : formulas) {
        std::int64_t wrong = 0, explained = 0;
        for (std::size_t r = 0; r < var.size(); ++r) {
            const double right = 1.0 / std::sqrt(var[r] + eps);
            if (matches_within(right, rstd_got[r], rstd_rel)) continue;
            ++wrong;
            explained += matches_within(f.rstd(var[r], n, eps), rstd_got[r], rstd_rel);
        }
        if (wrong > 0 && explained == wrong) return f.cause;
    }
    return "";
}

}   // namespace ch04
