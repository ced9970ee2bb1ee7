#include "harness/random.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace wb {

std::uint64_t seed()
{
    static const std::uint64_t value = [] {
        std::uint64_t s = 0;
        if (const char* env = std::getenv("WORKBOOK_SEED"); env && *env) {
            s = std::strtoull(env, nullptr, 10);
        } else {
            std::random_device device;
            s = (static_cast<std::uint64_t>(device()) << 32) ^ device();
            s %= 1000000000ull;   // short enough to type
        }
        std::printf("seed %llu (WORKBOOK_SEED=%llu repeats this run)\n", static_cast<unsigned long long>(s),
                    static_cast<unsigned long long>(s));
        return s;
    }();
    return value;
}

std::vector<float> uniform_floats(std::size_t n, float lo, float hi, Rng& rng)
{
    std::vector<float> v(n);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::mt19937_64 engine(rng.next_u64());
    for (float& x : v) x = dist(engine);
    return v;
}

std::vector<float> nonzero_small_integers(std::size_t n, int limit, Rng& rng)
{
    std::vector<float> v(n);
    std::mt19937_64 engine(rng.next_u64());
    std::uniform_int_distribution<int> dist(1, limit);
    for (float& x : v) {
        const int magnitude = dist(engine);
        x = static_cast<float>((engine() & 1) ? magnitude : -magnitude);
    }
    return v;
}

}   // namespace wb
