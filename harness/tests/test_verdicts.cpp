// Tests of the harness's verdict logic that needs no GPU: untouched outputs ("not implemented yet" or
// a wrong result), the stream probe, the recheck after timing, the guard after every buffer.
#include "harness/catch.hpp"
#include "harness/stage.hpp"

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
