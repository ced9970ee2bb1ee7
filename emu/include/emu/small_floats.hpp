/// @file small_floats.hpp
/// @brief Exact conversions between double and the 16-bit formats (IEEE binary16 and bfloat16).
///
/// One routine serves both formats: the value is scaled by a power of two (exact) so that the bits
/// to keep form an integer, rounded once to nearest-even, and packed. Converting from double directly
/// (rather than through float) avoids double rounding, so __double2half is correctly rounded as on
/// the GPU.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace emu::detail {

/// A 16-bit floating-point format: sign, exponent and `mantissa` stored significand bits.
struct Format16 {
    int mantissa;   ///< stored significand bits (10 for half, 7 for bfloat16)
    int bias;       ///< exponent bias (15, 127)
    int emin;       ///< smallest normal exponent (-14, -126)
    int emax;       ///< largest exponent (15, 127)
    std::uint16_t quiet_nan;
};
inline constexpr Format16 kHalf{10, 15, -14, 15, 0x7fff};
inline constexpr Format16 kBfloat16{7, 127, -126, 127, 0x7fff};

inline std::uint16_t round_to_16(double value, const Format16& f)
{
    if (std::isnan(value)) return f.quiet_nan;
    const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    const double a = std::fabs(value);
    const std::uint16_t inf = static_cast<std::uint16_t>(((f.emax + f.bias) + 1) << f.mantissa);
    if (std::isinf(a)) return sign | inf;
    if (a == 0.0) return sign;
    int e = 0;
    std::frexp(a, &e);
    int exponent = e - 1;   // a = 1.m * 2^exponent
    const double one = std::ldexp(1.0, f.mantissa);
    if (exponent < f.emin) {
        // Subnormal: count units of 2^(emin - mantissa). A result of 2^mantissa is the smallest normal.
        const double q = std::nearbyint(std::ldexp(a, f.mantissa - f.emin));
        return sign | static_cast<std::uint16_t>(q);
    }
    double q = std::nearbyint(std::ldexp(a, f.mantissa - exponent));   // in [2^m, 2^(m+1)]
    if (q >= 2.0 * one) {
        q = one;
        ++exponent;
    }
    if (exponent > f.emax) return sign | inf;
    return sign | static_cast<std::uint16_t>(((exponent + f.bias) << f.mantissa) | static_cast<int>(q - one));
}

inline double from_16(std::uint16_t bits, const Format16& f)
{
    const bool negative = bits & 0x8000;
    const int exponent_field = (bits & 0x7fff) >> f.mantissa;
    const int fraction = bits & ((1 << f.mantissa) - 1);
    double value = 0.0;
    if (exponent_field == f.emax + f.bias + 1) {
        value = fraction ? NAN : INFINITY;
    } else if (exponent_field == 0) {
        value = std::ldexp(static_cast<double>(fraction), f.emin - f.mantissa);
    } else {
        value = std::ldexp(static_cast<double>(fraction + (1 << f.mantissa)), exponent_field - f.bias - f.mantissa);
    }
    return negative ? -value : value;
}

}   // namespace emu::detail
