/// @file 08_tensor_gemm/grader/reference.hpp
/// @brief Chapter 8's CPU side: inputs that fp16 and bf16 hold exactly, their 16-bit encodings, the
/// float64 reference of C = alpha A B + beta C in the chapter's layouts, and its tolerance.
///
/// Tolerance. The inputs are exact in both 16-bit types (at most 8 significant bits), so a product of
/// two is exact in fp32 (16 bits); the only error is the fp32 accumulation over K and the epilogue.
/// A sum of K terms rounded in fp32 in any order is within depth * 2^-24 * sum |terms| of the exact
/// sum (Higham, section 4.2), depth <= K + 3 with the epilogue. Tensor cores add the products of one
/// mma in an order (and with an internal alignment) that NVIDIA does not document, so the graders allow
/// twice that depth: 2 (K + 3).
#pragma once

#include "08_tensor_gemm/hgemm_common.cuh"
#include "harness/compare.hpp"
#include "harness/random.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ch08 {

/// The 16-bit pattern of @p x in @p dtype; @p x must be exactly representable there (make_values
/// guarantees it), so no rounding happens here.
inline std::uint16_t encode_exact(float x, Dtype dtype)
{
    std::uint32_t f;
    std::memcpy(&f, &x, sizeof f);
    if (dtype == Dtype::bf16) return static_cast<std::uint16_t>(f >> 16);   // bf16 is fp32's top half
    const std::uint16_t sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
    const float magnitude = std::fabs(x);
    if (magnitude == 0.0f) return sign;
    const int exponent = static_cast<int>((f >> 23) & 0xffu) - 127;
    if (exponent < -14) {   // fp16 subnormal: a multiple of 2^-24
        return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(magnitude, 24)));
    }
    return static_cast<std::uint16_t>(sign | ((exponent + 15) << 10) | ((f >> 13) & 0x3ffu));
}

/// Values m * 2^(shift - 8) with |m| < 256 (8 significant bits): exact in fp16 and bf16 for shifts
/// from -12 (fp16 subnormals) to 8 (up to 256). A few exact zeros too.
inline std::vector<float> make_values(std::size_t count, int shift, wb::Rng& rng)
{
    std::vector<float> values(count);
    for (auto& v : values) v = std::ldexp(static_cast<float>(rng.integer(-255, 255)), shift - 8);
    return values;
}

inline std::vector<std::uint16_t> encode_all(const std::vector<float>& values, Dtype dtype)
{
    std::vector<std::uint16_t> bits(values.size());
    std::transform(values.begin(), values.end(), bits.begin(), [&](float v) { return encode_exact(v, dtype); });
    return bits;
}

/// The values of 16-bit elements of @p dtype (downloaded from the GPU): exact in float.
inline std::vector<float> decode_all(const std::vector<std::uint16_t>& bits, Dtype dtype)
{
    std::vector<float> values(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) {
        if (dtype == Dtype::f16) {
            __half h;
            std::memcpy(&h, &bits[i], sizeof h);
            values[i] = static_cast<float>(wb::to_double(h));
        } else {
            __nv_bfloat16 b;
            std::memcpy(&b, &bits[i], sizeof b);
            values[i] = static_cast<float>(wb::to_double(b));
        }
    }
    return values;
}

struct GemmReference {
    std::vector<double> c;        ///< M x N, row-major
    double max_abs_terms = 0.0;   ///< max over outputs of |alpha| sum_k |a b| + |beta c|
};

/// C = alpha A B + beta C in float64, A row-major M x K, B stored N x K (column-major K x N). C is not
/// read when beta == 0.
inline GemmReference gemm_reference(int M, int N, int K, double alpha, const std::vector<float>& A,
                                    const std::vector<float>& B, double beta, const std::vector<float>& C)
{
    GemmReference ref;
    ref.c.assign(static_cast<std::size_t>(M) * N, 0.0);
    for (int i = 0; i < M; ++i) {
        const float* a = &A[static_cast<std::size_t>(i) * K];
        for (int j = 0; j < N; ++j) {   // both operands run along K: a dot product of two contiguous rows
            const float* b = &B[static_cast<std::size_t>(j) * K];
            double sum = 0.0, abs_sum = 0.0;
            for (int k = 0; k < K; ++k) {
                const double p = static_cast<double>(a[k]) * b[k];
                sum += p, abs_sum += std::fabs(p);
            }
            const std::size_t index = static_cast<std::size_t>(i) * N + j;
            double value = alpha * sum, terms = std::fabs(alpha) * abs_sum;
            if (beta != 0.0) value += beta * C[index], terms += std::fabs(beta * C[index]);
            ref.c[index] = value;
            ref.max_abs_terms = std::max(ref.max_abs_terms, terms);
        }
    }
    return ref;
}

/// See the file comment: fp32 accumulation over K in any order, with twice the sequential depth.
inline wb::Tolerance gemm_tolerance(int K, double max_abs_terms)
{
    return wb::Tolerance::sum_of(max_abs_terms, 2.0 * (static_cast<double>(K) + 3.0));
}

}   // namespace ch08
