/// @file compare.hpp
/// @brief Comparing a kernel's output with a float64 CPU reference, and saying what went wrong.
///
/// ## Tolerances
/// An element passes when `|got - expected| <= abs + rel * |expected|` (both infinities of the same
/// sign, and NaN where NaN is expected, pass too). The constructors below derive abs and rel from the
/// operation and the size, so that a correct kernel always passes and a wrong one cannot:
/// - exact(): integer-valued data, or one correctly rounded float operation per element (c = a + b).
/// - ulps(k): k units in the last place of the output type (e.g. a fast-math exp, a division).
/// - sum_of(n, sum_abs, depth): a float32 sum of n terms whose longest chain of additions is at most
///   `depth` long. Each addition rounds with relative error <= 2^-24, so the error is at most
///   depth * 2^-24 * sum|x_i| (Higham, Accuracy and Stability of Numerical Algorithms, section 4.2).
///   The graders state the depth they allow (e.g. "at most 4096 additions in one thread's chain").
/// - Half-precision outputs are compared after rounding the reference to the output type, within
///   one unit in the last place of that type.
#pragma once

#include "harness/buffers.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace wb {

/// How close a result must be: |got - expected| <= abs + rel * |expected|.
struct Tolerance {
    double abs = 0.0;
    double rel = 0.0;
    std::string describe() const;

    static Tolerance exact() { return {0.0, 0.0}; }
    /// @p k units in the last place of a float32 result (relative 2^-23 each).
    static Tolerance ulps(double k) { return {0.0, k * 0x1.0p-23}; }
    /// A float32 sum of terms with sum of absolute values @p sum_abs and chains of at most @p depth
    /// additions (see the file comment).
    static Tolerance sum_of(double sum_abs, double depth) { return {depth * 0x1.0p-24 * sum_abs + 1e-30, 0.0}; }
};

/// True when @p got passes against @p expected under @p tol: within abs + rel * |expected|, the same
/// infinity, or NaN where NaN is expected. The test every comparison of the harness uses.
bool within_tolerance(double expected, double got, const Tolerance& tol);

/// Where elements live, so that a report can say "row 3, column 17" instead of "index 401".
struct Layout {
    std::int64_t rows = 1;   ///< 1 for plain vectors
    std::int64_t cols = 0;   ///< 0 for plain vectors; the row length otherwise
    static Layout vector() { return {}; }
    static Layout matrix(std::int64_t rows, std::int64_t cols) { return {rows, cols}; }
};

/// What the operation computes, where a diagnosis needs it: only an operation with an exp can blame
/// infinities on an exp that overflowed, only one with a log can blame -inf on the log of 0.
struct Operation {
    bool has_exp = false;   ///< e.g. softmax: exp(x) without the maximum subtracted overflows
    bool has_log = false;   ///< e.g. log-softmax: log of a probability that underflowed to 0 is -inf
    static Operation none() { return {}; }
    static Operation exponential(bool with_log = false) { return {true, with_log}; }
};

/// What a comparison found.
struct CompareReport {
    bool ok = true;
    bool nothing_written = false;   ///< every element still holds the poison: "not implemented yet"
    std::int64_t count = 0;         ///< elements compared
    std::int64_t bad = 0;           ///< elements outside the tolerance (untouched ones included)
    std::int64_t untouched = 0;     ///< elements the kernel never wrote
    std::int64_t first_bad = -1;
    std::int64_t row_length = 0;   ///< Layout::cols of the comparison (0 for a vector)
    double expected_at_first = 0.0;
    double got_at_first = 0.0;
    double max_error = 0.0;      ///< largest |got - expected| over all elements
    std::string message;         ///< several lines: what, where, likely cause
    std::string cause;           ///< the likely cause alone (empty when no pattern was recognised)
    bool tile_pattern = false;   ///< the cause is a pattern of tiles (transposed in a tile, periodic lines)
};

/// Element-wise comparison core; @p untouched[i] is 1 where the output still holds the poison.
/// @p narrow_output: the output type is __half or __nv_bfloat16 (every value is then a half value, so
/// that cannot be evidence of a half-precision accumulator).
CompareReport compare_values(const std::vector<double>& expected, const std::vector<double>& got,
                             const std::vector<std::uint8_t>& untouched, const Tolerance& tolerance,
                             const Layout& layout, const Operation& operation = Operation::none(),
                             bool narrow_output = false);

inline double to_double(float v) { return v; }
inline double to_double(double v) { return v; }
inline double to_double(__half v) { return static_cast<double>(__half2float(v)); }
inline double to_double(__nv_bfloat16 v) { return static_cast<double>(__bfloat162float(v)); }

/// Compares a downloaded output of any element type with the float64 reference.
template <typename T>
CompareReport compare(const std::vector<double>& expected, const std::vector<T>& got, const Tolerance& tolerance,
                      const Layout& layout = Layout::vector(), const Operation& operation = Operation::none())
{
    std::vector<double> values(got.size());
    std::vector<std::uint8_t> untouched(got.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        untouched[i] = is_poison(got[i]) ? 1 : 0;
        values[i] = to_double(got[i]);
    }
    constexpr bool narrow = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
    return compare_values(expected, values, untouched, tolerance, layout, operation, narrow);
}

/// Inputs of type T made from float values (each rounded to nearest for __half and __nv_bfloat16).
template <typename T>
std::vector<T> convert_from_float(const std::vector<float>& values)
{
    if constexpr (std::is_same_v<T, float>) {
        return values;
    } else {
        std::vector<T> out(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
        return out;
    }
}

/// Rounds a float64 reference to what the output type can hold (e.g. expected halves).
std::vector<double> round_to_half(const std::vector<double>& values);
std::vector<double> round_to_bfloat16(const std::vector<double>& values);
std::vector<double> round_to_float(const std::vector<double>& values);

/// True when @p value is exactly a finite fp16 value (resp. bfloat16 value): a float result that
/// passed through a __half (resp. __nv_bfloat16) variable last.
bool is_half_value(double value);
bool is_bfloat16_value(double value);

// ---- Patterns of wrong elements (pure logic, used by the likely cause of compare_values) -------------

/// The side of a square tile (8, 16, 32 or 64) when most wrong elements of a matrix hold the value
/// that belongs at the same tile with the row and column inside it swapped (a tiled transpose that
/// reads its shared-memory tile back untransposed); 0 otherwise.
std::int64_t transposed_tile_size(const std::vector<double>& expected, const std::vector<double>& got,
                                  const std::vector<std::uint8_t>& bad, const Tolerance& tolerance,
                                  const Layout& layout);

/// Wrong rows (or columns) of a matrix that repeat with a period: whether a row has a wrong element
/// depends only on its index mod period (a loop over a tile's rows that skips some of them).
struct PeriodicLines {
    bool rows = true;                        ///< rows, or columns
    std::int64_t period = 0;                 ///< 0: no such pattern
    std::vector<std::int64_t> bad_offsets;   ///< the wrong lines within one period
};
PeriodicLines periodic_bad_lines(const std::vector<std::uint8_t>& bad, const Layout& layout);

/// The likely cause when the wrong values of a float output are all exactly fp16 (or bfloat16) values
/// while the right ones are not: the result went through a half-precision variable. Empty otherwise.
std::string half_valued_results(const std::vector<double>& expected, const std::vector<double>& got,
                                const std::vector<std::uint8_t>& bad);

/// What a wrong kernel may have computed instead of the contract: the likely cause if it did, and the
/// results it would then give (computed only when asked: each is a run of the reference).
struct Hypothesis {
    std::string cause;
    std::function<std::vector<double>()> results;
};

/// What the kernel most likely computed instead: the cause of the hypothesis whose results match @p got
/// (within @p tolerance) at 9 in 10 of the elements where @p got is wrong (finite ones, at least one).
/// Hypotheses are tried in order, and each one's results are computed only when no hypothesis before it
/// matched exactly (within a hundredth of the tolerance at every wrong element); of several that match,
/// the closest is named. Empty when none matches.
std::string matching_hypothesis(const std::vector<double>& expected, const std::vector<float>& got,
                                const Tolerance& tolerance, const std::vector<Hypothesis>& hypotheses);

/// The likely cause when @p got differs from @p expected by k copies (1 <= k <= 4096) of a guard value:
/// the float whose four bytes are one of the guard bytes placed after every DeviceBuffer (0xC8 to 0xDF,
/// from -4.1e5 to -3.2e19). Such a value only enters a result through a read past the end of an input
/// (a block reading 255 elements past an input of 1 adds 255 of them). The match allows the rounding
/// of a float sum of k values, 4 (log2 k + 1) u relative, plus @p slack (what the input values
/// themselves can add), so that other wrong values almost never pass for one. Empty otherwise.
std::string guard_read_cause(double expected, double got, double slack = 0.0);

/// guard_read_cause over the first wrong elements of an output, naming where the first one is.
std::string guard_read_results(const std::vector<double>& expected, const std::vector<double>& got,
                               const std::vector<std::uint8_t>& bad);

/// Puts @p cause in place of the likely cause of a failed @p report (its message's "likely cause:" line, or
/// after its message when it had none, and report.cause): for a cause found by what the comparison alone
/// cannot see (a probe run after it, the place of marked elements).
void replace_likely_cause(CompareReport& report, const std::string& cause);

/// Formats a number for reports: shortest form that shows the difference that matters.
std::string format_number(double value);

}   // namespace wb
