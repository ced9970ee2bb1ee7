/// @file gemm_contract.hpp
/// @brief The beta contract of the GEMM chapters (7: SGEMM, 8: tensor-core GEMM), checked the same way in
/// both graders: C = alpha * A * B + beta * C, where C is an input only when beta != 0.
///
/// - beta != 0: C is an input, so the grader cannot poison it before the launch. mark_unwritten() finds
///   the outputs that still hold their input value, so that the report says "never written" for them.
/// - beta == 0: C is write-only (BLAS semantics) and the grader fills it with NaN. A kernel that
///   computes beta * C anyway gets 0 * NaN = NaN, which looks like untouched poison or like a computed
///   NaN. diagnose_beta_zero() runs the case once more with a finite C and names the read of C.
#pragma once

#include "harness/compare.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace wb {

/// With beta != 0: an element of @p got that still holds its input value (@p before) bit for bit, where
/// the right result (@p expected) differs from that value by more than @p tolerance, was never written.
/// It is set to the poison, so that compare() reports it as never written (and a skeleton that writes
/// nothing at all reads as "not implemented yet").
inline void mark_unwritten(std::vector<float>& got, const std::vector<float>& before,
                           const std::vector<double>& expected, const Tolerance& tolerance)
{
    float poison;
    std::memset(&poison, kPoisonByte, sizeof poison);
    for (std::size_t i = 0; i < got.size(); ++i) {
        const bool unchanged = std::memcmp(&got[i], &before[i], sizeof(float)) == 0;
        const double margin = tolerance.abs + tolerance.rel * std::fabs(expected[i]);
        if (unchanged && std::fabs(expected[i] - before[i]) > margin) got[i] = poison;
    }
}

/// With beta == 0 (C filled with NaN before the launch): when @p report failed with NaN outputs where
/// finite ones were expected, runs the case again with C holding the finite values @p finite_c
/// (@p rerun_with_finite_c returns that run's output). Outputs that were NaN and now hold a written,
/// finite value come from a read of C: the report then says so. Returns @p report unchanged when that is
/// not what happened (a kernel that writes nothing leaves the finite C as it was: "not implemented yet").
inline CompareReport diagnose_beta_zero(const CompareReport& report, const std::vector<float>& got,
                                        const std::vector<double>& expected, const std::vector<float>& finite_c,
                                        const std::function<std::vector<float>()>& rerun_with_finite_c)
{
    if (report.ok) return report;
    std::int64_t nan_outputs = 0;
    for (std::size_t i = 0; i < got.size(); ++i) nan_outputs += std::isnan(got[i]) && std::isfinite(expected[i]);
    if (nan_outputs == 0) return report;
    const std::vector<float> again = rerun_with_finite_c();
    std::int64_t nan_then_written = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const bool written = std::memcmp(&again[i], &finite_c[i], sizeof(float)) != 0;
        nan_then_written += std::isnan(got[i]) && std::isfinite(expected[i]) && written && std::isfinite(again[i]);
    }
    if (2 * nan_then_written < nan_outputs) return report;
    CompareReport read_c = report;
    read_c.nothing_written = false;
    read_c.untouched = 0;
    read_c.message = std::to_string(nan_outputs) + " of " + std::to_string(got.size()) +
                     " elements are NaN where finite values were expected, and they become finite (written) when C "
                     "holds finite values instead of NaN: your kernel reads C although beta = 0.\n  likely cause: "
                     "beta = 0 must not read C. The contract (BLAS semantics) makes C write-only when beta == 0: it "
                     "may hold NaN or garbage, and beta * C is then 0 * NaN = NaN. Test beta == 0 and store "
                     "alpha * acc without loading C.";
    return read_c;
}

}   // namespace wb
