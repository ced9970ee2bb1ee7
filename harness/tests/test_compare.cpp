// Tests of the comparison and diagnosis logic: no GPU needed.
#include "harness/catch.hpp"
#include "harness/compare.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>
#include <string>

namespace {

wb::CompareReport run(const std::vector<double>& expected, const std::vector<float>& got,
                      wb::Tolerance tolerance = wb::Tolerance::exact(), wb::Layout layout = wb::Layout::vector())
{
    return wb::compare(expected, got, tolerance, layout);
}

float poison() { return wb::poison_value<float>(); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}   // namespace

TEST_CASE("identical outputs pass, exactly", "[compare]")
{
    const auto report = run({1, 2, 3}, {1, 2, 3});
    CHECK(report.ok);
    CHECK(report.bad == 0);
}

TEST_CASE("one ulp off fails an exact comparison and passes a 1-ulp one", "[compare]")
{
    const float one_up = std::nextafter(1.0f, 2.0f);
    CHECK_FALSE(run({1.0}, {one_up}).ok);
    CHECK(run({1.0}, {one_up}, wb::Tolerance::ulps(1)).ok);
}

TEST_CASE("an output never written is 'not implemented yet'", "[compare]")
{
    const auto report = run({1, 2, 3, 4}, {poison(), poison(), poison(), poison()});
    CHECK_FALSE(report.ok);
    CHECK(report.nothing_written);
    CHECK(contains(report.message, "not implemented yet"));
}

TEST_CASE("poison is told apart from a computed NaN", "[compare]")
{
    CHECK(wb::is_poison(poison()));
    CHECK_FALSE(wb::is_poison(std::nanf("")));
    // Arithmetic on the poison gives another NaN, also on a CPU, which keeps a NaN operand's payload (the
    // CPU emulator): float and double poisons are signalling NaNs, and a result is always quiet.
    volatile float p = poison();
    CHECK(std::isnan(p + 1.0f));
    CHECK_FALSE(wb::is_poison(static_cast<float>(p + 1.0f)));
    CHECK_FALSE(wb::is_poison(static_cast<float>(0.0f * p)));
    volatile double d = wb::poison_value<double>();
    CHECK(std::isnan(d));
    CHECK(wb::is_poison(static_cast<double>(d)));
    CHECK_FALSE(wb::is_poison(static_cast<double>(d * 2.0)));
    // The 16-bit floats and integers keep 0xFF bytes.
    CHECK(wb::poison_bytes<std::uint16_t>() == std::array<unsigned char, 2>{0xFF, 0xFF});
    CHECK(wb::poison_bytes<int>() == std::array<unsigned char, 4>{0xFF, 0xFF, 0xFF, 0xFF});
    const auto report = run({1, 2}, {std::nanf(""), 2});
    CHECK(report.untouched == 0);
    CHECK(contains(report.message, "produced NaN"));
}

TEST_CASE("an uncovered tail is recognised", "[compare]")
{
    std::vector<double> expected(100, 1.0);
    std::vector<float> got(100, 1.0f);
    for (int i = 96; i < 100; ++i) got[i] = poison();
    const auto report = run(expected, got);
    CHECK(report.first_bad == 96);
    CHECK(report.untouched == 4);
    CHECK(contains(report.message, "tail is not covered"));
}

TEST_CASE("only the first block written is recognised", "[compare]")
{
    std::vector<double> expected(1000, 1.0);
    std::vector<float> got(1000, poison());
    for (int i = 0; i < 256; ++i) got[i] = 1.0f;
    const auto report = run(expected, got);
    CHECK(contains(report.message, "only one block worked"));
}

TEST_CASE("a constant factor is recognised", "[compare]")
{
    const auto report = run({1, 2, 3, 4}, {256, 512, 768, 1024});
    CHECK(contains(report.message, "256 times the right one"));
}

TEST_CASE("unwritten row tails of a matrix are recognised", "[compare]")
{
    std::vector<double> expected(4 * 10, 1.0);
    std::vector<float> got(4 * 10, 1.0f);
    for (int r = 0; r < 4; ++r) {
        for (int c = 8; c < 10; ++c) got[r * 10 + c] = poison();
    }
    const auto report = run(expected, got, wb::Tolerance::exact(), wb::Layout::matrix(4, 10));
    CHECK(contains(report.message, "columns 8 to 9 were never written"));
    CHECK(contains(report.message, "row 0, column 8"));
}

TEST_CASE("infinities must match in sign, NaN where NaN is expected", "[compare]")
{
    CHECK(run({INFINITY, -INFINITY, NAN}, {INFINITY, -INFINITY, NAN}).ok);
    CHECK_FALSE(run({INFINITY}, {-INFINITY}).ok);
    CHECK_FALSE(run({1.0}, {INFINITY}, wb::Tolerance{1e30, 0}).ok);
}

TEST_CASE("the sum tolerance follows the error bound of a chain of additions", "[compare]")
{
    // 1000 terms, sum of |x| = 1000, chains of at most 64 additions: 64 * 2^-24 * 1000.
    const auto tol = wb::Tolerance::sum_of(1000.0, 64.0);
    CHECK(tol.abs == Approx(64.0 * 1000.0 / 16777216.0).epsilon(1e-9));
}

TEST_CASE("half and bfloat16 references are rounded to their type", "[compare]")
{
    const auto h = wb::round_to_half({1.0 + 1.0 / 4096.0});
    CHECK(h[0] == 1.0);   // below half of a half ulp (2^-11): rounds down
    const auto b = wb::round_to_bfloat16({1.0 + 1.0 / 64.0});
    CHECK(b[0] == 1.0 + 1.0 / 64.0);   // bfloat16 has 8 bits of significand: 1 + 2^-6 is exact
}

TEST_CASE("a block-sized prefix with a short rest names both readings", "[compare]")
{
    std::vector<double> expected(257, 1.0);
    std::vector<float> got(257, 1.0f);
    got[256] = poison();
    const auto report = run(expected, got);
    CHECK(contains(report.message, "only one block did any work"));
    CHECK(contains(report.message, "the tail is not covered"));
}

TEST_CASE("small errors everywhere are called lost precision, not a race", "[compare]")
{
    std::vector<double> expected(1000, 1.0);
    std::vector<float> got(1000, 1.0f);
    got[10] = 1.0f + 3 * 0x1.0p-23f;
    got[500] = 1.0f - 2 * 0x1.0p-23f;
    const auto report = run(expected, got, wb::Tolerance::ulps(1));
    CHECK(contains(report.message, "lost precision"));
}

TEST_CASE("a single wrong value is not called a scale factor", "[compare]")
{
    const auto report = run({100.0}, {99.0});
    CHECK_FALSE(contains(report.message, "times the right one"));
}

TEST_CASE("one small error among several outputs is lost precision; a single output may also be a sum", "[compare]")
{
    const auto several = run({1, 1, 1, 1, 1}, {1, 1, 1.0f + 4 * 0x1.0p-23f, 1, 1}, wb::Tolerance::ulps(1));
    CHECK(contains(several.message, "lost precision, not a logic error"));
    const auto single = run({1.0}, {1.0f + 4 * 0x1.0p-23f}, wb::Tolerance::ulps(1));
    CHECK(contains(single.message, "for a sum, a small term missed or counted twice"));
}

TEST_CASE("values a few tolerances off with a common ratio near 1 are lost precision, not a scale factor", "[compare]")
{
    // Half-precision-like tolerance; both wrong values are 0.9984 times the right one.
    const wb::Tolerance tol{0x1.0p-24, 0x1.0p-10};
    const auto report =
        run({0.000452, 0.25, 0.000452, 0.5}, {0.000452f * 0.9984f, 0.25f, 0.000452f * 0.99841f, 0.5f}, tol);
    CHECK_FALSE(report.ok);
    CHECK(contains(report.message, "lost precision"));
    CHECK_FALSE(contains(report.message, "times the right one"));
}

TEST_CASE("one output slightly off is called lost precision too", "[compare]")
{
    const auto report = run({0.5}, {0.5f * (1.0f + 0.002f)}, wb::Tolerance{0.0, 0.001});
    CHECK_FALSE(report.ok);
    CHECK(contains(report.message, "lost precision"));
}

TEST_CASE("an infinity outside an exp is not called an exp overflow; in softmax it is", "[compare]")
{
    const auto plain = run({1, 2, 3}, {1, INFINITY, 3});
    CHECK(contains(plain.message, "produced inf"));
    CHECK(contains(plain.message, "a read of memory nobody wrote"));
    CHECK_FALSE(contains(plain.message, "exp of"));
    const auto with_exp = wb::compare(std::vector<double>{0.5, 0.5}, std::vector<float>{NAN, NAN},
                                      wb::Tolerance::ulps(4), wb::Layout::vector(), wb::Operation::exponential());
    CHECK(contains(with_exp.message, "subtract the maximum first"));
}

TEST_CASE("-inf from a log of an underflowed probability is named as such", "[compare]")
{
    const auto report = wb::compare(std::vector<double>{-0.1, -120.0}, std::vector<float>{-0.1f, -INFINITY},
                                    wb::Tolerance{1e-6, 0}, wb::Layout::vector(), wb::Operation::exponential(true));
    CHECK(contains(report.message, "the log of a value that underflowed to 0"));
    CHECK_FALSE(contains(report.message, "subtract the maximum first"));
}

TEST_CASE("values transposed inside each tile are recognised, whatever the input holds", "[compare]")
{
    const int rows = 64, cols = 96;
    std::vector<double> expected(rows * cols);
    for (int i = 0; i < rows * cols; ++i) expected[i] = i % 97 == 7 ? INFINITY : 0.5 * i;   // infinities mixed in
    std::vector<float> got(rows * cols);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            got[r * cols + c] = static_cast<float>(expected[(r - r % 32 + c % 32) * cols + (c - c % 32 + r % 32)]);
        }
    }
    const auto report = run(expected, got, wb::Tolerance::exact(), wb::Layout::matrix(rows, cols));
    CHECK(contains(report.message, "transposed inside each 32 x 32 tile"));
    CHECK_FALSE(contains(report.message, "overflow"));
}

TEST_CASE("rows never written with the period of a tile are recognised", "[compare]")
{
    const int rows = 100, cols = 3;
    std::vector<double> expected(rows * cols, 1.0);
    std::vector<float> got(rows * cols, 1.0f);
    for (int r = 0; r < rows; ++r) {
        if (r % 32 >= 16) {
            for (int c = 0; c < cols; ++c) got[r * cols + c] = poison();
        }
    }
    const auto report = run(expected, got, wb::Tolerance::exact(), wb::Layout::matrix(rows, cols));
    CHECK(contains(report.message, "repeat every 32 rows: rows 16 to 31 of every 32 are never written"));
    CHECK_FALSE(contains(report.message, "tail is not covered"));
}

TEST_CASE("wrong columns with a period are recognised; a wrong suffix of rows is not periodic", "[compare]")
{
    const int rows = 4, cols = 64;
    std::vector<double> expected(rows * cols, 1.0);
    std::vector<float> got(rows * cols, 1.0f);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; c += 8) got[r * cols + c + 7] = 2.5f;
    }
    const auto report = run(expected, got, wb::Tolerance::exact(), wb::Layout::matrix(rows, cols));
    CHECK(contains(report.message, "repeat every 8 columns: columns 7 of every 8 are wrong"));
    std::vector<std::uint8_t> suffix(10 * 2, 0);
    for (int i = 12; i < 20; ++i) suffix[i] = 1;
    CHECK(wb::periodic_bad_lines(suffix, wb::Layout::matrix(10, 2)).period == 0);
}

TEST_CASE("results that went through a __half are called a half-precision accumulator", "[compare]")
{
    std::vector<double> expected, bad_integers;
    std::vector<float> got;
    for (int i = 0; i < 20; ++i) {
        const double exact = 1.0 + i / 3.0 + 1e-4;
        expected.push_back(exact);
        got.push_back(__half2float(__float2half(static_cast<float>(exact + 3e-3))));   // error far beyond 16 x
    }
    const auto report = run(expected, got, wb::Tolerance::ulps(2));
    CHECK(contains(report.message, "accumulating in half precision loses precision: accumulate in float"));
    // One output suffices when it is not an integer: a random real is an fp16 value 1 time in 8192.
    CHECK(contains(run({0.1234567}, {__half2float(__float2half(0.123f))}, wb::Tolerance::ulps(2)).message,
                   "accumulate in float"));
    // Integers are fp16 values anyway: a wrong integer sum is no evidence.
    CHECK_FALSE(contains(run({1001, 2001}, {1000, 2000}).message, "accumulate in float"));
    // A __half output is compared as such: no evidence either.
    std::vector<__half> halves(got.begin(), got.end());
    CHECK_FALSE(contains(wb::compare(expected, halves, wb::Tolerance::ulps(2)).message, "accumulate in float"));
}

TEST_CASE("a wrong result is named after the computation it matches", "[compare]")
{
    const std::vector<double> expected = {1.0, 2.0, 3.0, 4.0};
    const std::vector<float> got = {1.0f, 2.5f, 3.5f, 4.5f};   // the first right, the others off by 0.5
    int computed = 0;
    auto values = [&computed](std::vector<double> v) {
        return [&computed, v] {
            ++computed;
            return v;
        };
    };
    const std::vector<wb::Hypothesis> hypotheses = {
        {"first", values({9, 9, 9, 9})},          // matches none
        {"second", values({1, 2.5, 3.5, 4.5})},   // matches every wrong element
        {"third", values({1, 2.5, 3.5, 4.5})},    // never computed: the one before matched
    };
    CHECK(wb::matching_hypothesis(expected, got, wb::Tolerance::exact(), hypotheses) == "second");
    CHECK(computed == 2);
    // One of three wrong elements matched is not enough (9 in 10 are needed).
    CHECK(
        wb::matching_hypothesis(expected, got, wb::Tolerance::exact(), {{"partial", values({1, 2.5, 0, 0})}}).empty());
    // Nothing wrong, or only NaN (nothing written): no cause.
    CHECK(wb::matching_hypothesis(expected, {1, 2, 3, 4}, wb::Tolerance::exact(), hypotheses).empty());
    CHECK(wb::matching_hypothesis(expected, std::vector<float>(4, std::nanf("")), wb::Tolerance::exact(), hypotheses)
              .empty());
}

TEST_CASE("of two hypotheses that both pass the tolerance, the closer one is named", "[compare]")
{
    // Expected values near 4, a tolerance of 4e-5 (chapter 8's first case): results near 1e-5 are "0" to
    // it. A kernel that multiplied fp16 bits as bf16 gives such results, and so would one that added no
    // product at all.
    const std::vector<double> expected = {4.0, -3.0, 2.0};
    const std::vector<float> got = {2e-5f, -3e-5f, 1e-5f};
    const wb::Tolerance tolerance{4e-5, 0.0};
    int computed = 0;
    auto values = [&computed](std::vector<double> v) {
        return [&computed, v] {
            ++computed;
            return v;
        };
    };
    const std::vector<wb::Hypothesis> hypotheses = {
        {"no product", values({0, 0, 0})},               // within the tolerance, but not exact
        {"read as bf16", values({2e-5, -3e-5, 1e-5})},   // exact
        {"never computed", values({2e-5, -3e-5, 1e-5})},
    };
    CHECK(wb::matching_hypothesis(expected, got, tolerance, hypotheses) == "read as bf16");
    CHECK(computed == 2);
    // A kernel that really added nothing matches the first exactly: the search stops there.
    computed = 0;
    CHECK(wb::matching_hypothesis(expected, {0.0f, 0.0f, 0.0f}, tolerance, hypotheses) == "no product");
    CHECK(computed == 1);
}

TEST_CASE("a guard value read past the end of an input is named; other large errors are not", "[compare]")
{
    const std::uint32_t bits = 0xCECECECEu;   // a guard byte of DeviceBuffer
    float guard = 0.0f;
    std::memcpy(&guard, &bits, sizeof guard);
    // A copy kernel that moved the element past the end: the output holds the guard itself.
    std::vector<double> expected = {1, 2, 3, 4};
    CHECK(contains(run(expected, {1, 2, 3, guard}).message, "a read past the end of an input"));
    CHECK(contains(run(expected, {1, 2, 3, guard}).message, "0xCE"));
    // A sum that added two guard values to the right result.
    CHECK(contains(wb::guard_read_cause(-428.0, -428.0 + 2.0 * guard), "2 x"));
    // A block of 256 threads that read 255 elements past an input of 1 (seen on an H100): 255 x 0xCA.
    const std::uint32_t ca_bits = 0xCACACACAu;
    float ca = 0.0f;
    std::memcpy(&ca, &ca_bits, sizeof ca);
    float block_sum = -109.0f;
    for (int k = 0; k < 255; ++k) block_sum += ca;
    CHECK(contains(wb::guard_read_cause(-109.0, block_sum, 2000.0), "255 x"));
    CHECK(wb::guard_read_cause(-109.0, -1.69449882e9, 2000.0).find("255 x") != std::string::npos);
    // The input itself may add a little: within the slack only.
    const std::uint32_t small_bits = 0xC8C8C8C8u;   // the smallest guard value, -4.1e5: 1e-5 of it is 4
    float small_guard = 0.0f;
    std::memcpy(&small_guard, &small_bits, sizeof small_guard);
    CHECK(wb::guard_read_cause(-428.0, 500.0 + small_guard).empty());
    CHECK_FALSE(wb::guard_read_cause(-428.0, 500.0 + small_guard, 1000.0).empty());
    // A wrong value near a guard value but not on it, a wrong sign, a small error: not this cause.
    CHECK(wb::guard_read_cause(0.0, guard * 1.001).empty());
    CHECK(wb::guard_read_cause(0.0, -guard).empty());
    CHECK(wb::guard_read_cause(10.0, 11.0).empty());
    CHECK_FALSE(contains(run(expected, {1, 2, 3, 5}).message, "past the end"));
}
