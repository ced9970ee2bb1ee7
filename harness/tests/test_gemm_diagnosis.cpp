// CPU tests of harness/gemm_diagnosis.hpp: what a wrong GEMM most likely computed instead.
#include "harness/catch.hpp"
#include "harness/gemm_diagnosis.hpp"
#include "harness/random.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}   // namespace

TEST_CASE("a GEMM's fp16 accumulator is seen through alpha and beta", "[compare]")
{
    const float alpha = 1.25f, beta = -0.5f;
    wb::Rng rng(11);
    std::vector<double> expected;
    std::vector<float> got, got_right_but_off, c_before;
    for (int i = 0; i < 40; ++i) {
        const double acc = rng.uniform(-3.f, 3.f);   // a sum of products: not an fp16 value
        const float c0 = rng.uniform(-1.f, 1.f);
        const float acc_half = __half2float(__float2half(static_cast<float>(acc)));
        c_before.push_back(c0);
        expected.push_back(alpha * acc + static_cast<double>(beta) * c0);
        got.push_back(std::fma(alpha, acc_half, beta * c0));   // the epilogue in float, after an fp16 sum
        got_right_but_off.push_back(std::fma(alpha, static_cast<float>(acc * (1 + 1e-3)), beta * c0));
    }
    const wb::Tolerance tight{1e-6, 1e-6};
    CHECK(contains(wb::narrow_accumulator_cause(expected, got, tight, alpha, beta, c_before), "fp16 numbers"));
    CHECK(contains(wb::narrow_accumulator_cause(expected, got, tight, alpha, beta, c_before), "accumulate in float"));
    // Wrong by as much, but not through an fp16 variable: no evidence.
    CHECK(wb::narrow_accumulator_cause(expected, got_right_but_off, tight, alpha, beta, c_before).empty());
    // beta = 0: C_before (NaN, the poison) is not read.
    std::vector<double> expected0;
    std::vector<float> got0, nan_c(40, std::nanf(""));
    for (int i = 0; i < 40; ++i) {
        const double acc = rng.uniform(-3.f, 3.f);
        expected0.push_back(alpha * acc);
        got0.push_back(alpha * __half2float(__float2half(static_cast<float>(acc))));
    }
    CHECK(contains(wb::narrow_accumulator_cause(expected0, got0, tight, alpha, 0.0f, nan_c), "fp16 numbers"));
    // bfloat16 sums are named as such.
    std::vector<float> got_bf16;
    for (std::size_t i = 0; i < expected0.size(); ++i)
        got_bf16.push_back(alpha * __bfloat162float(__float2bfloat16(static_cast<float>(expected0[i] / alpha))));
    CHECK(contains(wb::narrow_accumulator_cause(expected0, got_bf16, tight, alpha, 0.0f, nan_c), "bfloat16 numbers"));
}


TEST_CASE("inputs rounded to fp16, TF32 or bfloat16 keep the significant bits those types hold", "[compare]")
{
    // 1 + 2^-11 + 2^-20: 11 significant bits round it up to 1 + 2^-10 (nearest) or down to 1 (dropped).
    const float x = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20);
    CHECK(wb::round_significand(x, 11, true) == 1.0f + std::ldexp(1.0f, -10));
    CHECK(wb::round_significand(x, 11, false) == 1.0f);
    CHECK(wb::round_significand(-x, 11, true) == -(1.0f + std::ldexp(1.0f, -10)));
    // Nearest to 11 bits is what __half holds (away from ties), and 8 bits what __nv_bfloat16 holds.
    wb::Rng rng(5);
    for (int i = 0; i < 1000; ++i) {
        const float v = rng.uniform(-1.f, 1.f);
        if (std::fabs(v) < 1e-4f) continue;   // fp16 subnormals keep fewer bits
        std::uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        // Exact ties (1 value in 8192, 1 in 65536) go away from zero here, to even in __half and bfloat16.
        if ((bits & 0x1fffu) != 0x1000u) CHECK(wb::round_significand(v, 11, true) == __half2float(__float2half(v)));
        if ((bits & 0xffffu) != 0x8000u)
            CHECK(wb::round_significand(v, 8, true) == __bfloat162float(__float2bfloat16(v)));
    }
    CHECK(wb::round_significand(INFINITY, 11, true) == INFINITY);
    const std::string cause = wb::rounded_inputs_cause(wb::float_input_roundings().front(), "A and B");
    CHECK(contains(cause, "the results are those of A and B rounded to 11 significant bits"));
    CHECK(contains(cause, "TF32 off"));
}


TEST_CASE("a GEMM that drops its K tail stops at a multiple of its tile", "[compare]")
{
    CHECK(wb::k_without_tail(65) == std::vector<int>{64, 0});
    CHECK(wb::k_without_tail(24) == std::vector<int>{16, 0});
    CHECK(wb::k_without_tail(264) == std::vector<int>{256});
    CHECK(wb::k_without_tail(256).empty());
    CHECK(contains(wb::k_tail_dropped_cause(65, 64), "the first 64 of the K = 65 products"));
    CHECK(contains(wb::k_tail_dropped_cause(65, 64), "drops the 1 product after it"));
    CHECK(contains(wb::k_tail_dropped_cause(24, 0), "beta * C alone"));
    const std::vector<int> m = {1, 2, 3, 4, 5, 6};   // 2 x 3
    CHECK(wb::leading_columns(m, 2, 3, 2) == std::vector<int>{1, 2, 4, 5});
}

TEST_CASE("every GEMM grader tries the epilogue slips, then the K tails, and computes only what it needs", "[compare]")
{
    std::vector<int> asked;   // the k of each product computed
    const wb::GemmProduct product = [&asked](int k, float, float) {
        asked.push_back(k);
        return std::vector<double>{static_cast<double>(k)};
    };
    const auto all = wb::gemm_hypotheses(65, 1.5f, -0.75f, true, product);
    REQUIRE(all.size() == 5);   // beta, alpha, alpha on beta C, K' = 64, K' = 0
    CHECK(contains(all[0].cause, "beta * C is left out"));
    CHECK(contains(all[1].cause, "alpha is left out"));
    CHECK(contains(all[2].cause, "alpha scales beta * C too"));
    CHECK(contains(all[3].cause, "the first 64 of the K = 65 products"));
    CHECK(contains(all[4].cause, "beta * C alone"));
    CHECK(asked.empty());   // nothing computed until asked
    // The result {64} matches only the fourth hypothesis, so the fifth is never computed.
    CHECK(contains(wb::matching_hypothesis({65.0}, {64.0f}, wb::Tolerance::exact(), all), "first 64"));
    CHECK(asked == std::vector<int>{65, 65, 65, 64});
    // alpha = 1, beta = 0 (the usual benchmark): no epilogue slip can show; no K' = 0 without with_no_k.
    const auto plain = wb::gemm_hypotheses(65, 1.0f, 0.0f, false, product);
    REQUIRE(plain.size() == 1);
    CHECK(contains(plain[0].cause, "the first 64"));
}
