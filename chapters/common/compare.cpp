#include "common/compare.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace wb {

std::string format_number(double value)
{
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
    return buffer;
}

std::string Tolerance::describe() const
{
    if (abs == 0.0 && rel == 0.0) return "exact";
    std::string text;
    if (abs != 0.0) text += "abs " + format_number(abs);
    if (rel != 0.0) text += std::string(text.empty() ? "" : " + ") + "rel " + format_number(rel);
    return text;
}

namespace {

bool within(double expected, double got, const Tolerance& tol)
{
    if (std::isnan(expected)) return std::isnan(got);
    if (std::isinf(expected)) return got == expected;
    if (!std::isfinite(got)) return false;
    return std::fabs(got - expected) <= tol.abs + tol.rel * std::fabs(expected);
}

std::string where(std::int64_t index, const Layout& layout)
{
    std::string text = "index " + std::to_string(index);
    if (layout.cols > 0) {
        text += " (row " + std::to_string(index / layout.cols) + ", column " + std::to_string(index % layout.cols) + ")";
    }
    return text;
}

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Recognises the common patterns of a wrong kernel from which elements are bad.
std::string likely_cause(const std::vector<double>& expected, const std::vector<double>& got,
                         const std::vector<std::uint8_t>& untouched, const std::vector<std::uint8_t>& bad,
                         const CompareReport& report, const Tolerance& tolerance, const Layout& layout)
{
    const auto n = static_cast<std::int64_t>(expected.size());

    // Everything from some index on was never written, everything before it is right.
    if (report.untouched > 0 && report.untouched == report.bad) {
        const std::int64_t first_untouched = report.first_bad;
        const bool suffix = report.untouched == n - first_untouched;
        if (suffix) {
            std::string text = "elements " + std::to_string(first_untouched) + " to " + std::to_string(n - 1) +
                               " were never written, everything before them is right. ";
            if (is_power_of_two(first_untouched) && first_untouched < n / 2) {
                text += "Only the first " + std::to_string(first_untouched) +
                        " elements were done: if that is your block size, only one block worked "
                        "(is blockIdx.x in the index?) or the grid is too small.";
            } else if (is_power_of_two(first_untouched) && first_untouched >= 32) {
                // A written prefix of a block-like size and a short rest: both readings fit this input.
                text += "Either only one block did any work (if " + std::to_string(first_untouched) +
                        " is your block size: is blockIdx.x in the index?), or the tail is not covered "
                        "(round the grid size up with ceil_div, and handle the elements past the last full "
                        "block or vector).";
            } else {
                text += "The tail is not covered: round the grid size up (ceil_div), and handle the "
                        "elements past the last full block or vector.";
            }
            return text;
        }
        if (layout.cols > 0) {
            // Per row: are the untouched elements always the end of each row?
            std::int64_t first_col = layout.cols;
            for (std::int64_t i = 0; i < n; ++i) {
                if (untouched[i]) first_col = std::min(first_col, i % layout.cols);
            }
            bool row_tails = first_col < layout.cols;
            for (std::int64_t i = 0; i < n && row_tails; ++i) {
                row_tails = (untouched[i] != 0) == (i % layout.cols >= first_col);
            }
            if (row_tails) {
                return "in every row, columns " + std::to_string(first_col) + " to " + std::to_string(layout.cols - 1) +
                       " were never written: the loop over a row stops early (row length " +
                       std::to_string(layout.cols) + " is not a multiple of your step?).";
            }
        }
        return std::to_string(report.untouched) + " elements were never written, scattered (the first at " +
               where(report.first_bad, layout) + "): check the index arithmetic and the bounds tests.";
    }

    // Non-finite results where finite ones were expected.
    for (std::int64_t i = 0; i < n; ++i) {
        if (bad[i] && !untouched[i] && std::isfinite(expected[i]) && !std::isfinite(got[i])) {
            return "your kernel produced " + format_number(got[i]) + " at " + where(i, layout) + " where " +
                   format_number(expected[i]) + " was expected: an overflow (exp of a large value? "
                   "subtract the maximum first), a division by zero, or a read of memory nobody wrote.";
        }
    }

    // Every wrong value close to the right one: lost precision rather than a logic error. Checked before
    // the constant factor: two slightly-off values can share a ratio like 0.9984 by chance.
    if (report.untouched == 0 && (tolerance.abs > 0.0 || tolerance.rel > 0.0)) {
        double worst = 0.0;   // largest error as a multiple of the error allowed at that element
        for (std::int64_t i = 0; i < n; ++i) {
            if (!bad[i]) continue;
            if (!std::isfinite(expected[i]) || !std::isfinite(got[i])) {
                worst = INFINITY;
                break;
            }
            worst = std::max(worst, std::fabs(got[i] - expected[i]) / (tolerance.abs + tolerance.rel * std::fabs(expected[i])));
        }
        if (worst <= 16.0) {
            if (n == 1) {   // one output: it may also be one sum that missed a small term
                return "the value is close to the right one (at most " + format_number(std::ceil(worst)) +
                       " times the error allowed): lost precision (arithmetic or accumulation in half precision, "
                       "an approximate function, a long chain of float additions), or, for a sum, a small term "
                       "missed or counted twice.";
            }
            return "every wrong value is close to the right one (at most " + format_number(std::ceil(worst)) +
                   " times the error allowed): lost precision, not a logic error. Arithmetic or accumulation in "
                   "half precision, an approximate function where the contract asks for more, or a long chain "
                   "of float additions?";
        }
    }

    // Every wrong value off by the same factor.
    double ratio = 0.0;
    bool constant_ratio = report.bad > 1;   // one wrong value always has "a constant ratio": no evidence
    for (std::int64_t i = 0; i < n && constant_ratio; ++i) {
        if (!bad[i]) continue;
        if (expected[i] == 0.0) {
            constant_ratio = false;
            break;
        }
        const double r = got[i] / expected[i];
        if (ratio == 0.0) ratio = r;
        constant_ratio = std::fabs(r - ratio) <= 1e-3 * std::fabs(ratio);
    }
    if (constant_ratio && ratio != 0.0 && std::fabs(ratio - 1.0) > 1e-3) {
        return "every wrong value is " + format_number(ratio) +
               " times the right one: a value counted several times or a missing or extra scale factor.";
    }

    // Only the end is wrong.
    std::int64_t last_good = -1;
    for (std::int64_t i = 0; i < n; ++i) {
        if (!bad[i]) last_good = i;
    }
    if (report.first_bad > 0 && last_good < report.first_bad) {
        return "everything from " + where(report.first_bad, layout) +
               " on is wrong, everything before is right: the tail is handled differently (vector "
               "remainder, last block)?";
    }
    if (report.bad < n / 100 + 1 && report.bad > 0) {
        return "only a few values are wrong: a race (a missing __syncthreads or __syncwarp) or a boundary case.";
    }
    return "";
}

}  // namespace

CompareReport compare_values(const std::vector<double>& expected, const std::vector<double>& got,
                             const std::vector<std::uint8_t>& untouched, const Tolerance& tolerance,
                             const Layout& layout)
{
    CompareReport report;
    const auto n = static_cast<std::int64_t>(expected.size());
    report.count = n;
    if (static_cast<std::int64_t>(got.size()) != n) {
        report.ok = false;
        report.message = "internal error: the output has " + std::to_string(got.size()) + " elements, expected " +
                         std::to_string(n);
        return report;
    }
    std::vector<std::uint8_t> bad(n, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        const bool good = !untouched[i] && within(expected[i], got[i], tolerance);
        if (std::isfinite(expected[i]) && std::isfinite(got[i])) {
            report.max_error = std::max(report.max_error, std::fabs(got[i] - expected[i]));
        }
        if (good) continue;
        bad[i] = 1;
        ++report.bad;
        if (untouched[i]) ++report.untouched;
        if (report.first_bad < 0) {
            report.first_bad = i;
            report.expected_at_first = expected[i];
            report.got_at_first = got[i];
        }
    }
    report.ok = report.bad == 0;
    if (report.ok) return report;
    report.nothing_written = report.untouched == n && n > 0;
    if (report.nothing_written) {
        report.message = "not implemented yet: the output was never written (all " + std::to_string(n) +
                         " elements still hold the poison the grader put there).";
        return report;
    }

    std::ostringstream text;
    text << report.bad << " of " << n << " elements are wrong";
    if (report.untouched > 0) text << " (" << report.untouched << " of them never written)";
    text << ".\n  first bad: " << where(report.first_bad, layout) << ": expected "
         << format_number(report.expected_at_first) << ", got "
         << (untouched[report.first_bad] ? std::string("nothing (never written)") : format_number(report.got_at_first))
         << " (tolerance: " << tolerance.describe() << ")";
    const std::string cause = likely_cause(expected, got, untouched, bad, report, tolerance, layout);
    if (!cause.empty()) text << "\n  likely cause: " << cause;
    report.message = text.str();
    return report;
}

std::vector<double> round_to_half(const std::vector<double>& values)
{
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = __half2float(__double2half(values[i]));
    return out;
}

std::vector<double> round_to_bfloat16(const std::vector<double>& values)
{
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = __bfloat162float(__double2bfloat16(values[i]));
    return out;
}

std::vector<double> round_to_float(const std::vector<double>& values)
{
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
    return out;
}

}  // namespace wb
