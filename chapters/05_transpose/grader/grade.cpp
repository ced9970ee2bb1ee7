// Chapter 5 grader: every stage against the CPU transpose on adversarial shapes, one large shape
// checked on the GPU, then timed against the reference stages in the same run.
// See harness/stage.hpp for the rules.
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "05_transpose/grader/device_check.hpp"
#include "05_transpose/grader/reference.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/past_int_range.hpp"

#include <algorithm>

#include <cfloat>
#include <cmath>
#include <utility>

namespace {

using std::int64_t;
using Launcher = void (*)(const float*, float*, int64_t, int64_t, cudaStream_t);

/// (rows, cols) every stage must get right: single elements, single rows and columns, sizes one
/// below and above the warp and tile widths, odd and even sizes on each side (the float2 stage
/// needs even cols for its loads and even rows for its stores), whole tiles with partial edges,
/// tall and wide shapes.
const std::vector<std::pair<int64_t, int64_t>> kShapes = {
    {1, 1},     {1, 7},       {7, 1},       {2, 3},       {1, 1000},    {1000, 1},    {31, 33},
    {32, 32},   {33, 17},     {17, 33},     {63, 65},     {64, 64},     {65, 129},    {100, 3},
    {3, 1000},  {128, 256},   {1000, 3001}, {3001, 1000}, {1001, 1024}, {1024, 1001}, {4096, 68},
    {68, 4100}, {2048, 2048}, {2050, 4097}, {4097, 2050}, {70001, 3},   {3, 70001}};   // more rows, or columns, than a grid's y dimension holds (65535)

/// Shapes at the contract's limit (500000 on one side), checked on a GPU only: a grid.y of
/// ceil(side / 4) or ceil(side / 2) is rejected there (the contract promises only ceil(side / 8)).
const std::vector<std::pair<int64_t, int64_t>> kLimitShapes = {{500000, 3}, {3, 500000}};

/// The large shape, checked on the GPU element by element (device_check.hpp).
constexpr int64_t kLargeSide = 16384;

/// The shapes past the 32-bit range, each checked where the GPU has the memory (wb::for_each_large_size):
/// - 40006 x 62498 = 2,500,294,988 elements, 16% past 2^31 (9.3 GiB each way). Neither side is a multiple
///   of 32 or 64, so every tiled stage has partial tiles at both edges; both sides are even, so stage 6's
///   float2 paths run on the whole tiles and its scalar paths on the edges, and a 32-bit index in either
///   path is reached. Not square: the input's flattened index crosses 2^31 in input row 34360 and the
///   output's in output row 53679.
/// - 40007 x 62497: both sides odd, 14% past 2^31. A stage that sends odd shapes to a kernel of their own
///   (no float2 there) runs that kernel here only.
/// - 66002 x 69998 = 4,620,007,996 elements, 7% past 2^32 (17.2 GiB each way): an index kept in 32-bit
///   unsigned arithmetic holds every element below 2^32 and wraps here (the input's index in input row
///   61358, the output's in output row 65073).
const std::vector<std::pair<int64_t, int64_t>> kHugeShapes = {{40006, 62498}, {40007, 62497}, {66002, 69998}};

/// The timed shape: 384 MiB in, 384 MiB out (far beyond any L2), rectangular.
constexpr int64_t kTimedRows = 8192;
constexpr int64_t kTimedCols = 12288;

/// Random values with IEEE special values mixed in: a transpose must move every bit pattern.
std::vector<float> matrix_values(int64_t n, wb::Rng& rng)
{
    std::vector<float> v = wb::uniform_floats(static_cast<std::size_t>(n), -1000.f, 1000.f, rng);
    const float specials[] = {INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX, FLT_MIN, 1e-40f, -0.0f};
    for (int64_t i = 7; i < n; i += 97) v[i] = specials[(i / 97) % 8];
    return v;
}

std::string shape_label(int64_t rows, int64_t cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

/// A small failing shape rarely shows a tiled kernel's pattern (a 1 x 7 matrix fills one corner of one
/// tile, the rest of the tile is whatever shared memory held). So when a failure names no pattern, the
/// launcher runs once more on a shape of whole tiles (128 x 128: two of the largest tiles each way) and
/// the pattern found there, if any, is added to the report: values transposed inside each tile, or
/// rows of every tile skipped.
/// Returns that pattern as a likely cause, or nothing.
std::string tile_pattern_hint(wb::Stage& stage, Launcher transpose)
{
    constexpr int64_t kSide = 128;
    wb::Rng rng(55);
    const std::vector<float> in = wb::uniform_floats(kSide * kSide, -1000.f, 1000.f, rng);   // distinct values
    wb::DeviceBuffer<float> din(in), dout(in.size());
    dout.poison();
    stage.run([&](cudaStream_t s) { transpose(din.data(), dout.data(), kSide, kSide, s); });
    const wb::CompareReport probe = wb::compare(ch05::transpose_reference(in, kSide, kSide), dout.download(),
                                                wb::Tolerance::exact(), wb::Layout::matrix(kSide, kSide));
    if (!probe.tile_pattern) return "";
    return "on a 128 x 128 input (whole tiles) the same launcher shows the pattern: " + probe.cause;
}

void check_transpose(wb::Stage& stage, Launcher transpose)
{
    wb::Rng rng(5);
    std::vector<std::pair<int64_t, int64_t>> shapes = kShapes;
    if (!wb::emulated()) shapes.insert(shapes.end(), kLimitShapes.begin(), kLimitShapes.end());
    for (const auto& [rows, cols] : shapes) {
        const std::vector<float> in = matrix_values(rows * cols, rng);
        wb::DeviceBuffer<float> din(in), dout(in.size());
        din.protect();
        dout.poison();
        stage.run([&](cudaStream_t s) { transpose(din.data(), dout.data(), rows, cols, s); });
        // The output is cols x rows.
        wb::CompareReport report = wb::compare(ch05::transpose_reference(in, rows, cols), dout.download(),
                                               wb::Tolerance::exact(), wb::Layout::matrix(cols, rows));
        if (!report.ok && !report.nothing_written && !report.tile_pattern) {
            // A pattern of tiles explains the small shape's failure better than what it shows alone.
            if (const std::string pattern = tile_pattern_hint(stage, transpose); !pattern.empty())
                wb::replace_likely_cause(report, pattern);
        }
        stage.expect(report, shape_label(rows, cols));
    }
    // The large shape: 1 GiB each way, checked on the GPU (every element, bit for bit). The CPU
    // emulator leaves it to a GPU: 2^28 emulated threads per stage would take minutes, and the shapes
    // above already cover every tile edge case.
    if (wb::emulated()) return;
    const int64_t n = kLargeSide * kLargeSide;
    wb::DeviceBuffer<float> din(n), dout(n);
    wb::fill_uniform_device(din.data(), n, wb::seed() + 51, -1000.f, 1000.f, stage.stream());
    dout.poison();
    stage.run([&](cudaStream_t s) { transpose(din.data(), dout.data(), kLargeSide, kLargeSide, s); });
    stage.expect(ch05::compare_transpose_on_device(din.data(), dout.data(), kLargeSide, kLargeSide, stage.stream()),
                 shape_label(kLargeSide, kLargeSide) + " (checked on the GPU)");
}

/// The transpose of the huge shape @p rows x @p cols: the index of an element past 2^31 - 1, `r * cols + c`
/// on the load side or `c * rows + r` on the store side, does not fit in an int (nor, past 2^32 - 1, in an
/// unsigned int). The input is filled on the GPU; the output is checked on windows of 4 whole output rows
/// (the first, the last, 14 between, and those around the output rows whose elements cross index 2^31 and
/// 2^32 of the output), each against the CPU transpose of the 4 input columns it holds (gathered on the
/// GPU, then downloaded). Every output row also holds the input rows whose elements lie past index 2^31
/// of the input, so a 32-bit load index shows in every window. Exact, as every transpose check.
void check_transpose_huge_once(wb::Stage& stage, Launcher transpose, int64_t rows, int64_t cols,
                               const std::string& label)
{
    const int64_t n = rows * cols;
    constexpr int64_t kWindowRows = 4;   // output rows per window: 4 x rows floats
    wb::DeviceBuffer<float> in(n), out(n);
    wb::fill_uniform_device(in.data(), n, wb::seed() + 54, -1000.f, 1000.f, stage.stream());
    out.poison();
    wb::run_past_int_range(
        stage, [&](cudaStream_t s) { transpose(in.data(), out.data(), rows, cols, s); }, label, n > wb::kUintLimit);
    // The output is cols x rows: its row o holds input column o, and starts at element o * rows. The
    // input columns of a window are gathered on the GPU (one pitched copy), then downloaded in one piece.
    wb::DeviceBuffer<float> gathered(static_cast<std::size_t>(rows * kWindowRows));
    std::vector<wb::SampledWindow> windows;
    for (const int64_t first_row : wb::row_windows_past_int_range(cols, rows, kWindowRows)) {
        const int64_t count_rows = std::min(kWindowRows, cols - first_row);
        WB_CUDA_CHECK(cudaMemcpy2DAsync(gathered.data(), count_rows * sizeof(float), in.data() + first_row,
                                        cols * sizeof(float), count_rows * sizeof(float), rows,
                                        cudaMemcpyDeviceToDevice, stage.stream()));
        WB_CUDA_CHECK(cudaStreamSynchronize(stage.stream()));
        const std::vector<float> columns =
            wb::download_part(gathered.data(), 0, rows * count_rows);   // rows x count_rows
        wb::SampledWindow w;
        w.first = first_row * rows;
        w.count = count_rows * rows;
        w.name = "output rows " + std::to_string(first_row) + " to " + std::to_string(first_row + count_rows - 1) +
                 " (elements " + std::to_string(w.first) + " to " + std::to_string(w.first + w.count - 1) + ")";
        w.report = wb::compare(ch05::transpose_reference(columns, rows, count_rows),
                               wb::download_part(out.data(), w.first, w.count), wb::Tolerance::exact(),
                               wb::Layout::matrix(count_rows, rows));
        windows.push_back(std::move(w));
    }
    // Where the loads wrap, every output row goes wrong at the input row whose elements pass 2^31 or 2^32:
    // a window not also overwritten by wrapped stores shows it at its first wrong element.
    std::string load_cause;
    for (const wb::SampledWindow& w : windows) {
        if (w.report.ok || !load_cause.empty()) continue;
        const int64_t first_bad = std::max<int64_t>(w.report.first_bad, 0);
        load_cause = ch05::wrapped_load_cause(w.first / rows + first_bad / rows, first_bad % rows, rows, cols);
    }
    wb::expect_windows(stage, windows, label, load_cause);
}

/// The huge shapes, each where the GPU has the memory (two arrays, 4 GiB to spare: 23 GiB for the first).
void check_transpose_huge(wb::Stage& stage, Launcher transpose)
{
    std::vector<wb::LargeSize> sizes;
    for (const auto& [rows, cols] : kHugeShapes) {
        const int64_t n = rows * cols;
        sizes.push_back({2 * static_cast<std::size_t>(n) * sizeof(float),
                         shape_label(rows, cols) + (rows % 2 == 1 && cols % 2 == 1 ? ", both sides odd" : "") +
                             (n > wb::kUintLimit ? " (past the unsigned 32-bit range" : " (past the int range") +
                             "; checked on output rows sampled across it)"});
    }
    wb::for_each_large_size(sizes, [&](std::size_t k) {
        check_transpose_huge_once(stage, transpose, kHugeShapes[k].first, kHugeShapes[k].second, sizes[k].label);
    });
}

void time_transpose(wb::Stage& stage, Launcher transpose, Launcher previous, Launcher current)
{
    if (!stage.measures_speed()) return;   // nothing timed (CPU emulator, WORKBOOK_CORRECTNESS_ONLY): no large inputs
    const int64_t rows = kTimedRows, cols = kTimedCols, n = rows * cols;
    wb::DeviceBuffer<float> in(n), out(n);
    wb::fill_uniform_device(in.data(), n, wb::seed() + 52, -1.f, 1.f, stage.stream());
    auto launch_of = [&](Launcher f) { return [&, f](cudaStream_t s) { f(in.data(), out.data(), rows, cols, s); }; };
    wb::SpeedCase speed;
    speed.description = shape_label(rows, cols) + " floats";
    speed.candidate = launch_of(transpose);
    if (previous) speed.previous_reference = launch_of(previous);
    speed.current_reference = launch_of(current);
    speed.bytes = 2.0 * n * sizeof(float);   // read once, write once: the bytes of a copy
    speed.recheck = [&] {
        out.poison();
        stage.run(launch_of(transpose));
        stage.expect(ch05::compare_transpose_on_device(in.data(), out.data(), rows, cols, stage.stream()),
                     "the timed shape, after timing");
    };
    stage.check_speed(speed);
}

/// What stages 3, 5 and 6 must show in their launch, whatever their speed: on some GPUs their
/// reference gains little over the stage before (x0.95 is all the speed rule asks of stage 5 on an
/// H100), so a copy of the previous stage would pass on speed alone. "" when the launch shows the idea.
std::string transpose_idea_missing(int stage_id, const std::vector<wb::KernelFacts>& kernels, int64_t elements)
{
    std::size_t most_shared = 0;
    int64_t threads = 0, fewest_per_block = elements;
    for (const wb::KernelFacts& k : kernels) {
        most_shared = std::max(most_shared, k.shared_per_block());
        threads += k.blocks() * k.threads_per_block();
        fewest_per_block = std::min(fewest_per_block, elements / std::max<int64_t>(1, k.blocks()));
    }
    const int64_t per_thread = threads > 0 ? elements / threads : 0;
    if (stage_id == 3 && most_shared < 32 * 32 * sizeof(float)) {
        return "no block keeps a 32 x 32 tile in shared memory (" + std::to_string(most_shared) +
               " bytes at most). This stage reads a tile with coalesced rows into a __shared__ array and writes it "
               "out transposed, so that the writes are coalesced too.";
    }
    if (stage_id == 5 && per_thread < 8) {
        return "each thread moves " + std::to_string(per_thread) +
               " elements. This stage keeps the padded 32 x 32 "
               "tile with 32 x 4 threads, so that each thread moves eight (more loads in flight per thread).";
    }
    if (stage_id == 6 && fewest_per_block < 64 * 64) {
        return "a block moves " + std::to_string(fewest_per_block) +
               " elements. This stage moves a 64 x 64 tile "
               "per block, with float2 accesses.";
    }
    return "";
}

void check_transpose_idea(wb::Stage& stage, Launcher transpose, int stage_id)
{
    const int64_t side = 256, n = side * side;
    wb::DeviceBuffer<float> in(n), out(n);
    wb::fill_uniform_device(in.data(), n, wb::seed() + 53, -1.f, 1.f, stage.stream());
    stage.check_idea(
        [&](cudaStream_t s) { transpose(in.data(), out.data(), side, side, s); },
        [&](const std::vector<wb::KernelFacts>& kernels) { return transpose_idea_missing(stage_id, kernels, n); });
}

/// The same stages, instrumented, for the emulator's memory-behaviour counters (chapter_grader.hpp).
struct CountedStages {
    Launcher candidate;
    Launcher previous;   ///< nullptr for stage 1
    Launcher current;
};

/// On the CPU emulator: sectors per request and bank conflicts of the stage beside reference stages
/// k-1 and k, on one small square of whole 64 x 64 tiles (every stage's tiles are full there).
void compare_memory(wb::Stage& stage, const CountedStages& counted_stages)
{
    if (!wb::emulated()) return;
    constexpr int64_t kSide = 128;
    wb::Rng rng(57);
    wb::DeviceBuffer<float> in(wb::uniform_floats(kSide * kSide, -1.f, 1.f, rng)), out(kSide * kSide);
    auto launch_of = [&](Launcher f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t s) { f(in.data(), out.data(), kSide, kSide, s); };
    };
    // Graded: coalescing and bank conflicts are the ideas of this chapter's stages.
    stage.compare_memory_behaviour({shape_label(kSide, kSide) + " floats", launch_of(counted_stages.candidate),
                                    launch_of(counted_stages.previous), launch_of(counted_stages.current), true});
}

void grade(wb::Stage& stage, Launcher candidate_stage, Launcher previous, Launcher current,
           const CountedStages& counted_stages)
{
    check_transpose(stage, candidate_stage);
    check_transpose_huge(stage, candidate_stage);   // after the 16384 x 16384 buffers are freed
    const int id = stage.info().id;
    if (id == 3 || id == 5 || id == 6) check_transpose_idea(stage, candidate_stage, id);
    compare_memory(stage, counted_stages);
    time_transpose(stage, candidate_stage, previous, current);
}

}   // namespace

/// Every stage: the shapes of grade(), then timed against reference stages K - 1 and K.
template <int K>
void grade_stage_case(wb::Stage& stage)
{
    grade(stage, wb::stages::candidate<K>, wb::stages::previous<K>, wb::stages::current<K>,
          {wb::stages::counted_candidate<K>, wb::stages::counted_previous<K>, wb::stages::counted_current<K>});
}

// `make bench`: every reference stage at the anchor shapes, next to a plain device copy of the same
// bytes (the chapter's bar: the last stage at >= 93% of that copy on 16384 x 16384).
TEST_CASE("bench: chapter 5", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    wb::Stream stream;
    const cudaStream_t s = stream.get();
    const auto stages = wb::stages::reference_launchers();
    for (int64_t side : {4096, 8192, 16384}) {
        const int64_t n = side * side;
        const double bytes = 2.0 * n * sizeof(float);
        const std::string shape = "[" + std::to_string(side) + ", " + std::to_string(side) + "]";
        wb::DeviceBuffer<float> in(n), out(n);
        wb::fill_uniform_device(in.data(), n, 7, -1.f, 1.f, s);
        wb::print_bench_row({"copy", "cudaMemcpyAsync device to device", shape, "float32",
                             wb::median_ms(s,
                                           [&](cudaStream_t st) {
                                               WB_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(float),
                                                                             cudaMemcpyDeviceToDevice, st));
                                           }),
                             bytes, 0.0, 0});
        for (int id = 1; id <= wb::generated::kStageCount; ++id) {
            const Launcher f = stages[id - 1];
            wb::print_bench_row({"transpose", wb::stage_label(id), shape, "float32",
                                 wb::median_ms(s, [&](cudaStream_t st) { f(in.data(), out.data(), side, side, st); }),
                                 bytes, 0.0, id});
        }
    }
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
