/// @file builtin_variables.hpp
/// @brief threadIdx, blockIdx, blockDim and gridDim on the CPU backend.
///
/// They live in thread-local storage of the worker thread that runs the block; the scheduler
/// (emu/src/block.cpp) updates them whenever it switches to another CUDA thread. Kernels see them
/// read-only, under CUDA's names, through assembler labels that bind each name to the scheduler's
/// writable copy; being variables rather than macros, host code can shadow them with its own
/// `dim3 gridDim(...)`, as with nvcc. The file is marked as a system header so that the build's
/// rewrite step, which stops on inline assembly in the learner's code, leaves these labels alone.
#pragma once
#pragma GCC system_header

extern __thread const uint3 threadIdx __asm__("emu_tls_threadIdx");
extern __thread const uint3 blockIdx __asm__("emu_tls_blockIdx");
extern __thread const uint3 blockDim __asm__("emu_tls_blockDim");
extern __thread const uint3 gridDim __asm__("emu_tls_gridDim");
