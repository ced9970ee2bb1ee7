// Tests of the graders' diagnoses (chapters' reference headers, harness/output_contract.hpp): no GPU needed.
#include "harness/catch.hpp"

#include "04_layernorm/grader/reference.hpp"
#include "05_transpose/grader/reference.hpp"
#include "harness/output_contract.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr double kEps = 1e-5;

/// rstd of each variance by one formula, rounded to float as a kernel would store it.
template <typename F>
std::vector<float> rstd_by(const std::vector<double>& var, F formula)
{
    std::vector<float> out;
    for (double v : var) out.push_back(static_cast<float>(formula(v)));
    return out;
}

}   // namespace

TEST_CASE("LayerNorm: the sample variance (n - 1) is recognised, rows of one element included", "[hints]")
{
    const std::vector<double> var = {0.25, 1.0, 3.5, 0.0};
    for (double n : {1.0, 33.0, 1000.0}) {
        const auto bessel = rstd_by(var, [&](double v) { return 1.0 / std::sqrt(v * n / (n - 1.0) + kEps); });
        CHECK(contains(ch04::variance_formula_hint(var, bessel, static_cast<std::int64_t>(n), kEps, 1e-6),
                       "Bessel's correction"));
    }
}

TEST_CASE("LayerNorm: eps outside the square root is recognised", "[hints]")
{
    const std::vector<double> var = {0.25, 1.0, 3.5, 0.0};
    const auto outside = rstd_by(var, [](double v) { return 1.0 / (std::sqrt(v) + kEps); });
    CHECK(contains(ch04::variance_formula_hint(var, outside, 33, kEps, 1e-6), "eps is added outside the square root"));
}

TEST_CASE("LayerNorm: the standard deviation, var + eps or the variance stored in rstd is recognised", "[hints]")
{
    const std::vector<double> var = {0.25, 1.0, 3.5, 0.0};
    const auto stddev = rstd_by(var, [](double v) { return std::sqrt(v + kEps); });
    CHECK(contains(ch04::variance_formula_hint(var, stddev, 33, kEps, 1e-6), "rstd holds the standard deviation"));
    const auto var_eps = rstd_by(var, [](double v) { return v + kEps; });
    CHECK(contains(ch04::variance_formula_hint(var, var_eps, 33, kEps, 1e-6), "rstd holds var + eps"));
}

TEST_CASE("LayerNorm: other wrong variances get no formula named", "[hints]")
{
    const std::vector<double> var = {0.25, 1.0, 3.5, 0.0};
    const auto right = rstd_by(var, [](double v) { return 1.0 / std::sqrt(v + kEps); });
    CHECK(ch04::variance_formula_hint(var, right, 33, kEps, 1e-6).empty());   // nothing wrong
    auto cancelled = right;
    cancelled[1] *= 1.01f;   // one row off by 1%: neither formula
    CHECK(ch04::variance_formula_hint(var, cancelled, 33, kEps, 1e-6).empty());
}

TEST_CASE("GEMM: NaN outputs that turn finite with a finite C are a read of C with beta = 0", "[hints]")
{
    const std::vector<double> expected = {1.0, 2.0, 3.0, 4.0};
    const std::vector<float> finite_c = {0.5f, 0.5f, 0.5f, 0.5f};
    const std::vector<float> nan_out(4, std::nanf(""));   // 0 * poison: a NaN, not the poison
    const wb::CompareReport computed_nan = wb::compare(expected, nan_out, wb::Tolerance::exact());
    REQUIRE_FALSE(computed_nan.nothing_written);
    const auto read_c = wb::diagnose_beta_zero(computed_nan, nan_out, expected, finite_c, [] {
        return std::vector<float>{1, 2, 3, 4};
    });
    CHECK(contains(read_c.message, "beta = 0 must not read C"));
    // A kernel that writes nothing leaves the finite C as it was: still "not implemented yet".
    const std::vector<float> poisoned_out(4, wb::poison_value<float>());
    const wb::CompareReport poisoned = wb::compare(expected, poisoned_out, wb::Tolerance::exact());
    REQUIRE(poisoned.nothing_written);
    const auto untouched = wb::diagnose_beta_zero(poisoned, poisoned_out, expected, finite_c, [&] { return finite_c; });
    CHECK(untouched.nothing_written);
    CHECK(contains(untouched.message, "not implemented yet"));
}

TEST_CASE("Vector outputs: NaN outputs that are right when the output starts at 0 were added into unset", "[hints]")
{
    const std::vector<double> expected = {1.0, 2.0, 3.0};
    const std::vector<float> nan_out(3, std::nanf(""));
    const wb::CompareReport report = wb::compare(expected, nan_out, wb::Tolerance::exact());
    const auto added = wb::diagnose_unset_vector(report, nan_out, expected, [&] {
        return wb::compare(expected, std::vector<float>{1, 2, 3}, wb::Tolerance::exact());
    });
    CHECK_FALSE(added.ok);
    CHECK(contains(added.message, "3 of 3 elements are NaN"));
    CHECK(contains(added.message, "without setting it to 0 first"));
    // Still wrong from 0 (another bug): the report stays as it was.
    const auto other = wb::diagnose_unset_vector(report, nan_out, expected, [&] {
        return wb::compare(expected, std::vector<float>{1, 2, 4}, wb::Tolerance::exact());
    });
    CHECK(other.message == report.message);
}

TEST_CASE("Transpose: wrong elements from the first one read past input index 2^31 or 2^32 are a wrapped load",
          "[hints]")
{
    const std::int64_t rows = 66002, cols = 69998;
    // Output row 7 (input column 7): its element r was read from input index r * 69998 + 7, which passes
    // 2^31 at r = 30680 and 2^32 at r = 61359.
    CHECK(ch05::wrapped_load_cause(7, 61359, rows, cols).find("wraps at 2^32") != std::string::npos);
    CHECK(ch05::wrapped_load_cause(7, 61359, rows, cols).find("unsigned int") != std::string::npos);
    CHECK(ch05::wrapped_load_cause(7, 30680, rows, cols).find("wraps at 2^31") != std::string::npos);
    // One element later or earlier than the first past the limit: not that pattern.
    CHECK(ch05::wrapped_load_cause(7, 61360, rows, cols).empty());
    CHECK(ch05::wrapped_load_cause(7, 61358, rows, cols).empty());
    // Wrong from the start of the row: nothing to say from the input's side.
    CHECK(ch05::wrapped_load_cause(7, 0, rows, cols).empty());
}
