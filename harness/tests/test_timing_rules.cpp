// Tests of the timing statistics and the speed rule: no GPU needed.
#include "harness/catch.hpp"
#include "harness/timing.hpp"

#include <cstddef>
#include <vector>

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

TEST_CASE("steady state: launches take turns by segment and keep the second half of each", "[timing]")
{
    // A fake clock: launch 0 takes 10 ms, launch 1 takes 300 ms. Each call returns its own number, per
    // launch (1, 2, 3, ...), so the kept samples show which calls were kept.
    const double seconds[] = {0.010, 0.300};
    double clock = 0.0;
    std::vector<std::size_t> order;
    std::vector<int> calls(2, 0);
    const auto samples = wb::steady_state_samples(
        2, wb::SteadyStatePlan{1.0, 2, 3},
        [&](std::size_t i) {
            order.push_back(i);
            clock += seconds[i];
            return static_cast<double>(++calls[i]);
        },
        [&] { return clock; });
    int turns = 1;
    for (std::size_t k = 1; k < order.size(); ++k) turns += order[k] != order[k - 1];
    CHECK(turns == 4);   // 0 ... 1 ... 0 ... 1 ...: two rounds, one segment per launch
    CHECK(order.front() == 0);
    // The slow launch: calls at 0, 0.3, 0.6, 0.9 s of its segment, and one past the end because only two
    // were in the second half: 3 kept of 5, in each round.
    CHECK(calls[1] == 10);
    CHECK(samples[1] == std::vector<double>{3, 4, 5, 8, 9, 10});
    // The fast one: about a hundred calls per segment, about half of them kept.
    CHECK(samples[0].size() >= 98);
    CHECK(samples[0].size() <= 102);
    CHECK(samples[0].front() >= 50);
}
