// Chapter 8 grader: every stage in fp16 and bf16 on small and odd shapes against a float64 CPU
// reference, then (on a GPU) timed against the previous reference stage. See harness/stage.hpp for the
// rules and chapters/08_tensor_gemm/grader/reference.hpp for the inputs and the tolerance.
//
// grade_stage_case<K> grades every stage alike; the stages themselves come from stages.json (the
// generated header that harness/chapter_grader.hpp includes).
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "08_tensor_gemm/grader/baselines.hpp"
#include "08_tensor_gemm/grader/reference.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/gemm_diagnosis.hpp"
#include "harness/output_contract.hpp"
#include "harness/past_int_range.hpp"
#include "harness/device.hpp"
#include "harness/timing.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using Hgemm = void (*)(int, int, int, float, const void*, const void*, ch08::Dtype, float, float*, cudaStream_t);

/// One graded problem: C (M x N) = alpha * A (M x K) * B (K x N) + beta * C, inputs m * 2^(shift - 8).
struct Case {
    int M, N, K;
    float alpha, beta;
    int shift;   // 0: values in (-1, 1); 8: up to 255; -12: fp16 subnormals
};

std::string describe(const Case& c, ch08::Dtype dtype)
{
    char text[200];
    std::snprintf(text, sizeof text, "%s, M x N x K = %d x %d x %d, alpha = %g, beta = %g%s%s", ch08::dtype_name(dtype),
                  c.M, c.N, c.K, c.alpha, c.beta, c.beta == 0.0f ? " (C holds NaN: it must not be read)" : "",
                  c.shift > 0 ? ", large inputs" : (c.shift < 0 ? ", tiny inputs (fp16 subnormals)" : ""));
    return text;
}

/// Small on purpose: the emulator runs every lane of every mma in C++. The first case has beta = 0
/// and a NaN-filled C, so an untouched skeleton reports "not implemented yet".
const Case kCases[] = {
    {17, 33, 24, 1.25f, 0.0f, 0},   // nothing a multiple of a tile; K = 24: one and a half mma steps
    // Whole block tiles (up to 128 x 256) and K a multiple of every K step, long enough for the pipeline to
    // wrap: the copies without bounds tests that fast kernels keep for such blocks. Early, so that the GPU's
    // compute-sanitizer pass (the first 8 products) sees them.
    {128, 256, 320, -0.75f, 0.25f, 0},
    {128, 256, 40, 1.0f, 0.0f, 0},    // the same blocks with a K tail: those copies must not run
    {1, 1, 8, 1.5f, -0.75f, 0},       // the smallest problem: K = 8, half an mma step
    {16, 16, 16, 1.0f, 0.0f, 0},      // one WMMA tile exactly
    {31, 47, 40, 0.5f, 2.0f, 0},      // K tail of 8 after a K tile of 32
    {130, 129, 32, -1.5f, 0.5f, 0},   // one past a 128 x 128 block tile in M and N
    {1, 70, 72, 1.25f, 0.5f, 0},      // a single row
    {70, 1, 72, 1.25f, 0.0f, 0},      // a single column
    {20, 18, 264, 1.0f, 1.0f, 0},     // many K tiles: the pipeline wraps its buffers
    {24, 40, 48, 1.0f, -1.0f, 8},     // large values (products up to 6.5e4, sums to 3e6)
    {24, 40, 48, 1.0f, 0.0f, -12},    // fp16 subnormal inputs
};

/// C = alpha' * A * B + beta' * C0 computed another way: over the first @p k of the K products, with
/// @p alpha and @p beta, the 16-bit inputs decoded as @p read_as; C0 as the case has it.
using Product = std::function<std::vector<double>(int k, float alpha, float beta, ch08::Dtype read_as)>;

/// What a wrong kernel most often computes instead of the case @p c, in the order tried
/// (wb::matching_hypothesis): the hypotheses every GEMM grader tries (wb::gemm_hypotheses: beta * C or alpha
/// left out, alpha applied to beta * C, the K tail dropped, with @p with_no_k every product), then the
/// inputs' bits read as the other 16-bit type. Each is one call of @p product, made only when needed.
std::vector<wb::Hypothesis> hgemm_hypotheses(const Case& c, ch08::Dtype dtype, const Product& product, bool with_no_k)
{
    std::vector<wb::Hypothesis> hypotheses = wb::gemm_hypotheses(
        c.K, c.alpha, c.beta, with_no_k,
        [product, dtype](int k, float alpha, float beta) { return product(k, alpha, beta, dtype); });
    const ch08::Dtype other = dtype == ch08::Dtype::f16 ? ch08::Dtype::bf16 : ch08::Dtype::f16;
    hypotheses.push_back({std::string("the results are those of A and B read as ") + ch08::dtype_name(other) +
                              ": the kernel takes the " + ch08::dtype_name(dtype) + " bits for " +
                              ch08::dtype_name(other) +
                              " ones. Instantiate the kernel for the type that dtype names "
                              "(__half for fp16, __nv_bfloat16 for bf16).",
                          [product, &c, other] { return product(c.K, c.alpha, c.beta, other); }});
    return hypotheses;
}

/// A wrong @p report: the first of @p hypotheses that the results match, else an fp16 or bf16 accumulator
/// seen through the epilogue (wb::narrow_accumulator_cause), becomes its likely cause.
void name_likely_computation(wb::CompareReport& report, const std::vector<wb::Hypothesis>& hypotheses, const Case& c,
                             const std::vector<float>& C, const std::vector<float>& got,
                             const std::vector<double>& expected, const wb::Tolerance& tolerance)
{
    if (report.ok) return;
    std::string cause = wb::matching_hypothesis(expected, got, tolerance, hypotheses);
    if (cause.empty()) cause = wb::narrow_accumulator_cause(expected, got, tolerance, c.alpha, c.beta, C);
    if (!cause.empty()) wb::replace_likely_cause(report, cause);
}

void check_case(wb::Stage& stage, Hgemm hgemm, const Case& c, ch08::Dtype dtype, wb::Rng& rng)
{
    const auto A = ch08::make_values(static_cast<std::size_t>(c.M) * c.K, c.shift, rng);
    const auto B = ch08::make_values(static_cast<std::size_t>(c.N) * c.K, c.shift, rng);
    const auto C = wb::uniform_floats(static_cast<std::size_t>(c.M) * c.N, -1.0f, 1.0f, rng);
    wb::DeviceBuffer<std::uint16_t> dA(ch08::encode_all(A, dtype)), dB(ch08::encode_all(B, dtype));
    dA.protect(), dB.protect();   // const inputs: stage.run names a write into them
    wb::DeviceBuffer<float> dC(C);
    if (c.beta == 0.0f) dC.poison();   // NaN: a kernel that reads C when beta == 0 gets NaN
    stage.run(
        [&](cudaStream_t s) { hgemm(c.M, c.N, c.K, c.alpha, dA.data(), dB.data(), dtype, c.beta, dC.data(), s); });
    const ch08::GemmReference ref = ch08::gemm_reference(c.M, c.N, c.K, c.alpha, A, B, c.beta, C);
    const wb::Tolerance tolerance = ch08::gemm_tolerance(c.K, ref.max_abs_terms);
    std::vector<float> got = dC.download();
    if (c.beta != 0.0f) wb::mark_unwritten(got, C, ref.c, tolerance);
    wb::CompareReport report = wb::compare(ref.c, got, tolerance, wb::Layout::matrix(c.M, c.N));
    if (!report.ok) {   // the float64 reference of other computations, from the same inputs
        const Product product = [&](int k, float alpha, float beta, ch08::Dtype read_as) {
            auto operand = [&](const std::vector<float>& values, int rows) {
                const std::vector<float> read = ch08::decode_all(ch08::encode_all(values, dtype), read_as);
                return wb::leading_columns(read, rows, c.K, k);
            };
            return ch08::gemm_reference(c.M, c.N, k, alpha, operand(A, c.M), operand(B, c.N), beta, C).c;
        };
        name_likely_computation(report, hgemm_hypotheses(c, dtype, product, true), c, C, got, ref.c, tolerance);
    }
    if (c.beta == 0.0f) {
        report = wb::diagnose_beta_zero(report, got, ref.c, C, [&] {
            dC.upload(C);
            stage.run([&](cudaStream_t s) {
                hgemm(c.M, c.N, c.K, c.alpha, dA.data(), dB.data(), dtype, c.beta, dC.data(), s);
            });
            return dC.download();
        });
    }
    stage.expect(report, describe(c, dtype));
}

/// Shapes too large for a quick CPU reference (GPU only), checked against cuBLAS: partial tiles in every
/// dimension, K tails of 8, a long K.
const Case kLargeCases[] = {
    {1000, 999, 1000, 1.5f, -0.75f, 0},
    {2000, 2052, 264, 1.0f, 0.0f, 0},
    {129, 4100, 2056, 0.75f, 0.5f, 0},
};

/// Inputs in (-1, 1) on both sides: the error of each result is about K roundings of 2^-24 relative to
/// sums of at most K, and two results (the stage's and cuBLAS's) each carry one: 8 u K (statistical,
/// as chapter 7; the worst-case bound would be K times looser and let layout bugs through).
wb::Tolerance against_cublas_tolerance(int K, float alpha, float beta)
{
    const double u = 0x1.0p-24;
    return {8.0 * u * K * std::fabs(alpha) + 8.0 * u * std::fabs(beta) + 1e-30, 8.0 * u};
}

/// Runs @p hgemm and cuBLAS on the same device inputs and compares them.
void check_against_cublas(wb::Stage& stage, Hgemm hgemm, const Case& c, ch08::Dtype dtype, wb::Rng& rng)
{
    const auto A = ch08::make_values(static_cast<std::size_t>(c.M) * c.K, c.shift, rng);
    const auto B = ch08::make_values(static_cast<std::size_t>(c.N) * c.K, c.shift, rng);
    const auto C = wb::uniform_floats(static_cast<std::size_t>(c.M) * c.N, -1.0f, 1.0f, rng);
    wb::DeviceBuffer<std::uint16_t> dA(ch08::encode_all(A, dtype)), dB(ch08::encode_all(B, dtype));
    dA.protect(), dB.protect();   // const inputs: stage.run names a write into them
    wb::DeviceBuffer<float> dC(C), dR(C);
    if (c.beta == 0.0f) dC.poison();
    stage.run(
        [&](cudaStream_t s) { hgemm(c.M, c.N, c.K, c.alpha, dA.data(), dB.data(), dtype, c.beta, dC.data(), s); });
    ch08::cublas_hgemm(c.M, c.N, c.K, c.alpha, dA.data(), dB.data(), dtype, c.beta, dR.data(), stage.stream());
    WB_CUDA_CHECK(cudaStreamSynchronize(stage.stream()));
    const std::vector<float> expected_f = dR.download();
    const std::vector<double> expected(expected_f.begin(), expected_f.end());
    const wb::Tolerance tolerance = against_cublas_tolerance(c.K, c.alpha, c.beta);
    std::vector<float> got = dC.download();
    if (c.beta != 0.0f) wb::mark_unwritten(got, C, expected, tolerance);
    wb::CompareReport report = wb::compare(expected, got, tolerance, wb::Layout::matrix(c.M, c.N));
    if (!report.ok) {   // other computations, by cuBLAS on the same device inputs
        const Product product = [&](int k, float alpha, float beta, ch08::Dtype read_as) {
            wb::DeviceBuffer<float> out(C);
            ch08::cublas_hgemm(c.M, c.N, k, alpha, dA.data(), dB.data(), read_as, beta, out.data(), stage.stream(),
                               c.K);
            WB_CUDA_CHECK(cudaStreamSynchronize(stage.stream()));
            const std::vector<float> values = out.download();
            return std::vector<double>(values.begin(), values.end());
        };
        name_likely_computation(report, hgemm_hypotheses(c, dtype, product, false), c, C, got, expected, tolerance);
    }
    if (c.beta == 0.0f) {
        report = wb::diagnose_beta_zero(report, got, expected, C, [&] {
            dC.upload(C);
            stage.run([&](cudaStream_t s) {
                hgemm(c.M, c.N, c.K, c.alpha, dA.data(), dB.data(), dtype, c.beta, dC.data(), s);
            });
            return dC.download();
        });
    }
    stage.expect(report, describe(c, dtype) + ", against cuBLAS");
}

// ---- one operand past 2^31 elements (GPU only) -------------------------------------------------------

/// Thin products in which one operand holds more than 2^31 elements (7 to 9% more), so that an offset
/// computed in int, m * K into A, n * K into B (stored N x K) or row * N + col into C, wraps there while
/// every shape above stays far below it. The contract allows them (M, N, K <= 2^16, K % 8 == 0; every K
/// here ends in a tail of 8 after whole mma steps of 16), each needs 4.3 to 8.6 GiB of GPU memory, and the
/// arithmetic stays small (2 M N K <= 1.2e11, milliseconds on tensor cores).
/// - A of 60013 x 39000 (fp16): element 2^31 lies in row 55063, and m * K passes 2^31 - 1 from row
///   55064 on.
/// - B of 59053 x 39000 (bf16), stored N x K: element 2^31 lies in its row 55063, which column 55063 of
///   C reads: the columns of C are checked as the rows of A are in the case above.
/// - C of 46349 x 49998 (fp16 inputs, K = 24), with beta != 0 so that C is read past 2^31 too: element
///   2^31 lies in row 42951. N is even here (the 8-byte stores of the mma epilogues), odd in the others.
/// One element type per case is enough: both are 2 bytes, and a stage instantiates one kernel template
/// for both, so its index arithmetic is the same; the cases alternate them so that each instantiation
/// reads a large operand.
const Case kPastIntA = {60013, 23, 39000, 1.25f, 0.0f, 0};
const Case kPastIntB = {7, 59053, 39000, -0.75f, 0.0f, 0};
const Case kPastIntC = {46349, 49998, 24, 1.5f, -0.5f, 0};

/// The operand of a case past the int range that holds more than 2^31 elements.
enum class Huge { A, B, C };

/// A block of C checked on its own.
using Block = wb::MatrixBlock;

/// Rows @p first .. @p first + @p count - 1 of a K-contiguous 16-bit matrix (A, or B stored N x K), as
/// floats: the values the kernel multiplied, exactly.
template <typename T>
std::vector<float> download_rows(const T* matrix, std::int64_t K, std::int64_t first, std::int64_t count)
{
    const std::vector<T> bits = wb::download_part(matrix, first * K, count * K);
    std::vector<float> values(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) values[i] = static_cast<float>(wb::to_double(bits[i]));
    return values;
}

/// Where the blocks of C checked for @p huge lie, and their names: the first and last rows (or columns),
/// 14 spread between and those around the one whose elements of the large operand cross 2^31
/// (wb::row_windows_past_int_range). Rows of C for a large A (a row of A per row of C) or a large C;
/// columns of C for a large B (a row of B, N x K, per column of C).
std::vector<std::pair<Block, std::string>> past_int_blocks(const Case& c, Huge huge)
{
    const std::int64_t M = c.M, N = c.N, K = c.K;
    std::vector<std::pair<Block, std::string>> blocks;
    if (huge == Huge::B) {
        constexpr std::int64_t kWidth = 8;   // columns: 7 x 8 outputs of 39000 products
        for (const std::int64_t col : wb::row_windows_past_int_range(N, K, kWidth)) {
            const Block b{0, M, col, std::min(kWidth, N - col)};
            blocks.emplace_back(b, "columns " + std::to_string(col) + " to " + std::to_string(col + b.cols - 1) +
                                       " (they read elements " + std::to_string(col * K) + " to " +
                                       std::to_string((col + b.cols) * K - 1) + " of B)");
        }
        return blocks;
    }
    constexpr std::int64_t kWidth = 4;   // rows: 4 x 23 outputs of 39000 products, or 4 x 49998 of 24
    const std::int64_t huge_cols = huge == Huge::A ? K : N;
    for (const std::int64_t row : wb::row_windows_past_int_range(M, huge_cols, kWidth)) {
        const Block b{row, std::min(kWidth, M - row), 0, N};
        blocks.emplace_back(
            b, "rows " + std::to_string(row) + " to " + std::to_string(row + b.rows - 1) + " (" +
                   (huge == Huge::A ? "they read elements " : "elements ") + std::to_string(row * huge_cols) + " to " +
                   std::to_string((row + b.rows) * huge_cols - 1) + (huge == Huge::A ? " of A)" : " of C)"));
    }
    return blocks;
}

/// One case past the int range in the element type @p T (GPU only, with the memory): A, B and C filled
/// on the GPU (C poisoned when beta == 0), one launch, then the blocks of past_int_blocks() against the
/// float64 reference of their rows of A and B, with the tolerance of the small cases. Reports the first
/// wrong block, and where it lies (harness/past_int_range.hpp); a crash is named as a 32-bit index.
template <typename T>
void check_past_int_case(wb::Stage& stage, Hgemm hgemm, const Case& c, Huge huge, std::uint64_t salt)
{
    const ch08::Dtype dtype = std::is_same_v<T, __half> ? ch08::Dtype::f16 : ch08::Dtype::bf16;
    const std::int64_t M = c.M, N = c.N, K = c.K, mk = M * K, nk = N * K, mn = M * N;
    const char* name = huge == Huge::A ? "A" : huge == Huge::B ? "B" : "C";
    const std::int64_t huge_elements = huge == Huge::A ? mk : (huge == Huge::B ? nk : mn);
    const std::string label = describe(c, dtype) + ": " + name + " holds " + std::to_string(huge_elements) +
                              " elements (past the int range; checked on " + (huge == Huge::B ? "columns" : "rows") +
                              " sampled across it)";
    const wb::LargeCase large(
        static_cast<std::size_t>(mk + nk) * sizeof(T) + static_cast<std::size_t>(mn) * sizeof(float), label);
    if (!large) return;
    wb::DeviceBuffer<T> A(mk), B(nk);
    wb::DeviceBuffer<float> C(mn);
    const cudaStream_t s = stage.stream();
    wb::fill_uniform_device(A.data(), mk, wb::seed() + salt, -1.0f, 1.0f, s);
    wb::fill_uniform_device(B.data(), nk, wb::seed() + salt + 1, -1.0f, 1.0f, s);
    if (c.beta != 0.0f) {
        wb::fill_uniform_device(C.data(), mn, wb::seed() + salt + 2, -1.0f, 1.0f, s);
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
        stage, [&](cudaStream_t st) { hgemm(c.M, c.N, c.K, c.alpha, A.data(), B.data(), dtype, c.beta, C.data(), st); },
        label);

    std::vector<float> all_of_a, all_of_b;   // the operand every block reads whole, downloaded once
    std::vector<wb::SampledWindow> windows;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const Block& b = blocks[i].first;
        if (b.rows == M && all_of_a.empty()) all_of_a = download_rows(A.data(), K, 0, M);
        if (b.cols == N && all_of_b.empty()) all_of_b = download_rows(B.data(), K, 0, N);
        const std::vector<float> a = b.rows == M ? all_of_a : download_rows(A.data(), K, b.row, b.rows);
        const std::vector<float> bs = b.cols == N ? all_of_b : download_rows(B.data(), K, b.col, b.cols);
        const int rows = static_cast<int>(b.rows), cols = static_cast<int>(b.cols);
        const ch08::GemmReference ref = ch08::gemm_reference(rows, cols, c.K, c.alpha, a, bs, c.beta, before[i]);
        const wb::Tolerance tolerance = ch08::gemm_tolerance(c.K, ref.max_abs_terms);
        std::vector<float> got = wb::download_block(C.data(), N, b, s);
        if (c.beta != 0.0f) wb::mark_unwritten(got, before[i], ref.c, tolerance);
        wb::SampledWindow w;
        w.first = b.row * N + b.col;
        w.count = b.rows * b.cols;
        w.name = blocks[i].second;
        w.report = wb::compare(ref.c, got, tolerance, wb::Layout::matrix(b.rows, b.cols));
        windows.push_back(std::move(w));
    }
    wb::expect_windows(stage, windows, label);
}

/// The three cases past the int range, after every smaller shape: a large A, a large B, a large C.
void check_past_int_range(wb::Stage& stage, Hgemm hgemm)
{
    check_past_int_case<__half>(stage, hgemm, kPastIntA, Huge::A, 81);
    check_past_int_case<__nv_bfloat16>(stage, hgemm, kPastIntB, Huge::B, 84);
    check_past_int_case<__half>(stage, hgemm, kPastIntC, Huge::C, 87);
}

void check_all(wb::Stage& stage, Hgemm hgemm)
{
    wb::Rng rng(8);
    for (const ch08::Dtype dtype : {ch08::Dtype::f16, ch08::Dtype::bf16})
        for (const Case& c : kCases) check_case(stage, hgemm, c, dtype, rng);
    if (!wb::emulated()) {   // the large shapes need cuBLAS, and minutes in emulation
        for (const ch08::Dtype dtype : {ch08::Dtype::f16, ch08::Dtype::bf16})
            for (const Case& c : kLargeCases) check_against_cublas(stage, hgemm, c, dtype, rng);
    }
    check_past_int_range(stage, hgemm);   // GPU only (the emulator prints why it skips them)
}

/// The speed check at n x n x n in @p dtype, alpha = 1, beta = 0 (GPU only); after timing, the result
/// is checked against cuBLAS again and the fraction of cuBLAS reached is measured on the same inputs.
/// The first dtype graded keeps the result line's plain keys ("ms", "speedup", "pct_cublas", ...), the
/// other one adds its name ("ms_bf16", ...).
void time_stage(wb::Stage& stage, Hgemm candidate_fn, Hgemm previous, Hgemm current, int n, ch08::Dtype dtype,
                const std::string& key_suffix)
{
    const std::size_t elements = static_cast<std::size_t>(n) * n;
    wb::Rng rng(88);
    wb::DeviceBuffer<std::uint16_t> A(ch08::encode_all(ch08::make_values(elements, 0, rng), dtype));
    wb::DeviceBuffer<std::uint16_t> B(ch08::encode_all(ch08::make_values(elements, 0, rng), dtype));
    wb::DeviceBuffer<float> C(elements), R(elements);
    auto launch_of = [&](Hgemm f) {
        return [&, f](cudaStream_t s) { f(n, n, n, 1.0f, A.data(), B.data(), dtype, 0.0f, C.data(), s); };
    };
    wb::SpeedCase speed;
    speed.description = std::to_string(n) + "^3 " + ch08::dtype_name(dtype) + ", alpha = 1, beta = 0";
    speed.key_suffix = key_suffix;
    speed.candidate = launch_of(candidate_fn);
    if (previous) speed.previous_reference = launch_of(previous);
    speed.current_reference = launch_of(current);
    speed.flops = 2.0 * n * n * static_cast<double>(n);
    const wb::Launch cublas = [&](cudaStream_t s) {
        ch08::cublas_hgemm(n, n, n, 1.0f, A.data(), B.data(), dtype, 0.0f, R.data(), s);
    };
    speed.recheck = [&] {
        C.poison();
        stage.run(launch_of(candidate_fn));
        // cuBLAS's expected result, outside stage.run: the launch ledger records the candidate's calls
        // alone, and would take cuBLAS's kernels for a library doing the stage.
        cublas(stage.stream());
        WB_CUDA_CHECK(cudaStreamSynchronize(stage.stream()));
        const std::vector<float> expected_f = R.download();
        stage.expect(wb::compare(std::vector<double>(expected_f.begin(), expected_f.end()), C.download(),
                                 against_cublas_tolerance(n, 1.0f, 0.0f), wb::Layout::matrix(n, n)),
                     "the timed " + speed.description + " inputs, after timing, against cuBLAS");
        const std::vector<double> ms =
            wb::interleaved_median_ms(stage.stream(), {launch_of(candidate_fn), cublas}, wb::TimingPlan{2, 10});
        const double tflops = speed.flops / (ms[0] * 1e-3) / 1e12, cublas_tflops = speed.flops / (ms[1] * 1e-3) / 1e12;
        std::printf(
            "        cuBLAS (cublasGemmEx, %s in, fp32 compute) at %d^3: %.1f TFLOP/s; this stage reaches "
            "%.1f%% of it\n",
            ch08::dtype_name(dtype), n, cublas_tflops, 100.0 * tflops / cublas_tflops);
        stage.record("cublas_tflops" + key_suffix, cublas_tflops);
        stage.record("pct_cublas" + key_suffix, 100.0 * tflops / cublas_tflops);
    };
    stage.check_speed(speed);
}

/// On the CPU emulator, after the correctness checks: the stage's memory counters (sectors per request,
/// shared-memory bank conflicts, traffic) beside reference stages K - 1 and K on 128 x 128 x 64 fp16,
/// whole block tiles of every reference (harness/emulated_profile.hpp). Advice beside a pass.
void compare_memory(wb::Stage& stage, Hgemm candidate_fn, Hgemm previous, Hgemm current)
{
    if (!wb::emulated()) return;
    constexpr int M = 128, N = 128, K = 64;
    wb::Rng rng(89);
    wb::DeviceBuffer<std::uint16_t> A(ch08::encode_all(ch08::make_values(M * K, 0, rng), ch08::Dtype::f16));
    wb::DeviceBuffer<std::uint16_t> B(ch08::encode_all(ch08::make_values(K * N, 0, rng), ch08::Dtype::f16));
    wb::DeviceBuffer<float> C(M * N);
    auto launch_of = [&](Hgemm f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t s) { f(M, N, K, 1.0f, A.data(), B.data(), ch08::Dtype::f16, 0.0f, C.data(), s); };
    };
    stage.compare_memory_behaviour(
        {"M x N x K = 128 x 128 x 64, fp16", launch_of(candidate_fn), launch_of(previous), launch_of(current)});
}

constexpr int kTimed = 4096;

}   // namespace

/// Grades stage K: correctness in both types, then speed against the previous reference stage in both
/// types; each must meet the stage's target: fp16 and bf16 share the mma's rate on tensor cores, yet a
/// bf16 path of its own (conversions, another instruction) can be slow where fp16 is fast. A GPU older
/// than the chapter's "min_cc" (stages.json) never gets here: the harness skips the stage first.
template <int K>
void grade_stage_case(wb::Stage& stage)
{
    check_all(stage, wb::stages::candidate<K>);
    compare_memory(stage, wb::stages::counted_candidate<K>, wb::stages::counted_previous<K>,
                   wb::stages::counted_current<K>);
    if (!stage.measures_speed()) return;   // emulated or correctness-only: no large inputs
    time_stage(stage, wb::stages::candidate<K>, wb::stages::previous<K>, wb::stages::current<K>, kTimed,
               ch08::Dtype::f16, "");
    time_stage(stage, wb::stages::candidate<K>, wb::stages::previous<K>, wb::stages::current<K>, kTimed,
               ch08::Dtype::bf16, "_bf16");
}

// `make bench`: every reference stage at 4096^3 and 8192^3 in fp16 and bf16 against cuBLAS (cublasGemmEx,
// fp32 compute) on the same inputs, each in its own steady state: a second of back-to-back launches per
// kernel, the two taking turns (wb::steady_state_median_ms; these products run the H100 at its power
// limit, where launches alternated one by one take their clock from each other). The ratio from launches
// alternated one by one is printed beside it. The cuBLAS row's time is the one measured beside the last stage.
TEST_CASE("bench: chapter 8", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    wb::Stream stream;
    const cudaStream_t s = stream.get();
    const auto ladder = wb::stages::reference_launchers();
    constexpr int kStages = wb::generated::kStageCount;
    const int max_n = 8192;
    const std::int64_t max_elements = static_cast<std::int64_t>(max_n) * max_n;
    wb::DeviceBuffer<__half> A16(max_elements), B16(max_elements);
    wb::DeviceBuffer<__nv_bfloat16> A_bf(max_elements), B_bf(max_elements);
    wb::DeviceBuffer<float> C(max_elements), R(max_elements);
    wb::fill_uniform_device(A16.data(), max_elements, 1, -1.f, 1.f, s);
    wb::fill_uniform_device(B16.data(), max_elements, 2, -1.f, 1.f, s);
    wb::fill_uniform_device(A_bf.data(), max_elements, 3, -1.f, 1.f, s);
    wb::fill_uniform_device(B_bf.data(), max_elements, 4, -1.f, 1.f, s);
    for (int n : {4096, 8192}) {
        for (const ch08::Dtype dtype : {ch08::Dtype::f16, ch08::Dtype::bf16}) {
            const std::string shape =
                "[" + std::to_string(n) + ", " + std::to_string(n) + ", " + std::to_string(n) + "]";
            const std::string dtype_label = dtype == ch08::Dtype::f16 ? "float16" : "bfloat16";
            const void* A = dtype == ch08::Dtype::f16 ? static_cast<const void*>(A16.data()) : A_bf.data();
            const void* B = dtype == ch08::Dtype::f16 ? static_cast<const void*>(B16.data()) : B_bf.data();
            const double flops = 2.0 * n * n * static_cast<double>(n);
            const wb::Launch cublas = [&, n, A, B, dtype](cudaStream_t st) {
                ch08::cublas_hgemm(n, n, n, 1.0f, A, B, dtype, 0.0f, R.data(), st);
            };
            const wb::TimingPlan plan{2, n >= 8192 ? 10 : 20};
            double cublas_ms = 0.0;
            std::vector<wb::BenchRow> rows;
            for (int k = 0; k < kStages; ++k) {
                if (const std::string skip = wb::bench_stage_skip_reason(k + 1); !skip.empty()) {
                    std::printf("stage %d not benchmarked: %s.\n", k + 1, skip.c_str());
                    continue;
                }
                const Hgemm stage_fn = ladder[k];
                const wb::Launch candidate = [&, n, A, B, dtype, stage_fn](cudaStream_t st) {
                    stage_fn(n, n, n, 1.0f, A, B, dtype, 0.0f, C.data(), st);
                };
                const std::vector<double> alternated = wb::interleaved_median_ms(s, {cublas, candidate}, plan);
                const std::vector<double> pair = wb::steady_state_median_ms(s, {cublas, candidate});
                cublas_ms = pair[0];
                wb::BenchRow row{"hgemm", wb::stage_label(k + 1), shape, dtype_label, pair[1], 0.0, flops, k + 1};
                row.library_ms = pair[0];
                row.vs_library_alternated = alternated[0] / alternated[1];
                rows.push_back(row);
                std::printf(
                    "%s %s: stage %d at %.1f TFLOP/s, x%.2f of cuBLAS in steady state (x%.2f alternated launch "
                    "by launch)\n",
                    shape.c_str(), dtype_label.c_str(), k + 1, flops / (pair[1] * 1e-3) / 1e12, pair[0] / pair[1],
                    alternated[0] / alternated[1]);
            }
            if (cublas_ms > 0.0) {
                wb::print_bench_row(
                    {"hgemm", std::string("cuBLAS cublasGemmEx (") + ch08::dtype_name(dtype) + " in, fp32 compute)",
                     shape, dtype_label, cublas_ms, 0.0, flops, 0});
            }
            for (const wb::BenchRow& row : rows) wb::print_bench_row(row);
        }
    }
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
