#include "harness/compare.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <utility>

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

bool within_tolerance(double expected, double got, const Tolerance& tol)
{
    if (std::isnan(expected)) return std::isnan(got);
    if (std::isinf(expected)) return got == expected;
    if (!std::isfinite(got)) return false;
    return std::fabs(got - expected) <= tol.abs + tol.rel * std::fabs(expected);
}

namespace {

std::string where(std::int64_t index, const Layout& layout)
{
    std::string text = "index " + std::to_string(index);
    if (layout.cols > 0) {
        text +=
            " (row " + std::to_string(index / layout.cols) + ", column " + std::to_string(index % layout.cols) + ")";
    }
    return text;
}

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// "rows 16 to 31" or "rows 1, 3, 5" from a sorted list of indices.
std::string list_ranges(const std::vector<std::int64_t>& indices, const char* noun)
{
    std::string text = noun;
    for (std::size_t k = 0; k < indices.size();) {
        std::size_t end = k;
        while (end + 1 < indices.size() && indices[end + 1] == indices[end] + 1) ++end;
        text += (k == 0 ? " " : ", ") + std::to_string(indices[k]);
        if (end > k) text += " to " + std::to_string(indices[end]);
        k = end + 1;
    }
    return text;
}

}   // namespace

std::int64_t transposed_tile_size(const std::vector<double>& expected, const std::vector<double>& got,
                                  const std::vector<std::uint8_t>& bad, const Tolerance& tolerance,
                                  const Layout& layout)
{
    if (layout.cols <= 0) return 0;
    std::int64_t bad_count = 0;
    for (std::uint8_t b : bad) bad_count += b;
    if (bad_count < 8) return 0;   // too few values to tell a pattern from chance
    std::int64_t best_tile = 0, best_matches = 0;
    for (std::int64_t tile : {8, 16, 32, 64}) {
        std::int64_t matches = 0;
        for (std::size_t i = 0; i < bad.size(); ++i) {
            if (!bad[i]) continue;
            const std::int64_t r = static_cast<std::int64_t>(i) / layout.cols,
                               c = static_cast<std::int64_t>(i) % layout.cols;
            // The same tile, with the row and column inside it swapped.
            const std::int64_t source_r = r - r % tile + c % tile, source_c = c - c % tile + r % tile;
            if (source_r >= layout.rows || source_c >= layout.cols) continue;
            if (within_tolerance(expected[source_r * layout.cols + source_c], got[i], tolerance)) ++matches;
        }
        if (matches > best_matches) {
            best_matches = matches;
            best_tile = tile;
        }
    }
    return 10 * best_matches >= 8 * bad_count ? best_tile : 0;
}

PeriodicLines periodic_bad_lines(const std::vector<std::uint8_t>& bad, const Layout& layout)
{
    if (layout.cols <= 0) return {};
    std::vector<std::uint8_t> bad_rows(layout.rows, 0), bad_cols(layout.cols, 0);
    for (std::size_t i = 0; i < bad.size(); ++i) {
        if (!bad[i]) continue;
        bad_rows[static_cast<std::int64_t>(i) / layout.cols] = 1;
        bad_cols[static_cast<std::int64_t>(i) % layout.cols] = 1;
    }
    // The smallest period P such that whether a line is bad depends only on its index mod P; at least
    // two whole periods, and both bad and good lines within one.
    auto find = [](const std::vector<std::uint8_t>& lines, bool rows) -> PeriodicLines {
        const auto count = static_cast<std::int64_t>(lines.size());
        for (std::int64_t period = 2; period <= 128 && 2 * period <= count; period *= 2) {
            bool repeats = true, some_bad = false, some_good = false;
            for (std::int64_t k = 0; k < count && repeats; ++k) repeats = lines[k] == lines[k % period];
            for (std::int64_t k = 0; k < period; ++k) (lines[k] ? some_bad : some_good) = true;
            if (!repeats || !some_bad || !some_good) continue;
            PeriodicLines found{rows, period, {}};
            for (std::int64_t k = 0; k < period; ++k) {
                if (lines[k]) found.bad_offsets.push_back(k);
            }
            return found;
        }
        return {};
    };
    PeriodicLines rows = find(bad_rows, true);
    if (rows.period > 0) return rows;
    return find(bad_cols, false);
}

std::string half_valued_results(const std::vector<double>& expected, const std::vector<double>& got,
                                const std::vector<std::uint8_t>& bad)
{
    // A float that went through a __half last is an fp16 value; a right float result almost never is
    // (2^-13 of random reals, 2^-16 for bfloat16). Integers are no evidence: wrong sums of small
    // integers are narrow values often enough.
    for (const auto& [is_narrow, name] :
         {std::pair{&is_half_value, "fp16"}, std::pair{&is_bfloat16_value, "bfloat16"}}) {
        std::int64_t finite_bad = 0, evidence = 0;
        for (std::size_t i = 0; i < bad.size(); ++i) {
            if (!bad[i] || !std::isfinite(got[i]) || !std::isfinite(expected[i])) continue;
            ++finite_bad;
            const bool integer = got[i] == std::round(got[i]);
            if (is_narrow(got[i]) && !is_narrow(expected[i]) && !integer) ++evidence;
        }
        if (evidence > 0 && 10 * evidence >= 9 * finite_bad) {
            return std::string("lost precision: the wrong values are exactly ") + name +
                   " numbers and the right ones are not, so the result went through a " +
                   (name == std::string("fp16") ? "__half" : "__nv_bfloat16") +
                   " variable; accumulating in half precision loses precision: accumulate in float (and do the "
                   "arithmetic in float; convert to the narrow type only to store an output of that type).";
        }
    }
    return "";
}

void replace_likely_cause(CompareReport& report, const std::string& cause)
{
    const std::string marker = "\n  likely cause: ";
    report.message = report.message.substr(0, report.message.find(marker)) + marker + cause;
    report.cause = cause;
}

std::string guard_read_cause(double expected, double got, double slack)
{
    if (!std::isfinite(expected) || !std::isfinite(got)) return "";
    const double diff = got - expected;
    for (unsigned byte = 0xC8; byte <= 0xDF; ++byte) {
        const std::uint32_t bits = byte * 0x01010101u;
        float guard = 0.0f;
        std::memcpy(&guard, &bits, sizeof guard);
        // k guard values summed in float: exact for k = 1, else about log2(k) roundings of u each.
        // The output holds the guard values alone (a copy), or the right result plus them (a sum).
        const bool alone =
            std::fabs(got - std::round(got / guard) * guard) < std::fabs(diff - std::round(diff / guard) * guard);
        const double off = alone ? got : diff;
        const double copies = std::round(off / guard);
        if (copies < 1.0 || copies > 4096.0) continue;
        const double sum = static_cast<double>(guard) * copies;
        const double rounding = 4.0 * (std::log2(copies) + 1.0) * 0x1.0p-24 * std::fabs(sum);
        if (std::fabs(off - sum) > rounding + slack) continue;
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", byte);
        const auto k = static_cast<long long>(copies);
        return std::string("a read past the end of an input: the result ") + (alone ? "is " : "is off by ") +
               (k == 1 ? std::string("") : std::to_string(k) + " x ") + format_number(guard) +
               ", the float whose four bytes are " + hex +
               ", which the grader writes after the end of every buffer (its guard). " +
               (k == 1 ? std::string("One element") : std::to_string(k) + " elements") +
               " past the end were read: a bounds test is missing or off by one (i < n, i + blockDim.x < n, the "
               "last partial block or float4).";
    }
    return "";
}

std::string guard_read_results(const std::vector<double>& expected, const std::vector<double>& got,
                               const std::vector<std::uint8_t>& bad)
{
    std::int64_t looked = 0;
    for (std::size_t i = 0; i < bad.size() && looked < 4096; ++i) {
        if (!bad[i]) continue;
        ++looked;
        if (std::string cause = guard_read_cause(expected[i], got[i]); !cause.empty()) return cause;
    }
    return "";
}

namespace {

/// What non-finite results where finite ones were expected say, for this operation.
std::string non_finite_cause(double expected, double got, const std::string& place, std::int64_t count,
                             const Operation& operation)
{
    std::string text = "your kernel produced " + format_number(got) + " at " + place + " where " +
                       format_number(expected) + " was expected (" + std::to_string(count) +
                       (count == 1 ? " such value" : " such values") + "): ";
    if (operation.has_log && got == -INFINITY) {
        return text +
               "the log of a value that underflowed to 0. Do not take the log of a probability: "
               "log_softmax(x) = (x - max) - log(sum of exp(x - max)).";
    }
    if (operation.has_exp && (got == INFINITY || std::isnan(got))) {
        return text +
               "an overflow (exp of a large value? subtract the maximum first: exp(x - max)), or a read "
               "of memory nobody wrote.";
    }
    if (std::isnan(got)) {
        return text +
               "NaN where the inputs give a finite value: a read of memory nobody wrote (uninitialised "
               "shared memory, a partial result read before it was stored, an index past the end of an "
               "array), or 0 / 0, inf - inf, 0 * inf.";
    }
    return text +
           "an infinity where the inputs give a finite value: a read of memory nobody wrote "
           "(uninitialised shared memory, an index past the end of an array or a tile), a division by "
           "zero, or an intermediate that overflowed.";
}

std::string describe_periodic(const PeriodicLines& lines, std::int64_t first_bad, const Layout& layout,
                              bool never_written)
{
    const char* noun = lines.rows ? "rows" : "columns";
    return "the wrong " + std::string(noun) + " repeat every " + std::to_string(lines.period) + " " + noun + ": " +
           list_ranges(lines.bad_offsets, noun) + " of every " + std::to_string(lines.period) + " are " +
           (never_written ? "never written" : "wrong") + ", the others right (the first at " +
           where(first_bad, layout) + "). A loop over the " + noun +
           " of a tile skips some of them: its step or its bound does not match "
           "the block's " +
           (lines.rows ? "height" : "width") + " (or the " + noun + " one thread covers).";
}

std::string describe_transposed_tile(std::int64_t tile)
{
    const std::string t = std::to_string(tile);
    return "the values are transposed inside each " + t + " x " + t +
           " tile: the element at (row r, column c) of a tile holds the one that belongs at (c, r). The tile is "
           "written and read back with the same indices, tile[y][x] both times, where one of the two must be "
           "tile[x][y] (this swap is the transpose within the tile).";
}

/// Recognises the common patterns of a wrong kernel from which elements are bad.
std::string likely_cause(const std::vector<double>& expected, const std::vector<double>& got,
                         const std::vector<std::uint8_t>& untouched, const std::vector<std::uint8_t>& bad,
                         CompareReport& report, const Tolerance& tolerance, const Layout& layout,
                         const Operation& operation, bool narrow_output)
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
                text +=
                    "The tail is not covered: round the grid size up (ceil_div), and handle the "
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
            if (const PeriodicLines lines = periodic_bad_lines(bad, layout); lines.period > 0) {
                report.tile_pattern = true;
                return describe_periodic(lines, report.first_bad, layout, true);
            }
        }
        return std::to_string(report.untouched) + " elements were never written, scattered (the first at " +
               where(report.first_bad, layout) + "): check the index arithmetic and the bounds tests.";
    }

    // A guard value read past the end of an input: nothing else produces these exact values.
    if (std::string cause = guard_read_results(expected, got, bad); !cause.empty()) return cause;

    // Patterns of tiled kernels: values swapped inside each tile, or some rows of every tile wrong.
    // They come before the values themselves: a misplaced infinity of the input is not an overflow.
    if (const std::int64_t tile = transposed_tile_size(expected, got, bad, tolerance, layout); tile > 0) {
        report.tile_pattern = true;
        return describe_transposed_tile(tile);
    }
    if (const PeriodicLines lines = periodic_bad_lines(bad, layout); lines.period > 0) {
        report.tile_pattern = true;
        return describe_periodic(lines, report.first_bad, layout, false);
    }

    // Results that went through a __half: a precision downgrade, whatever the size of the error.
    if (!narrow_output) {
        if (std::string cause = half_valued_results(expected, got, bad); !cause.empty()) return cause;
    }

    // Non-finite results where finite ones were expected: say what the values show.
    std::int64_t non_finite = 0, first_non_finite = -1;
    for (std::int64_t i = 0; i < n; ++i) {
        if (bad[i] && !untouched[i] && std::isfinite(expected[i]) && !std::isfinite(got[i])) {
            if (first_non_finite < 0) first_non_finite = i;
            ++non_finite;
        }
    }
    if (first_non_finite >= 0) {
        return non_finite_cause(expected[first_non_finite], got[first_non_finite], where(first_non_finite, layout),
                                non_finite, operation);
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
            worst = std::max(
                worst, std::fabs(got[i] - expected[i]) / (tolerance.abs + tolerance.rel * std::fabs(expected[i])));
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

}   // namespace

CompareReport compare_values(const std::vector<double>& expected, const std::vector<double>& got,
                             const std::vector<std::uint8_t>& untouched, const Tolerance& tolerance,
                             const Layout& layout, const Operation& operation, bool narrow_output)
{
    CompareReport report;
    report.row_length = layout.cols;
    const auto n = static_cast<std::int64_t>(expected.size());
    report.count = n;
    if (static_cast<std::int64_t>(got.size()) != n) {
        report.ok = false;
        report.message =
            "internal error: the output has " + std::to_string(got.size()) + " elements, expected " + std::to_string(n);
        return report;
    }
    std::vector<std::uint8_t> bad(n, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        const bool good = !untouched[i] && within_tolerance(expected[i], got[i], tolerance);
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
    report.cause = likely_cause(expected, got, untouched, bad, report, tolerance, layout, operation, narrow_output);
    if (!report.cause.empty()) text << "\n  likely cause: " << report.cause;
    report.message = text.str();
    return report;
}

bool is_half_value(double value)
{
    return std::isfinite(value) && static_cast<double>(__half2float(__double2half(value))) == value;
}

bool is_bfloat16_value(double value)
{
    return std::isfinite(value) && static_cast<double>(__bfloat162float(__double2bfloat16(value))) == value;
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

std::string matching_hypothesis(const std::vector<double>& expected, const std::vector<float>& got,
                                const Tolerance& tolerance, const std::vector<Hypothesis>& hypotheses)
{
    std::vector<std::size_t> wrong;   // finite results outside the tolerance: what a hypothesis must explain
    for (std::size_t i = 0; i < got.size() && i < expected.size(); ++i) {
        if (std::isfinite(got[i]) && std::isfinite(expected[i]) && !within_tolerance(expected[i], got[i], tolerance))
            wrong.push_back(i);
    }
    if (wrong.empty()) return "";
    // Two hypotheses can both match when their results are small next to the tolerance (fp16 bits read as
    // bf16 give products near 1e-6, which also pass for "no product at all" = 0). A match is therefore only
    // final when it is exact, within a hundredth of the tolerance at every wrong element; otherwise the
    // later hypotheses are tried too and the closest match is named.
    const Tolerance exact{tolerance.abs / 100, tolerance.rel / 100};
    std::string closest;
    std::size_t closest_matched = 0;
    double closest_distance = 0.0;
    for (const Hypothesis& hypothesis : hypotheses) {
        const std::vector<double> results = hypothesis.results();
        if (results.size() != got.size()) continue;
        std::size_t matched = 0;
        bool is_exact = true;
        double distance = 0.0;
        for (const std::size_t i : wrong) {
            const bool close = std::isfinite(results[i]) && within_tolerance(results[i], got[i], tolerance);
            matched += close;
            is_exact = is_exact && close && within_tolerance(results[i], got[i], exact);
            distance += close ? std::fabs(results[i] - got[i]) : 0.0;
        }
        if (10 * matched < 9 * wrong.size()) continue;
        // Closest: more wrong elements explained, then a smaller sum of the differences at them.
        if (closest.empty() || matched > closest_matched ||
            (matched == closest_matched && distance < closest_distance)) {
            closest = hypothesis.cause;
            closest_matched = matched;
            closest_distance = distance;
        }
        if (is_exact) break;
    }
    return closest;
}

std::vector<double> round_to_float(const std::vector<double>& values)
{
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
    return out;
}

}   // namespace wb
