// Chapter 3 grader: every stage against a float64 CPU reference on adversarial rows, then timed
// against the reference stages in the same run. See harness/stage.hpp for the rules.
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "03_softmax/grader/reference.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/past_int_range.hpp"
#include "harness/sampling.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <type_traits>

namespace {

using std::int64_t;

template <typename T>
using Launcher = void (*)(const T*, T*, int64_t, int64_t, cudaStream_t);

/// Row lengths every stage must get right: tiny ones (narrow thread groups), around the warp size
/// and the vector widths (every remainder mod 4 and mod 8, also at lengths longer than a warp's
/// vectors: 34, 38, 66, 70, 130, 514, 1022, 1026, 2050), around 1024 and 2048 (the register
/// paths' limits), powers of two and their neighbours up to 32768, and past the shared memory of
/// any GPU (65537 floats are 256 KB).
const std::vector<int64_t> kCols = {
    1,    2,    3,    4,    5,    7,    8,    9,    16,   17,   31,   32,    33,    34,    38,    63,    64,   65,
    66,   70,   100,  127,  128,  129,  130,  255,  256,  257,  500,  513,   514,   1000,  1022,  1023,  1024, 1025,
    1026, 1536, 2047, 2048, 2049, 2050, 3001, 4096, 4099, 8191, 8192, 12289, 16384, 16387, 32768, 32771, 65537};

/// What the special rows at the top of every test matrix hold (the report names the row).
const char* const kSpecialRows[] = {
    "one finite value, every other value -inf",
    "the maximum in the last column (a missed tail changes every value)",
    "ties: every value equal",
    "values near 1e4 (exp overflows unless the maximum is subtracted)",
    "huge values: +-FLT_MAX or +-1e30, the maximum twice",
    "every value far below zero, in [-120, -100)",
    "every value near -1e30 (-6e4 in fp16), the maximum twice",
    "every value within 0.05% of -FLT_MAX (fp16: in [-65504, -65024]), the maximum twice",
    "-inf mixed with finite values (every odd column -inf)",
};
constexpr int64_t kSpecial = 9;

/// The first special row whose values are all far below zero: every row from here on is lost by a
/// maximum that starts at 0 or is never subtracted (every exp underflows to 0, and 0 / 0 is NaN).
constexpr int64_t kFirstNegativeRow = 5;
/// The special row whose values are all below any finite start a maximum is given in place of -inf.
constexpr int64_t kLowestRow = 7;

enum class Kind { softmax, log_softmax };

/// A test matrix: kSpecial special rows, then random rows in [-8, 8).
template <typename T>
std::vector<T> make_input(int64_t rows, int64_t cols, Kind kind, wb::Rng& rng)
{
    constexpr bool is_half = std::is_same_v<T, __half>;
    std::vector<float> x = wb::uniform_floats(rows * cols, -8.f, 8.f, rng);
    auto row = [&](int64_t r) { return x.data() + r * cols; };
    // Row 0: -inf everywhere but one random column.
    std::fill(row(0), row(0) + cols, -INFINITY);
    row(0)[rng.integer(0, static_cast<int>(cols - 1))] = rng.uniform(-3.f, 3.f);
    // Row 1: values in [-4, 4), the last one far above them.
    for (int64_t c = 0; c < cols; ++c) row(1)[c] = rng.uniform(-4.f, 4.f);
    row(1)[cols - 1] = 12.f;
    // Row 2: all equal.
    std::fill(row(2), row(2) + cols, 3.25f);
    // Row 3: large values close together (fp16 has 32 between neighbours near 6e4).
    for (int64_t c = 0; c < cols; ++c) row(3)[c] = is_half ? rng.uniform(59800.f, 60000.f) : rng.uniform(9980.f, 1e4f);
    // Row 4: huge magnitudes; the maximum appears in the first and the last column.
    const float huge = is_half ? 65504.f : (kind == Kind::softmax ? FLT_MAX : 1e30f);
    for (int64_t c = 0; c < cols; ++c) row(4)[c] = rng.uniform(-1.f, 1.f) * (is_half ? 6e4f : 1e30f);
    if (cols >= 3) row(4)[1] = -huge;   // x - max overflows to -inf for FLT_MAX: exp gives 0, as it should
    row(4)[0] = huge;
    row(4)[cols - 1] = huge;
    // Row 5: every value far below zero: exp(x) underflows unless the row maximum is subtracted.
    for (int64_t c = 0; c < cols; ++c) row(5)[c] = rng.uniform(-120.f, -100.f);
    // Row 6: values near -1e30 (every exp(x) is 0); the maximum in the first and the last column.
    const float low = is_half ? -6e4f : -1e30f;
    for (int64_t c = 0; c < cols; ++c) row(6)[c] = low * rng.uniform(1.f, is_half ? 1.09f : 2.f);
    row(6)[0] = low;
    row(6)[cols - 1] = low;
    // Row 7: every value just above the most negative finite value, the maximum in the first and the last
    // column: below -1e30, -1e38 and -3.4e38, which some kernels start their maximum at in place of -inf.
    const float lowest = is_half ? -65504.f : -FLT_MAX;
    const float span = is_half ? 480.f : FLT_MAX * 5e-4f;   // -65504 + 480 = -65024 is an fp16 value
    for (int64_t c = 0; c < cols; ++c) row(7)[c] = lowest + span * rng.uniform(0.f, 1.f);
    row(7)[0] = lowest + span;
    row(7)[cols - 1] = lowest + span;
    // Row 8: -inf in every odd column, ordinary values in the others (column 0 is always finite).
    for (int64_t c = 1; c < cols; c += 2) row(8)[c] = -INFINITY;
    return wb::convert_from_float<T>(x);
}

/// The tolerance of README.md, "Tolerances", for one input.
template <typename T>
wb::Tolerance tolerance_for(const std::vector<T>& x, int64_t rows, int64_t cols, double depth, Kind kind)
{
    const double e = ch03::softmax_error_bound(ch03::value_spread(x, rows, cols), depth);
    if (kind == Kind::log_softmax) return {e, 4 * 0x1.0p-24};   // absolute E, plus the final roundings
    if constexpr (std::is_same_v<T, __half>) {
        return {0x1.0p-25, 0x1.0p-11 + e};   // half an fp16 ulp (2^-25 among subnormals) plus the float error
    } else {
        return {0x1.0p-126, e};   // exp(x - max) below 2^-126 may flush to zero
    }
}

/// Names the special row a failure was found in, so that the learner knows which case broke.
std::string describe_row(const wb::CompareReport& report, int64_t cols)
{
    if (report.ok || report.first_bad < 0 || report.untouched > 0) return "";
    const int64_t r = report.first_bad / cols;
    if (r == kLowestRow) {
        return "\n  row " + std::to_string(r) + " is the special row: " + kSpecialRows[r] +
               ". Every value of this row is below a finite start of the maximum such as -1e30 or -3e38, so "
               "every exp(x - max) underflows to 0 and 0 / 0 is NaN: start the maximum at -INFINITY.";
    }
    if (r >= kFirstNegativeRow && r < kSpecial - 1) {
        return "\n  row " + std::to_string(r) + " is the special row: " + kSpecialRows[r] +
               ". Every exp(x) of this row underflows to 0 unless the row maximum is subtracted first, and 0 / 0 "
               "is NaN: start the maximum at -INFINITY (not 0) and subtract it.";
    }
    if (r < kSpecial) return "\n  row " + std::to_string(r) + " is the special row: " + kSpecialRows[r] + ".";
    return "\n  row " + std::to_string(r) + " holds random values in [-8, 8).";
}

/// NaN outputs on a row that holds -inf, or whose values are too close to zero for any exponential to
/// overflow (|x| < 80): the NaN then comes from exp(-inf - (-inf)), the -inf of the input or of the start
/// of a maximum over lanes or pairs that saw no element.
template <typename T>
std::string negative_infinity_nan_hint(const wb::CompareReport& report, const std::vector<T>& x,
                                       const std::vector<double>& expected, int64_t cols)
{
    if (report.ok || report.first_bad < 0 || report.untouched > 0) return "";
    if (!std::isnan(report.got_at_first) || !std::isfinite(expected[static_cast<std::size_t>(report.first_bad)]))
        return "";
    const int64_t r = report.first_bad / cols;
    const auto first = x.begin() + r * cols;
    const bool has_negative_infinity = std::any_of(first, first + cols, [](T v) {
        const float f = static_cast<float>(v);
        return std::isinf(f) && f < 0.0f;
    });
    const bool no_overflow =
        std::all_of(first, first + cols, [](T v) { return std::fabs(static_cast<float>(v)) < 80.0f; });
    if (!has_negative_infinity && !no_overflow) return "";
    return std::string("\n  this row ") +
           (has_negative_infinity ? "holds -inf" : "has no value that exp can overflow on") +
           ": the NaN comes from exp(-inf - (-inf)). A running maximum that is still -inf (nothing but -inf seen "
           "yet, an empty pair in an online merge of lanes that saw no element, or the -inf start of a reduction) "
           "makes m_old - m_new NaN: when the new maximum is -inf, keep the sum at 0 instead of rescaling it.";
}

/// How deep a chain of additions a stage may build: all of a row in one thread for stage 1, a
/// row shared by at least 32 threads for the others.
double depth_of(int stage, int64_t cols)
{
    return stage == 1 ? static_cast<double>(cols) : std::ceil(cols / 32.0) + 16.0;
}

template <typename T>
void check_once(wb::Stage& stage, Launcher<T> launch, int64_t rows, int64_t cols, Kind kind, wb::Rng& rng)
{
    const std::vector<T> x = make_input<T>(rows, cols, kind, rng);
    wb::DeviceBuffer<T> dx(x), dy(x.size());
    dx.protect();
    dy.poison();
    stage.run([&](cudaStream_t s) { launch(dx.data(), dy.data(), rows, cols, s); });
    auto expected = ch03::softmax_reference(x, rows, cols, kind == Kind::log_softmax);
    const wb::Tolerance tolerance = tolerance_for(x, rows, cols, depth_of(stage.info().id, cols), kind);
    // exp (and, for log-softmax, log) is part of the operation: an overflow of exp or a log of 0 can
    // explain non-finite outputs here.
    const std::vector<T> got = dy.download();
    wb::CompareReport report = wb::compare(expected, got, tolerance, wb::Layout::matrix(rows, cols),
                                           wb::Operation::exponential(kind == Kind::log_softmax));
    report.message += describe_row(report, cols) + negative_infinity_nan_hint(report, x, expected, cols);
    const std::string label = std::to_string(rows) + " x " + std::to_string(cols);
    stage.expect(report, label);
    if constexpr (std::is_same_v<T, float>) {
        // Row 0 (one finite value among -inf) has exact outputs in float: exp(0) = 1 and a sum of 1, so
        // 1 (log-softmax: 0) at the finite value and 0 (-inf) elsewhere. A bias within the tolerance
        // above (1 / (sum + 1e-5), say) shows here.
        const std::vector<double> row0(expected.begin(), expected.begin() + cols);
        const std::vector<T> got0(got.begin(), got.begin() + cols);
        wb::CompareReport exact = wb::compare(row0, got0, {0.0, 2 * 0x1.0p-24});
        if (!exact.ok) {
            exact.message +=
                "\n  row 0 holds one finite value, every other value -inf: its outputs are exact in "
                "float (exp(0) = 1, a sum of exactly 1), so they must be 1 (log-softmax: 0) and 0 "
                "(-inf) to within 2 units of 2^-24. A constant added to the sum or the output (an "
                "eps in the denominator) is off here.";
        }
        stage.expect(exact, label + ", row 0 exactly");
    }
}

// ---- past the int range: more than 2^31 elements, checked on windows of rows -----------------------

/// The matrix past the int range: 2^21 + 2^18 + 5 = 2,359,301 rows of 1000 columns, 2.36e9 elements
/// (10% past 2^31; 8.8 GiB per float array). 1000 columns suit every stage (stage 4 holds at most
/// 1024 in a warp's registers) and are no multiple of 32; the odd row count ends no block of rows
/// evenly. Row 2,147,483 holds element 2^31: every row from 2,147,484 on starts past it.
constexpr int64_t kHugeRows = (int64_t(1) << 21) + (int64_t(1) << 18) + 5;
constexpr int64_t kHugeCols = 1000;

/// Where the GPU has the memory (x and y: 33 GiB in float, 17 GiB in fp16): 2^22 + 2^18 + 5 = 4,456,453
/// rows, 4.46e9 elements, 3.8% past 2^32, where an element index computed in unsigned 32-bit arithmetic
/// (blockIdx.x * blockDim.x) wraps. Row 4,294,967 holds element 2^32.
constexpr int64_t kHugerRows = (int64_t(1) << 22) + (int64_t(1) << 18) + 5;

/// Rows per window of the large output that the CPU reference checks.
constexpr int64_t kHugeWindowRows = 4;

/// The case past the int range, on a GPU with the memory for it (x and y: 17.6 GiB in float, 8.8 GiB in
/// fp16): kHugeRows x kHugeCols values uniform in [-8, 8), filled on the GPU; then kHugerRows rows where
/// the GPU has the memory for those. Every smaller case fits in 32-bit indices, so a kernel that forms
/// row * cols in int, keeps its element index in int or converts rows * cols to int passes them all; here
/// that index wraps past 2^31 - 1 (and an unsigned one past 2^32 - 1). The output is checked on windows of
/// kHugeWindowRows rows (the first, the last, 14 spread between and those around the rows whose elements
/// cross 2^31 and 2^32), each against the float64 reference of its own rows.
template <typename T>
void check_huge_once(wb::Stage& stage, Launcher<T> launch, Kind kind, int64_t rows, const std::string& label)
{
    constexpr bool is_half = std::is_same_v<T, __half>;
    const int64_t cols = kHugeCols, n = rows * cols;
    wb::DeviceBuffer<T> x(n), y(n);
    wb::fill_uniform_device(x.data(), n, wb::seed() + 51 + static_cast<std::uint64_t>(kind) + (is_half ? 2 : 0), -8.f,
                            8.f, stage.stream());
    y.poison();
    wb::run_past_int_range(
        stage, [&](cudaStream_t s) { launch(x.data(), y.data(), rows, cols, s); }, label, n > wb::kUintLimit);
    const int64_t width = kHugeWindowRows;
    std::vector<wb::SampledWindow> windows;
    for (int64_t first : wb::row_windows_past_int_range(rows, cols, width)) {
        const std::vector<T> xs = wb::download_part(x.data(), first * cols, width * cols);
        const std::vector<T> ys = wb::download_part(y.data(), first * cols, width * cols);
        const auto expected = ch03::softmax_reference(xs, width, cols, kind == Kind::log_softmax);
        wb::SampledWindow w;
        w.first = first * cols;
        w.count = width * cols;
        w.name = "rows " + std::to_string(first) + " to " + std::to_string(first + width - 1);
        w.report = wb::compare(expected, ys, tolerance_for(xs, width, cols, depth_of(stage.info().id, cols), kind),
                               wb::Layout::matrix(width, cols), wb::Operation::exponential(kind == Kind::log_softmax));
        windows.push_back(std::move(w));
    }
    wb::expect_windows(stage, windows, label);
}

template <typename T>
void check_huge(wb::Stage& stage, Launcher<T> launch, Kind kind)
{
    constexpr bool is_half = std::is_same_v<T, __half>;
    const int64_t cols = kHugeCols;
    auto label_for = [&](int64_t rows) {
        return wb::with_commas(rows) + " x " + std::to_string(cols) + (is_half ? ", fp16" : "") +
               (kind == Kind::log_softmax ? ", log-softmax" : "") +
               (rows == kHugerRows ? " (past the unsigned 32-bit range; checked on rows sampled across it)"
                                   : " (past the int range; checked on rows sampled across it)");
    };
    const int64_t row_counts[] = {kHugeRows, kHugerRows};
    std::vector<wb::LargeSize> sizes;
    for (const int64_t rows : row_counts)
        sizes.push_back({2 * static_cast<std::size_t>(rows * cols) * sizeof(T), label_for(rows)});
    wb::for_each_large_size(
        sizes, [&](std::size_t k) { check_huge_once<T>(stage, launch, kind, row_counts[k], sizes[k].label); });
}

/// Every row length up to @p max_cols, then many rows of a short length (odd and even row counts), then
/// (on a GPU with the memory) the matrix past the int range.
template <typename T>
void check_all(wb::Stage& stage, Launcher<T> launch, int64_t max_cols, Kind kind = Kind::softmax,
               std::vector<int64_t> extra_cols = {})
{
    wb::Rng rng(3 + static_cast<std::uint64_t>(kind));
    std::vector<int64_t> cols_list = kCols;
    cols_list.insert(cols_list.end(), extra_cols.begin(), extra_cols.end());
    for (int64_t cols : cols_list) {
        if (cols > max_cols) continue;
        // A few rows for long rows, more for short ones; total parity alternates with cols.
        int64_t random_rows = std::min<int64_t>(61, std::max<int64_t>(2, 150000 / cols));
        if ((kSpecial + random_rows) % 2 == cols % 2) ++random_rows;
        check_once<T>(stage, launch, kSpecial + random_rows, cols, kind, rng);
    }
    for (int64_t cols : {5, 32, 96}) {
        if (cols <= max_cols) check_once<T>(stage, launch, 4099, cols, kind, rng);
    }
    // More rows than a grid's y (or z) dimension can hold (65535): a launch that maps rows to
    // blockIdx.y is rejected. Three columns keep the emulated run cheap. On a GPU also more rows
    // than 16 per block along y could cover.
    check_once<T>(stage, launch, 70001, 3, kind, rng);
    if (!wb::emulated()) check_once<T>(stage, launch, 1048577, 2, kind, rng);
    if (kHugeCols <= max_cols) check_huge<T>(stage, launch, kind);
}

/// Compares eight windows of 32 rows of a timed output with the reference: the first rows, the last
/// ones and six spread between (timing inputs are too large to check entirely on the CPU).
template <typename T>
void recheck_rows(wb::Stage& stage, const wb::DeviceBuffer<T>& dx, const wb::DeviceBuffer<T>& dy, int64_t rows,
                  int64_t cols, double depth, Kind kind)
{
    const int64_t keep = std::min<int64_t>(32, rows);
    for (int64_t first : wb::spread_windows(rows, keep, 8)) {
        const std::vector<T> xs = wb::download_part(dx.data(), first * cols, keep * cols);
        const std::vector<T> ys = wb::download_part(dy.data(), first * cols, keep * cols);
        const auto expected = ch03::softmax_reference(xs, keep, cols, kind == Kind::log_softmax);
        stage.expect(wb::compare(expected, ys, tolerance_for(xs, keep, cols, depth, kind),
                                 wb::Layout::matrix(keep, cols), wb::Operation::exponential(kind == Kind::log_softmax)),
                     "the timed input after timing, rows " + std::to_string(first) + " to " +
                         std::to_string(first + keep - 1) + " (row numbers below count from " + std::to_string(first) +
                         ")");
    }
}

/// The speed check of a float stage against an earlier reference stage on one shape.
void time_stage(wb::Stage& stage, Launcher<float> candidate, Launcher<float> previous, Launcher<float> current,
                int64_t rows, int64_t cols, const std::string& previous_label = "")
{
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    wb::DeviceBuffer<float> x(rows * cols), y(rows * cols);
    wb::fill_uniform_device(x.data(), rows * cols, wb::seed() + 31 + stage.info().id, -8.f, 8.f, stage.stream());
    auto launch_of = [&](Launcher<float> f) {
        return [&, f](cudaStream_t s) { f(x.data(), y.data(), rows, cols, s); };
    };
    wb::SpeedCase speed;
    speed.description = std::to_string(rows) + " x " + std::to_string(cols) + " floats";
    speed.candidate = launch_of(candidate);
    speed.previous_reference = launch_of(previous);
    speed.current_reference = launch_of(current);
    speed.previous_label = previous_label;
    speed.bytes = 2.0 * rows * cols * sizeof(float);   // x read once, y written once
    speed.recheck = [&] {
        y.poison();
        stage.run(launch_of(candidate));
        recheck_rows(stage, x, y, rows, cols, depth_of(stage.info().id, cols), Kind::softmax);
    };
    stage.check_speed(speed);
}

/// On the CPU emulator, after the correctness checks: the stage's memory counters beside reference
/// stages K - 1 and K on a small matrix of the row length the stage is for (harness/emulated_profile.hpp):
/// how many passes over global memory, how coalesced, how many idle lanes. Advice beside a pass.
void compare_memory(wb::Stage& stage, Launcher<float> candidate, Launcher<float> previous, Launcher<float> current,
                    int64_t rows, int64_t cols)
{
    if (!wb::emulated()) return;
    wb::DeviceBuffer<float> x(rows * cols), y(rows * cols);
    wb::fill_uniform_device(x.data(), rows * cols, wb::seed() + 31, -8.f, 8.f, stage.stream());
    auto launch_of = [&](Launcher<float> f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t s) { f(x.data(), y.data(), rows, cols, s); };
    };
    stage.compare_memory_behaviour({std::to_string(rows) + " x " + std::to_string(cols) + " floats",
                                    launch_of(candidate), launch_of(previous), launch_of(current)});
}

}   // namespace

namespace stages = wb::stages;   // candidate<K>, previous<K>, current<K>: the launchers of stage K

/// Every row length up to 65537, then timed on 65536 x 1024 against reference stages K - 1 and K.
template <int K>
void grade_stage_case(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<K>, 65537);
    compare_memory(stage, stages::counted_candidate<K>, stages::counted_previous<K>, stages::counted_current<K>, 64,
                   1024);
    time_stage(stage, stages::candidate<K>, stages::previous<K>, stages::current<K>, 65536, 1024);
}

/// Stage 1 has no speed target: its bandwidth is reported on the shape stage 2 is timed on.
template <>
void grade_stage_case<1>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<1>, 65537);
    compare_memory(stage, stages::counted_candidate<1>, nullptr, stages::counted_current<1>, 64, 1024);
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    wb::DeviceBuffer<float> x(65536 * 1024), y(65536 * 1024);
    wb::fill_uniform_device(x.data(), 65536 * 1024, wb::seed() + 30, -8.f, 8.f, stage.stream());
    wb::SpeedCase speed;
    speed.description = "65536 x 1024 floats";
    speed.candidate = [&](cudaStream_t s) { stages::candidate<1>(x.data(), y.data(), 65536, 1024, s); };
    speed.current_reference = [&](cudaStream_t s) { stages::current<1>(x.data(), y.data(), 65536, 1024, s); };
    speed.bytes = 2.0 * 65536 * 1024 * sizeof(float);
    speed.recheck = [&] {
        y.poison();
        stage.run(speed.candidate);
        recheck_rows(stage, x, y, 65536, 1024, depth_of(1, 1024), Kind::softmax);
    };
    stage.check_speed(speed);
}

/// Stage 3: a warp per row pays off on short rows: timed on 524288 x 128.
template <>
void grade_stage_case<3>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<3>, 65537);
    compare_memory(stage, stages::counted_candidate<3>, stages::counted_previous<3>, stages::counted_current<3>, 256,
                   128);
    time_stage(stage, stages::candidate<3>, stages::previous<3>, stages::current<3>, 524288, 128);
}

/// Stage 4 keeps a row in registers: rows up to ch03::kWarpRegistersMaxCols only.
template <>
void grade_stage_case<4>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<4>, ch03::kWarpRegistersMaxCols);
    compare_memory(stage, stages::counted_candidate<4>, stages::counted_previous<4>, stages::counted_current<4>, 64,
                   1024);
    time_stage(stage, stages::candidate<4>, stages::previous<4>, stages::current<4>, 65536, 1024);
}

/// Stage 5 (online, one block per row) is timed on long rows against the other block-per-row stage.
template <>
void grade_stage_case<5>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<5>, 65537);
    compare_memory(stage, stages::counted_candidate<5>, stages::counted_current<2>, stages::counted_current<5>, 4,
                   16384);
    time_stage(stage, stages::candidate<5>, stages::current<2>, stages::current<5>, 2048, 32768,
               "reference stage 2 (the other block-per-row stage)");
}

/// Stage 6: the dispatch in float, in half precision and as log-softmax; timed on the narrowest rows.
template <>
void grade_stage_case<6>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<6>, 65537);
    check_all<__half>(stage, candidate::softmax_6_dispatch_half, 131073, Kind::softmax, {131073});
    check_all<float>(stage, candidate::log_softmax_6_dispatch, 65537, Kind::log_softmax);
    compare_memory(stage, stages::counted_candidate<6>, stages::counted_current<4>, stages::counted_current<6>, 1024,
                   32);
    time_stage(stage, stages::candidate<6>, stages::current<4>, stages::current<6>, 2097152, 32,
               "reference stage 4 (whole warps per row)");
}

// `make bench`: the reference stages at the shapes of the OneFlow softmax article, fp32 and fp16.
// tools/torch_baseline.py times PyTorch on the same shapes (tools/workbook.py bench runs both).
TEST_CASE("bench: chapter 3", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    wb::Stream stream;
    const cudaStream_t s = stream.get();
    const std::vector<std::pair<int64_t, int64_t>> shapes = {{49152, 32},   {49152, 128},   {49152, 512},
                                                             {49152, 1024}, {49152, 2048},  {49152, 4096},
                                                             {49152, 8192}, {24576, 16384}, {12288, 32768}};
    const int64_t most = 49152 * 8192;
    wb::DeviceBuffer<float> x(most), y(most);
    wb::DeviceBuffer<__half> hx(most), hy(most);
    wb::fill_uniform_device(x.data(), most, 1, -8.f, 8.f, s);
    wb::fill_uniform_device(hx.data(), most, 2, -8.f, 8.f, s);
    for (const auto& rows_cols : shapes) {
        const int64_t rows = rows_cols.first;
        const int64_t cols = rows_cols.second;
        const std::string shape = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
        auto row = [&](const std::string& op, const std::string& variant, int stage_id, const std::string& dtype,
                       double element_bytes, const wb::Launch& launch) {
            wb::print_bench_row({op, variant, shape, dtype, wb::median_ms(s, launch), 2.0 * rows * cols * element_bytes,
                                 0.0, stage_id});
        };
        auto f32 = [&](Launcher<float> f) {
            return [&, f](cudaStream_t st) { f(x.data(), y.data(), rows, cols, st); };
        };
        const auto softmax = stages::reference_launchers();   // every stage, float32
        for (int id = 1; id <= wb::generated::kStageCount; ++id) {
            if (id == 1 && cols > 1024) continue;                          // too slow on long rows
            if (id == 4 && cols > ch03::kWarpRegistersMaxCols) continue;   // rows in registers only
            row("softmax", wb::stage_label(id), id, "float32", 4, f32(softmax[id - 1]));
        }
        row("softmax", wb::stage_label(6) + " (fp16)", 6, "float16", 2,
            [&](cudaStream_t st) { reference::softmax_6_dispatch_half(hx.data(), hy.data(), rows, cols, st); });
        row("log_softmax", wb::stage_label(6), 6, "float32", 4, f32(reference::log_softmax_6_dispatch));
    }
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
