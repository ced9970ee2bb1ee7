/// @file random.hpp
/// @brief Fresh random inputs for every run, reproducible through one printed seed.
///
/// Every grader process draws a new seed and prints it (`seed 1234 (WORKBOOK_SEED=1234 repeats
/// this run)`). Set WORKBOOK_SEED to replay a failure with exactly the same inputs.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace wb {

/// This process's seed: WORKBOOK_SEED if set, otherwise drawn from std::random_device.
std::uint64_t seed();

/// A random generator for one input set; @p salt keeps different inputs of one run independent.
class Rng {
public:
    explicit Rng(std::uint64_t salt) : engine_(seed() ^ (salt * 0x9E3779B97F4A7C15ull)) {}
    std::uint64_t next_u64() { return engine_(); }
    float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(engine_); }
    int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine_); }

private:
    std::mt19937_64 engine_;
};

/// @p n floats uniform in [lo, hi).
std::vector<float> uniform_floats(std::size_t n, float lo, float hi, Rng& rng);

/// @p n floats holding random non-zero integers in [-limit, limit]. Sums of these are exact in float
/// while partial sums stay below 2^24, whatever the order of addition, so a reduction can be
/// checked exactly: one missing or doubled element changes the result.
std::vector<float> nonzero_small_integers(std::size_t n, int limit, Rng& rng);

}   // namespace wb
