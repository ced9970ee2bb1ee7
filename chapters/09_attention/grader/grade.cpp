// Chapter 9 grader: every stage in fp16 and bf16 on small and odd shapes against a float64 CPU
// reference (O and lse checked separately), then, on a GPU, larger shapes on sampled rows and the
// speed-up over the previous reference stage. See harness/stage.hpp for the rules and
// chapters/09_attention/grader/reference.hpp for the inputs and the tolerances.
//
// grade_stage_case<K> grades every stage alike; the stages themselves come from stages.json (the
// generated header that harness/chapter_grader.hpp includes).
#include "harness/chapter_grader.hpp"   // the stages of stages.json: both tracks, launchers, test cases

#include "09_attention/grader/reference.hpp"
#include "harness/emulated_profile.hpp"
#include "harness/device.hpp"
#include "harness/timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Attention = void (*)(const ch09::Shape&, const void*, const void*, const void*, ch08::Dtype, void*, float*,
                           cudaStream_t);

/// One graded problem. scale 0 means 1 / sqrt(head_dim). Inputs are m * 2^(shift - 8), |m| < 256.
struct Case {
    int batch, heads, q_len, kv_len, head_dim;
    bool causal;
    float scale;
    int shift;
    bool ties;          ///< every key of a (batch, head) identical: all scores tie
    const char* what;   ///< why the case is there
};

ch09::Shape shape_of(const Case& c)
{
    const float scale = c.scale != 0.0f ? c.scale : 1.0f / std::sqrt(static_cast<float>(c.head_dim));
    return {c.batch, c.heads, c.q_len, c.kv_len, c.head_dim, c.causal, scale};
}

std::string describe(const Case& c, ch08::Dtype dtype)
{
    char text[300];
    std::snprintf(text, sizeof text, "%s, B = %d, H = %d, q_len = %d, kv_len = %d, head_dim = %d, %s, scale %g (%s)",
                  ch08::dtype_name(dtype), c.batch, c.heads, c.q_len, c.kv_len, c.head_dim,
                  c.causal ? "causal" : "not causal", static_cast<double>(shape_of(c).scale), c.what);
    return text;
}

/// Small on purpose: the emulator runs every thread in C++. The first case writes more than 64
/// elements, so an untouched skeleton reports "not implemented yet" at once.
const Case kCases[] = {
    {1, 2, 17, 17, 64, false, 0.0f, 0, false, "nothing a multiple of a tile"},
    {1, 1, 1, 1, 64, true, 0.0f, 0, false, "one query, one key"},
    {1, 2, 63, 65, 128, true, 0.0f, 0, false, "causal, q_len < kv_len: every row sees 2 more keys than its index"},
    {2, 1, 65, 63, 64, true, 0.0f, 0, false, "causal, q_len > kv_len: the first 2 rows see no key (O = 0, lse = -inf)"},
    {1, 1, 100, 17, 128, true, 0.0f, 0, false, "causal, q_len >> kv_len: 83 rows see no key"},
    {1, 1, 17, 100, 64, false, 0.0f, 0, false, "q_len < kv_len, not causal"},
    {1, 1, 33, 47, 64, true, 4.0f, 5, false, "logits near 1e4: exp without the running maximum overflows"},
    {1, 2, 45, 70, 128, true, -4.0f, 5, false,
     "a negative scale, logits near 1e4: the largest comes from the most negative q . k"},
    {1, 2, 20, 40, 128, true, 0.0f, 0, true, "identical keys: every score ties"},
    {1, 2, 1, 300, 128, false, 0.0f, 2, false, "decode: one query, a long cache, peaked softmax"},
    {1, 1, 3, 130, 64, true, 0.0f, -2, false, "decode with a causal tail, small values"},
    {1, 2, 1, 1100, 64, false, 0.0f, 0, false, "decode: a cache long enough to be split into several chunks"},
    {1, 1, 130, 130, 128, true, 0.0f, 0, false, "square causal, three query tiles of 64"},
    {2, 1, 64, 64, 64, false, 0.0f, 0, false, "exactly one tile of 64 queries and two of 32 keys"},
};

/// Shapes too large for the emulator (GPU only), checked on sampled rows against the float64 reference.
const Case kLargeCases[] = {
    {2, 3, 1000, 1100, 128, true, 0.0f, 0, false, "large, causal, q_len < kv_len"},
    {1, 4, 2048, 2048, 64, false, 0.0f, 0, false, "large, not causal"},
    {2, 2, 700, 300, 128, true, 0.0f, 0, false, "large, causal, q_len > kv_len"},
    {4, 8, 1, 9000, 128, false, 0.0f, 0, false, "decode, long cache"},
    {2, 2, 4, 3000, 64, true, 0.0f, 0, false, "decode, 4 queries, causal"},
    {1, 2, 300, 4000, 128, false, 2.0f, 3, false, "large logits, long rows"},
    {1, 1, 600, 1000, 64, true, 0.0f, 0, false, "causal, few rows: split-KV chunks that some rows do not reach"},
};

ch09::Inputs make_inputs(const Case& c, const ch09::Shape& s, wb::Rng& rng)
{
    ch09::Inputs in;
    in.q = ch08::make_values(ch09::q_elements(s), c.shift, rng);
    in.k = ch08::make_values(ch09::kv_elements(s), c.shift, rng);
    in.v = ch08::make_values(ch09::kv_elements(s), 0, rng);
    if (c.ties) {   // every key of a (batch, head) a copy of its first key
        const std::size_t row = s.head_dim, per_head = static_cast<std::size_t>(s.kv_len) * row;
        for (std::size_t h = 0; h < static_cast<std::size_t>(ch09::heads_total(s)); ++h)
            for (std::size_t j = 1; j < static_cast<std::size_t>(s.kv_len); ++j)
                std::copy_n(&in.k[h * per_head], row, &in.k[h * per_head + j * row]);
    }
    return in;
}

/// The rows to check: all of them for small problems, else the first and last rows of the first and
/// last heads (the masked borders) and a random sample.
std::vector<std::int64_t> rows_to_check(const ch09::Shape& s, bool sample, wb::Rng& rng)
{
    const std::int64_t rows = ch09::rows_total(s);
    std::vector<std::int64_t> picked;
    if (!sample) {
        for (std::int64_t r = 0; r < rows; ++r) picked.push_back(r);
        return picked;
    }
    const std::int64_t last_head = (ch09::heads_total(s) - 1) * s.q_len;
    for (std::int64_t base : {std::int64_t{0}, last_head})
        for (std::int64_t i : {0, 1, 2, s.q_len / 2, s.q_len - 2, s.q_len - 1})
            if (i >= 0 && i < s.q_len) picked.push_back(base + i);
    for (int n = 0; n < 48; ++n) picked.push_back(static_cast<std::int64_t>(rng.next_u64() % rows));
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    return picked;
}

template <typename T>
std::vector<T> as_type(const std::vector<std::uint16_t>& bits)
{
    std::vector<T> out(bits.size());
    std::memcpy(out.data(), bits.data(), bits.size() * sizeof(std::uint16_t));
    return out;
}

/// Compares O and lse of @p rows with the reference; @p what names the case.
void expect_rows(wb::Stage& stage, const ch09::Shape& s, const ch09::Inputs& in, ch08::Dtype dtype, bool p_rounded,
                 const std::vector<std::int64_t>& rows, const std::vector<std::uint16_t>& o_bits,
                 const std::vector<float>& lse_all, const std::string& what)
{
    const ch09::Reference ref = ch09::attention_reference(s, in, rows, dtype, p_rounded);
    const int D = s.head_dim;
    const bool all_rows = static_cast<std::int64_t>(rows.size()) == ch09::rows_total(s);
    std::vector<std::uint16_t> o_rows(rows.size() * D);
    std::vector<float> lse_rows(rows.size());
    for (std::size_t n = 0; n < rows.size(); ++n) {
        std::copy_n(&o_bits[static_cast<std::size_t>(rows[n]) * D], D, &o_rows[n * D]);
        lse_rows[n] = lse_all[static_cast<std::size_t>(rows[n])];
    }
    const std::string where = all_rows ? " (rows are (batch * heads + head) * q_len + query)"
                                       : " (rows are the sampled query rows, in order)";
    const wb::Layout o_layout = wb::Layout::matrix(static_cast<std::int64_t>(rows.size()), D);
    const wb::CompareReport o_report =
        dtype == ch08::Dtype::f16 ? wb::compare(ref.o, as_type<__half>(o_rows), ch09::o_tolerance(ref, dtype), o_layout,
                                                wb::Operation::exponential())
                                  : wb::compare(ref.o, as_type<__nv_bfloat16>(o_rows), ch09::o_tolerance(ref, dtype),
                                                o_layout, wb::Operation::exponential());
    stage.expect(o_report, "O, " + what + where);
    stage.expect(wb::compare(ref.lse, lse_rows, ch09::lse_tolerance(ref),
                             all_rows ? wb::Layout::matrix(ch09::heads_total(s), s.q_len) : wb::Layout::vector(),
                             wb::Operation::exponential(true)),
                 "lse, " + what + (all_rows ? " (rows are batch * heads + head, columns the query)" : where));
}

void check_case(wb::Stage& stage, Attention attention, const Case& c, ch08::Dtype dtype, bool p_rounded, bool sample,
                wb::Rng& rng)
{
    const ch09::Shape s = shape_of(c);
    const ch09::Inputs in = make_inputs(c, s, rng);
    wb::DeviceBuffer<std::uint16_t> dq(ch08::encode_all(in.q, dtype)), dk(ch08::encode_all(in.k, dtype)),
        dv(ch08::encode_all(in.v, dtype));
    dq.protect(), dk.protect(), dv.protect();   // const inputs: stage.run names a write into them
    wb::DeviceBuffer<std::uint16_t> dO(ch09::q_elements(s));
    wb::DeviceBuffer<float> dL(static_cast<std::size_t>(ch09::rows_total(s)));
    dO.poison(), dL.poison();   // NaN: every element must be written, masked rows too
    stage.run([&](cudaStream_t st) { attention(s, dq.data(), dk.data(), dv.data(), dtype, dO.data(), dL.data(), st); });
    const std::vector<std::int64_t> rows = rows_to_check(s, sample, rng);
    expect_rows(stage, s, in, dtype, p_rounded, rows, dO.download(), dL.download(), describe(c, dtype));
}

void check_all(wb::Stage& stage, Attention attention, bool p_rounded)
{
    wb::Rng rng(9);
    for (const Case& c : kCases)
        for (const ch08::Dtype dtype : {ch08::Dtype::f16, ch08::Dtype::bf16})
            check_case(stage, attention, c, dtype, p_rounded, false, rng);
    if (wb::emulated()) return;   // the large shapes take minutes in emulation
    for (const Case& c : kLargeCases)
        for (const ch08::Dtype dtype : {ch08::Dtype::f16, ch08::Dtype::bf16})
            check_case(stage, attention, c, dtype, p_rounded, true, rng);
}

/// The timed shapes: B, H, S, D = 4, 16, 2048, 128 non-causal for stages 1-5; for stage 6 (against
/// reference stage 5) one sequence's next token: 1, 32, q_len 1, kv_len 16384, 128. With a single batch
/// one block per head is 32 blocks, too few for the GPU, which is the case split-KV is for; with 8 x 32
/// heads, stage 5's 256 blocks already kept an H100 reading at 98% of its copy bandwidth.
const Case kTimed{4, 16, 2048, 2048, 128, false, 0.0f, 0, false, "timed"};
const Case kTimedDecode{1, 32, 1, 16384, 128, false, 0.0f, 0, false, "timed, decode"};

void time_stage(wb::Stage& stage, Attention candidate_fn, Attention previous, Attention current, bool decode,
                bool p_rounded, const char* previous_label = "")
{
    if (!stage.measures_speed()) return;   // emulated or correctness-only: no large inputs
    const Case& c = decode ? kTimedDecode : kTimed;
    const ch09::Shape s = shape_of(c);
    const ch08::Dtype dtype = ch08::Dtype::f16;
    wb::Rng rng(99);
    const ch09::Inputs in = make_inputs(c, s, rng);
    wb::DeviceBuffer<std::uint16_t> dq(ch08::encode_all(in.q, dtype)), dk(ch08::encode_all(in.k, dtype)),
        dv(ch08::encode_all(in.v, dtype));
    wb::DeviceBuffer<std::uint16_t> dO(ch09::q_elements(s));
    wb::DeviceBuffer<float> dL(static_cast<std::size_t>(ch09::rows_total(s)));
    auto launch_of = [&](Attention f) {
        return [&, f](cudaStream_t st) { f(s, dq.data(), dk.data(), dv.data(), dtype, dO.data(), dL.data(), st); };
    };
    char text[160];
    std::snprintf(text, sizeof text, "B, H = %d, %d, q_len %d, kv_len %d, head_dim %d, fp16, %s", c.batch, c.heads,
                  c.q_len, c.kv_len, c.head_dim, c.causal ? "causal" : "not causal");
    wb::SpeedCase speed;
    speed.description = text;
    speed.candidate = launch_of(candidate_fn);
    if (previous) speed.previous_reference = launch_of(previous);
    speed.previous_label = previous_label;
    speed.current_reference = launch_of(current);
    const double work = static_cast<double>(ch09::heads_total(s)) * s.q_len * s.kv_len * s.head_dim;
    speed.flops = 4.0 * work * (c.causal ? 0.5 : 1.0);
    if (decode) speed.bytes = 2.0 * static_cast<double>(ch09::kv_elements(s)) * 2.0;   // K and V, read once
    speed.recheck = [&] {
        dO.poison(), dL.poison();
        stage.run(launch_of(candidate_fn));
        const std::vector<std::int64_t> rows = rows_to_check(s, true, rng);
        expect_rows(stage, s, in, dtype, p_rounded, rows, dO.download(), dL.download(),
                    std::string("the timed inputs, after timing, ") + text);
    };
    stage.check_speed(speed);
}

/// Stages 4 and 5 use tensor cores (mma.sync with bf16, cp.async): compute capability 8.0 or newer.
/// On an older GPU they are reported as skipped, not failed.
void skip_below_compute_capability_8(int id)
{
    if (wb::emulated() || wb::device_info().cc_major >= 8) return;
    char reason[200];
    std::snprintf(reason, sizeof reason,
                  "chapter 9, stage %d needs compute capability 8.0 or newer (tensor-core mma.sync for bf16, "
                  "cp.async); this GPU has %d.%d",
                  id, wb::device_info().cc_major, wb::device_info().cc_minor);
    std::printf("WORKBOOK-SKIP: %s.\n", reason);
    throw wb::StageFailure{wb::Status::skipped, reason};
}

/// On the CPU emulator, after the correctness checks: the stage's memory counters beside reference stages
/// K - 1 and K (instrumented: the learner's code, or namespace counted) on one small fp16 problem, two
/// heads of 128 x 128 with D = 64 (stage 6: one query against 1024 keys). Advice beside a pass.
void compare_memory(wb::Stage& stage, Attention candidate, Attention previous, Attention current, bool decode)
{
    if (!wb::emulated()) return;
    const Case c = decode ? Case{1, 2, 1, 1024, 64, false, 0.0f, 0, false, "memory counters"}
                          : Case{1, 2, 128, 128, 64, false, 0.0f, 0, false, "memory counters"};
    const ch09::Shape s = shape_of(c);
    wb::Rng rng(911);
    const ch09::Inputs in = make_inputs(c, s, rng);
    const ch08::Dtype dtype = ch08::Dtype::f16;
    wb::DeviceBuffer<std::uint16_t> dq(ch08::encode_all(in.q, dtype)), dk(ch08::encode_all(in.k, dtype)),
        dv(ch08::encode_all(in.v, dtype)), dO(ch09::q_elements(s));
    wb::DeviceBuffer<float> dL(static_cast<std::size_t>(ch09::rows_total(s)));
    auto launch_of = [&](Attention f) -> wb::Launch {
        if (!f) return nullptr;
        return [&, f](cudaStream_t st) { f(s, dq.data(), dk.data(), dv.data(), dtype, dO.data(), dL.data(), st); };
    };
    stage.compare_memory_behaviour(
        {decode ? "fp16, 2 heads, 1 query, 1024 keys, D = 64" : "fp16, 2 heads of 128 x 128, D = 64",
         launch_of(candidate), launch_of(previous), launch_of(current)});
}

}   // namespace

/// Grades stage K: correctness in both types, then speed against the previous reference stage.
template <int K>
void grade_stage_case(wb::Stage& stage)
{
    constexpr bool kTensorCores = K == 4 || K == 5 || K == 7;   // may round P to the input type before P V
    if (kTensorCores) skip_below_compute_capability_8(K);
    check_all(stage, wb::stages::candidate<K>, kTensorCores);
    compare_memory(stage, wb::stages::counted_candidate<K>, wb::stages::counted_previous<K>,
                   wb::stages::counted_current<K>, K == 6);
    if constexpr (K == 7) {
        // Stage 7 is the prefill kernel after the decode stage: timed against the prefill kernel before it.
        time_stage(stage, wb::stages::candidate<K>, wb::stages::current<5>, wb::stages::current<K>, false, true,
                   "reference stage 5");
    } else {
        time_stage(stage, wb::stages::candidate<K>, wb::stages::previous<K>, wb::stages::current<K>, K == 6,
                   kTensorCores);
    }
}

// `make bench`: every reference stage on the shapes of PyTorch's measurements (tools/torch_baseline.py
// times scaled_dot_product_attention's backends on the same shapes), fp16. The op names the masking:
// "attention", "attention_causal", and "attention_decode" (reported as bandwidth of K and V read).
TEST_CASE("bench: chapter 9", "[.bench]")
{
    if (!wb::bench_can_run()) return;
    wb::Stream stream;
    const cudaStream_t st = stream.get();
    const auto ladder = wb::stages::reference_launchers();
    constexpr int kStages = wb::generated::kStageCount;
    const Case shapes[] = {
        {16, 16, 1024, 1024, 64, false, 0.0f, 0, false, "bench"},
        {8, 16, 4096, 4096, 64, false, 0.0f, 0, false, "bench"},
        {4, 16, 4096, 4096, 128, false, 0.0f, 0, false, "bench"},
        {4, 16, 4096, 4096, 128, true, 0.0f, 0, false, "bench"},
        {1, 16, 16384, 16384, 128, true, 0.0f, 0, false, "bench"},
        {8, 32, 1, 8192, 128, false, 0.0f, 0, false, "bench"},
        {1, 32, 1, 16384, 128, false, 0.0f, 0, false, "bench"},
    };
    for (const Case& c : shapes) {
        const ch09::Shape s = shape_of(c);
        const ch08::Dtype dtype = ch08::Dtype::f16;
        wb::Rng rng(909);
        const ch09::Inputs in = make_inputs(c, s, rng);
        wb::DeviceBuffer<std::uint16_t> dq(ch08::encode_all(in.q, dtype)), dk(ch08::encode_all(in.k, dtype)),
            dv(ch08::encode_all(in.v, dtype));
        wb::DeviceBuffer<std::uint16_t> dO(ch09::q_elements(s));
        wb::DeviceBuffer<float> dL(static_cast<std::size_t>(ch09::rows_total(s)));
        const bool decode = c.q_len == 1;
        const std::string op = decode ? "attention_decode" : (c.causal ? "attention_causal" : "attention");
        const std::string shape = "[" + std::to_string(c.batch) + ", " + std::to_string(c.heads) + ", " +
                                  std::to_string(c.q_len) + ", " + std::to_string(c.kv_len) + ", " +
                                  std::to_string(c.head_dim) + "]";
        const double flops =
            4.0 * static_cast<double>(ch09::heads_total(s)) * s.q_len * s.kv_len * s.head_dim * (c.causal ? 0.5 : 1.0);
        const double bytes = decode ? 2.0 * static_cast<double>(ch09::kv_elements(s)) * 2.0 : 0.0;
        const double workspace_gib = static_cast<double>(ch09::rows_total(s)) * s.kv_len * 4.0 / (1u << 30);
        for (int k = 0; k < kStages; ++k) {
            if (k == 0 && workspace_gib > 4.0) {   // stage 1's score matrix: skipped above 4 GiB
                std::printf("%s %s: stage 1 skipped (its workspace would be %.0f GiB)\n", op.c_str(), shape.c_str(),
                            workspace_gib);
                continue;
            }
            const Attention f = ladder[k];
            const wb::Launch launch = [&, f](cudaStream_t x) {
                f(s, dq.data(), dk.data(), dv.data(), dtype, dO.data(), dL.data(), x);
            };
            // The slow stages take up to seconds here: as many repetitions as fit in about 1.5 s.
            const double estimate = wb::median_ms(st, launch, wb::TimingPlan{1, 1});
            const int reps = std::clamp(static_cast<int>(1500.0 / std::max(estimate, 1e-3)), 3, 25);
            const double ms = wb::median_ms(st, launch, wb::TimingPlan{0, reps});
            wb::print_bench_row({op, wb::stage_label(k + 1), shape, "float16", ms, bytes, flops, k + 1});
        }
    }
}

// One test case per stage of stages.json ("stage K: <title>", tag [stageK]), each running grade_stage_case<K>.
WORKBOOK_STAGE_TEST_CASES()
