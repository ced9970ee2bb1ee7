// Chapter 7 grader: every stage on small and odd shapes against a float64 CPU reference, on large
// shapes against cuBLAS (TF32 off), then timed against the reference stages in the same run. See
// harness/stage.hpp for the rules and chapters/07_sgemm/grader/reference.hpp for the tolerances.
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "07_sgemm/grader/baselines.hpp"
#include "07_sgemm/grader/reference.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/gemm_diagnosis.hpp"
#include "harness/output_contract.hpp"
#include "harness/past_int_range.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

using Sgemm = void (*)(int, int, int, float, const float*, const float*, float, float*, cudaStream_t);

/// One graded problem: C (M x N) = alpha * A (M x K) * B (K x N) + beta * C.
struct Case {
    int M, N, K;
    float alpha, beta;
};

std::string describe(const Case& c)
{
    char text[160];
    std::snprintf(text, sizeof text, "M x N x K = %d x %d x %d, alpha = %g, beta = %g%s", c.M, c.N, c.K, c.alpha,
                  c.beta, c.beta == 0.0f ? " (C holds NaN: it must not be read)" : "");
    return text;
}

/// Checked against the float64 CPU reference. The first case has beta = 0 and a NaN-filled C, so an
/// untouched skeleton leaves every element unwritten and reports "not implemented yet".
const Case kSmallCases[] = {
    {17, 33, 65, 1.25f, 0.0f},   // none of the sizes is a multiple of anything
    {1, 1, 1, 1.5f, -0.75f},     // the smallest problem
    {1, 1, 1, 2.0f, 0.0f},
    {17, 33, 65, 1.5f, -0.75f},
    {2, 3, 4, -1.0f, 1.0f},
    {31, 32, 33, 0.5f, 2.0f},   // around a warp
    {33, 31, 7, 1.0f, 0.0f},
    {64, 64, 64, 1.0f, 1.0f},      // exact tiles
    {128, 128, 8, -0.5f, 0.25f},   // exactly one 128 x 128 x 8 tile
    {129, 127, 9, 1.5f, -0.75f},   // one more and one less than a tile
    {1, 300, 77, 1.25f, 0.5f},     // a single row
    {300, 1, 77, 1.25f, 0.5f},     // a single column
    {5, 4, 1024, 1.0f, 0.0f},      // long dot products
    {7, 130, 1, 3.0f, -1.0f},      // K = 1
    {130, 66, 2, 0.75f, 1.5f},     // K smaller than any K step
    {65, 67, 300, -1.25f, 0.5f},
    {256, 257, 31, 1.0f, -1.0f},
    // Five tiles of 57 K steps (285 in all): more K steps than stage 9 has block slots on today's
    // GPUs, and a tile count that divides no usual slot count, so some of its shares straddle a
    // boundary between tiles (a share with two partial segments).
    {637, 64, 900, 1.5f, -0.5f},
};

/// Checked against cuBLAS: shapes too large for a quick CPU reference, with every alignment case
/// (K and N multiples of 4 or not) and partial tiles along every dimension.
const Case kLargeCases[] = {
    {1000, 999, 1001, 1.5f, -0.75f},   // the shape: nothing is a multiple of anything
    {999, 1000, 131, 1.0f, 0.0f},
    {1024, 1024, 256, -0.5f, 2.0f},   // every tile full
    {129, 4100, 516, 1.25f, 0.5f},    // K and N multiples of 4 (float4 path), M one past a tile
    {515, 516, 1027, 1.25f, 0.5f},    // N multiple of 4, K not
    {516, 517, 1028, 0.75f, -1.5f},   // K multiple of 4, N not
    {3, 2000, 4099, 1.0f, 1.0f},      // three long rows
    // Enough tiles for stage 8's larger tile shapes on a GPU of about 132 SMs (the shapes above are
    // small enough for its smallest one): 128 x 256 tiles, aligned and not, then 128 x 128 tiles.
    // K stays small: it does not change which tile shape is used, only the time of the check.
    {2000, 2052, 67, -1.25f, 0.5f},
    {1999, 2049, 33, 1.5f, 0.0f},
    {1280, 1300, 37, 0.75f, -1.5f},
    {1281, 1299, 19, 1.0f, 1.0f},
    // Stage 9's stream-K: whole waves of tiles (the first kernel), the rest split by K steps (both
    // kernels, then the partial sums added). First 600 tiles of 128 x 256, whose whole waves hold tiles
    // of the right and bottom edges (tiles go down 16 tile rows, then across): 528 whole on about 132
    // SMs, 396 in emulation, where 132 SMs hold three blocks each (the emulator counts no registers).
    // It comes first: the sanitizer pass runs up to the first call of each kernel. K = 3 keeps it cheap.
    // Then 231 tiles, one whole wave plus 99 split on about 132 SMs, aligned and not.
    {3190, 6000, 3, -1.25f, 0.5f},
    {2600, 2604, 67, -1.25f, 0.5f},
    {2601, 2599, 45, 1.0f, 0.0f},
};

/// Inputs are uniform in [-1, 1): the bounds the statistical tolerance is written for.
constexpr float kInputBound = 1.0f;

/// C = alpha' * A * B + beta' * C0 computed another way: over the first @p k of the K products, with
/// @p alpha and @p beta, A and B rounded as @p round_a and @p round_b say (nullptr: as they are); C0 as the
/// case has it.
using Product = std::function<std::vector<double>(int k, float alpha, float beta, const wb::InputRounding* round_a,
                                                  const wb::InputRounding* round_b)>;

/// What a wrong kernel most often computes instead of the case @p c, in the order tried
/// (wb::matching_hypothesis): the hypotheses every GEMM grader tries (wb::gemm_hypotheses: beta * C or alpha
/// left out, alpha applied to beta * C, the K tail dropped), then A, B or both rounded to fewer significant
/// bits (wb::float_input_roundings: __half or __nv_bfloat16 tiles, TF32 tensor cores). @p by_reference: the
/// product is the float64 reference, which can round its inputs and stop before the first product; cuBLAS
/// (false) is asked only for the others. Each is one call of @p product, made only when needed.
std::vector<wb::Hypothesis> sgemm_hypotheses(const Case& c, const Product& product, bool by_reference)
{
    std::vector<wb::Hypothesis> hypotheses = wb::gemm_hypotheses(
        c.K, c.alpha, c.beta, by_reference,
        [product](int k, float alpha, float beta) { return product(k, alpha, beta, nullptr, nullptr); });
    if (!by_reference) return hypotheses;
    auto run = [product, &c](const wb::InputRounding* a, const wb::InputRounding* b) {
        return [=, &c] { return product(c.K, c.alpha, c.beta, a, b); };
    };
    for (const wb::InputRounding& r : wb::float_input_roundings()) {
        hypotheses.push_back({wb::rounded_inputs_cause(r, "A and B"), run(&r, &r)});
        hypotheses.push_back({wb::rounded_inputs_cause(r, "A"), run(&r, nullptr)});
        hypotheses.push_back({wb::rounded_inputs_cause(r, "B"), run(nullptr, &r)});
    }
    return hypotheses;
}

/// A wrong @p report: the first of @p hypotheses that the results match becomes its likely cause. Such
/// results are right for the computation the kernel really did, so nothing else in the comparison points
/// there.
void name_likely_computation(wb::CompareReport& report, const std::vector<wb::Hypothesis>& hypotheses,
                             const std::vector<float>& got, const std::vector<double>& expected,
                             const wb::Tolerance& tolerance)
{
    if (report.ok) return;
    const std::string cause = wb::matching_hypothesis(expected, got, tolerance, hypotheses);
    if (!cause.empty()) wb::replace_likely_cause(report, cause);
}

void check_small(wb::Stage& stage, Sgemm sgemm)
{
    wb::Rng rng(7);
    for (const Case& c : kSmallCases) {
        const auto A = wb::uniform_floats(static_cast<std::size_t>(c.M) * c.K, -kInputBound, kInputBound, rng);
        const auto B = wb::uniform_floats(static_cast<std::size_t>(c.K) * c.N, -kInputBound, kInputBound, rng);
        const auto C = wb::uniform_floats(static_cast<std::size_t>(c.M) * c.N, -kInputBound, kInputBound, rng);
        wb::DeviceBuffer<float> dA(A), dB(B), dC(C);
        dA.protect(), dB.protect();        // const inputs: stage.run names a write into them
        if (c.beta == 0.0f) dC.poison();   // NaN: a kernel that reads C when beta == 0 gets NaN
        stage.run([&](cudaStream_t s) { sgemm(c.M, c.N, c.K, c.alpha, dA.data(), dB.data(), c.beta, dC.data(), s); });
        const ch07::GemmReference ref = ch07::gemm_reference(c.M, c.N, c.K, c.alpha, A, B, c.beta, C);
        const wb::Tolerance tolerance = ch07::exact_tolerance(c.K, ref.max_abs_terms);
        std::vector<float> got = dC.download();
        if (c.beta != 0.0f) wb::mark_unwritten(got, C, ref.c, tolerance);
        wb::CompareReport report = wb::compare(ref.c, got, tolerance, wb::Layout::matrix(c.M, c.N));
        if (!report.ok) {   // the float64 reference of other computations, from the same inputs
            const Product product = [&](int k, float alpha, float beta, const wb::InputRounding* round_a,
                                        const wb::InputRounding* round_b) {
                auto rounded = [](std::vector<float> values, const wb::InputRounding* r) {
                    if (r != nullptr)
                        for (float& v : values) v = wb::round_significand(v, r->significant, r->nearest);
                    return values;
                };
                const std::vector<float> a = rounded(wb::leading_columns(A, c.M, c.K, k), round_a);
                const std::vector<float> b =
                    rounded(std::vector<float>(B.begin(), B.begin() + static_cast<std::ptrdiff_t>(k) * c.N), round_b);
                return ch07::gemm_reference(c.M, c.N, k, alpha, a, b, beta, C).c;
            };
            name_likely_computation(report, sgemm_hypotheses(c, product, true), got, ref.c, tolerance);
        }
        if (c.beta == 0.0f) {
            report = wb::diagnose_beta_zero(report, got, ref.c, C, [&] {
                dC.upload(C);
                stage.run(
                    [&](cudaStream_t s) { sgemm(c.M, c.N, c.K, c.alpha, dA.data(), dB.data(), c.beta, dC.data(), s); });
                return dC.download();
            });
        }
        stage.expect(report, describe(c));
    }
}

/// Runs @p sgemm and cuBLAS on the same device inputs and compares them.
void check_against_cublas(wb::Stage& stage, Sgemm sgemm, const Case& c, std::uint64_t salt, const std::string& label)
{
    const std::int64_t mk = static_cast<std::int64_t>(c.M) * c.K, kn = static_cast<std::int64_t>(c.K) * c.N,
                       mn = static_cast<std::int64_t>(c.M) * c.N;
    wb::DeviceBuffer<float> A(mk), B(kn), C(mn), R(mn);
    const cudaStream_t s = stage.stream();
    wb::fill_uniform_device(A.data(), mk, wb::seed() + salt, -kInputBound, kInputBound, s);
    wb::fill_uniform_device(B.data(), kn, wb::seed() + salt + 1, -kInputBound, kInputBound, s);
    wb::fill_uniform_device(R.data(), mn, wb::seed() + salt + 2, -kInputBound, kInputBound, s);
    WB_CUDA_CHECK(cudaStreamSynchronize(s));
    A.protect(), B.protect();   // const inputs: stage.run names a write into them
    std::vector<float> before;
    if (c.beta == 0.0f) {
        C.poison();
    } else {
        WB_CUDA_CHECK(cudaMemcpy(C.data(), R.data(), mn * sizeof(float), cudaMemcpyDeviceToDevice));
        before = C.download();
    }
    stage.run([&](cudaStream_t st) { sgemm(c.M, c.N, c.K, c.alpha, A.data(), B.data(), c.beta, C.data(), st); });
    ch07::cublas_sgemm(c.M, c.N, c.K, c.alpha, A.data(), B.data(), c.beta, R.data(), s);
    WB_CUDA_CHECK(cudaStreamSynchronize(s));
    const std::vector<float> expected_f = R.download();
    const std::vector<double> expected(expected_f.begin(), expected_f.end());
    const wb::Tolerance tolerance =
        ch07::statistical_tolerance(c.K, c.alpha, kInputBound, kInputBound, c.beta, kInputBound);
    std::vector<float> got = C.download();
    if (c.beta != 0.0f) wb::mark_unwritten(got, before, expected, tolerance);
    wb::CompareReport report = wb::compare(expected, got, tolerance, wb::Layout::matrix(c.M, c.N));
    if (!report.ok) {   // other computations, by cuBLAS on the same device inputs
        const Product product = [&](int k, float alpha, float beta, const wb::InputRounding*,
                                    const wb::InputRounding*) {
            wb::DeviceBuffer<float> out(mn);
            if (!before.empty()) out.upload(before);   // C0 (with beta = 0 it is not read)
            ch07::cublas_sgemm(c.M, c.N, k, alpha, A.data(), B.data(), beta, out.data(), s, c.K);
            WB_CUDA_CHECK(cudaStreamSynchronize(s));
            const std::vector<float> values = out.download();
            return std::vector<double>(values.begin(), values.end());
        };
        name_likely_computation(report, sgemm_hypotheses(c, product, false), got, expected, tolerance);
    }
    if (c.beta == 0.0f && !report.ok) {
        const std::vector<float> finite_c(static_cast<std::size_t>(mn), 0.25f);   // any finite value will do
        report = wb::diagnose_beta_zero(report, got, expected, finite_c, [&] {
            C.upload(finite_c);
            stage.run(
                [&](cudaStream_t st) { sgemm(c.M, c.N, c.K, c.alpha, A.data(), B.data(), c.beta, C.data(), st); });
            return C.download();
        });
    }
    stage.expect(report, label);
}

void check_large(wb::Stage& stage, Sgemm sgemm)
{
    std::uint64_t salt = 100;
    for (const Case& c : kLargeCases) {
        check_against_cublas(stage, sgemm, c, salt, describe(c) + ", against cuBLAS");
        salt += 10;
    }
}

// ---- one operand past 2^31 elements (GPU only) -------------------------------------------------------

/// Thin products in which one operand holds more than 2^31 elements (6 to 8% more), so that an offset
/// computed in int, row * K into A, k * N into B or row * N + col into C, wraps there while every shape
/// above stays far below it. The contract allows them (every size <= 2^19, so M / 16 blocks fit
/// gridDim.y), each needs about 8.6 GiB of GPU memory, and the arithmetic stays small (2 M N K <= 6e10,
/// a fraction of a second for the naive stage 1 on an H100).
/// - A of 300007 x 7701: element 2^31 lies in row 278857, and row * K passes 2^31 - 1 from row 278858
///   on. K and N are odd: stages 6 and 7 take their scalar paths.
/// - B of 7604 x 300004: every output sums over the rows of B past element 2^31 (in row 7158 and after
///   it). K and N are multiples of 4 (not of 8): stages 6 to 9 take their float4 paths, which the timed
///   shapes use, through the large operand; the scalar ones are covered by the case above.
/// - C of 46001 x 50012 (K = 12), with beta != 0 so that C is read past 2^31 too: element 2^31 lies in
///   row 42939. Aligned as well: the float4 epilogue of stages 6 to 9.
/// Then, after each of these came out right and where the GPU has the memory for it (16.2 GiB each), the
/// same operand past 2^32 elements, where an offset computed in unsigned 32-bit arithmetic (unsigned sizes
/// or indices: "an offset is never negative") wraps, though it held every element of the cases above:
/// - A of 300007 x 14503, 1.3% past 2^32: element 2^32 lies in row 296143, and row * K wraps from row
///   296144 on (those rows of C then read rows at the start of A). Odd K and N again: the scalar paths.
/// - B of 14500 x 300004, 1.3% past 2^32: element 2^32 lies in row 14316 (at column 110032); every output
///   reads the rows past it, so an offset k * N + col that wraps makes every column of C wrong.
/// - C of 66001 x 66012, 1.4% past 2^32 (element 2^32 lies in row 65063): row * N + col wraps there.
const Case kPastIntA = {300007, 13, 7701, 1.25f, 0.0f};
const Case kPastIntB = {7, 300004, 7604, -0.75f, 0.0f};
const Case kPastIntC = {46001, 50012, 12, 1.5f, -0.5f};
const Case kPastUintA = {300007, 13, 14503, 1.25f, 0.0f};
const Case kPastUintB = {7, 300004, 14500, -0.75f, 0.0f};
const Case kPastUintC = {66001, 66012, 12, 1.5f, -0.5f};

/// The operand of a case past the int range that holds more than 2^31 elements.
enum class Huge { A, B, C };

/// The elements of the operand @p huge of the case @p c.
std::int64_t huge_elements(const Case& c, Huge huge)
{
    const std::int64_t M = c.M, N = c.N, K = c.K;
    return huge == Huge::A ? M * K : (huge == Huge::B ? K * N : M * N);
}

/// A block of C checked on its own.
using Block = wb::MatrixBlock;

/// Where the blocks of C checked for @p huge lie, and their names. Rows of C for a large A (their rows of A
/// cross 2^31 at row 2^31 / K) or a large C (at row 2^31 / N): the first and last rows, 14 spread between
/// and those around the crossing (wb::row_windows_past_int_range). Columns of C for a large B, every
/// output of which reads all of B: the first, the last, 14 between, and the columns around the ones where
/// k * N + col crosses 2^31 and (for a B past 2^32) 2^32.
std::vector<std::pair<Block, std::string>> past_int_blocks(const Case& c, Huge huge)
{
    const std::int64_t M = c.M, N = c.N, K = c.K;
    std::vector<std::pair<Block, std::string>> blocks;
    if (huge == Huge::B) {
        constexpr std::int64_t kWidth = 64;
        std::vector<std::int64_t> starts = wb::spread_windows(N, kWidth, 16);
        const std::int64_t limit = K * N > wb::kUintLimit ? wb::kUintLimit : wb::kIntLimit;
        for (const std::int64_t crossing : {wb::kIntLimit, limit}) {
            const std::int64_t crossing_col = crossing % N;
            starts.push_back(
                std::clamp<std::int64_t>(crossing_col - kWidth / 2, 0, std::max<std::int64_t>(N - kWidth, 0)));
        }
        const std::int64_t crossing_row = limit / N;
        const std::string past = limit == wb::kUintLimit ? "2^32" : "2^31";
        std::sort(starts.begin(), starts.end());
        starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
        for (const std::int64_t col : starts) {
            const Block b{0, M, col, std::min(kWidth, N - col)};
            blocks.emplace_back(b, "columns " + std::to_string(col) + " to " + std::to_string(col + b.cols - 1) +
                                       " (each output reads all " + std::to_string(K) + " rows of B, past element " +
                                       past + " from row " + std::to_string(crossing_row) + " on)");
        }
        return blocks;
    }
    const std::int64_t width = huge == Huge::A ? 16 : 4;   // rows of C: 16 x 13, 4 x 50012 outputs
    const std::int64_t huge_cols = huge == Huge::A ? K : N;
    for (const std::int64_t row : wb::row_windows_past_int_range(M, huge_cols, width)) {
        const Block b{row, std::min(width, M - row), 0, N};
        blocks.emplace_back(
            b, "rows " + std::to_string(row) + " to " + std::to_string(row + b.rows - 1) + " (" +
                   (huge == Huge::A ? "they read elements " : "elements ") + std::to_string(row * huge_cols) + " to " +
                   std::to_string((row + b.rows) * huge_cols - 1) + (huge == Huge::A ? " of A)" : " of C)"));
    }
    return blocks;
}

/// One case past the int range (GPU only, with the memory): A, B and C filled on the GPU (C poisoned
/// when beta == 0), one launch, then the blocks of past_int_blocks() against the float64 reference of
/// their rows of A and columns of B, with the tolerance of the small cases. Reports the first wrong
/// block, and where it lies (harness/past_int_range.hpp); a crash is named as a 32-bit index.
/// The name of the case @p c whose operand @p huge is past the int range, for its failures and skip line.
std::string past_int_label(const Case& c, Huge huge)
{
    const std::int64_t elements = huge_elements(c, huge);
    return describe(c) + ": " +
           (huge == Huge::A   ? "A"
            : huge == Huge::B ? "B"
                              : "C") +
           " holds " + std::to_string(elements) + " elements (past the " +
           (elements > wb::kUintLimit ? "unsigned 32-bit" : "int") + " range; checked on " +
           (huge == Huge::B ? "columns" : "rows") + " sampled across it)";
}

/// What the first wrong block of a case past the 32-bit range says about the offsets into the large input,
/// where the place of the block in C alone would mislead (wb::sampled_output_cause reads it as a place in
/// C). Rows of C for a large A: the row offset into A (wb::row_offset_wrap_cause). The very first block of
/// a large B: every output reads all of B, so an offset into B that wraps makes every column wrong. Empty
/// otherwise.
std::string input_wrap_cause(const Case& c, Huge huge, const std::vector<wb::SampledWindow>& windows)
{
    const auto wrong =
        std::find_if(windows.begin(), windows.end(), [](const wb::SampledWindow& w) { return !w.report.ok; });
    if (wrong == windows.end()) return "";
    if (huge == Huge::A) {
        const std::int64_t row = (wrong->first + std::max<std::int64_t>(wrong->report.first_bad, 0)) / c.N;
        return wb::row_offset_wrap_cause(row, c.K, "row", "A");
    }
    if (huge != Huge::B || wrong != windows.begin()) return "";
    const bool past_uint = huge_elements(c, huge) > wb::kUintLimit;
    const std::int64_t limit = past_uint ? wb::kUintLimit : wb::kIntLimit;
    return "every output reads all " + std::to_string(c.K) + " rows of B, and B passes element 2^" +
           (past_uint ? "32" : "31") + " in its row " + std::to_string(limit / c.N) +
           (past_uint ? " (the case past 2^31 came out right)" : "") + ": an offset into B (k * N + col) kept in " +
           (past_uint ? "unsigned 32-bit arithmetic (an unsigned int or std::uint32_t)" : "an int") + " wraps at 2^" +
           (past_uint ? "32" : "31") +
           ", and every output then sums rows read from elsewhere in B. Compute it in std::int64_t, or count it "
           "from a 64-bit pointer to the current K tile.";
}

/// The GPU memory of the case @p c: A, B and C.
std::size_t past_int_bytes(const Case& c)
{
    const std::int64_t M = c.M, N = c.N, K = c.K;
    return static_cast<std::size_t>(M * K + K * N + M * N) * sizeof(float);
}

void check_past_int_case(wb::Stage& stage, Sgemm sgemm, const Case& c, Huge huge, std::uint64_t salt)
{
    const std::int64_t M = c.M, N = c.N, K = c.K, mk = M * K, kn = K * N, mn = M * N;
    const std::string label = past_int_label(c, huge);
    wb::DeviceBuffer<float> A(mk), B(kn), C(mn);
    const cudaStream_t s = stage.stream();
    wb::fill_uniform_device(A.data(), mk, wb::seed() + salt, -kInputBound, kInputBound, s);
    wb::fill_uniform_device(B.data(), kn, wb::seed() + salt + 1, -kInputBound, kInputBound, s);
    if (c.beta != 0.0f) {
        wb::fill_uniform_device(C.data(), mn, wb::seed() + salt + 2, -kInputBound, kInputBound, s);
    } else {
        C.poison();   // write-only: NaN
    }
    WB_CUDA_CHECK(cudaStreamSynchronize(s));
    const std::vector<std::pair<Block, std::string>> blocks = past_int_blocks(c, huge);
    std::vector<std::vector<float>> before(blocks.size());   // C is an input too when beta != 0
    if (c.beta != 0.0f) {
        for (std::size_t i = 0; i < blocks.size(); ++i) before[i] = wb::download_block(C.data(), N, blocks[i].first, s);
    }
    wb::run_past_int_range(
        stage, [&](cudaStream_t st) { sgemm(c.M, c.N, c.K, c.alpha, A.data(), B.data(), c.beta, C.data(), st); }, label,
        huge_elements(c, huge) > wb::kUintLimit);

    std::vector<float> all_of_a, all_of_b;   // the operand every block reads whole, downloaded once
    std::vector<wb::SampledWindow> windows;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const Block& b = blocks[i].first;
        if (b.rows == M && all_of_a.empty()) all_of_a = wb::download_block(A.data(), K, {0, M, 0, K}, s);
        if (b.cols == N && all_of_b.empty()) all_of_b = wb::download_block(B.data(), N, {0, K, 0, N}, s);
        const std::vector<float> a = b.rows == M ? all_of_a : wb::download_block(A.data(), K, {b.row, b.rows, 0, K}, s);
        const std::vector<float> bs =
            b.cols == N ? all_of_b : wb::download_block(B.data(), N, {0, K, b.col, b.cols}, s);
        const int rows = static_cast<int>(b.rows), cols = static_cast<int>(b.cols);
        const ch07::GemmReference ref = ch07::gemm_reference(rows, cols, c.K, c.alpha, a, bs, c.beta, before[i]);
        const wb::Tolerance tolerance = ch07::exact_tolerance(c.K, ref.max_abs_terms);
        std::vector<float> got = wb::download_block(C.data(), N, b, s);
        if (c.beta != 0.0f) wb::mark_unwritten(got, before[i], ref.c, tolerance);
        wb::SampledWindow w;
        w.first = b.row * N + b.col;
        w.count = b.rows * b.cols;
        w.name = blocks[i].second;
        w.report = wb::compare(ref.c, got, tolerance, wb::Layout::matrix(b.rows, b.cols));
        windows.push_back(std::move(w));
    }
    wb::expect_windows(stage, windows, label, input_wrap_cause(c, huge, windows));
}

/// The cases @p cases whose operand @p huge is past the int range and then past 2^32, each where the GPU
/// has the memory (wb::for_each_large_size: the second only after the first).
void check_past_int_operand(wb::Stage& stage, Sgemm sgemm, Huge huge, const std::vector<Case>& cases,
                            std::uint64_t salt)
{
    std::vector<wb::LargeSize> sizes;
    for (const Case& c : cases) sizes.push_back({past_int_bytes(c), past_int_label(c, huge)});
    wb::for_each_large_size(sizes,
                            [&](std::size_t k) { check_past_int_case(stage, sgemm, cases[k], huge, salt + 40 * k); });
}

/// The cases past the 32-bit range, after every smaller shape: a large A, a large B, a large C, each past
/// 2^31 and then past 2^32.
void check_past_int_range(wb::Stage& stage, Sgemm sgemm)
{
    check_past_int_operand(stage, sgemm, Huge::A, {kPastIntA, kPastUintA}, 301);
    check_past_int_operand(stage, sgemm, Huge::B, {kPastIntB, kPastUintB}, 311);
    check_past_int_operand(stage, sgemm, Huge::C, {kPastIntC, kPastUintC}, 321);
}

void check_all(wb::Stage& stage, Sgemm sgemm)
{
    check_small(stage, sgemm);
    check_large(stage, sgemm);
    check_past_int_range(stage, sgemm);
}

/// The speed check at n x n x n (alpha = 1, beta = 0: the usual GEMM benchmark); after timing, the
/// result is checked against cuBLAS again and the fraction of cuBLAS SGEMM the candidate reaches is
/// measured on the same inputs.
void time_stage(wb::Stage& stage, Sgemm candidate_fn, Sgemm previous, Sgemm current, int n)
{
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    const std::int64_t elements = static_cast<std::int64_t>(n) * n;
    wb::DeviceBuffer<float> A(elements), B(elements), C(elements), R(elements);
    wb::fill_uniform_device(A.data(), elements, wb::seed() + 51, -kInputBound, kInputBound, stage.stream());
    wb::fill_uniform_device(B.data(), elements, wb::seed() + 52, -kInputBound, kInputBound, stage.stream());
    auto launch_of = [&](Sgemm f) {
        return [&, f](cudaStream_t s) { f(n, n, n, 1.0f, A.data(), B.data(), 0.0f, C.data(), s); };
    };
    const wb::Launch cublas = [&](cudaStream_t s) {
        ch07::cublas_sgemm(n, n, n, 1.0f, A.data(), B.data(), 0.0f, R.data(), s);
    };
    const std::string shape = std::to_string(n) + "^3";

    wb::SpeedCase speed;
    speed.description = shape + ", alpha = 1, beta = 0";
    speed.candidate = launch_of(candidate_fn);
    if (previous) speed.previous_reference = launch_of(previous);
    speed.current_reference = launch_of(current);
    speed.flops = 2.0 * n * n * n;
    speed.recheck = [&] {   // called by check_speed after timing, only where speed is measured
        C.poison();
        stage.run(launch_of(candidate_fn));
        // cuBLAS's expected result, outside stage.run: the launch ledger records the candidate's calls
        // alone, and would take cuBLAS's kernels for a library doing the stage.
        cublas(stage.stream());
        WB_CUDA_CHECK(cudaStreamSynchronize(stage.stream()));
        const std::vector<float> expected_f = R.download();
        stage.expect(wb::compare(std::vector<double>(expected_f.begin(), expected_f.end()), C.download(),
                                 ch07::statistical_tolerance(n, 1.0, kInputBound, kInputBound, 0.0, 0.0),
                                 wb::Layout::matrix(n, n)),
                     "the timed " + shape + " inputs, after timing, against cuBLAS");
        // The fraction of cuBLAS this stage reaches, the two timed interleaved on the same inputs.
        const std::vector<double> ms =
            wb::interleaved_median_ms(stage.stream(), {launch_of(candidate_fn), cublas}, wb::TimingPlan{2, 10});
        const double tflops = speed.flops / (ms[0] * 1e-3) / 1e12;
        const double cublas_tflops = speed.flops / (ms[1] * 1e-3) / 1e12;
        std::printf("        cuBLAS SGEMM (TF32 off) at %s: %.2f TFLOP/s; this stage reaches %.1f%% of it\n",
                    shape.c_str(), cublas_tflops, 100.0 * tflops / cublas_tflops);
        stage.record("cublas_tflops", cublas_tflops);
        stage.record("pct_cublas", 100.0 * tflops / cublas_tflops);
    };
    stage.check_speed(speed);
}

/// On the CPU emulator, after the correctness checks: sectors per request, bank conflicts and the
/// other counters of the stage beside reference stages K - 1 and K on 128 x 128 x 64 (whole tiles of
/// every reference; harness/emulated_profile.hpp). Advice beside a pass: another tiling may count
/// differently and be as fast.
void compare_memory(wb::Stage& stage, Sgemm candidate_fn, Sgemm previous, Sgemm current)
{
    if (!wb::emulated()) return;
    constexpr int M = 128, N = 128, K = 64;
    wb::DeviceBuffer<float> A(M * K), B(K * N), C(M * N);
    wb::fill_uniform_device(A.data(), M * K, wb::seed() + 71, -kInputBound, kInputBound, stage.stream());
    wb::fill_uniform_device(B.data(), K * N, wb::seed() + 72, -kInputBound, kInputBound, stage.stream());
    auto launch_of = [&](Sgemm f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t s) { f(M, N, K, 1.0f, A.data(), B.data(), 0.0f, C.data(), s); };
    };
    stage.compare_memory_behaviour(
        {"M x N x K = 128 x 128 x 64", launch_of(candidate_fn), launch_of(previous), launch_of(current)});
}

/// Stages 1 and 2 are timed at 2048^3 (the naive kernel takes tens of milliseconds there), stages 3
/// to 8 at 4096^3, the size of the chapter's goal. Stage 9 (stream-K) is about the last wave of
/// tiles, so it is timed where that wave is mostly idle: 3072^3 is 288 tiles of 128 x 256 on 132 SMs,
/// 2.18 waves (on GPUs of about 132 SMs; elsewhere the gain is smaller, and the target was set with
/// margin for that).
constexpr int kSmallTimed = 2048;
constexpr int kLargeTimed = 4096;
constexpr int kTailTimed = 3072;

/// The timed size of stage @p stage.
constexpr int timed_size_of(int stage) { return stage <= 2 ? kSmallTimed : stage == 9 ? kTailTimed : kLargeTimed; }

}   // namespace

namespace stages = wb::stages;   // candidate<K>, previous<K>, current<K>: the launchers of stage K

/// Every shape of check_all, then timed against reference stages K - 1 and K at timed_size_of(K).
template <int K>
void grade_stage_case(wb::Stage& stage)
{
    check_all(stage, stages::candidate<K>);
    compare_memory(stage, stages::counted_candidate<K>, stages::counted_previous<K>, stages::counted_current<K>);
    time_stage(stage, stages::candidate<K>, stages::previous<K>, stages::current<K>, timed_size_of(K));
}

// `make bench`: cuBLAS and every reference stage at 1024^3 .. 8192^3 (3072^3: stage 9's timed size). The last stage is timed
// interleaved with cuBLAS, so that the fraction of cuBLAS it reaches is measured under the same clocks.
TEST_CASE("bench: chapter 7", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    wb::Stream stream;
    const cudaStream_t s = stream.get();
    const auto ladder = stages::reference_launchers();
    constexpr int kStages = wb::generated::kStageCount;
    const int max_n = 8192;
    const std::int64_t max_elements = static_cast<std::int64_t>(max_n) * max_n;
    wb::DeviceBuffer<float> A(max_elements), B(max_elements), C(max_elements);
    wb::fill_uniform_device(A.data(), max_elements, 1, -1.f, 1.f, s);
    wb::fill_uniform_device(B.data(), max_elements, 2, -1.f, 1.f, s);
    for (int n : {1024, 2048, 3072, 4096, 8192}) {
        const std::string shape = "[" + std::to_string(n) + ", " + std::to_string(n) + ", " + std::to_string(n) + "]";
        const double flops = 2.0 * n * n * n;
        auto launch_of = [&](Sgemm f) {
            return [&, f](cudaStream_t st) { f(n, n, n, 1.0f, A.data(), B.data(), 0.0f, C.data(), st); };
        };
        const wb::Launch cublas = [&](cudaStream_t st) {
            ch07::cublas_sgemm(n, n, n, 1.0f, A.data(), B.data(), 0.0f, C.data(), st);
        };
        // cuBLAS and the last stage, interleaved.
        const std::vector<double> pair = wb::interleaved_median_ms(s, {cublas, launch_of(ladder[kStages - 1])},
                                                                   wb::TimingPlan{3, n >= 8192 ? 10 : 25});
        wb::print_bench_row({"sgemm", "cuBLAS cublasSgemm (FP32, TF32 off)", shape, "float32", pair[0], 0.0, flops, 0});
        for (int k = 0; k < kStages; ++k) {
            double ms = pair[1];
            if (k < kStages - 1) {
                // The slow stages take seconds at 8192^3: as many repetitions as fit in about 1.5 s.
                const double estimate = wb::median_ms(s, launch_of(ladder[k]), wb::TimingPlan{1, 1});
                const int reps = std::clamp(static_cast<int>(1500.0 / std::max(estimate, 1e-3)), 3, 25);
                ms = wb::median_ms(s, launch_of(ladder[k]), wb::TimingPlan{0, reps});
            }
            wb::print_bench_row({"sgemm", wb::stage_label(k + 1), shape, "float32", ms, 0.0, flops, k + 1});
        }
        std::printf("%s: the last stage reaches %.1f%% of cuBLAS\n", shape.c_str(), 100.0 * pair[0] / pair[1]);
    }
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
