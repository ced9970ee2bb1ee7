#include "harness/gemm_diagnosis.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace wb {

namespace {

/// True when @p value lies within @p slack of a normal value of the narrow type (@p significant bits, the
/// smallest normal 2^@p min_exponent) that is not an integer, and the narrow type's spacing there is wide
/// enough (16 slacks) for that to be evidence rather than chance.
bool near_narrow_value(double value, double slack, int significant, int min_exponent)
{
    if (!std::isfinite(value) || value == std::round(value)) return false;
    const double magnitude = std::fabs(value);
    if (magnitude < std::ldexp(1.0, min_exponent)) return false;
    const double spacing = std::ldexp(1.0, std::ilogb(magnitude) - (significant - 1));
    if (spacing < 16.0 * slack) return false;
    return std::fabs(value - std::round(value / spacing) * spacing) <= slack;
}

}   // namespace

std::string narrow_accumulator_cause(const std::vector<double>& expected, const std::vector<float>& got,
                                     const Tolerance& tolerance, float alpha, float beta,
                                     const std::vector<float>& c_before)
{
    if (alpha == 0.0f || got.size() != expected.size()) return "";
    struct Narrow {
        int significant, min_exponent;
        const char* name;
        const char* type;
    };
    // bfloat16 first: its values (8 significant bits) are fp16 values too wherever fp16 reaches, while an
    // fp16 sum is a bfloat16 value only 1 time in 8.
    for (const Narrow& narrow : {Narrow{8, -126, "bfloat16", "__nv_bfloat16"}, Narrow{11, -14, "fp16", "__half"}}) {
        std::int64_t finite_bad = 0, evidence = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            const double e = expected[i], g = got[i];
            if (!std::isfinite(e) || !std::isfinite(g)) continue;
            if (within_tolerance(e, g, tolerance)) continue;
            ++finite_bad;
            const double c0 = beta == 0.0f ? 0.0 : static_cast<double>(beta) * c_before[i];
            const double slack = std::ldexp(std::fabs(g) + std::fabs(c0), -22) / std::fabs(alpha);
            const double acc_got = (g - c0) / alpha, acc_expected = (e - c0) / alpha;
            if (near_narrow_value(acc_got, slack, narrow.significant, narrow.min_exponent) &&
                !near_narrow_value(acc_expected, slack, narrow.significant, narrow.min_exponent))
                ++evidence;
        }
        if (evidence > 0 && 10 * evidence >= 9 * finite_bad) {
            return std::string(
                       "lost precision: taken back through the epilogue, (C - beta * C_before) / alpha, the "
                       "wrong results are ") +
                   narrow.name + " numbers and the right ones are not, so the sums were kept in " + narrow.type +
                   " (an accumulator fragment of that type, or a sum converted to it on the way); accumulating in "
                   "half precision loses precision: accumulate in float.";
        }
    }
    return "";
}

std::string gemm_slip_cause(GemmSlip slip)
{
    switch (slip) {
        case GemmSlip::beta_left_out:
            return "the results are alpha * A * B: beta * C is left out. The contract is C = alpha * A * B + beta * C; "
                   "with beta != 0, read C and add beta times it.";
        case GemmSlip::alpha_left_out:
            return "the results are A * B + beta * C: alpha is left out. Multiply the sum by alpha.";
        case GemmSlip::alpha_scales_c:
            return "the results are alpha * (A * B + beta * C): alpha scales beta * C too. The contract is "
                   "alpha * (A * B) + beta * C.";
    }
    return "";
}

std::vector<int> k_without_tail(int K)
{
    std::vector<int> kept;
    for (int tile = 128; tile >= 4; tile /= 2) {
        const int k = K - K % tile;
        if (k < K && std::find(kept.begin(), kept.end(), k) == kept.end()) kept.push_back(k);
    }
    std::sort(kept.rbegin(), kept.rend());
    return kept;
}

std::string k_tail_dropped_cause(int K, int k_kept)
{
    const int dropped = K - k_kept;
    if (k_kept == 0) {
        return "the results are beta * C alone: none of the K = " + std::to_string(K) +
               " products was added, as when the K loop stops at the last whole tile and K is shorter than one "
               "tile. Handle the partial tile at the end of K: load zeros past K (or finish it apart).";
    }
    return "the results are those of the first " + std::to_string(k_kept) + " of the K = " + std::to_string(K) +
           " products: the K loop stops at the last whole tile and drops the " + std::to_string(dropped) +
           (dropped == 1 ? " product" : " products") +
           " after it. Handle the partial tile at the end of K: load zeros past K (or finish it apart).";
}

float round_significand(float x, int significant, bool nearest)
{
    if (!std::isfinite(x) || significant >= 24 || significant < 2) return x;
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const int dropped = 24 - significant;
    const std::uint32_t low = (std::uint32_t(1) << dropped) - 1;
    if (nearest) bits += std::uint32_t(1) << (dropped - 1);   // half of the last kept bit: ties away from zero
    bits &= ~low;
    float out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
}

const std::vector<InputRounding>& float_input_roundings()
{
    static const std::vector<InputRounding> roundings = {
        {11, true,
         "rounded to 11 significant bits: the values passed through __half (tiles or registers of that type), or "
         "the products ran on tensor cores in TF32 (10 explicit mantissa bits)"},
        {11, false,
         "with the lowest 13 bits of every value dropped (11 significant bits left), which is how TF32 tensor cores "
         "read an fp32 register: the products ran in TF32"},
        {8, true,
         "rounded to 8 significant bits: the values passed through __nv_bfloat16 (tiles or registers of that type)"},
        {8, false,
         "with the lowest 16 bits of every value dropped (8 significant bits left): a bfloat16 made by truncation"},
    };
    return roundings;
}

std::string rounded_inputs_cause(const InputRounding& rounding, const std::string& operands)
{
    return "the results are those of " + operands + " " + rounding.what +
           ". The contract multiplies the float inputs as they are (FP32, TF32 off): keep them in float and use "
           "FFMA.";
}

std::vector<Hypothesis> gemm_hypotheses(int K, float alpha, float beta, bool with_no_k, const GemmProduct& product)
{
    auto run = [product](int k, float a, float b) { return [=] { return product(k, a, b); }; };
    std::vector<Hypothesis> hypotheses;
    if (beta != 0.0f) hypotheses.push_back({gemm_slip_cause(GemmSlip::beta_left_out), run(K, alpha, 0.0f)});
    if (alpha != 1.0f) {
        hypotheses.push_back({gemm_slip_cause(GemmSlip::alpha_left_out), run(K, 1.0f, beta)});
        if (beta != 0.0f)
            hypotheses.push_back({gemm_slip_cause(GemmSlip::alpha_scales_c), run(K, alpha, alpha * beta)});
    }
    for (const int k : k_without_tail(K)) {
        if (k > 0 || with_no_k) hypotheses.push_back({k_tail_dropped_cause(K, k), run(k, alpha, beta)});
    }
    return hypotheses;
}

}   // namespace wb
