/// @file cuda_bf16.h
/// @brief The CPU backend's __nv_bfloat16 and __nv_bfloat162 (the upper 16 bits of a float),
/// with arithmetic done in double precision and rounded once.
#pragma once

#include "cuda_fp16.h"
#include "emu/small_floats.hpp"
#include "emu/vector_types.hpp"

#include <cmath>

struct __nv_bfloat16_raw {
    unsigned short x;
};

struct __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    constexpr __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
    __nv_bfloat16(float f) : __x(emu::detail::round_to_16(f, emu::detail::kBfloat16)) {}
    __nv_bfloat16(double d) : __x(emu::detail::round_to_16(d, emu::detail::kBfloat16)) {}
    __nv_bfloat16(int i) : __nv_bfloat16(static_cast<double>(i)) {}
    operator float() const { return static_cast<float>(emu::detail::from_16(__x, emu::detail::kBfloat16)); }
    operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
};

struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    constexpr __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

namespace emu::detail {
inline double b2d(__nv_bfloat16 h) { return from_16(h.__x, kBfloat16); }
inline __nv_bfloat16 d2b(double d)
{
    __nv_bfloat16 h;
    h.__x = round_to_16(d, kBfloat16);
    return h;
}
}   // namespace emu::detail

inline __nv_bfloat16 __float2bfloat16(float f) { return emu::detail::d2b(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return emu::detail::d2b(f); }
inline __nv_bfloat16 __double2bfloat16(double d) { return emu::detail::d2b(d); }
inline float __bfloat162float(__nv_bfloat16 h) { return static_cast<float>(emu::detail::b2d(h)); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b)
{
    return __nv_bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(b));
}
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
inline __nv_bfloat162 __float2bfloat162_rn(float f) { return __floats2bfloat162_rn(f, f); }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2(__bfloat162float(h.x), __bfloat162float(h.y)); }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
inline float __low2float(__nv_bfloat162 h) { return __bfloat162float(h.x); }
inline float __high2float(__nv_bfloat162 h) { return __bfloat162float(h.y); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __nv_bfloat16(__nv_bfloat16_raw{u}); }

#define EMU_BF16_BINARY(name, expr)                                    \
    inline __nv_bfloat16 name(__nv_bfloat16 a, __nv_bfloat16 b)        \
    {                                                                  \
        const double x = emu::detail::b2d(a), y = emu::detail::b2d(b); \
        return emu::detail::d2b(expr);                                 \
    }                                                                  \
    inline __nv_bfloat162 name##2(__nv_bfloat162 a, __nv_bfloat162 b)  \
    {                                                                  \
        return __nv_bfloat162(name(a.x, b.x), name(a.y, b.y));         \
    }
EMU_BF16_BINARY(__hadd, x + y)
EMU_BF16_BINARY(__hsub, x - y)
EMU_BF16_BINARY(__hmul, x* y)
EMU_BF16_BINARY(__hmax, std::isnan(x) ? y : (std::isnan(y) ? x : (x > y ? x : y)))
EMU_BF16_BINARY(__hmin, std::isnan(x) ? y : (std::isnan(y) ? x : (x < y ? x : y)))
#undef EMU_BF16_BINARY
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
    return emu::detail::d2b(std::fma(emu::detail::b2d(a), emu::detail::b2d(b), emu::detail::b2d(c)));
}
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
    return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
inline __nv_bfloat16 __hneg(__nv_bfloat16 a)
{
    return __ushort_as_bfloat16(static_cast<unsigned short>(a.__x ^ 0x8000u));
}
inline __nv_bfloat16 __habs(__nv_bfloat16 a)
{
    return __ushort_as_bfloat16(static_cast<unsigned short>(a.__x & 0x7fffu));
}
inline bool __hisnan(__nv_bfloat16 a) { return std::isnan(emu::detail::b2d(a)); }

inline __nv_bfloat16 operator+(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
inline __nv_bfloat16 operator-(__nv_bfloat16 a, __nv_bfloat16 b) { return __hsub(a, b); }
inline __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
inline __nv_bfloat16 operator-(__nv_bfloat16 a) { return __hneg(a); }
inline __nv_bfloat16& operator+=(__nv_bfloat16& a, __nv_bfloat16 b) { return a = __hadd(a, b); }
inline bool operator<(__nv_bfloat16 a, __nv_bfloat16 b) { return emu::detail::b2d(a) < emu::detail::b2d(b); }
inline bool operator>(__nv_bfloat16 a, __nv_bfloat16 b) { return emu::detail::b2d(a) > emu::detail::b2d(b); }
inline __nv_bfloat162 operator+(__nv_bfloat162 a, __nv_bfloat162 b) { return __hadd2(a, b); }
inline __nv_bfloat162 operator*(__nv_bfloat162 a, __nv_bfloat162 b) { return __hmul2(a, b); }
