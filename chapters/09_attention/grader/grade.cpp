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
#include "harness/device_kernels.hpp"
#include "harness/past_int_range.hpp"
#include "harness/sampling.hpp"
#include "harness/timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
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
    {1, 1, 300, 300, 64, true, 0.0f, 0, false, "square causal: split-KV chunks that the first rows do not reach"},
    {1, 1, 130, 130, 128, true, 0.0f, 0, false, "square causal, three query tiles of 64"},
    {2, 1, 64, 64, 64, false, 0.0f, 0, false, "exactly one tile of 64 queries and two of 32 keys"},
    {1, 2, 150, 90, 64, false, 0.0f, 0, false, "not causal, several query tiles per head (2 of 128, 3 of 64)"},
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
    {4, 16384, 2, 3, 64, true, 0.0f, 0, false,
     "batch * heads = 2^16, the contract's most: one more than a grid's y dimension holds (65535)"},
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

// ---- past the int range (GPU only) -----------------------------------------------------------------

/// A problem whose Q and O (the first) or K and V (the second) pass 2^31 elements, in one type. Inputs
/// are uniform in [-1, 1), filled on the GPU (the `shift` of Case is not used).
struct HugeCase {
    Case shape;
    ch08::Dtype dtype;
};

/// Q and O: 4 x 68 heads of 131071 x 64, 2,281,683,968 elements each (2^31 x 1.06), against 17 keys, so
/// that the arithmetic stays small (3.6e7 rows of 17 keys). K and V: 4 x 4099 heads of 1091 x 128,
/// 2,289,668,608 elements each (2^31 x 1.07), 3 causal queries per head (a decode step with its causal
/// tail). Neither size is a multiple of a tile or of 32; batch * heads stays below 65535 (a grid's y).
/// Then, where the GPU has the memory (34.3 GiB with a stage's workspace), Q and O of head_dim 128 in bf16:
/// 4,563,367,936 elements each (2^32 x 1.06), where an offset kept in unsigned 32 bits wraps too. And after
/// the K and V case, where the GPU has the memory (17.5 GiB), K and V of 4 x 8198 heads of 1091 x 128 in
/// fp16: 4,579,337,216 elements each (2^32 x 1.07); head 30755 (batch 3, head 6161) straddles element 2^32,
/// so a head offset bh * kv_len * head_dim kept in unsigned 32 bits wraps from there on.
const HugeCase kHugeQo = {{4, 68, 131071, 17, 64, false, 0.0f, 0, false,
                           "Q and O hold 2,281,683,968 elements: past the int range, checked on windows of 8 rows"},
                          ch08::Dtype::f16};
const HugeCase kHugerQo = {{4, 68, 131071, 17, 128, false, 0.0f, 0, false,
                            "Q and O hold 4,563,367,936 elements: past the unsigned 32-bit range, checked on "
                            "windows of 8 rows"},
                           ch08::Dtype::bf16};
const HugeCase kHugeKv = {{4, 4099, 3, 1091, 128, true, 0.0f, 0, false,
                           "K and V hold 2,289,668,608 elements: past the int range, checked on windows of 8 rows"},
                          ch08::Dtype::bf16};
const HugeCase kHugerKv = {{4, 8198, 3, 1091, 128, true, 0.0f, 0, false,
                            "K and V hold 4,579,337,216 elements: past the unsigned 32-bit range, checked on "
                            "windows of 8 rows"},
                           ch08::Dtype::f16};

constexpr std::int64_t kHugeWindowRows = 8;

/// The first rows of the windows of a problem past the int range: row_windows_past_int_range (the first
/// and last rows, 14 windows between, the rows whose O elements cross index 2^31, row 2^24) and the rows
/// of the heads around those whose K and V elements cross index 2^31 and 2^32 (a per-head offset in an int
/// or an unsigned int goes wrong from there on).
std::vector<std::int64_t> huge_row_windows(const ch09::Shape& s)
{
    const std::int64_t rows = ch09::rows_total(s), width = kHugeWindowRows;
    std::vector<std::int64_t> starts = wb::row_windows_past_int_range(rows, s.head_dim, width);
    for (const std::int64_t limit : {wb::kIntLimit, wb::kUintLimit}) {
        const std::int64_t head = limit / (static_cast<std::int64_t>(s.kv_len) * s.head_dim);
        if (head >= ch09::heads_total(s)) continue;
        for (std::int64_t row : {head * s.q_len - width / 2, (head + 1) * s.q_len})
            starts.push_back(std::clamp<std::int64_t>(row, 0, std::max<std::int64_t>(rows - width, 0)));
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    return starts;
}

/// The float64 reference (ch09::attention_reference, with its tolerances) of rows [first, first + count)
/// of a large problem, from the inputs those rows read, downloaded: the window's Q rows and the K and V
/// of their heads. Each head's part is a problem of its own with the queries before the window dropped:
/// the causal mask is aligned to the last query, so every row keeps its visible keys.
ch09::Reference window_reference(const ch09::Shape& s, const std::uint16_t* q, const std::uint16_t* k,
                                 const std::uint16_t* v, std::int64_t first, std::int64_t count, ch08::Dtype dtype,
                                 bool p_rounded)
{
    const std::int64_t D = s.head_dim, head_elements = static_cast<std::int64_t>(s.kv_len) * D;
    ch09::Reference all;
    for (std::int64_t row = first; row < first + count;) {
        const std::int64_t bh = row / s.q_len, i = row % s.q_len;
        const std::int64_t n = std::min<std::int64_t>(first + count - row, s.q_len - i);   // rows of this head
        ch09::Shape part = s;
        part.batch = 1, part.heads = 1, part.q_len = static_cast<int>(s.q_len - i);
        ch09::Inputs in;
        in.q = ch08::decode_all(wb::download_part(q, row * D, n * D), dtype);
        in.k = ch08::decode_all(wb::download_part(k, bh * head_elements, head_elements), dtype);
        in.v = ch08::decode_all(wb::download_part(v, bh * head_elements, head_elements), dtype);
        std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
        std::iota(rows.begin(), rows.end(), std::int64_t{0});
        const ch09::Reference ref = ch09::attention_reference(part, in, rows, dtype, p_rounded);
        for (std::int64_t r : rows) all.rows.push_back(row + r);
        all.o.insert(all.o.end(), ref.o.begin(), ref.o.end());
        all.lse.insert(all.lse.end(), ref.lse.begin(), ref.lse.end());
        all.o_abs = std::max(all.o_abs, ref.o_abs);
        all.lse_abs = std::max(all.lse_abs, ref.lse_abs);
        row += n;
    }
    return all;
}

/// "rows 33554428 to 33554435 (batch 1, head 52, queries 252 to 259)", or the heads a window spans.
std::string window_name(const ch09::Shape& s, std::int64_t first, std::int64_t count)
{
    const std::int64_t last = first + count - 1, bh = first / s.q_len, last_bh = last / s.q_len;
    std::string name = "rows " + std::to_string(first) + " to " + std::to_string(last);
    if (bh == last_bh) {
        return name + " (batch " + std::to_string(bh / s.heads) + ", head " + std::to_string(bh % s.heads) +
               ", queries " + std::to_string(first % s.q_len) + " to " + std::to_string(last % s.q_len) + ")";
    }
    return name + " (batch * heads + head = " + std::to_string(bh) + " to " + std::to_string(last_bh) + ")";
}

/// The GPU memory of the case @p h: Q, K, V, O and lse, and room for a stage's own workspace (reference
/// stage 6 keeps head_dim + 1 floats per row, stage 1 kv_len).
std::size_t huge_bytes(const HugeCase& h)
{
    const ch09::Shape s = shape_of(h.shape);
    const auto rows = static_cast<std::size_t>(ch09::rows_total(s));
    const std::size_t workspace = rows * static_cast<std::size_t>(std::max(s.kv_len, s.head_dim + 1)) * sizeof(float);
    return 2 * (ch09::q_elements(s) + ch09::kv_elements(s)) * sizeof(std::uint16_t) + rows * sizeof(float) + workspace;
}

/// Where K and V pass 2^31 elements, what the first wrong one of @p windows (of O, or of lse: @p per_row
/// elements per row) says: when its first wrong row belongs to the first head that reads past element 2^31
/// or 2^32 of K and V, the head offset bh * kv_len * head_dim wraps there (wb::row_offset_wrap_cause).
/// wb::sampled_output_cause would read the place in O as "a grid that stops short". Empty otherwise.
std::string head_offset_cause(const ch09::Shape& s, const std::vector<wb::SampledWindow>& windows, std::int64_t per_row)
{
    if (ch09::kv_elements(s) <= static_cast<std::size_t>(wb::kIntLimit)) return "";
    const auto wrong =
        std::find_if(windows.begin(), windows.end(), [](const wb::SampledWindow& w) { return !w.report.ok; });
    if (wrong == windows.end()) return "";
    const std::int64_t row = (wrong->first + std::max<std::int64_t>(wrong->report.first_bad, 0)) / per_row;
    return wb::row_offset_wrap_cause(row / s.q_len, static_cast<std::int64_t>(s.kv_len) * s.head_dim, "head",
                                     "K and V");
}

/// One case past the 32-bit range, on a GPU with the memory for it (huge_bytes). Inputs are filled
/// on the GPU, O and lse poisoned; O and lse are compared on windows of 8 rows (huge_row_windows) with
/// the chapter's reference and tolerances, O first. An index or offset held in an int (row * head_dim,
/// or bh * kv_len * head_dim) is negative past 2^31 - 1: a crash (run_past_int_range says why), or
/// wrong or unwritten windows from the row or head where it wraps (expect_windows says where).
void check_huge(wb::Stage& stage, Attention attention, const HugeCase& h, bool p_rounded)
{
    const ch09::Shape s = shape_of(h.shape);
    const ch08::Dtype dtype = h.dtype;
    const std::string label = describe(h.shape, dtype);
    const std::size_t q_count = ch09::q_elements(s), kv_count = ch09::kv_elements(s);
    const auto rows = static_cast<std::size_t>(ch09::rows_total(s));
    // K first: a head offset that wraps to -2^31 then points before every array of the case (most likely
    // at nothing mapped: a fault) rather than into another array of it.
    wb::DeviceBuffer<std::uint16_t> dk(kv_count), dv(kv_count), dq(q_count), dO(q_count);
    wb::DeviceBuffer<float> dL(rows);
    std::uint64_t seed = wb::seed() + 9001;
    for (wb::DeviceBuffer<std::uint16_t>* input : {&dq, &dk, &dv}) {
        const auto n = static_cast<std::int64_t>(input->size());
        if (dtype == ch08::Dtype::f16) {
            wb::fill_uniform_device(reinterpret_cast<__half*>(input->data()), n, seed++, -1.f, 1.f, stage.stream());
        } else {
            wb::fill_uniform_device(reinterpret_cast<__nv_bfloat16*>(input->data()), n, seed++, -1.f, 1.f,
                                    stage.stream());
        }
    }
    dO.poison(), dL.poison();   // poison() synchronises the device: the fills are done before the launch
    wb::run_past_int_range(
        stage, [&](cudaStream_t st) { attention(s, dq.data(), dk.data(), dv.data(), dtype, dO.data(), dL.data(), st); },
        label, std::max(q_count, kv_count) > static_cast<std::size_t>(wb::kUintLimit));

    const std::int64_t D = s.head_dim;
    std::vector<wb::SampledWindow> o_windows, lse_windows;
    for (std::int64_t first : huge_row_windows(s)) {
        const std::int64_t count = std::min<std::int64_t>(kHugeWindowRows, static_cast<std::int64_t>(rows) - first);
        const ch09::Reference ref =
            window_reference(s, dq.data(), dk.data(), dv.data(), first, count, dtype, p_rounded);
        const std::vector<std::uint16_t> o_bits = wb::download_part(dO.data(), first * D, count * D);
        const wb::Layout layout = wb::Layout::matrix(count, D);
        wb::SampledWindow o;
        o.first = first * D;
        o.count = count * D;
        o.name = window_name(s, first, count) + " of O";
        o.report = dtype == ch08::Dtype::f16
                       ? wb::compare(ref.o, as_type<__half>(o_bits), ch09::o_tolerance(ref, dtype), layout,
                                     wb::Operation::exponential())
                       : wb::compare(ref.o, as_type<__nv_bfloat16>(o_bits), ch09::o_tolerance(ref, dtype), layout,
                                     wb::Operation::exponential());
        o_windows.push_back(std::move(o));
        wb::SampledWindow l;
        l.first = first;
        l.count = count;
        l.name = window_name(s, first, count) + " of lse";
        l.report = wb::compare(ref.lse, wb::download_part(dL.data(), first, count), ch09::lse_tolerance(ref),
                               wb::Layout::vector(), wb::Operation::exponential(true));
        lse_windows.push_back(std::move(l));
    }
    const std::string o_cause = head_offset_cause(s, o_windows, D), lse_cause = head_offset_cause(s, lse_windows, 1);
    wb::expect_windows(stage, o_windows, "O, " + label, o_cause);
    wb::expect_windows(stage, lse_windows, "lse, " + label, lse_cause);
}

void check_all(wb::Stage& stage, Attention attention, bool p_rounded)
{
    wb::Rng rng(9);
    for (const Case& c : kCases)
        for (const ch08::Dtype dtype : {ch08::Dtype::f16, ch08::Dtype::bf16})
            check_case(stage, attention, c, dtype, p_rounded, false, rng);
    if (!wb::emulated()) {   // the large shapes take minutes in emulation
        for (const Case& c : kLargeCases)
            for (const ch08::Dtype dtype : {ch08::Dtype::f16, ch08::Dtype::bf16})
                check_case(stage, attention, c, dtype, p_rounded, true, rng);
    }
    // GPU only, each where the memory allows: Q and O past 2^31, then past 2^32; K and V the same.
    for (const std::vector<const HugeCase*>& pair :
         {std::vector<const HugeCase*>{&kHugeQo, &kHugerQo}, std::vector<const HugeCase*>{&kHugeKv, &kHugerKv}}) {
        std::vector<wb::LargeSize> sizes;
        for (const HugeCase* h : pair) sizes.push_back({huge_bytes(*h), describe(h->shape, h->dtype)});
        wb::for_each_large_size(sizes, [&](std::size_t k) { check_huge(stage, attention, *pair[k], p_rounded); });
    }
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
