/// @file cuda_fp16.h
/// @brief The CPU backend's __half and __half2: IEEE binary16 storage, arithmetic done in double
/// precision and rounded once (so results match the GPU's correctly rounded half operations).
#pragma once

#include "emu/small_floats.hpp"
#include "emu/vector_types.hpp"

#include <cmath>
#include <cstdint>

struct __half_raw {
    unsigned short x;
};

struct __half {
    unsigned short __x;
    __half() = default;
    constexpr __half(__half_raw r) : __x(r.x) {}
    __half(float f) : __x(emu::detail::round_to_16(f, emu::detail::kHalf)) {}
    __half(double d) : __x(emu::detail::round_to_16(d, emu::detail::kHalf)) {}
    __half(int i) : __half(static_cast<double>(i)) {}
    __half(unsigned int i) : __half(static_cast<double>(i)) {}
    __half(long long i) : __half(static_cast<double>(i)) {}
    __half(unsigned long long i) : __half(static_cast<double>(i)) {}
    __half(short i) : __half(static_cast<double>(i)) {}
    __half(unsigned short i) : __half(static_cast<double>(i)) {}
    operator float() const { return static_cast<float>(emu::detail::from_16(__x, emu::detail::kHalf)); }
    operator __half_raw() const { return __half_raw{__x}; }
    __half& operator=(float f) { return *this = __half(f); }
    __half& operator=(double d) { return *this = __half(d); }
};

struct alignas(4) __half2 {
    __half x, y;
    __half2() = default;
    constexpr __half2(__half a, __half b) : x(a), y(b) {}
};

typedef __half half;
typedef __half2 half2;

namespace emu::detail {
inline double h2d(__half h) { return from_16(h.__x, kHalf); }
inline __half d2h(double d)
{
    __half h;
    h.__x = round_to_16(d, kHalf);
    return h;
}
}   // namespace emu::detail

// ---- conversions ----------------------------------------------------------------------------------
inline __half __float2half(float f) { return emu::detail::d2h(f); }
inline __half __float2half_rn(float f) { return emu::detail::d2h(f); }
inline __half __double2half(double d) { return emu::detail::d2h(d); }
inline float __half2float(__half h) { return static_cast<float>(emu::detail::h2d(h)); }
inline __half __int2half_rn(int i) { return emu::detail::d2h(i); }
inline int __half2int_rn(__half h) { return static_cast<int>(std::nearbyint(emu::detail::h2d(h))); }
inline int __half2int_rz(__half h) { return static_cast<int>(emu::detail::h2d(h)); }
inline __half2 __float2half2_rn(float f) { return __half2(__float2half_rn(f), __float2half_rn(f)); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half_rn(a), __float2half_rn(b)); }
inline __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
inline float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
inline __half2 __half2half2(__half a) { return __half2(a, a); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline float __low2float(__half2 h) { return __half2float(h.x); }
inline float __high2float(__half2 h) { return __half2float(h.y); }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
inline __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline short __half_as_short(__half h) { return static_cast<short>(h.__x); }
inline __half __ushort_as_half(unsigned short u) { return __half(__half_raw{u}); }
inline __half __short_as_half(short s) { return __half(__half_raw{static_cast<unsigned short>(s)}); }

// ---- arithmetic: exact in double, rounded once ----------------------------------------------------
#define EMU_HALF_BINARY(name, expr)                                    \
    inline __half name(__half a, __half b)                             \
    {                                                                  \
        const double x = emu::detail::h2d(a), y = emu::detail::h2d(b); \
        return emu::detail::d2h(expr);                                 \
    }                                                                  \
    inline __half2 name##2(__half2 a, __half2 b) { return __half2(name(a.x, b.x), name(a.y, b.y)); }
EMU_HALF_BINARY(__hadd, x + y)
EMU_HALF_BINARY(__hsub, x - y)
EMU_HALF_BINARY(__hmul, x* y)
EMU_HALF_BINARY(__hmax, std::isnan(x) ? y : (std::isnan(y) ? x : (x > y ? x : y)))
EMU_HALF_BINARY(__hmin, std::isnan(x) ? y : (std::isnan(y) ? x : (x < y ? x : y)))
#undef EMU_HALF_BINARY
inline __half __hdiv(__half a, __half b) { return emu::detail::d2h(emu::detail::h2d(a) / emu::detail::h2d(b)); }
inline __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
inline __half __hfma(__half a, __half b, __half c)
{
    return emu::detail::d2h(std::fma(emu::detail::h2d(a), emu::detail::h2d(b), emu::detail::h2d(c)));
}
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
inline __half __hneg(__half a) { return __ushort_as_half(static_cast<unsigned short>(a.__x ^ 0x8000u)); }
inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
inline __half __habs(__half a) { return __ushort_as_half(static_cast<unsigned short>(a.__x & 0x7fffu)); }
inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
inline bool __hisnan(__half a) { return std::isnan(emu::detail::h2d(a)); }
inline bool __hisinf(__half a) { return std::isinf(emu::detail::h2d(a)) ? 1 : 0; }
inline bool __heq(__half a, __half b) { return emu::detail::h2d(a) == emu::detail::h2d(b); }
inline bool __hne(__half a, __half b) { return !__hisnan(a) && !__hisnan(b) && !__heq(a, b); }
inline bool __hlt(__half a, __half b) { return emu::detail::h2d(a) < emu::detail::h2d(b); }
inline bool __hle(__half a, __half b) { return emu::detail::h2d(a) <= emu::detail::h2d(b); }
inline bool __hgt(__half a, __half b) { return emu::detail::h2d(a) > emu::detail::h2d(b); }
inline bool __hge(__half a, __half b) { return emu::detail::h2d(a) >= emu::detail::h2d(b); }
inline __half hexp(__half a) { return emu::detail::d2h(std::exp(emu::detail::h2d(a))); }
inline __half hlog(__half a) { return emu::detail::d2h(std::log(emu::detail::h2d(a))); }
inline __half hsqrt(__half a) { return emu::detail::d2h(std::sqrt(emu::detail::h2d(a))); }
inline __half hrsqrt(__half a) { return emu::detail::d2h(1.0 / std::sqrt(emu::detail::h2d(a))); }
inline __half hrcp(__half a) { return emu::detail::d2h(1.0 / emu::detail::h2d(a)); }
inline __half hlog2(__half a) { return emu::detail::d2h(std::log2(emu::detail::h2d(a))); }
inline __half hexp2(__half a) { return emu::detail::d2h(std::exp2(emu::detail::h2d(a))); }
inline __half2 h2exp(__half2 a) { return __half2(hexp(a.x), hexp(a.y)); }
inline __half2 h2rcp(__half2 a) { return __half2(hrcp(a.x), hrcp(a.y)); }
inline __half2 h2log(__half2 a) { return __half2(hlog(a.x), hlog(a.y)); }
inline __half2 h2sqrt(__half2 a) { return __half2(hsqrt(a.x), hsqrt(a.y)); }
inline __half2 h2rsqrt(__half2 a) { return __half2(hrsqrt(a.x), hrsqrt(a.y)); }

inline __half operator+(__half a, __half b) { return __hadd(a, b); }
inline __half operator-(__half a, __half b) { return __hsub(a, b); }
inline __half operator*(__half a, __half b) { return __hmul(a, b); }
inline __half operator/(__half a, __half b) { return __hdiv(a, b); }
inline __half operator-(__half a) { return __hneg(a); }
inline __half& operator+=(__half& a, __half b) { return a = __hadd(a, b); }
inline __half& operator-=(__half& a, __half b) { return a = __hsub(a, b); }
inline __half& operator*=(__half& a, __half b) { return a = __hmul(a, b); }
inline __half& operator/=(__half& a, __half b) { return a = __hdiv(a, b); }
inline bool operator==(__half a, __half b) { return __heq(a, b); }
inline bool operator!=(__half a, __half b) { return !__heq(a, b); }
inline bool operator<(__half a, __half b) { return __hlt(a, b); }
inline bool operator<=(__half a, __half b) { return __hle(a, b); }
inline bool operator>(__half a, __half b) { return __hgt(a, b); }
inline bool operator>=(__half a, __half b) { return __hge(a, b); }
inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
inline __half2& operator+=(__half2& a, __half2 b) { return a = __hadd2(a, b); }
inline __half2& operator*=(__half2& a, __half2 b) { return a = __hmul2(a, b); }

#define CUDART_INF_FP16 __ushort_as_half(static_cast<unsigned short>(0x7c00u))
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half(static_cast<unsigned short>(0x7bffu))
