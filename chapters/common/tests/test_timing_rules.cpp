// Tests of the timing statistics and the speed rule: no GPU needed.
#include "common/catch.hpp"
#include "common/timing.hpp"

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

TEST_CASE("the speed rule never asks more than 80% of the reference's own gain", "[timing]")
{
    CHECK(wb::required_speedup(2.0, 1.5) == Approx(1.2));
    CHECK(wb::required_speedup(1.05, 1.1) == Approx(0.88));
}
