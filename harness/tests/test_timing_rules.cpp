// Tests of the timing statistics and the speed rule: no GPU needed.
#include "harness/catch.hpp"
#include "harness/timing.hpp"

TEST_CASE("median of odd and even counts", "[timing]")
{
    CHECK(wb::median({3, 1, 2}) == 2);
    CHECK(wb::median({4, 1, 3, 2}) == 2.5);
    CHECK(wb::median({5}) == 5);
    CHECK_THROWS(wb::median({}));
}

TEST_CASE("the median ignores one interrupted run", "[timing]")
{
    CHECK(wb::median({1.0, 1.01, 0.99, 1.0, 50.0}) == 1.0);
}

TEST_CASE("the speed rule asks for the target when the reference gains much more", "[timing]")
{
    CHECK(wb::required_speedup(1.5, 3.0) == 1.5);
}

TEST_CASE("for a large reference gain the cap is 80% of it", "[timing]")
{
    CHECK(wb::required_speedup(10.0, 2.0) == Approx(1.6));
    CHECK(wb::required_speedup(10.0, 5.0) == Approx(4.0));
}

TEST_CASE("for a modest reference gain the cap is half of it, so a copy of the previous stage fails", "[timing]")
{
    CHECK(wb::required_speedup(2.0, 1.5) == Approx(1.25));
    CHECK(wb::required_speedup(2.0, 1.23) == Approx(1.115));
    CHECK(wb::required_speedup(2.0, 1.2) > 1.05);   // the previous stage's own speed (x1.00) fails
}

TEST_CASE("the cap never exceeds 95% of the reference gain", "[timing]")
{
    for (double gain : {0.8, 0.95, 1.0, 1.02, 1.05, 1.1, 1.3, 1.6, 3.0}) {
        CHECK(wb::speedup_cap(gain) <= 0.95 * gain + 1e-12);
        CHECK(wb::speedup_cap(gain) >= 0.8 * gain - 1e-12);
    }
    CHECK(wb::required_speedup(1.05, 1.1) == Approx(1.045));
}

TEST_CASE("the cap is continuous where its pieces meet", "[timing]")
{
    for (double gain : {1.1, 1.6}) {
        CHECK(wb::speedup_cap(gain - 1e-9) == Approx(wb::speedup_cap(gain + 1e-9)).epsilon(1e-6));
    }
}

TEST_CASE("the speed report names the part of the rule that applied", "[timing]")
{
    CHECK(wb::speed_rule_applied(1.5, 3.0) == wb::SpeedRule::target);
    CHECK(wb::speed_rule_applied(10.0, 2.0) == wb::SpeedRule::eighty_percent_of_gain);
    CHECK(wb::speed_rule_applied(2.0, 1.5) == wb::SpeedRule::half_of_gain);
    CHECK(wb::speed_rule_applied(2.0, 1.05) == wb::SpeedRule::ninety_five_percent_of_gain);
    const std::string capped = wb::describe_speed_rule(10.0, 2.0, 3);
    CHECK(capped.find("capped at 80% of the x2.00 that reference stage 3 gains") != std::string::npos);
    CHECK(wb::describe_speed_rule(1.5, 3.0, 3).find("the stage's target x1.50") != std::string::npos);
    CHECK(wb::describe_speed_rule(2.0, 1.5, 3).find("half of the gain") != std::string::npos);
    CHECK(wb::describe_speed_rule(2.0, 1.05, 3).find("95%") != std::string::npos);
    // Every branch gives the number required_speedup() asks for.
    CHECK(wb::required_speedup(2.0, 1.5) == Approx(1.0 + 0.5 * 0.5));
    CHECK(wb::required_speedup(2.0, 1.05) == Approx(0.95 * 1.05));
}
