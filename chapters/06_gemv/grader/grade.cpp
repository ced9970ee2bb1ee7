// Chapter 6 grader: every stage against a float64 CPU reference, on small integers (exact) and on
// random values (within the error bound of a float32 dot product), then timed against the
// reference stages (the last stage: against cuBLAS) in the same run.
// See harness/stage.hpp for the rules.
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "06_gemv/grader/baselines.hpp"
#include "06_gemv/grader/reference.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/output_contract.hpp"
#include "harness/past_int_range.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace {

using std::int64_t;
using Launcher = void (*)(const float*, const float*, float*, int64_t, int64_t, cudaStream_t);

struct Shape {
    int64_t M, K;
};

/// Shapes every stage must get right (5000 x 33 second: the compute-sanitizer pass runs the first
/// few cases only, and needs one with more rows than a persistent grid has blocks): K = 1, 3, 33,
/// 1001 and every remainder mod 4; K below, at and above every group width of stage 4 (4, 8, 16, 32, 64, 128 floats), and inside each width's
/// range at a K that is not a power of two (12, 20, 48, 80, 124: a group that covers a row's
/// vectors only when their count is a power of two fails there); tall (M >> K), wide (K >> M) and
/// square; and shapes that reach every branch of stage 6's dispatch (K / 4 = 1, 2, 4, up to 32, up
/// to 255, from 256 on, at and off multiples of 256 (4100, 5000), and K % 4 != 0).
const std::vector<Shape> kShapes = {{1, 1},      {5000, 33},   {1, 3},      {3, 1},      {7, 5},      {33, 33},
                                    {1, 1001},   {1001, 1},    {1000, 3},   {3, 1000},   {100, 4},    {100, 8},
                                    {257, 16},   {257, 32},    {129, 64},   {1000, 128}, {65, 127},   {64, 129},
                                    {500, 200},  {1001, 1001}, {20000, 16}, {30001, 4},  {10000, 8},  {2, 100003},
                                    {64, 65536}, {20000, 260}, {40000, 32}, {100, 1020}, {300, 1024}, {3, 4096},
                                    {50, 12},    {50, 20},     {40, 48},    {30, 80},    {20, 124},   {9, 4100},
                                    {5, 5000},   {70001, 3}};   // more rows than a grid's y dimension holds (65535)

/// Checked on a GPU only: more rows than 16 per block along y could cover (a warp per row, 8 or 16
/// rows per block, on gridDim.y).
const std::vector<Shape> kManyRowShapes = {{1048577, 3}};

/// The shapes past the int range, checked on a GPU with the memory, one for each kind of row that a
/// dispatch by K (stage 6) may give its own kernel:
/// - M = 2^24 + 2^20 + 3 = 17825795 rows of K = 132 floats, 2,353,004,940 elements (10% past 2^31,
///   8.8 GiB). Row i starts at element i * K, past 2^31 from row 16268816 on (row 16268815 crosses
///   it); and the rows pass 2^24, beyond 65535 blocks of 256 rows (16776960). K % 4 == 0 (the float4
///   paths run) and K is not a multiple of 32 (a warp's last step along a row is partial); stage 6
///   takes its warp-per-row branch.
/// - 16777259 rows of K = 131 (2.2e9 elements, 8.2 GiB): K % 4 == 3, rows that are not 16-byte aligned,
///   so the scalar path runs; the rows pass 2^24 too.
/// - 2053 rows of K = 2^20 + 16 (2.15e9 elements, 8.0 GiB): rows long enough for a block per row; rows
///   2048 to 2052 start past 2^31.
const std::vector<Shape> kHugeShapes = {{(int64_t(1) << 24) + (int64_t(1) << 20) + 3, 132},
                                        {(int64_t(1) << 24) + 43, 131},
                                        {2053, (int64_t(1) << 20) + 16}};

/// Then, where the GPU has the memory (17 GiB for A): M = 2^25 + 2^20 + 3 = 34603011 rows of K = 132,
/// 4,567,597,452 elements (6% past 2^32): a row offset in unsigned 32-bit arithmetic (unsigned sizes)
/// holds every element of the shapes above and wraps here: the rows from 32537631 (which straddles 2^32)
/// on read elements past it.
const Shape kHugerShape = {(int64_t(1) << 25) + (int64_t(1) << 20) + 3, 132};

/// The five benchmark shapes (the chapter's goal and stage 6's timed case).
const std::vector<Shape> kBenchShapes = {{16384, 16384}, {65536, 4096}, {4096, 65536}, {1048576, 128}, {4194304, 32}};

std::string shape_label(const Shape& s) { return std::to_string(s.M) + " x " + std::to_string(s.K); }

double gemv_bytes(const Shape& s) { return 4.0 * (static_cast<double>(s.M) * s.K + s.K + s.M); }

/// The error bound of a float32 dot product of length K summed in any order (K additions and the
/// rounding of the products: depth K + 1), for the row with the largest sum |A_ik x_k|.
wb::Tolerance dot_tolerance(const ch06::GemvReference& ref, int64_t K)
{
    return wb::Tolerance::sum_of(ref.max_sum_abs, static_cast<double>(K + 1));
}

/// Runs @p gemv once on the given inputs and compares y with the CPU reference.
void check_once(wb::Stage& stage, Launcher gemv, const std::vector<float>& A, const std::vector<float>& x,
                const Shape& s, bool exact, const std::string& label)
{
    wb::DeviceBuffer<float> dA(A), dx(x), dy(static_cast<std::size_t>(s.M));
    dA.protect(), dx.protect();   // const inputs: stage.run names a write into them
    dy.poison();
    const auto run = [&] { stage.run([&](cudaStream_t st) { gemv(dA.data(), dx.data(), dy.data(), s.M, s.K, st); }); };
    run();
    const ch06::GemvReference ref = ch06::gemv_reference(A, x, s.M, s.K);
    const wb::Tolerance tolerance = exact ? wb::Tolerance::exact() : dot_tolerance(ref, s.K);
    const std::vector<float> got = dy.download();
    const wb::CompareReport report = wb::compare(ref.y, got, tolerance);
    stage.expect(wb::diagnose_unset_vector(report, got, ref.y,
                                           [&] {
                                               WB_CUDA_CHECK(cudaMemset(dy.data(), 0, dy.bytes()));
                                               run();
                                               return wb::compare(ref.y, dy.download(), tolerance);
                                           }),
                 label);
}

/// y = A x for the shape @p s past the 32-bit range: a row offset `row * K` computed in 32 bits wraps past
/// the row that crosses element 2^31 (unsigned: 2^32), and a grid capped at 65535 blocks of 256 rows
/// without a grid-stride loop stops at row 16776960. A and x are filled on the GPU; y is checked on
/// windows of rows (the first, the last, 14 between, and those around the rows that cross 2^31 and 2^32
/// and row 2^24; 64 rows, fewer where rows are long), each against the float64 CPU reference of the rows
/// of A it needs, with the error bound of the other random-value checks.
void check_gemv_huge_once(wb::Stage& stage, Launcher gemv, const Shape& s)
{
    const int64_t window_rows = std::clamp<int64_t>((int64_t(1) << 22) / s.K, 1, 64);
    const bool past_uint = s.M * s.K > wb::kUintLimit;
    const std::string label = wb::with_commas(s.M) + " x " + wb::with_commas(s.K) +
                              (past_uint ? " (past the unsigned 32-bit range" : " (past the int range") +
                              "; checked on rows sampled across it)";
    wb::DeviceBuffer<float> A(static_cast<std::size_t>(s.M * s.K)), x(static_cast<std::size_t>(s.K)),
        y(static_cast<std::size_t>(s.M));
    wb::fill_uniform_device(A.data(), s.M * s.K, wb::seed() + 63, -1.f, 1.f, stage.stream());
    wb::fill_uniform_device(x.data(), s.K, wb::seed() + 64, -1.f, 1.f, stage.stream());
    y.poison();
    wb::run_past_int_range(
        stage, [&](cudaStream_t st) { gemv(A.data(), x.data(), y.data(), s.M, s.K, st); }, label, past_uint);
    const std::vector<float> xs = wb::download_part(x.data(), 0, s.K);
    std::vector<wb::SampledWindow> windows;
    for (const int64_t first : wb::row_windows_past_int_range(s.M, s.K, window_rows)) {
        wb::SampledWindow w;
        w.first = first;
        w.count = std::min(window_rows, s.M - first);
        w.name = "rows " + std::to_string(w.first) + " to " + std::to_string(w.first + w.count - 1);
        const ch06::GemvReference ref =
            ch06::gemv_reference(wb::download_part(A.data(), w.first * s.K, w.count * s.K), xs, w.count, s.K);
        w.report = wb::compare(ref.y, wb::download_part(y.data(), w.first, w.count), dot_tolerance(ref, s.K));
        windows.push_back(std::move(w));
    }
    // y holds one element per row: where it goes wrong says more through the rows of A those read.
    std::string cause;
    for (const wb::SampledWindow& w : windows) {
        if (w.report.ok) continue;
        cause = wb::row_offset_wrap_cause(w.first + std::max<int64_t>(w.report.first_bad, 0), s.K);
        break;
    }
    wb::expect_windows(stage, windows, label, cause);
}

/// The shapes past the int range on a GPU with 13 GiB free (A is up to 8.8 GiB, 4 to spare), then
/// kHugerShape where the GPU has the memory for it.
void check_gemv_huge(wb::Stage& stage, Launcher gemv)
{
    auto bytes_of = [](const Shape& s) { return static_cast<std::size_t>(s.M * s.K + s.K + s.M) * sizeof(float); };
    std::size_t most = 0;
    for (const Shape& s : kHugeShapes) most = std::max(most, bytes_of(s));
    const std::vector<wb::LargeSize> sizes = {
        {most, "the shapes past the int range"},
        {bytes_of(kHugerShape), wb::with_commas(kHugerShape.M) + " x " + wb::with_commas(kHugerShape.K) +
                                    " (past the unsigned 32-bit range)"}};
    wb::for_each_large_size(sizes, [&](std::size_t k) {
        if (k == 1) return check_gemv_huge_once(stage, gemv, kHugerShape);
        for (const Shape& s : kHugeShapes) check_gemv_huge_once(stage, gemv, s);
    });
}

void check_gemv(wb::Stage& stage, Launcher gemv)
{
    wb::Rng rng(6);
    std::vector<Shape> shapes = kShapes;
    if (!wb::emulated()) shapes.insert(shapes.end(), kManyRowShapes.begin(), kManyRowShapes.end());
    for (const Shape& s : shapes) {
        // Small integers: products <= 64 and |partial sums| <= 64 K < 2^24, exact in any order.
        const auto Ai = wb::nonzero_small_integers(static_cast<std::size_t>(s.M * s.K), 8, rng);
        const auto xi = wb::nonzero_small_integers(static_cast<std::size_t>(s.K), 8, rng);
        check_once(stage, gemv, Ai, xi, s, true, shape_label(s) + ", small integers (exact)");
        // The many-row shape is there for the grid (rows past gridDim.y's 65535): one run of it is
        // enough, and on the CPU emulator a second one costs minutes for the block-per-row stage.
        if (s.M > 65535 && wb::emulated()) continue;
        const auto Af = wb::uniform_floats(static_cast<std::size_t>(s.M * s.K), -1.f, 1.f, rng);
        const auto xf = wb::uniform_floats(static_cast<std::size_t>(s.K), -1.f, 1.f, rng);
        check_once(stage, gemv, Af, xf, s, false, shape_label(s) + ", random values");
    }
    // Infinities and NaN (the contract allows any values): a row holding one infinity sums to that
    // infinity, one holding +inf and -inf products to NaN, one holding a NaN to NaN, in any order of the
    // additions; the other rows are small integers (exact). Compensated (Kahan) sums turn inf into NaN.
    for (const Shape& s : std::vector<Shape>{{6, 33}, {6, 1001}, {6, 4100}}) {
        auto A = wb::nonzero_small_integers(static_cast<std::size_t>(s.M * s.K), 8, rng);
        const auto x = wb::nonzero_small_integers(static_cast<std::size_t>(s.K), 8, rng);
        A[static_cast<std::size_t>(s.K / 2)] = INFINITY;       // row 0
        A[static_cast<std::size_t>(s.K)] = -INFINITY;          // row 1
        A[static_cast<std::size_t>(2 * s.K + 1)] = INFINITY;   // row 2: both signs
        A[static_cast<std::size_t>(3 * s.K - 1)] = -INFINITY;
        A[static_cast<std::size_t>(4 * s.K - 1)] = std::nanf("");   // row 3
        check_once(stage, gemv, A, x, s, true, shape_label(s) + ", +-inf and NaN in rows 0 to 3");
    }
    check_gemv_huge(stage, gemv);
}

/// Device inputs large enough for every timed shape (M * K <= 2^28, K <= 2^18, M <= 2^22).
struct TimedInputs {
    wb::DeviceBuffer<float> A, x, y;
    explicit TimedInputs(cudaStream_t stream)
        : A(std::size_t(1) << 28), x(std::size_t(1) << 18), y(std::size_t(1) << 22)
    {
        wb::fill_uniform_device(A.data(), static_cast<int64_t>(A.size()), wb::seed() + 61, -1.f, 1.f, stream);
        wb::fill_uniform_device(x.data(), static_cast<int64_t>(x.size()), wb::seed() + 62, -1.f, 1.f, stream);
    }
};

/// Checks y for shape @p s against the CPU reference computed from the device inputs themselves.
void recheck(wb::Stage& stage, Launcher gemv, TimedInputs& in, const Shape& s)
{
    in.y.poison();
    stage.run([&](cudaStream_t st) { gemv(in.A.data(), in.x.data(), in.y.data(), s.M, s.K, st); });
    std::vector<float> A(static_cast<std::size_t>(s.M * s.K)), x(static_cast<std::size_t>(s.K)),
        y(static_cast<std::size_t>(s.M));
    WB_CUDA_CHECK(cudaMemcpy(A.data(), in.A.data(), A.size() * sizeof(float), cudaMemcpyDeviceToHost));
    WB_CUDA_CHECK(cudaMemcpy(x.data(), in.x.data(), x.size() * sizeof(float), cudaMemcpyDeviceToHost));
    WB_CUDA_CHECK(cudaMemcpy(y.data(), in.y.data(), y.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const ch06::GemvReference ref = ch06::gemv_reference(A, x, s.M, s.K);
    stage.expect(wb::compare(ref.y, y, dot_tolerance(ref, s.K)), shape_label(s) + " (the timed inputs, after timing)");
}

void time_gemv(wb::Stage& stage, Launcher gemv, Launcher previous, Launcher current, const Shape& s)
{
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    TimedInputs in(stage.stream());
    auto launch_of = [&](Launcher f) {
        return [&, f](cudaStream_t st) { f(in.A.data(), in.x.data(), in.y.data(), s.M, s.K, st); };
    };
    wb::SpeedCase speed;
    speed.description = shape_label(s);
    speed.candidate = launch_of(gemv);
    if (previous) speed.previous_reference = launch_of(previous);
    speed.current_reference = launch_of(current);
    speed.bytes = gemv_bytes(s);
    speed.recheck = [&] { recheck(stage, gemv, in, s); };
    stage.check_speed(speed);
}

/// On the CPU emulator, after the correctness checks: sectors per request (is A read along its rows by
/// consecutive lanes?) and the other counters of the stage beside reference stages K - 1 and K, on a
/// small matrix of the shape the stage is for (harness/emulated_profile.hpp). Advice beside a pass.
void compare_memory(wb::Stage& stage, Launcher candidate, Launcher previous, Launcher current, const Shape& shape)
{
    if (!wb::emulated()) return;
    const int64_t M = shape.M, K = shape.K;
    wb::DeviceBuffer<float> A(M * K), x(K), y(M);
    wb::fill_uniform_device(A.data(), M * K, wb::seed() + 61, -1.f, 1.f, stage.stream());
    wb::fill_uniform_device(x.data(), K, wb::seed() + 62, -1.f, 1.f, stage.stream());
    auto launch_of = [&](Launcher f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t s) { f(A.data(), x.data(), y.data(), M, K, s); };
    };
    stage.compare_memory_behaviour(
        {shape_label(shape) + " floats", launch_of(candidate), launch_of(previous), launch_of(current)});
}

/// The shape each stage's counters are taken on: short rows for stage 4, long rows for stage 5.
Shape counted_shape(int stage_id)
{
    if (stage_id == 4) return {1024, 32};
    if (stage_id == 5) return {32, 4096};
    return {256, 256};
}

}   // namespace

namespace stages = wb::stages;   // candidate<K>, previous<K>, current<K>: the launchers of stage K

/// Every shape of check_gemv, then timed on 65536 x 4096 against reference stages K - 1 and K.
template <int K>
void grade_stage_case(wb::Stage& stage)
{
    check_gemv(stage, stages::candidate<K>);
    compare_memory(stage, stages::counted_candidate<K>, stages::counted_previous<K>, stages::counted_current<K>,
                   counted_shape(K));
    time_gemv(stage, stages::candidate<K>, stages::previous<K>, stages::current<K>, {65536, 4096});
}

/// Stage 3: a wide matrix: 1024 rows are only 1024 warps, so what each warp keeps in flight decides.
template <>
void grade_stage_case<3>(wb::Stage& stage)
{
    check_gemv(stage, stages::candidate<3>);
    compare_memory(stage, stages::counted_candidate<3>, stages::counted_previous<3>, stages::counted_current<3>,
                   counted_shape(3));
    time_gemv(stage, stages::candidate<3>, stages::previous<3>, stages::current<3>, {1024, 262144});
}

/// Stage 4: groups of lanes per row pay off on short rows: timed on 4194304 x 32.
template <>
void grade_stage_case<4>(wb::Stage& stage)
{
    check_gemv(stage, stages::candidate<4>);
    compare_memory(stage, stages::counted_candidate<4>, stages::counted_previous<4>, stages::counted_current<4>,
                   counted_shape(4));
    time_gemv(stage, stages::candidate<4>, stages::previous<4>, stages::current<4>, {4194304, 32});
}

/// Stage 5: one block per row pays off on long rows: timed on 1024 x 262144.
template <>
void grade_stage_case<5>(wb::Stage& stage)
{
    check_gemv(stage, stages::candidate<5>);
    compare_memory(stage, stages::counted_candidate<5>, stages::counted_previous<5>, stages::counted_current<5>,
                   counted_shape(5));
    time_gemv(stage, stages::candidate<5>, stages::previous<5>, stages::current<5>, {1024, 262144});
}

/// Stage 6: the dispatch, timed on the five benchmark shapes in a row against cuBLAS.
template <>
void grade_stage_case<6>(wb::Stage& stage)
{
    check_gemv(stage, stages::candidate<6>);
    compare_memory(stage, stages::counted_candidate<6>, stages::counted_previous<6>, stages::counted_current<6>,
                   counted_shape(6));
    // Timed: the five benchmark shapes one after the other, against cuBLAS on the same shapes.
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    TimedInputs in(stage.stream());
    auto all_shapes = [&](Launcher f) {
        return [&, f](cudaStream_t st) {
            for (const Shape& s : kBenchShapes) f(in.A.data(), in.x.data(), in.y.data(), s.M, s.K, st);
        };
    };
    double bytes = 0.0;
    for (const Shape& s : kBenchShapes) bytes += gemv_bytes(s);
    wb::SpeedCase speed;
    speed.description = "16384 x 16384, 65536 x 4096, 4096 x 65536, 1048576 x 128, 4194304 x 32 in a row";
    speed.candidate = all_shapes(stages::candidate<6>);
    speed.current_reference = all_shapes(stages::current<6>);
    speed.previous_reference = all_shapes(ch06::cublas_gemv);
    speed.previous_label = "cuBLAS cublasSgemv on the same shapes";
    speed.bytes = bytes;
    speed.recheck = [&] {
        for (const Shape& s : kBenchShapes) recheck(stage, stages::candidate<6>, in, s);
    };
    stage.check_speed(speed);
}

// `make bench`: cuBLAS and every reference stage at the five anchor shapes.
TEST_CASE("bench: chapter 6", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    wb::Stream stream;
    const cudaStream_t s = stream.get();
    TimedInputs in(s);
    const auto ladder = stages::reference_launchers();
    for (const Shape& shape : kBenchShapes) {
        const std::string label = "[" + std::to_string(shape.M) + ", " + std::to_string(shape.K) + "]";
        auto time = [&](Launcher f) {
            return wb::median_ms(
                s, [&](cudaStream_t st) { f(in.A.data(), in.x.data(), in.y.data(), shape.M, shape.K, st); });
        };
        wb::print_bench_row(
            {"gemv", "cuBLAS cublasSgemv", label, "float32", time(ch06::cublas_gemv), gemv_bytes(shape), 0.0, 0});
        for (int id = 1; id <= wb::generated::kStageCount; ++id) {
            wb::print_bench_row(
                {"gemv", wb::stage_label(id), label, "float32", time(ladder[id - 1]), gemv_bytes(shape), 0.0, id});
        }
    }
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
