// Tests of the comparison and diagnosis logic: no GPU needed.
#include "common/catch.hpp"
#include "common/compare.hpp"

#include <cmath>
#include <string>

namespace {

wb::CompareReport run(const std::vector<double>& expected, const std::vector<float>& got,
                      wb::Tolerance tolerance = wb::Tolerance::exact(), wb::Layout layout = wb::Layout::vector())
{
    return wb::compare(expected, got, tolerance, layout);
}

float poison()
{
    float p;
    std::memset(&p, wb::kPoisonByte, sizeof p);
    return p;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

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

TEST_CASE("values a few tolerances off with a common ratio near 1 are lost precision, not a scale factor",
          "[compare]")
{
    // Half-precision-like tolerance; both wrong values are 0.9984 times the right one.
    const wb::Tolerance tol{0x1.0p-24, 0x1.0p-10};
    const auto report = run({0.000452, 0.25, 0.000452, 0.5}, {0.000452f * 0.9984f, 0.25f, 0.000452f * 0.99841f, 0.5f}, tol);
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
