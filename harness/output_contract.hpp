/// @file output_contract.hpp
/// @brief Outputs that a kernel may or must not read: the checks that tell a read of an output from an
/// output never written, shared by the graders.
///
/// The graders fill every output with NaN (the poison, harness/buffers.hpp) before a launch, so that an
/// element never written is seen. A kernel that *reads* such an output before writing it turns the poison
/// into computed NaN results (another NaN than the poison, on a GPU and on a CPU). The checks run the
/// case once more with finite values (or zeros) in the output and name the read:
/// - GEMM (chapters 7 and 8), C = alpha * A * B + beta * C. With beta != 0, C is an input and is not
///   poisoned: mark_unwritten() finds the outputs that still hold their input value. With beta == 0, C is
///   write-only (BLAS semantics): diagnose_beta_zero() names a kernel that computes beta * C anyway.
/// - Vector outputs (chapter 6, GEMV): diagnose_unset_vector() names a kernel that adds partial sums into
///   the output (atomicAdd, split-K) without setting it to 0 first. (Single results, chapters 2 and 10,
///   need no rerun: their NaN hint says the same.)
#pragma once

#include "harness/buffers.hpp"
#include "harness/compare.hpp"
#include "harness/stage.hpp"
#include "harness/timing.hpp"

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
    const float poison = poison_value<float>();
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

/// A vector output with NaN elements where finite ones were expected (@p report failed) that comes out right
/// when the call runs again with 0 in every element (@p rerun_from_zero returns that run's report): the kernel
/// adds into the output (atomicAdd of partial sums, split-K) without setting it to 0 first. Returns
/// @p report unchanged otherwise.
inline CompareReport diagnose_unset_vector(const CompareReport& report, const std::vector<float>& got,
                                           const std::vector<double>& expected,
                                           const std::function<CompareReport()>& rerun_from_zero)
{
    if (report.ok) return report;
    std::int64_t nan_outputs = 0;
    for (std::size_t i = 0; i < got.size(); ++i) nan_outputs += std::isnan(got[i]) && std::isfinite(expected[i]);
    if (nan_outputs == 0 || !rerun_from_zero().ok) return report;
    CompareReport added = report;
    added.nothing_written = false;
    added.untouched = 0;
    added.message = std::to_string(nan_outputs) + " of " + std::to_string(got.size()) +
                    " elements are NaN where finite values were expected, yet with 0 in every element before the "
                    "call your kernel leaves the right result: it adds into the output without setting it to 0 "
                    "first.\n  likely cause: the grader fills the output with NaN before each call, and atomicAdd "
                    "into a NaN stays NaN: set the output to 0 on the stream (cudaMemsetAsync) before the kernel "
                    "that adds into it.";
    return added;
}

}   // namespace wb
