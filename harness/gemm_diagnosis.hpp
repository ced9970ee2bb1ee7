/// @file gemm_diagnosis.hpp
/// @brief What a wrong GEMM most likely computed instead of C = alpha * A * B + beta * C: the likely causes
/// that chapters 7 (SGEMM) and 8 (tensor-core GEMM) name when a case fails.
///
/// Such a kernel does the right arithmetic on something else (beta * C left out, the K tail dropped,
/// inputs rounded to a narrower type), so no pattern of its wrong elements points at the mistake. The
/// graders recompute the product those ways from the same inputs (wb::matching_hypothesis, compare.hpp) and
/// name the one the results match; a narrow accumulator is seen through the epilogue instead. Pure logic:
/// the chapters supply the products (their float64 reference, or cuBLAS on the GPU).
#pragma once

#include "harness/compare.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wb {

/// The same test for a GEMM, C = alpha * acc + beta * C0, on its accumulators: the epilogue's float
/// arithmetic hides an fp16 (or bfloat16) accumulator from half_valued_results (alpha times an fp16 number
/// is rarely one), so each wrong result is taken back to its accumulator, (got - beta * C0) / alpha, and
/// counts as narrow when it lies within the rounding of that arithmetic (4 float ulps) of an fp16
/// (bfloat16) value while the right one does not. @p c_before: C0 (ignored when @p beta is 0). The likely
/// cause when 9 in 10 of the wrong finite results are such; empty otherwise. Pure logic.
std::string narrow_accumulator_cause(const std::vector<double>& expected, const std::vector<float>& got,
                                     const Tolerance& tolerance, float alpha, float beta,
                                     const std::vector<float>& c_before);

/// The first @p keep columns of each row of a row-major @p rows x @p cols matrix: an operand cut to its
/// first K' of K columns, for the hypothesis that a GEMM dropped its K tail. Pure logic.
template <typename T>
std::vector<T> leading_columns(const std::vector<T>& values, std::int64_t rows, std::int64_t cols, std::int64_t keep)
{
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(rows * keep));
    for (std::int64_t r = 0; r < rows; ++r)
        out.insert(out.end(), values.begin() + r * cols, values.begin() + r * cols + keep);
    return out;
}

/// The usual slips in a GEMM's epilogue, C = alpha * A * B + beta * C, and their likely causes (the
/// hypotheses of chapters 7 and 8).
enum class GemmSlip { beta_left_out, alpha_left_out, alpha_scales_c };
std::string gemm_slip_cause(GemmSlip slip);

/// The K' = K - K % T (T a power of two from 4 to 128; K' may be 0) a GEMM that drops the partial K tile at
/// the end of K would stop at, each once, largest first. Pure logic.
std::vector<int> k_without_tail(int K);

/// The likely cause when the results are those of the first @p k_kept of @p K products. Pure logic.
std::string k_tail_dropped_cause(int K, int k_kept);

/// A way a kernel may round its float inputs before it multiplies them, and what it means for the learner.
struct InputRounding {
    int significant;    ///< significant bits kept: 11 (fp16, TF32) or 8 (bfloat16)
    bool nearest;       ///< rounded to nearest; false: the lower bits dropped
    std::string what;   ///< how the inputs were rounded, and what does that: follows "the results are those of A"
};

/// @p x with @p significant significant bits (2 to 24), rounded to nearest (ties away from zero, as
/// cvt.rna.tf32.f32) or with the lower bits dropped (as TF32 tensor cores read an fp32 register). The
/// exponent range stays float's. Pure logic.
float round_significand(float x, int significant, bool nearest);

/// The roundings a float GEMM's grader tries when its results are wrong: to 11 significant bits (__half,
/// or TF32 tensor cores), nearest and truncated, and to 8 (__nv_bfloat16). Where the results match the
/// product of inputs rounded one of these ways, that rounding is the cause.
const std::vector<InputRounding>& float_input_roundings();

/// The likely cause when the results are those of @p operands ("A and B", "A", "B") rounded as @p rounding
/// says. Pure logic.
std::string rounded_inputs_cause(const InputRounding& rounding, const std::string& operands);

/// Computes alpha' * A * B + beta' * C0 over the first @p k of the K products, from the case's inputs.
using GemmProduct = std::function<std::vector<double>(int k, float alpha, float beta)>;

/// The hypotheses every GEMM grader tries first, in order: beta * C left out (when beta != 0), alpha left
/// out (when alpha != 1), alpha applied to beta * C too (both), the partial K tile at the end dropped
/// (k_without_tail; K' = 0 only with @p with_no_k). Each is one call of @p product, made only when the ones
/// before did not match. The chapters append their own (rounded inputs, the other 16-bit type).
std::vector<Hypothesis> gemm_hypotheses(int K, float alpha, float beta, bool with_no_k, const GemmProduct& product);

}   // namespace wb
