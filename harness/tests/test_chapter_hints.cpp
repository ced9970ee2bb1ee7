// Tests of the graders' diagnoses (chapters' reference headers, harness/output_contract.hpp): no GPU needed.
#include "harness/catch.hpp"

#include "04_layernorm/grader/reference.hpp"
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
    std::vector<float> nan_out(4);
    std::memset(nan_out.data(), 0xFF, nan_out.size() * sizeof(float));   // 0 * poison keeps these bits on a CPU
    const wb::CompareReport poisoned = wb::compare(expected, nan_out, wb::Tolerance::exact());
    REQUIRE(poisoned.nothing_written);
    const auto read_c = wb::diagnose_beta_zero(poisoned, nan_out, expected, finite_c, [] {
        return std::vector<float>{1, 2, 3, 4};
    });
    CHECK_FALSE(read_c.nothing_written);
    CHECK(contains(read_c.message, "beta = 0 must not read C"));
    // A kernel that writes nothing leaves the finite C as it was: still "not implemented yet".
    const auto untouched = wb::diagnose_beta_zero(poisoned, nan_out, expected, finite_c, [&] { return finite_c; });
    CHECK(untouched.nothing_written);
    CHECK(contains(untouched.message, "not implemented yet"));
}

TEST_CASE("Single results: a poisoned output that is right when it starts at 0 was added into unset", "[hints]")
{
    float poison;
    std::memset(&poison, 0xFF, sizeof poison);   // what NaN + x keeps on a CPU
    const wb::CompareReport untouched =
        wb::compare(std::vector<double>{6.0}, std::vector<float>{poison}, wb::Tolerance::exact());
    REQUIRE(untouched.nothing_written);
    auto is_six = [](float got) { return got == 6.0f; };
    const auto added = wb::diagnose_unset_output(
        untouched, [] { return 6.0f; }, is_six);
    CHECK_FALSE(added.ok);
    CHECK_FALSE(added.nothing_written);
    CHECK(contains(added.message, "without setting it to 0 first"));
    CHECK(contains(added.message, "atomicAdd into a NaN stays NaN"));
    // A kernel that writes nothing leaves the 0 there: still "not implemented yet".
    CHECK(wb::diagnose_unset_output(
              untouched, [] { return 0.0f; }, [](float) { return true; })
              .nothing_written);
    // A kernel that writes a wrong value from 0: not this diagnosis either.
    CHECK(wb::diagnose_unset_output(
              untouched, [] { return 5.0f; }, is_six)
              .nothing_written);
    // A report that is not "nothing written" is left alone, and the call is not run again.
    bool ran = false;
    const wb::CompareReport wrong =
        wb::compare(std::vector<double>{6.0}, std::vector<float>{5.0f}, wb::Tolerance::exact());
    const auto same = wb::diagnose_unset_output(
        wrong,
        [&] {
            ran = true;
            return 6.0f;
        },
        is_six);
    CHECK_FALSE(ran);
    CHECK(same.message == wrong.message);
}
