/// @file 09_attention/grader/reference.hpp
/// @brief Chapter 9's CPU side: inputs that fp16 and bf16 hold exactly, the float64 reference of
/// attention (O and lse) for any set of query rows, and the tolerances derived from it.
///
/// Tolerance of O (the derivation is in chapters/09_attention/README.md, "How the grader checks"):
/// - the scores: an fp32 dot product over D in any order, the scale, and the conversions that an exp2
///   formulation adds (times log2 e, minus the maximum), err at most E_i = (D + 8) u T_i, where
///   u = 2^-24 and T_i = max_j sum_d |scale q_d k_d| over the row's visible keys;
/// - scores off by at most E change each probability by a factor within exp(+-2E), and since the
///   probabilities sum to 1 on both sides, O moves by at most expm1(2 E_i) * W_i, where
///   W_i = max_d sum_j p_j |v_jd - O_id| (0 for a row whose softmax is one-hot: large logits are then
///   checked tightly);
/// - the fp32 sums over the keys (l and P V), the rescaling by exp(m - m') once per tile or key, the
///   division by l and the exp instruction: at most (2 kv_len + 64) u max|v| together;
/// - stages that round P to the input type before P V (tensor cores): 2 u_in max|v| more;
/// - the final rounding of O to the output type: u_out |O| (u_out = 2^-11 for fp16, 2^-8 for bf16),
///   and half an fp16 subnormal step.
/// lse = m + ln l is checked with an absolute tolerance: E_i + (2 kv_len + 64) u + 2 u |lse_i|.
#pragma once

#include "08_tensor_gemm/grader/reference.hpp"   // ch08::make_values, encode_all, decode_all: exact 16-bit values
#include "09_attention/attention_common.cuh"
#include "harness/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ch09 {

/// Exact inputs for one problem: the values (exact in fp16 and bf16) and their sizes.
struct Inputs {
    std::vector<float> q, k, v;
};

inline std::size_t q_elements(const Shape& s)
{
    return heads_total(s) * s.q_len * static_cast<std::size_t>(s.head_dim);
}
inline std::size_t kv_elements(const Shape& s)
{
    return heads_total(s) * s.kv_len * static_cast<std::size_t>(s.head_dim);
}

/// Unit roundoff of the 16-bit type: half the distance from 1 to the next value.
inline double unit_roundoff(ch08::Dtype dtype) { return dtype == ch08::Dtype::f16 ? 0x1.0p-11 : 0x1.0p-8; }

/// The float64 result for a set of query rows (global row index r = (b * heads + h) * q_len + i).
struct Reference {
    std::vector<std::int64_t> rows;   ///< which rows, in this order
    std::vector<double> o;            ///< rows.size() x head_dim
    std::vector<double> lse;          ///< rows.size(); -inf for a row that sees no key
    double o_abs = 0.0;               ///< absolute part of O's tolerance (the maximum over the rows)
    double lse_abs = 0.0;             ///< lse's absolute tolerance
};

/// Computes the reference for @p rows; @p p_rounded: the stage may round P to the input type.
inline Reference attention_reference(const Shape& s, const Inputs& in, const std::vector<std::int64_t>& rows,
                                     ch08::Dtype dtype, bool p_rounded)
{
    const double u = 0x1.0p-24;
    const int D = s.head_dim;
    Reference ref;
    ref.rows = rows;
    ref.o.assign(rows.size() * D, 0.0);
    ref.lse.assign(rows.size(), -std::numeric_limits<double>::infinity());
    std::vector<double> score, terms, p, o(D);
    double o_abs = 0.0, lse_abs = 0.0;
    for (std::size_t n = 0; n < rows.size(); ++n) {
        const std::int64_t r = rows[n];
        const std::int64_t bh = r / s.q_len, i = r % s.q_len;
        const int visible = visible_keys(s, i);
        if (visible == 0) continue;   // O = 0, lse = -inf
        const float* qr = &in.q[static_cast<std::size_t>(r) * D];
        const float* kb = &in.k[static_cast<std::size_t>(bh) * s.kv_len * D];
        const float* vb = &in.v[static_cast<std::size_t>(bh) * s.kv_len * D];
        score.assign(visible, 0.0), terms.assign(visible, 0.0), p.assign(visible, 0.0);
        double m = -std::numeric_limits<double>::infinity(), t_max = 0.0;
        for (int j = 0; j < visible; ++j) {
            double dot = 0.0, abs_dot = 0.0;
            for (int d = 0; d < D; ++d) {
                const double prod = static_cast<double>(qr[d]) * kb[static_cast<std::size_t>(j) * D + d];
                dot += prod, abs_dot += std::fabs(prod);
            }
            score[j] = static_cast<double>(s.scale) * dot;
            t_max = std::max(t_max, std::fabs(static_cast<double>(s.scale)) * abs_dot);
            m = std::max(m, score[j]);
        }
        double l = 0.0;
        for (int j = 0; j < visible; ++j) l += (p[j] = std::exp(score[j] - m));
        for (int j = 0; j < visible; ++j) p[j] /= l;
        double v_max = 0.0;
        std::fill(o.begin(), o.end(), 0.0);
        for (int j = 0; j < visible; ++j)
            for (int d = 0; d < D; ++d) {
                const double x = vb[static_cast<std::size_t>(j) * D + d];
                o[d] += p[j] * x;
                v_max = std::max(v_max, std::fabs(x));
            }
        double w = 0.0;   // max_d sum_j p_j |v_jd - o_d|
        for (int d = 0; d < D; ++d) {
            double sum = 0.0;
            for (int j = 0; j < visible; ++j) sum += p[j] * std::fabs(vb[static_cast<std::size_t>(j) * D + d] - o[d]);
            w = std::max(w, sum);
        }
        const double e = (D + 8) * u * t_max;
        const double sums = (2.0 * s.kv_len + 64.0) * u;
        const double row_abs =
            std::expm1(2.0 * e) * w + sums * v_max + (p_rounded ? 2.0 * unit_roundoff(dtype) : 0.0) * v_max;
        o_abs = std::max(o_abs, row_abs);
        const double lse = m + std::log(l);
        lse_abs = std::max(lse_abs, e + sums + 2.0 * u * std::fabs(lse));
        std::copy(o.begin(), o.end(), ref.o.begin() + n * D);
        ref.lse[n] = lse;
    }
    ref.o_abs = o_abs * (1.0 + unit_roundoff(dtype)) + 0x1.0p-24;   // + half an fp16 subnormal step, with margin
    ref.lse_abs = lse_abs + 1e-30;
    return ref;
}

/// O's tolerance: the absolute part from the reference, the output's rounding relative.
inline wb::Tolerance o_tolerance(const Reference& ref, ch08::Dtype dtype) { return {ref.o_abs, unit_roundoff(dtype)}; }

inline wb::Tolerance lse_tolerance(const Reference& ref) { return {ref.lse_abs, 0.0}; }

}   // namespace ch09
