// Chapter 4 grader: every stage against a float64 CPU reference on adversarial rows, then timed
// against the reference stages in the same run. See harness/stage.hpp for the rules.
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "04_layernorm/grader/reference.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/past_int_range.hpp"
#include "harness/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>

namespace {

using std::int64_t;

template <typename T>
using Launcher = void (*)(const T*, const T*, const T*, T*, float*, float*, int64_t, int64_t, float, cudaStream_t);

/// eps of the timed runs (any value works there; the correctness cases draw theirs from kEpsChoices).
constexpr float kEps = 1e-5f;

/// The eps values the correctness cases draw from, one per case: a kernel that ignores its eps
/// argument (1e-5f written into the kernel) fails as soon as a case draws another one. On ordinary
/// rows (variance 0.08 to 1.3) eps = 1e-3 already moves rstd by far more than the tolerance.
constexpr float kEpsChoices[] = {1e-5f, 1e-3f, 0.1f, 1.0f};

/// The eps values a kernel may have written in instead of using its argument, for the diagnosis.
constexpr float kHardCodedEps[] = {1e-5f, 1e-6f};

/// Row lengths every stage must get right: tiny ones (narrow thread groups), around the warp size
/// and the vector widths, around 1024 and 2048 (the register paths' limits), powers of two and
/// their neighbours up to 32768, and past the shared memory of any GPU (65537 floats are 256 KB).
const std::vector<int64_t> kCols = {1,    2,    3,    4,     5,     7,     8,     9,     16,   17,   31,   32,
                                    33,   63,   64,   65,    100,   127,   128,   129,   255,  256,  257,  500,
                                    513,  768,  1000, 1023,  1024,  1025,  1536,  2047,  2048, 2049, 3001, 4096,
                                    4099, 8191, 8192, 12289, 16384, 16387, 32768, 32771, 65537};

/// Row lengths of the special inputs.
const std::vector<int64_t> kSpecialCols = {1, 33, 1000, 4099, 32771};

/// The inputs of one test.
template <typename T>
struct Input {
    std::vector<T> x, gamma, beta;
};

/// The special inputs: what each row holds, per element type (fp16 cannot hold 1e12).
enum class Special { ill_conditioned, constant, huge, tiny };

template <typename T>
std::string describe(Special kind)
{
    constexpr bool is_half = std::is_same_v<T, __half>;
    switch (kind) {
        case Special::ill_conditioned:
            return is_half ? "values near 1000 with a spread of 8" : "values near 1e4 with a spread of 1";
        case Special::constant: return "every value of a row equal (variance 0)";
        case Special::huge: return is_half ? "values up to +-3e4" : "values up to +-1e12";
        case Special::tiny:
            return is_half ? "values up to +-1e-3 (variance far below eps)"
                           : "values up to +-1e-12 (variance far below eps)";
    }
    return "";
}

template <typename T>
Input<T> make_input(int64_t rows, int64_t cols, wb::Rng& rng, const Special* special = nullptr)
{
    constexpr bool is_half = std::is_same_v<T, __half>;
    std::vector<float> x(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
        float* xr = x.data() + r * cols;
        if (!special) {   // ordinary rows: a random offset and scale per row (mean^2 < 13 var)
            const float offset = rng.uniform(-1.f, 1.f);
            const float scale = rng.uniform(0.5f, 2.f);
            for (int64_t c = 0; c < cols; ++c) xr[c] = offset + scale * rng.uniform(-1.f, 1.f);
            continue;
        }
        switch (*special) {
            case Special::ill_conditioned:
                for (int64_t c = 0; c < cols; ++c)
                    xr[c] = is_half ? 1000.f + rng.uniform(-8.f, 8.f) : 1e4f + rng.uniform(-1.f, 1.f);
                break;
            case Special::constant: std::fill(xr, xr + cols, rng.uniform(-9.f, 9.f)); break;
            case Special::huge:
                for (int64_t c = 0; c < cols; ++c) xr[c] = rng.uniform(-1.f, 1.f) * (is_half ? 3e4f : 1e12f);
                break;
            case Special::tiny:
                for (int64_t c = 0; c < cols; ++c) xr[c] = rng.uniform(-1.f, 1.f) * (is_half ? 1e-3f : 1e-12f);
                break;
        }
    }
    Input<T> in;
    in.x = wb::convert_from_float<T>(x);
    in.gamma = wb::convert_from_float<T>(wb::uniform_floats(cols, -2.f, 2.f, rng));
    in.beta = wb::convert_from_float<T>(wb::uniform_floats(cols, -1.f, 1.f, rng));
    return in;
}

/// The longest chain of float additions a stage may use per row. Stage 1 may give a row to one
/// thread (the first LayerNorm most people write: two loops over the row, in float): cols additions.
/// From stage 2 on every row is shared by at least 32 threads: cols / 32 + 16.
double depth_of(int stage, int64_t cols)
{
    return stage == 1 ? static_cast<double>(cols) : std::ceil(cols / 32.0) + 16.0;
}

std::string eps_label(float eps)
{
    char text[32];
    std::snprintf(text, sizeof text, "eps = %g", static_cast<double>(eps));
    return text;
}

/// The y tolerance: the float bound, plus half an ulp of T when y is rounded to half or bfloat16.
template <typename T>
wb::Tolerance y_tolerance(const ch04::LayerNormReference& ref)
{
    if constexpr (std::is_same_v<T, __half>) return {ref.y_abs + 0x1.0p-25, 0x1.0p-11};
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return {ref.y_abs + 0x1.0p-134, 0x1.0p-8};
    return {ref.y_abs, 0.0};
}

/// The outputs of one launch, compared with the reference.
struct Outcome {
    wb::CompareReport y, mean, rstd;
    std::vector<float> rstd_got;    ///< for variance_formula_hint
    std::vector<double> var;        ///< the population variance of each row
    std::vector<double> row_mean;   ///< the mean of each row
    double rstd_rel = 0.0;          ///< the rstd tolerance (relative)
    int64_t cols = 0;
    float eps = 0.0f;             ///< the eps of this case
    bool naive_reliable = true;   ///< would E[x^2] - E[x]^2 be within the tolerance on this input?
    std::vector<double> kappa;    ///< per row: (mean^2 + var + eps) / (var + eps), what cancellation scales with
    std::string fixed_eps;        ///< when wrong but right for a fixed eps: the message saying so
    bool ok() const { return y.ok && mean.ok && rstd.ok; }
};

/// Whether the naive variance E[x^2] - E[x]^2 is held to the tolerance on these rows. Its two sums
/// err by about (depth + 4) u (mean^2 + var) each, so rstd errs by about (depth + 4) u times
/// kappa = (mean^2 + var) / (var + eps) relatively. Stage 2 is graded on inputs whose rows all have
/// kappa <= 16 (the spread not small next to the mean); rows of one value, constant rows and values
/// near 1e4 with a spread of 1 (kappa up to 1e8) are what stage 2 demonstrates instead.
std::vector<double> row_kappas(const ch04::LayerNormReference& ref)
{
    std::vector<double> kappa(ref.mean.size());
    for (std::size_t r = 0; r < ref.mean.size(); ++r) {
        const double var_eps = 1.0 / (ref.rstd[r] * ref.rstd[r]);   // var + eps
        kappa[r] = (ref.mean[r] * ref.mean[r] + var_eps) / var_eps;
    }
    return kappa;
}

constexpr double kKappaLimit = 16.0;   ///< rows above it may cancel in E[x^2] - E[x]^2

bool naive_variance_reliable(const ch04::LayerNormReference& ref)
{
    const std::vector<double> kappa = row_kappas(ref);
    return std::all_of(kappa.begin(), kappa.end(), [](double k) { return k <= kKappaLimit; });
}

/// Rows whose rstd is wrong in a way cancellation cannot explain: their values are not large next to
/// their spread (kappa <= 16), or the variance behind their rstd (1 / rstd^2 - eps) is off by more than
/// E[x^2] - E[x]^2 can lose, about (cols + 4) u (mean^2 + var), with a factor 8 to spare. A row of one
/// value (kappa infinite) whose variance came out 12 instead of 0 is a wrong formula, not rounding.
std::int64_t rows_cancellation_cannot_explain(const std::vector<double>& var, const std::vector<double>& mean,
                                              const std::vector<float>& rstd_got, const std::vector<double>& kappa,
                                              double eps, double rstd_rel, int64_t cols)
{
    std::int64_t count = 0;
    for (std::size_t r = 0; r < var.size(); ++r) {
        const bool right = ch04::matches_within(1.0 / std::sqrt(var[r] + eps), rstd_got[r], rstd_rel);
        if (right) continue;
        const double got = rstd_got[r];
        const double var_got = 1.0 / (got * got) - eps;
        const double loss_bound = 8.0 * (static_cast<double>(cols) + 4.0) * 0x1.0p-24 * (mean[r] * mean[r] + var[r]);
        const bool beyond_rounding = std::isfinite(got) && got > 0.0 && std::fabs(var_got - var[r]) > loss_bound;
        count += kappa[r] <= kKappaLimit || beyond_rounding;
    }
    return count;
}

/// The outputs of one launch as downloaded.
template <typename T>
struct Outputs {
    std::vector<T> y;
    std::vector<float> mean, rstd;
};

/// Compares downloaded outputs with the float64 reference for @p eps.
template <typename T>
Outcome judge_outputs(const Input<T>& in, const Outputs<T>& got, int64_t rows, int64_t cols, float eps, double depth)
{
    const auto ref = ch04::layernorm_reference(in.x, in.gamma, in.beta, rows, cols, eps, depth);
    Outcome out;
    out.y = wb::compare(ref.y, got.y, y_tolerance<T>(ref), wb::Layout::matrix(rows, cols));
    out.mean = wb::compare(ref.mean, got.mean, {ref.mean_abs, 0.0});
    out.rstd = wb::compare(ref.rstd, got.rstd, {0.0, ref.rstd_rel});
    out.rstd_got = got.rstd;
    out.var = ref.var;
    out.row_mean = ref.mean;
    out.rstd_rel = ref.rstd_rel;
    out.cols = cols;
    out.eps = eps;
    out.naive_reliable = naive_variance_reliable(ref);
    out.kappa = row_kappas(ref);
    return out;
}

/// A wrong output that is right for another, fixed eps: the kernel ignored its eps argument.
template <typename T>
std::string diagnose_fixed_eps(const Input<T>& in, const Outputs<T>& got, int64_t rows, int64_t cols, float eps,
                               double depth, const std::string& label)
{
    for (float fixed : kHardCodedEps) {
        if (fixed == eps) continue;
        if (!judge_outputs(in, got, rows, cols, fixed, depth).ok()) continue;
        return "wrong result for " + label + ": rstd and y are those of " + eps_label(fixed) + ", not of the " +
               eps_label(eps) +
               " the launcher was given.\n  likely cause: eps is written into the kernel instead "
               "of taken from the eps argument (the grader draws eps per case: 1e-5, 1e-3, 0.1, 1).";
    }
    return "";
}

template <typename T>
Outcome run_once(wb::Stage& stage, Launcher<T> launch, const Input<T>& in, int64_t rows, int64_t cols, float eps,
                 const std::string& label)
{
    wb::DeviceBuffer<T> dx(in.x), dg(in.gamma), db(in.beta), dy(in.x.size());
    dx.protect(), dg.protect(), db.protect();
    wb::DeviceBuffer<float> dmean(rows), drstd(rows);
    dy.poison();
    dmean.poison();
    drstd.poison();
    stage.run([&](cudaStream_t s) {
        launch(dx.data(), dg.data(), db.data(), dy.data(), dmean.data(), drstd.data(), rows, cols, eps, s);
    });
    const Outputs<T> got{dy.download(), dmean.download(), drstd.download()};
    const double depth = depth_of(stage.info().id, cols);
    Outcome out = judge_outputs(in, got, rows, cols, eps, depth);
    if (!out.ok() && out.mean.ok) out.fixed_eps = diagnose_fixed_eps(in, got, rows, cols, eps, depth, label);
    return out;
}

/// Passes, or ends the stage with the first wrong output named.
void expect(wb::Stage& stage, const Outcome& out, const std::string& label)
{
    // A known wrong variance formula comes first: on rows of one value (variance 0) eps outside the
    // square root, 1 / (0 + eps), also looks like a fixed eps of eps^2.
    const bool variance_wrong = !out.rstd.ok && out.mean.ok && out.rstd.untouched == 0;
    const std::string formula =
        variance_wrong ? ch04::variance_formula_hint(out.var, out.rstd_got, out.cols, out.eps, out.rstd_rel) : "";
    if (!out.fixed_eps.empty() && formula.empty()) throw wb::StageFailure{wb::Status::wrong, out.fixed_eps};
    for (const auto* stat : {&out.mean, &out.rstd}) {   // y written, a statistic not: say so plainly
        if (stat->nothing_written && !out.y.nothing_written) {
            throw wb::StageFailure{wb::Status::wrong,
                                   "wrong result for " + label + ": " + (stat == &out.mean ? "mean" : "rstd") +
                                       " was never written (every row still holds the poison), although y was. "
                                       "Write mean[row] and rstd[row] once per row (one lane or thread of its group)."};
        }
    }
    if (variance_wrong) {
        // The mean is right and the variance is not: the y values of a row are then all off by the
        // same factor, which the generic diagnosis would call a scale factor. Name the real cause: a
        // known wrong formula if the values follow one, else cancellation.
        // Cancellation explains a wrong variance only on rows whose values are large next to their spread;
        // where a wrong row is not such a row, name the direction of the error and the formulas to check.
        const bool too_large = out.rstd.got_at_first < out.rstd.expected_at_first;   // rstd too small
        const bool cancellation_cannot_explain =
            rows_cancellation_cannot_explain(out.var, out.row_mean, out.rstd_got, out.kappa, out.eps, out.rstd_rel,
                                             out.cols) > 0;
        const std::string cause =
            !formula.empty() ? formula
            : !cancellation_cannot_explain
                ? "E[x^2] - E[x]^2 cancels when the values are large next to their spread (its two "
                  "terms agree in most of their digits); use Welford's update or a second pass over "
                  "(x - mean)."
                : std::string("the variance is too ") + (too_large ? "large" : "small") +
                      " on rows where no cancellation can explain it (their spread is not small next to their "
                      "mean, or the error is beyond what rounding can lose).\n  check: the sum of (x - mean)^2 over "
                      "the row's real values only (padding or "
                      "out-of-row lanes add mean^2 each), divided by n; in a merge of partial (count, mean, M2) "
                      "states, M2 = M2a + M2b + delta^2 na nb / n (dropping the last term makes it too small).";
        // The generic cause (a scale factor, a NaN) would contradict this one: keep what and where only.
        const std::string what = out.rstd.message.substr(0, out.rstd.message.find("\n  likely cause: "));
        throw wb::StageFailure{wb::Status::wrong,
                               "wrong result for " + label + ": rstd (index = row): " + what +
                                   "\n  likely cause: the mean is right but the variance is not: " + cause};
    }
    if (!out.y.ok) stage.expect(out.y, label + ": y");
    if (!out.mean.ok) stage.expect(out.mean, label + ": mean (index = row)");
    if (!out.rstd.ok) stage.expect(out.rstd, label + ": rstd (index = row)");
    stage.expect(out.y, label);
}

/// Stage 2 only: an input on which the naive variance cancels is shown, not required.
void show_cancellation(const Outcome& out, const std::string& label)
{
    if (out.ok()) {
        std::printf("  ok    %s (your variance survives it)\n", label.c_str());
        return;
    }
    std::printf("  note  %s: your output is off (not counted against this stage).\n", label.c_str());
    if (!out.rstd.ok) {
        std::printf(
            "        rstd of row %lld: yours %s, exact %s. E[x^2] - E[x]^2 subtracts two nearly equal numbers\n"
            "        (the values are large next to their spread): their rounding errors are all that is left of\n"
            "        the variance. This is cancellation; stage 3 fixes it.\n",
            static_cast<long long>(out.rstd.first_bad), wb::format_number(out.rstd.got_at_first).c_str(),
            wb::format_number(out.rstd.expected_at_first).c_str());
    } else {
        std::printf("        %s\n", out.y.message.substr(0, out.y.message.find('\n')).c_str());
    }
}

/// Stage 2 is held to the inputs its formula can handle (naive_variance_reliable); on the others
/// its result is shown. Every other stage must be right on everything.
void judge(wb::Stage& stage, const Outcome& out, const std::string& label)
{
    if (stage.info().id == 2 && !out.naive_reliable) {
        // Exempt from the variance, not from the rest: every output written, and the mean right.
        if (out.y.untouched > 0) stage.expect(out.y, label + ": y");
        if (!out.mean.ok) stage.expect(out.mean, label + ": mean (index = row)");
        if (out.rstd.untouched > 0) stage.expect(out.rstd, label + ": rstd (index = row)");
        show_cancellation(out, label);
    } else {
        expect(stage, out, label);
    }
}

// ---- past the int range: more than 2^31 elements, checked on windows of rows -----------------------

/// The matrix past the int range: 2^21 + 2^18 + 5 = 2,359,301 rows of 1000 columns, 2.36e9 elements
/// (10% past 2^31; 8.8 GiB per float array). 1000 columns suit every stage (stage 4 holds at most
/// 1024 in a warp's registers) and are no multiple of 32; the odd row count ends no block of rows
/// evenly. Row 2,147,483 holds element 2^31: every row from 2,147,484 on starts past it.
constexpr int64_t kHugeRows = (int64_t(1) << 21) + (int64_t(1) << 18) + 5;
constexpr int64_t kHugeCols = 1000;

/// Where the GPU has the memory (x and y: 33 GiB in float, 17 GiB in fp16 and bf16): 2^22 + 2^18 + 5 =
/// 4,456,453 rows, 4.46e9 elements, 3.8% past 2^32, where an element index computed in unsigned 32-bit
/// arithmetic (blockIdx.x * blockDim.x) wraps. Row 4,294,967 holds element 2^32.
constexpr int64_t kHugerRows = (int64_t(1) << 22) + (int64_t(1) << 18) + 5;

/// Rows per window of the large output that the CPU reference checks.
constexpr int64_t kHugeWindowRows = 4;

/// Windows of one output of the large case, by the row windows they belong to.
struct HugeWindows {
    std::vector<wb::SampledWindow> y, mean, rstd;
};

/// The case past the int range, on a GPU with the memory for it (x and y: 17.6 GiB in float, 8.8 GiB in
/// fp16 and bf16; gamma, beta, mean and rstd: 18 MiB): kHugeRows x kHugeCols values uniform in [-4, 4)
/// (gamma in [-2, 2), beta in [-1, 1)), filled on the GPU, eps = kEps; then kHugerRows rows where the GPU
/// has the memory for those. Every smaller case fits in 32-bit indices, so a kernel that forms row * cols
/// in int, keeps its element index in int or converts rows * cols to int passes them all; here that
/// index wraps past 2^31 - 1 (and an unsigned one past 2^32 - 1). y, then mean and rstd, are checked on
/// the same windows of kHugeWindowRows rows (the first, the last, 14 spread between and those around the
/// rows whose elements cross 2^31 and 2^32), each against the float64 reference of its own rows.
template <typename T>
void check_huge_once(wb::Stage& stage, Launcher<T> launch, int64_t rows, const std::string& label)
{
    const int64_t cols = kHugeCols, n = rows * cols;
    wb::DeviceBuffer<T> x(n), y(n), gamma(cols), beta(cols);
    wb::DeviceBuffer<float> mean(rows), rstd(rows);
    const std::uint64_t seed = wb::seed() + 61 + 3 * sizeof(T);
    wb::fill_uniform_device(x.data(), n, seed, -4.f, 4.f, stage.stream());
    wb::fill_uniform_device(gamma.data(), cols, seed + 1, -2.f, 2.f, stage.stream());
    wb::fill_uniform_device(beta.data(), cols, seed + 2, -1.f, 1.f, stage.stream());
    y.poison();
    mean.poison();
    rstd.poison();
    wb::run_past_int_range(
        stage,
        [&](cudaStream_t s) {
            launch(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), rows, cols, kEps, s);
        },
        label, n > wb::kUintLimit);
    const std::vector<T> g = gamma.download(), b = beta.download();
    const int64_t width = kHugeWindowRows;
    HugeWindows windows;
    for (int64_t first : wb::row_windows_past_int_range(rows, cols, width)) {
        const std::vector<T> xs = wb::download_part(x.data(), first * cols, width * cols);
        const auto ref = ch04::layernorm_reference(xs, g, b, width, cols, kEps, depth_of(stage.info().id, cols));
        wb::SampledWindow w;
        w.name = "rows " + std::to_string(first) + " to " + std::to_string(first + width - 1);
        w.first = first * cols;   // y: elements
        w.count = width * cols;
        w.report = wb::compare(ref.y, wb::download_part(y.data(), first * cols, width * cols), y_tolerance<T>(ref),
                               wb::Layout::matrix(width, cols));
        windows.y.push_back(w);
        w.first = first;   // mean and rstd: one element per row
        w.count = width;
        w.report = wb::compare(ref.mean, wb::download_part(mean.data(), first, width), {ref.mean_abs, 0.0});
        windows.mean.push_back(w);
        w.report = wb::compare(ref.rstd, wb::download_part(rstd.data(), first, width), {0.0, ref.rstd_rel});
        windows.rstd.push_back(w);
    }
    wb::expect_windows(stage, windows.y, label + ": y");
    wb::expect_windows(stage, windows.mean, label + ": mean (index = row)");
    wb::expect_windows(stage, windows.rstd, label + ": rstd (index = row)");
}

template <typename T>
void check_huge(wb::Stage& stage, Launcher<T> launch)
{
    const int64_t cols = kHugeCols;
    const char* type = std::is_same_v<T, __half> ? ", fp16" : std::is_same_v<T, __nv_bfloat16> ? ", bf16" : "";
    auto label_for = [&](int64_t rows) {
        return wb::with_commas(rows) + " x " + std::to_string(cols) + type + ", " + eps_label(kEps) +
               (rows == kHugerRows ? " (past the unsigned 32-bit range; checked on rows sampled across it)"
                                   : " (past the int range; checked on rows sampled across it)");
    };
    auto bytes_for = [&](int64_t rows) {
        return (2 * static_cast<std::size_t>(rows * cols) + 2 * static_cast<std::size_t>(cols)) * sizeof(T) +
               2 * static_cast<std::size_t>(rows) * sizeof(float);
    };
    const int64_t row_counts[] = {kHugeRows, kHugerRows};
    std::vector<wb::LargeSize> sizes;
    for (const int64_t rows : row_counts) sizes.push_back({bytes_for(rows), label_for(rows)});
    wb::for_each_large_size(sizes,
                            [&](std::size_t k) { check_huge_once<T>(stage, launch, row_counts[k], sizes[k].label); });
}

/// Every row length up to @p max_cols, many short rows, more rows than gridDim.y holds, the special
/// inputs, then (on a GPU with the memory) the matrix past the int range.
template <typename T>
void check_all(wb::Stage& stage, Launcher<T> launch, int64_t max_cols, std::vector<int64_t> extra_cols = {})
{
    wb::Rng rng(4 + sizeof(T));
    auto draw_eps = [&] { return kEpsChoices[rng.integer(0, static_cast<int>(std::size(kEpsChoices)) - 1)]; };
    auto check = [&](const Input<T>& in, int64_t rows, int64_t cols, const std::string& shape) {
        const float eps = draw_eps();
        const std::string label = shape + ", " + eps_label(eps);
        judge(stage, run_once<T>(stage, launch, in, rows, cols, eps, label), label);
    };
    std::vector<int64_t> cols_list = kCols;
    cols_list.insert(cols_list.end(), extra_cols.begin(), extra_cols.end());
    for (int64_t cols : cols_list) {
        if (cols > max_cols) continue;
        int64_t rows = std::min<int64_t>(61, std::max<int64_t>(2, 150000 / cols));
        if (rows % 2 == cols % 2) ++rows;   // odd and even row counts alternate
        const Input<T> in = make_input<T>(rows, cols, rng);
        check(in, rows, cols, std::to_string(rows) + " x " + std::to_string(cols));
    }
    for (int64_t cols : {5, 32, 96}) {   // many short rows: the narrow-group paths and odd row counts
        if (cols > max_cols) continue;
        const Input<T> in = make_input<T>(4099, cols, rng);
        check(in, 4099, cols, "4099 x " + std::to_string(cols));
    }
    // More rows than a grid's y (or z) dimension can hold (65535): a launch that maps rows to
    // blockIdx.y is rejected. Three columns keep the emulated run cheap. On a GPU also more rows
    // than 16 per block along y could cover.
    check(make_input<T>(70001, 3, rng), 70001, 3, "70001 x 3 (more than 65535 rows)");
    if (!wb::emulated()) check(make_input<T>(1048577, 2, rng), 1048577, 2, "1048577 x 2 (more than 16 x 65535 rows)");
    for (Special kind : {Special::ill_conditioned, Special::constant, Special::huge, Special::tiny}) {
        for (int64_t cols : kSpecialCols) {
            if (cols > max_cols) continue;
            const int64_t rows = 9;
            const Input<T> in = make_input<T>(rows, cols, rng, &kind);
            check(in, rows, cols, "9 x " + std::to_string(cols) + ", " + describe<T>(kind));
        }
    }
    if (kHugeCols <= max_cols) check_huge<T>(stage, launch);
}

/// The longest row a one-block-per-row shared-memory stage can cache on this GPU (floats).
int64_t smem_max_cols() { return static_cast<int64_t>(wb::device_info().shared_per_block_optin / sizeof(float)) - 64; }

/// Checks eight windows of 32 rows of a timed output: the first rows, the last ones and six spread
/// between (timing inputs are too large for the CPU).
void recheck_rows(wb::Stage& stage, const wb::DeviceBuffer<float>& dx, const wb::DeviceBuffer<float>& dg,
                  const wb::DeviceBuffer<float>& db, const wb::DeviceBuffer<float>& dy, int64_t rows, int64_t cols)
{
    const std::vector<float> gamma = dg.download(), beta = db.download();
    const int64_t keep = std::min<int64_t>(32, rows);
    for (int64_t first : wb::spread_windows(rows, keep, 8)) {
        const std::vector<float> xs = wb::download_part(dx.data(), first * cols, keep * cols);
        const std::vector<float> ys = wb::download_part(dy.data(), first * cols, keep * cols);
        const auto ref = ch04::layernorm_reference(xs, gamma, beta, keep, cols, kEps, depth_of(stage.info().id, cols));
        stage.expect(wb::compare(ref.y, ys, y_tolerance<float>(ref), wb::Layout::matrix(keep, cols)),
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
    wb::DeviceBuffer<float> x(rows * cols), y(rows * cols), gamma(cols), beta(cols), mean(rows), rstd(rows);
    const std::uint64_t seed = wb::seed() + 41 + stage.info().id;
    wb::fill_uniform_device(x.data(), rows * cols, seed, -4.f, 4.f, stage.stream());
    wb::fill_uniform_device(gamma.data(), cols, seed + 1, -2.f, 2.f, stage.stream());
    wb::fill_uniform_device(beta.data(), cols, seed + 2, -1.f, 1.f, stage.stream());
    auto launch_of = [&](Launcher<float> f) {
        return [&, f](cudaStream_t s) {
            f(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), rows, cols, kEps, s);
        };
    };
    wb::SpeedCase speed;
    speed.description = std::to_string(rows) + " x " + std::to_string(cols) + " floats";
    speed.candidate = launch_of(candidate);
    if (previous) speed.previous_reference = launch_of(previous);
    speed.current_reference = launch_of(current);
    speed.previous_label = previous_label;
    speed.bytes = 2.0 * rows * cols * sizeof(float);   // x read once, y written once
    speed.recheck = [&] {
        y.poison();
        stage.run(launch_of(candidate));
        recheck_rows(stage, x, gamma, beta, y, rows, cols);
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
    wb::DeviceBuffer<float> x(rows * cols), y(rows * cols), gamma(cols), beta(cols), mean(rows), rstd(rows);
    wb::fill_uniform_device(x.data(), rows * cols, wb::seed() + 41, -4.f, 4.f, stage.stream());
    wb::fill_uniform_device(gamma.data(), cols, wb::seed() + 42, -2.f, 2.f, stage.stream());
    wb::fill_uniform_device(beta.data(), cols, wb::seed() + 43, -1.f, 1.f, stage.stream());
    auto launch_of = [&](Launcher<float> f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t s) {
            f(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), rows, cols, kEps, s);
        };
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

/// Stage 3 is timed against stage 1: stage 2, faster, is wrong on some inputs (the naive variance).
template <>
void grade_stage_case<3>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<3>, 65537);
    compare_memory(stage, stages::counted_candidate<3>, stages::counted_current<1>, stages::counted_current<3>, 64,
                   1024);
    time_stage(stage, stages::candidate<3>, stages::current<1>, stages::current<3>, 65536, 1024,
               "reference stage 1 (the last stage right on every input)");
}

/// Stage 4 keeps a row in registers: rows up to ch04::kWarpRegistersMaxCols only.
template <>
void grade_stage_case<4>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<4>, ch04::kWarpRegistersMaxCols);
    compare_memory(stage, stages::counted_candidate<4>, stages::counted_previous<4>, stages::counted_current<4>, 64,
                   1024);
    time_stage(stage, stages::candidate<4>, stages::previous<4>, stages::current<4>, 65536, 1024);
}

/// Stage 5 keeps a row in shared memory: rows that fit; timed on long rows against stage 3.
template <>
void grade_stage_case<5>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<5>, std::min<int64_t>(smem_max_cols(), 32771));
    compare_memory(stage, stages::counted_candidate<5>, stages::counted_current<3>, stages::counted_current<5>, 4,
                   8192);
    time_stage(stage, stages::candidate<5>, stages::current<3>, stages::current<5>, 8192, 8192,
               "reference stage 3 (one warp per row)");
}

/// Stage 6: the dispatch in float, fp16 and bf16; timed on the narrowest rows against stage 4.
template <>
void grade_stage_case<6>(wb::Stage& stage)
{
    check_all<float>(stage, stages::candidate<6>, 65537);
    check_all<__half>(stage, candidate::layernorm_6_dispatch_half, 131073, {131073});
    check_all<__nv_bfloat16>(stage, candidate::layernorm_6_dispatch_bf16, 131073, {131073});
    compare_memory(stage, stages::counted_candidate<6>, stages::counted_current<4>, stages::counted_current<6>, 1024,
                   32);
    time_stage(stage, stages::candidate<6>, stages::current<4>, stages::current<6>, 2097152, 32,
               "reference stage 4 (whole warps per row)");
}

// `make bench`: the reference stages at the shapes of the OneFlow softmax article, fp32, fp16, bf16.
// tools/torch_baseline.py times PyTorch on the same shapes (tools/workbook.py bench runs both).
TEST_CASE("bench: chapter 4", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    wb::Stream stream;
    const cudaStream_t s = stream.get();
    const std::vector<std::pair<int64_t, int64_t>> shapes = {{49152, 32},   {49152, 128},   {49152, 512},
                                                             {49152, 1024}, {49152, 2048},  {49152, 4096},
                                                             {49152, 8192}, {24576, 16384}, {12288, 32768}};
    const int64_t most = 49152 * 8192;
    const int64_t widest = 32768;
    wb::DeviceBuffer<float> x(most), y(most), gamma(widest), beta(widest), mean(49152), rstd(49152);
    wb::DeviceBuffer<__half> hx(most), hy(most), hgamma(widest), hbeta(widest);
    wb::DeviceBuffer<__nv_bfloat16> bx(most), by(most), bgamma(widest), bbeta(widest);
    wb::fill_uniform_device(x.data(), most, 1, -4.f, 4.f, s);
    wb::fill_uniform_device(hx.data(), most, 2, -4.f, 4.f, s);
    wb::fill_uniform_device(bx.data(), most, 3, -4.f, 4.f, s);
    wb::fill_uniform_device(gamma.data(), widest, 4, -2.f, 2.f, s);
    wb::fill_uniform_device(hgamma.data(), widest, 4, -2.f, 2.f, s);
    wb::fill_uniform_device(bgamma.data(), widest, 4, -2.f, 2.f, s);
    wb::fill_uniform_device(beta.data(), widest, 5, -1.f, 1.f, s);
    wb::fill_uniform_device(hbeta.data(), widest, 5, -1.f, 1.f, s);
    wb::fill_uniform_device(bbeta.data(), widest, 5, -1.f, 1.f, s);
    for (const auto& rows_cols : shapes) {
        const int64_t rows = rows_cols.first;
        const int64_t cols = rows_cols.second;
        const std::string shape = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
        auto row = [&](const std::string& variant, int stage_id, const std::string& dtype, double element_bytes,
                       const wb::Launch& launch) {
            wb::print_bench_row({"layernorm", variant, shape, dtype, wb::median_ms(s, launch),
                                 2.0 * rows * cols * element_bytes, 0.0, stage_id});
        };
        auto f32 = [&](Launcher<float> f) {
            return [&, f](cudaStream_t st) {
                f(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), rows, cols, kEps, st);
            };
        };
        const auto layernorm = stages::reference_launchers();   // every stage, float32
        for (int id = 1; id <= wb::generated::kStageCount; ++id) {
            if (id == 4 && cols > ch04::kWarpRegistersMaxCols) continue;   // rows in registers only
            if (id == 5 && cols > smem_max_cols()) continue;               // rows in shared memory only
            row(wb::stage_label(id), id, "float32", 4, f32(layernorm[id - 1]));
        }
        row(wb::stage_label(6) + " (fp16)", 6, "float16", 2, [&](cudaStream_t st) {
            reference::layernorm_6_dispatch_half(hx.data(), hgamma.data(), hbeta.data(), hy.data(), mean.data(),
                                                 rstd.data(), rows, cols, kEps, st);
        });
        row(wb::stage_label(6) + " (bf16)", 6, "bfloat16", 2, [&](cudaStream_t st) {
            reference::layernorm_6_dispatch_bf16(bx.data(), bgamma.data(), bbeta.data(), by.data(), mean.data(),
                                                 rstd.data(), rows, cols, kEps, st);
        });
    }
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
