/// @file device.hpp
/// @brief What GPU we run on, whether we can run at all, and its measured copy bandwidth.
#pragma once

#include <cstddef>
#include <string>

namespace wb {

/// Facts about the GPU the grader runs on.
struct DeviceInfo {
    std::string name;           ///< e.g. "NVIDIA H100 80GB HBM3"
    int cc_major = 0;           ///< compute capability, major
    int cc_minor = 0;           ///< compute capability, minor
    int sm_count = 0;           ///< streaming multiprocessors
    std::size_t l2_bytes = 0;   ///< L2 cache size
    std::size_t global_bytes = 0;
    std::size_t shared_per_block_optin = 0;   ///< largest shared memory a block may request
    int max_threads_per_sm = 0;               ///< resident threads an SM holds at most (occupancy's denominator)
    int max_blocks_per_sm = 0;                ///< resident blocks an SM holds at most (32 on Hopper)
    int registers_per_sm = 0;                 ///< 32-bit registers of one SM
    std::size_t shared_per_sm = 0;            ///< shared memory of one SM, bytes
};

/// Empty when a usable GPU is present; otherwise one sentence saying why grading cannot run
/// (no GPU, driver missing, compute capability too old, or this build has no code for the GPU).
/// Never throws; safe to call when there is no driver at all.
const std::string& gpu_unavailable_reason();

/// True when this build runs the kernels on the CPU emulator (WORKBOOK_BACKEND=cpu, see the
/// emulation page): results are checked, nothing is timed.
bool emulated();

/// Empty when speed can be measured here; otherwise why not, as a phrase ("emulated on the CPU: ...",
/// or WORKBOOK_CORRECTNESS_ONLY being set). Graders ask Stage::measures_speed() before they allocate
/// their large timing inputs.
std::string timing_unavailable_reason();

/// The GPU's properties. Only call when gpu_unavailable_reason() is empty.
const DeviceInfo& device_info();

/// Device-to-device copy bandwidth measured now (bytes read + bytes written per second, in GB/s),
/// on buffers much larger than L2. Measured once per process, then cached.
double copy_bandwidth_gbps();

/// Bytes an input must exceed to be streamed from memory rather than served by L2 (4 x L2).
std::size_t larger_than_cache_bytes();

}   // namespace wb
