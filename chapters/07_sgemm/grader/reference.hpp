/// @file 07_sgemm/grader/reference.hpp
/// @brief Chapter 7's CPU reference (float64) and the tolerances of the SGEMM checks.
#pragma once

#include "harness/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ch07 {

/// The exact result (in float64) of C = alpha * A * B + beta * C on row-major float inputs, and the
/// size of the terms that round-off can scale.
struct GemmReference {
    std::vector<double> c;   ///< M x N, row-major
    /// max over (i, j) of |alpha| * sum_k |A[i][k] * B[k][j]| + |beta| * |C[i][j]|: the largest sum of
    /// absolute values of the terms of one output (the quantity float round-off error is bounded by).
    double max_abs_terms = 0.0;
};

/// C = alpha * A * B + beta * C in float64. When beta == 0, C is not read (it may hold NaN).
inline GemmReference gemm_reference(int M, int N, int K, double alpha, const std::vector<float>& A,
                                    const std::vector<float>& B, double beta, const std::vector<float>& C)
{
    GemmReference ref;
    ref.c.assign(static_cast<std::size_t>(M) * N, 0.0);
    std::vector<double> sum(N), abs_sum(N);
    for (int i = 0; i < M; ++i) {
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(abs_sum.begin(), abs_sum.end(), 0.0);
        for (int k = 0; k < K; ++k) {   // i-k-j order: the inner loop runs along rows of B and C
            const double a = A[static_cast<std::size_t>(i) * K + k];
            const float* b = &B[static_cast<std::size_t>(k) * N];
            for (int j = 0; j < N; ++j) {
                sum[j] += a * b[j];
                abs_sum[j] += std::fabs(a * b[j]);
            }
        }
        for (int j = 0; j < N; ++j) {
            const std::size_t index = static_cast<std::size_t>(i) * N + j;
            double value = alpha * sum[j];
            double terms = std::fabs(alpha) * abs_sum[j];
            if (beta != 0.0) {
                value += beta * C[index];
                terms += std::fabs(beta) * std::fabs(C[index]);
            }
            ref.c[index] = value;
            ref.max_abs_terms = std::max(ref.max_abs_terms, terms);
        }
    }
    return ref;
}

/// Tolerance against the exact (float64) result: a worst-case bound, valid for any order of summation.
///
/// Each output is a float32 chain of at most K fused multiply-adds (every stage accumulates one
/// output in one register, in any order of k), then alpha * acc, beta * c and their sum: at most
/// K + 3 roundings, each of relative size <= 2^-24 of a partial result no larger than the sum of the
/// absolute values of the terms. Hence |got - exact| <= (K + 3) * 2^-24 * max_abs_terms
/// (wb::Tolerance::sum_of, after Higham, section 3.1). Small K keeps this bound tight.
inline wb::Tolerance exact_tolerance(int K, double max_abs_terms)
{
    return wb::Tolerance::sum_of(max_abs_terms, static_cast<double>(K) + 3.0);
}

/// Tolerance between two float32 GEMMs (the candidate and cuBLAS) on inputs drawn uniformly from
/// [-amax, amax], [-bmax, bmax] and [-cmax, cmax]: a statistical bound that grows with K.
///
/// A rounding error of a float32 FMA is at most 2^-24 of its result and has no preferred sign; the
/// partial sums of K random products form a random walk whose size after k steps is about
/// sqrt(k) * amax * bmax / 3. Summed over the K steps, the error of one output has a standard
/// deviation of about 2^-24 * K * amax * bmax / (3 sqrt 6) = 0.14 * 2^-24 * K * amax * bmax, and the
/// difference of two independent such errors sqrt(2) times that. The bound below allows 4 * 2^-24 *
/// K * |alpha| * amax * bmax: about 20 standard deviations, so a correct kernel never fails (the
/// largest of 16 million Gaussian samples is about 5.5 standard deviations), while one missing
/// product (about amax * bmax / 4 on average) or a TF32 product (relative error 2^-11 per term,
/// about sqrt(K) * 2^-11 * amax * bmax / 3 per output) is far outside it.
inline wb::Tolerance statistical_tolerance(int K, double alpha, double amax, double bmax, double beta, double cmax)
{
    const double u = 0x1.0p-24;
    return {4.0 * u * K * std::fabs(alpha) * amax * bmax + 4.0 * u * std::fabs(beta) * cmax + 1e-30, 4.0 * u};
}

}   // namespace ch07
