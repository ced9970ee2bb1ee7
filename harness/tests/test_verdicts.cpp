// Tests of the harness's verdict logic that needs no GPU: untouched outputs ("not implemented yet" or
// a wrong result), the stream probe, the recheck after timing, the guard after every buffer.
#include "harness/catch.hpp"
#include "harness/past_int_range.hpp"
#include "harness/stage.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

wb::CompareReport ok_report()
{
    wb::CompareReport r;
    r.count = 4;
    return r;
}

wb::CompareReport untouched_report()
{
    wb::CompareReport r;
    r.ok = false;
    r.nothing_written = true;
    r.count = r.bad = r.untouched = 1;
    r.message = "not implemented yet: the output was never written";
    return r;
}

wb::CompareReport wrong_report()
{
    wb::CompareReport r;
    r.ok = false;
    r.count = 8;
    r.bad = 1;
    r.message = "1 of 8 elements are wrong";
    return r;
}

}   // namespace

TEST_CASE("an output never written in any case is 'not implemented yet', at the end", "[verdicts]")
{
    wb::UnwrittenOutputs unwritten;
    CHECK_FALSE(unwritten.on_report(untouched_report(), "n = 1"));
    CHECK_FALSE(unwritten.on_report(untouched_report(), "n = 1000"));
    const auto end = unwritten.at_end();
    REQUIRE(end);
    CHECK(end->status == wb::Status::not_implemented);
    CHECK(contains(end->message, "not implemented yet"));
}

TEST_CASE("a large output never written is 'not implemented yet' at once", "[verdicts]")
{
    wb::UnwrittenOutputs unwritten;
    wb::CompareReport big = untouched_report();
    big.count = big.bad = big.untouched = wb::UnwrittenOutputs::kUnwrittenDecidesAlone;
    const auto failure = unwritten.on_report(big, "17 x 33");
    REQUIRE(failure);
    CHECK(failure->status == wb::Status::not_implemented);
}

TEST_CASE("a large output of short rows never written waits: a row loop may skip every short row", "[verdicts]")
{
    wb::UnwrittenOutputs unwritten;
    wb::CompareReport short_rows = untouched_report();
    short_rows.count = short_rows.bad = short_rows.untouched = 66 * 3;   // 66 rows of 3 elements
    short_rows.row_length = 3;
    CHECK_FALSE(unwritten.on_report(short_rows, "66 x 3").has_value());
    const auto failure = unwritten.on_report(ok_report(), "66 x 4");
    REQUIRE(failure.has_value());
    CHECK(failure->status == wb::Status::wrong);
    CHECK(contains(failure->message, "66 x 3"));
    CHECK(contains(failure->message, "the loop over a row stops early"));
    CHECK_FALSE(contains(failure->message, "grid rounded down"));
    // Rows of a warp or more: no row loop skips them whole, so "not implemented yet" at once.
    wb::UnwrittenOutputs other;
    short_rows.row_length = wb::UnwrittenOutputs::kShortRow;
    const auto at_once = other.on_report(short_rows, "6 x 33");
    REQUIRE(at_once.has_value());
    CHECK(at_once->status == wb::Status::not_implemented);
}

TEST_CASE("a small input left untouched while a later one is right is a wrong result", "[verdicts]")
{
    wb::UnwrittenOutputs unwritten;
    CHECK_FALSE(unwritten.on_report(untouched_report(), "n = 1"));
    const auto failure = unwritten.on_report(ok_report(), "n = 4");
    REQUIRE(failure);
    CHECK(failure->status == wb::Status::wrong);
    CHECK(contains(failure->message, "wrong result for n = 1"));
    CHECK(contains(failure->message, "such as n = 4 came out right"));
    CHECK(contains(failure->message, "tail"));
}

TEST_CASE("an input left untouched after others were written is a wrong result at once", "[verdicts]")
{
    wb::UnwrittenOutputs unwritten;
    CHECK_FALSE(unwritten.on_report(ok_report(), "n = 4"));
    const auto failure = unwritten.on_report(untouched_report(), "n = 1");
    REQUIRE(failure);
    CHECK(failure->status == wb::Status::wrong);
    CHECK(contains(failure->message, "never written"));
    CHECK_FALSE(unwritten.at_end());
}

TEST_CASE("a written but wrong case is reported with the untouched one mentioned", "[verdicts]")
{
    wb::UnwrittenOutputs unwritten;
    CHECK_FALSE(unwritten.on_report(untouched_report(), "n = 1"));
    const auto failure = unwritten.on_report(wrong_report(), "n = 5");
    REQUIRE(failure);
    CHECK(failure->status == wb::Status::wrong);
    CHECK(contains(failure->message, "wrong result for n = 5: 1 of 8"));
    CHECK(contains(failure->message, "nothing at all was written for n = 1"));
}

TEST_CASE("right results leave no verdict", "[verdicts]")
{
    wb::UnwrittenOutputs unwritten;
    CHECK_FALSE(unwritten.on_report(ok_report(), "n = 1"));
    CHECK_FALSE(unwritten.on_report(ok_report(), "n = 2"));
    CHECK_FALSE(unwritten.at_end());
}

TEST_CASE("the stream probe fails a launcher that put nothing on its stream", "[verdicts]")
{
    const auto empty = wb::stream_probe_verdict(cudaSuccess, 0);
    REQUIRE(empty);
    CHECK(empty->status == wb::Status::wrong);
    CHECK(contains(empty->message, "stream it was given"));
    const auto legacy = wb::stream_probe_verdict(cudaErrorStreamCaptureImplicit, 0);
    REQUIRE(legacy);
    CHECK(contains(legacy->message, "legacy default stream"));
}

TEST_CASE("the stream probe never rejects on other errors or captured work", "[verdicts]")
{
    CHECK_FALSE(wb::stream_probe_verdict(cudaSuccess, 1));
    CHECK_FALSE(wb::stream_probe_verdict(cudaErrorStreamCaptureUnsupported, 0));
    CHECK_FALSE(wb::stream_probe_verdict(cudaErrorStreamCaptureInvalidated, 0));
    CHECK_FALSE(wb::stream_probe_verdict(cudaErrorInvalidConfiguration, 0));
}

TEST_CASE("after timing, nothing written is a wrong result that points at cached work", "[verdicts]")
{
    const auto f = wb::recheck_failure({wb::Status::not_implemented, "not implemented yet: ..."});
    CHECK(f.status == wb::Status::wrong);
    CHECK(contains(f.message, "after timing"));
    CHECK(contains(f.message, "cached"));
    const auto g = wb::recheck_failure({wb::Status::wrong, "wrong result for the timed inputs: ..."});
    CHECK(g.status == wb::Status::wrong);
    CHECK(contains(g.message, "after timing, wrong result for the timed inputs"));
    const auto h = wb::recheck_failure({wb::Status::crashed, "the GPU reported an error"});
    CHECK(h.status == wb::Status::crashed);
}

TEST_CASE("an intact guard says nothing; a written one says where", "[verdicts]")
{
    const unsigned char fill = wb::next_guard_byte();
    CHECK(fill != wb::kPoisonByte);
    CHECK(wb::next_guard_byte() != fill);   // consecutive buffers: different guards
    std::vector<unsigned char> guard(wb::kGuardBytes, fill);
    CHECK_FALSE(wb::describe_guard(guard, fill, 10, 4));
    guard[0] = wb::kPoisonByte;   // element 10 of a float array of 10, one past the end: poison copied there
    guard[7] = 1;                 // element 11
    const auto text = wb::describe_guard(guard, fill, 10, 4);
    REQUIRE(text);
    CHECK(contains(*text, "past the end of an array of 10 elements"));
    CHECK(contains(*text, "elements 10 to 11"));
}

TEST_CASE("the fence after a buffer under memcheck is as long as the buffer, within bounds", "[verdicts]")
{
    CHECK(wb::fence_after(1) == wb::kFenceBytes);   // small buffers: 64 KiB
    CHECK(wb::fence_after(wb::kFenceBytes) == wb::kFenceBytes);
    CHECK(wb::fence_after(wb::kFenceBytes + 1) == wb::kFenceBytes + 256);    // whole 256-byte steps
    CHECK(wb::fence_after(std::size_t(3) << 20) == std::size_t(3) << 20);    // a read one array too far lands in it
    CHECK(wb::fence_after(std::size_t(1) << 30) == std::size_t(64) << 20);   // capped at 64 MiB
    CHECK(wb::kFenceBytes % 256 == 0);   // a buffer 64 KiB into its allocation keeps cudaMalloc's alignment
}

TEST_CASE("an input that changed is named with its first changed element", "[verdicts]")
{
    const std::vector<float> x = {1.5f, 2.0f, -3.0f, 4.0f};
    std::vector<float> y = x;
    auto bytes = [](const std::vector<float>& v) {
        return std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(v.data()),
                                          reinterpret_cast<const unsigned char*>(v.data() + v.size()));
    };
    CHECK_FALSE(wb::describe_input_change(bytes(x), bytes(y), sizeof(float)));
    y[2] = 0.25f;
    y[3] = -4.0f;
    const auto text = wb::describe_input_change(bytes(x), bytes(y), sizeof(float));
    REQUIRE(text);
    CHECK(contains(*text, "wrote into an input array: 2 of its 4 elements changed"));
    CHECK(contains(*text, "element 2: -3 became 0.25"));
    CHECK(contains(*text, "the inputs are const"));
    // Other element sizes: the index alone.
    const auto halves = wb::describe_input_change({1, 2, 3, 4}, {1, 2, 3, 5}, 2);
    REQUIRE(halves);
    CHECK(contains(*halves, "1 of its 2 elements changed (first element 1)"));
}

TEST_CASE("a stage that needs a newer GPU is skipped with the reason; one that does not runs", "[verdicts]")
{
    const wb::StageInfo any{3, "any GPU", 1.5};
    CHECK(wb::compute_capability_skip(8, any, 7, 0, false).empty());
    CHECK(wb::compute_capability_skip(8, any, 0, 0, true).empty());
    const wb::StageInfo ampere{3, "cp.async", 1.5, 8, 0, false};
    const std::string turing = wb::compute_capability_skip(8, ampere, 7, 5, false);
    CHECK(contains(turing, "chapter 8, stage 3 needs compute capability 8.0 or newer; this GPU has 7.5"));
    CHECK(wb::compute_capability_skip(8, ampere, 8, 0, false).empty());
    CHECK(wb::compute_capability_skip(8, ampere, 8, 9, false).empty());
    CHECK(wb::compute_capability_skip(8, ampere, 9, 0, false).empty());
    CHECK(wb::compute_capability_skip(8, ampere, 0, 0, true).empty());   // the emulator models 8.0
    const wb::StageInfo ada{4, "fp8", 1.0, 8, 9, false};
    CHECK(contains(wb::compute_capability_skip(8, ada, 8, 6, false), "needs compute capability 8.9 or newer"));
    CHECK(contains(wb::compute_capability_skip(8, ada, 0, 0, true),
                   "needs a GPU of compute capability 8.9 (the CPU emulator models compute capability 8.0)"));
    CHECK(wb::compute_capability_skip(8, ada, 9, 0, false).empty());
}

TEST_CASE("a Hopper stage is skipped in emulation and on other GPUs, with the reason", "[verdicts]")
{
    const wb::StageInfo hopper{6, "wgmma", 1.2, 9, 0, false};
    CHECK(contains(wb::compute_capability_skip(8, hopper, 0, 0, true),
                   "chapter 8, stage 6 needs a GPU of compute capability 9.0 (wgmma/TMA are not emulated)"));
    CHECK(contains(wb::compute_capability_skip(8, hopper, 8, 6, false), "this GPU has 8.6"));
    CHECK(wb::compute_capability_skip(8, hopper, 9, 0, false).empty());
    CHECK(wb::compute_capability_skip(8, hopper, 10, 0, false).empty());
    CHECK(wb::needed_compute_capability(hopper) == "9.0");
    // sm_90a code (wgmma, setmaxnreg) runs on compute capability 9.0 alone, not on later GPUs.
    const wb::StageInfo hopper_only{7, "warp specialisation", 1.1, 9, 0, true};
    CHECK(wb::needed_compute_capability(hopper_only) == "9.0a");
    CHECK(wb::compute_capability_skip(8, hopper_only, 9, 0, false).empty());
    const std::string blackwell = wb::compute_capability_skip(8, hopper_only, 10, 0, false);
    CHECK(contains(blackwell, "needs a GPU of compute capability 9.0 exactly"));
    CHECK(contains(blackwell, "sm_90a"));
    CHECK(contains(blackwell, "this GPU has 10.0"));
    CHECK(contains(wb::compute_capability_skip(8, hopper_only, 8, 0, false), "this GPU has 8.0"));
    CHECK(contains(wb::compute_capability_skip(8, hopper_only, 0, 0, true), "wgmma/TMA are not emulated"));
}

TEST_CASE("run_stage skips a stage that needs a newer GPU before its checks run", "[verdicts]")
{
    if (!wb::gpu_unavailable_reason().empty()) {
        // No GPU and no emulator: every stage is skipped for that reason first; nothing to test here.
        WARN("no usable GPU: run_stage's compute-capability skip is tested in emulation or on a GPU");
        return;
    }
    const wb::StageInfo future{2, "a stage for a GPU of the future", 1.0, 99, 9, false};
    bool ran = false;
    const wb::StageVerdict verdict = wb::run_stage({8, "reference"}, future, [&](wb::Stage&) { ran = true; });
    CHECK_FALSE(ran);
    CHECK(verdict.status == wb::Status::skipped);
    CHECK(contains(verdict.message, "chapter 8, stage 2 needs"));
    CHECK(contains(verdict.message, "99.9"));
}

TEST_CASE("where the wrong windows of a large output lie names the 32-bit bug", "[verdicts]")
{
    auto window = [](std::int64_t first, std::int64_t count, bool ok, std::int64_t first_bad, std::int64_t untouched) {
        wb::SampledWindow w;
        w.first = first;
        w.count = count;
        w.report.ok = ok;
        w.report.count = count;
        w.report.first_bad = ok ? -1 : first_bad;
        w.report.untouched = untouched;
        return w;
    };
    const std::int64_t limit = wb::kIntLimit;
    // Nothing written anywhere: the size went through an int.
    std::vector<wb::SampledWindow> none = {window(0, 100, false, 0, 100), window(limit + 10, 100, false, 0, 100)};
    CHECK(wb::sampled_output_cause(none, none[0]).find("converted to int") != std::string::npos);
    // Right below 2^31, wrong past it: an index in 32 bits.
    std::vector<wb::SampledWindow> wraps = {window(0, 100, true, 0, 0), window(limit - 50, 100, false, 60, 0)};
    CHECK(wb::sampled_output_cause(wraps, wraps[1]).find("wraps at 2^31") != std::string::npos);
    // Wrong from an index below 2^31 on: a grid that stops short.
    std::vector<wb::SampledWindow> capped = {window(0, 100, true, 0, 0), window(1 << 26, 100, false, 0, 100)};
    CHECK(wb::sampled_output_cause(capped, capped[1]).find("without a grid-stride loop") != std::string::npos);
    // Wrong from the first window: the window's own report says more.
    std::vector<wb::SampledWindow> early = {window(0, 100, false, 3, 0), window(limit, 100, false, 0, 0)};
    CHECK(wb::sampled_output_cause(early, early[0]).empty());
    // Right past 2^31, wrong past 2^32: blockIdx.x * blockDim.x in unsigned.
    const std::int64_t ulimit = wb::kUintLimit;
    std::vector<wb::SampledWindow> unsigned_wrap = {window(0, 100, true, 0, 0), window(limit + 10, 100, true, 0, 0),
                                                    window(ulimit - 50, 100, false, 50, 50)};
    const std::string cause = wb::sampled_output_cause(unsigned_wrap, unsigned_wrap[2]);
    CHECK(cause.find("wraps at 2^32") != std::string::npos);
    CHECK(cause.find("static_cast<std::int64_t>(blockIdx.x)") != std::string::npos);
    // Wrong at the start and past 2^32, right between: the wrapped threads redid the first elements.
    const std::int64_t end = ulimit + 1000;
    std::vector<wb::SampledWindow> redone = {window(0, 100, false, 0, 0), window(5000, 100, true, 0, 0),
                                             window(limit, 100, true, 0, 0), window(end - 100, 100, false, 0, 100)};
    CHECK(wb::sampled_output_cause(redone, redone[0]).find("wraps at 2^32") != std::string::npos);
    // Wrong at the start of an output that does not reach 2^32: the window's own report says more.
    std::vector<wb::SampledWindow> small_start = {window(0, 100, false, 0, 0), window(limit, 100, false, 0, 0)};
    CHECK(wb::sampled_output_cause(small_start, small_start[0]).empty());
}

TEST_CASE("a wrong window's message puts where it lies before what it holds", "[verdicts]")
{
    wb::SampledWindow w;
    w.name = "elements 4294965248 to 4294969343";
    w.report.ok = false;
    w.report.cause = "only one block did any work";
    w.report.message = "2048 of 4096 elements are wrong.\n  likely cause: only one block did any work";
    const std::string placed = wb::window_failure_message(w, "an index wraps at 2^32");
    CHECK(placed.find("elements 4294965248 to 4294969343") != std::string::npos);
    CHECK(placed.find("2048 of 4096 elements are wrong.") != std::string::npos);
    CHECK(placed.find("wraps at 2^32") != std::string::npos);
    CHECK(placed.find("only one block") == std::string::npos);
    // Without a cause from the place, the window's own stays.
    CHECK(wb::window_failure_message(w, "").find("only one block") != std::string::npos);
}

TEST_CASE("the marked elements of a large sum name what was lost", "[verdicts]")
{
    const std::int64_t small = wb::kIntLimit + (std::int64_t(1) << 28) + 3;
    const std::int64_t large = wb::kUintLimit + (std::int64_t(1) << 28) + 3;
    const std::vector<wb::SumMarker> nine = wb::sum_markers(small), twelve = wb::sum_markers(large);
    REQUIRE(nine.size() == 9);
    REQUIRE(twelve.size() == 12);
    for (const auto* markers : {&nine, &twelve}) {
        CHECK(std::is_sorted(markers->begin(), markers->end(),
                             [](const wb::SumMarker& a, const wb::SumMarker& b) { return a.index < b.index; }));
    }
    CHECK(twelve.back().index == large - 1);
    auto sum_below = [](const std::vector<wb::SumMarker>& markers, std::int64_t limit) {
        double sum = 0;
        for (std::size_t k = 0; k < markers.size(); ++k)
            if (markers[k].index < limit) sum += std::ldexp(1.0, static_cast<int>(k));
        return sum;
    };
    CHECK(wb::sum_markers_cause(twelve, large, 0.0).find("converted to int") != std::string::npos);
    CHECK(wb::sum_markers_cause(twelve, large, sum_below(twelve, wb::kIntLimit)).find("wraps at 2^31") !=
          std::string::npos);
    CHECK(wb::sum_markers_cause(twelve, large, sum_below(twelve, wb::kUintLimit)).find("wraps at 2^32") !=
          std::string::npos);
    // Index modulo 2^32 with a bounds check on the wrapped index: markers past 2^32 lost, the first
    // n - 2^32 elements (markers 0, 1, 2) read twice.
    const double wrapped = sum_below(twelve, wb::kUintLimit) + 1 + 2 + 4;
    CHECK(wb::sum_markers_cause(twelve, large, wrapped).find("modulo 2^32") != std::string::npos);
    // Not only the product of the built-ins: an index kept in an unsigned 32-bit variable wraps there too.
    CHECK(wb::sum_markers_cause(twelve, large, wrapped).find("std::uint32_t") != std::string::npos);
    // A grid capped at 65535 blocks of 256 threads: everything from the second marker on lost.
    CHECK(wb::sum_markers_cause(nine, small, 1.0).find("does not reach the end") != std::string::npos);
}

TEST_CASE("row windows of a large matrix include the rows where 32-bit arithmetic breaks", "[verdicts]")
{
    const std::int64_t rows = (std::int64_t(1) << 24) + (std::int64_t(1) << 20) + 3, cols = 132;
    const std::vector<std::int64_t> starts = wb::row_windows_past_int_range(rows, cols, 4);
    CHECK(std::is_sorted(starts.begin(), starts.end()));
    CHECK(starts.front() == 0);
    CHECK(starts.back() == rows - 4);
    const std::int64_t crossing = wb::kIntLimit / cols;   // row 16268815: its elements cross 2^31
    auto covered = [&](std::int64_t row) {
        return std::any_of(starts.begin(), starts.end(), [&](std::int64_t s) { return s <= row && row < s + 4; });
    };
    CHECK(covered(crossing));
    CHECK(covered(crossing + 1));
    CHECK(covered(std::int64_t(1) << 24));
    // A matrix with fewer rows than 2^24: no window past its end.
    for (std::int64_t s : wb::row_windows_past_int_range(1000, 1 << 22, 8)) CHECK(s + 8 <= 1000);
}

TEST_CASE("large counts are labelled with thousands separators", "[verdicts]")
{
    CHECK(wb::with_commas(2359301) == "2,359,301");
    CHECK(wb::with_commas(1000) == "1,000");
    CHECK(wb::with_commas(999) == "999");
    CHECK(wb::with_commas(-1234567) == "-1,234,567");
}

TEST_CASE("large sizes are written as the powers of two they are made of", "[verdicts]")
{
    CHECK(wb::as_powers_of_two((std::int64_t(1) << 32) + (std::int64_t(1) << 28) + 3) == "2^32 + 2^28 + 3");
    CHECK(wb::as_powers_of_two((std::int64_t(1) << 31) + (std::int64_t(1) << 20) + 5) == "2^31 + 2^20 + 5");
    CHECK(wb::as_powers_of_two(std::int64_t(1) << 31) == "2^31");
    CHECK(wb::as_powers_of_two(1000) == "1000");
    const std::int64_t n = wb::kUintLimit + (std::int64_t(1) << 28) + 3;
    CHECK(wb::sum_markers_label(n, 12, false) ==
          "n = 2^32 + 2^28 + 3, every input 0 but 12 marked elements summing to 4095 (past the unsigned 32-bit "
          "range)");
    CHECK(wb::sum_markers_label(wb::kIntLimit + 3, 9, true) ==
          "n = 2^31 + 3, x 0 but at 9 marked elements summing to 511, y 1 (past the int range)");
}

TEST_CASE("the sizes of a large case run in order, and none without the memory for the first", "[verdicts]")
{
    std::vector<std::string> ran;
    const std::vector<wb::LargeSize> sizes = {{9, "first"}, {17, "second"}};
    wb::for_each_large_size(sizes, [&](std::size_t k) { ran.push_back(sizes.at(k).label); });
    if (wb::emulated()) CHECK(ran.empty());   // the emulator never has the memory
    const std::vector<std::string> order = {"first", "second"};
    CHECK(std::equal(ran.begin(), ran.end(), order.begin()));   // a prefix: never the second alone
    ran.clear();
    wb::for_each_large_size({}, [&](std::size_t k) { ran.push_back(std::to_string(k)); });
    CHECK(ran.empty());
}

TEST_CASE("the first wrong row of a GEMV names the row offset that wraps", "[verdicts]")
{
    const std::int64_t K = 132;   // row 16268815 straddles element 2^31, row 32537631 element 2^32
    CHECK(wb::row_offset_wrap_cause(32537631, K).find("wraps at 2^32") != std::string::npos);
    CHECK(wb::row_offset_wrap_cause(32537632, K).find("unsigned 32-bit") != std::string::npos);
    CHECK(wb::row_offset_wrap_cause(16268816, K).find("wraps at 2^31") != std::string::npos);
    CHECK(wb::row_offset_wrap_cause(32537633, K).empty());
    CHECK(wb::row_offset_wrap_cause(16268814, K).empty());
    CHECK(wb::row_offset_wrap_cause(0, K).empty());
}

TEST_CASE("the first wrong head of an attention names the head offset into K and V that wraps", "[verdicts]")
{
    const std::int64_t L = 1091 * 128;   // the K elements of one head; head 30755 straddles element 2^32
    const std::string cause = wb::row_offset_wrap_cause(30756, L, "head", "K and V");
    CHECK(cause.find("first head that reads past element 2^32 of K and V") != std::string::npos);
    CHECK(cause.find("head offset head * 139648 wraps at 2^32") != std::string::npos);
    CHECK(cause.find("unsigned sizes or head index") != std::string::npos);
    CHECK(wb::row_offset_wrap_cause(30757, L, "head", "K and V").empty());
    CHECK(wb::row_offset_wrap_cause(296144, 14503, "row", "A").find("past element 2^32 of A") != std::string::npos);
}

TEST_CASE("a probe's cause replaces the comparison's own", "[verdicts]")
{
    wb::CompareReport report;
    report.ok = false;
    report.cause = "a scale factor";
    report.message = "3 of 9 elements are wrong.\n  likely cause: a scale factor";
    wb::replace_likely_cause(report, "fp16 accumulation");
    CHECK(report.message == "3 of 9 elements are wrong.\n  likely cause: fp16 accumulation");
    CHECK(report.cause == "fp16 accumulation");
    report.message = "wrong.";
    wb::replace_likely_cause(report, "a race");
    CHECK(report.message == "wrong.\n  likely cause: a race");
}
