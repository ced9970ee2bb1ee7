/// @file vector_types.hpp
/// @brief CUDA's short vector types (float4, int2, uint4, ...) with CUDA's sizes and alignments,
/// and their make_* constructors.
#pragma once

#include "emu/platform.hpp"

#define EMU_VECTOR1(name, T, align) \
    struct alignas(align) name {    \
        T x;                        \
    };                              \
    inline constexpr name make_##name(T x) { return name{x}; }
#define EMU_VECTOR2(name, T, align) \
    struct alignas(align) name {    \
        T x, y;                     \
    };                              \
    inline constexpr name make_##name(T x, T y) { return name{x, y}; }
#define EMU_VECTOR3(name, T, align) \
    struct alignas(align) name {    \
        T x, y, z;                  \
    };                              \
    inline constexpr name make_##name(T x, T y, T z) { return name{x, y, z}; }
#define EMU_VECTOR4(name, T, align) \
    struct alignas(align) name {    \
        T x, y, z, w;               \
    };                              \
    inline constexpr name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }

EMU_VECTOR1(char1, signed char, 1)
EMU_VECTOR2(char2, signed char, 2)
EMU_VECTOR3(char3, signed char, 1)
EMU_VECTOR4(char4, signed char, 4)
EMU_VECTOR1(uchar1, unsigned char, 1)
EMU_VECTOR2(uchar2, unsigned char, 2)
EMU_VECTOR3(uchar3, unsigned char, 1)
EMU_VECTOR4(uchar4, unsigned char, 4)
EMU_VECTOR1(short1, short, 2)
EMU_VECTOR2(short2, short, 4)
EMU_VECTOR3(short3, short, 2)
EMU_VECTOR4(short4, short, 8)
EMU_VECTOR1(ushort1, unsigned short, 2)
EMU_VECTOR2(ushort2, unsigned short, 4)
EMU_VECTOR3(ushort3, unsigned short, 2)
EMU_VECTOR4(ushort4, unsigned short, 8)
EMU_VECTOR1(int1, int, 4)
EMU_VECTOR2(int2, int, 8)
EMU_VECTOR3(int3, int, 4)
EMU_VECTOR4(int4, int, 16)
EMU_VECTOR1(uint1, unsigned int, 4)
EMU_VECTOR2(uint2, unsigned int, 8)
EMU_VECTOR4(uint4, unsigned int, 16)
EMU_VECTOR1(long1, long, 8)
EMU_VECTOR2(long2, long, 16)
EMU_VECTOR3(long3, long, 8)
EMU_VECTOR1(ulong1, unsigned long, 8)
EMU_VECTOR2(ulong2, unsigned long, 16)
EMU_VECTOR3(ulong3, unsigned long, 8)
EMU_VECTOR1(longlong1, long long, 8)
EMU_VECTOR2(longlong2, long long, 16)
EMU_VECTOR3(longlong3, long long, 8)
EMU_VECTOR4(longlong4, long long, 16)
EMU_VECTOR1(ulonglong1, unsigned long long, 8)
EMU_VECTOR2(ulonglong2, unsigned long long, 16)
EMU_VECTOR3(ulonglong3, unsigned long long, 8)
EMU_VECTOR4(ulonglong4, unsigned long long, 16)
EMU_VECTOR1(float1, float, 4)
EMU_VECTOR2(float2, float, 8)
EMU_VECTOR3(float3, float, 4)
EMU_VECTOR4(float4, float, 16)
EMU_VECTOR1(double1, double, 8)
EMU_VECTOR2(double2, double, 16)
EMU_VECTOR3(double3, double, 8)
EMU_VECTOR4(double4, double, 16)

// uint3 is defined with dim3 in platform.hpp.
inline constexpr uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }

#undef EMU_VECTOR1
#undef EMU_VECTOR2
#undef EMU_VECTOR3
#undef EMU_VECTOR4
