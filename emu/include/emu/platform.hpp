/// @file platform.hpp
/// @brief The CPU backend's stand-ins for nvcc's keywords: function qualifiers, alignment and the
/// built-in variables (threadIdx, blockIdx, blockDim, gridDim, warpSize).
///
/// `__shared__` is deliberately *not* a macro: the build's rewrite step (emu/src/rewrite.cpp) turns
/// every `__shared__` declaration into a slot of the block's shared-memory arena, and every
/// `kernel<<<...>>>(...)` into a call of emu::launch().
#pragma once

#include <cstdint>

#ifndef WORKBOOK_EMULATED
#define WORKBOOK_EMULATED 1
#endif

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __cudart_builtin__
#ifndef CUDART_VERSION
#define CUDART_VERSION 13000
#endif
#ifndef __CUDACC_VER_MAJOR__
#define WORKBOOK_EMULATED_CUDA_VERSION 13000
#endif

/// Index triples, as in CUDA (vector_types.h).
struct uint3 {
    unsigned int x, y, z;
};

/// Launch dimensions: every component defaults to 1.
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// The built-in variables threadIdx, blockIdx, blockDim and gridDim: variables, not macros, so that
// host code may name its own `dim3 gridDim(...)` as it can with nvcc.
#include "emu/builtin_variables.hpp"

/// Threads per warp, as on every NVIDIA GPU so far (the emulator's warps have 32 lanes too).
inline constexpr int warpSize = 32;
