#include "harness/device.hpp"

#include "harness/buffers.hpp"
#include "common/cuda_check.hpp"
#include "harness/device_kernels.hpp"
#include "harness/timing.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>

namespace wb {

namespace {

std::string probe_gpu()
{
    int driver_version = 0;
    if (cudaDriverGetVersion(&driver_version) != cudaSuccess || driver_version == 0) {
        return "no NVIDIA GPU driver was found on this machine, so grading cannot run here (the build "
               "still checked that your code compiles)";
    }
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        return "no NVIDIA GPU was found on this machine; correctness and speed need one (the build "
               "still checked that your code compiles)";
    }
    if (err == cudaErrorInsufficientDriver) {
        return "the NVIDIA driver is older than this CUDA Toolkit; update the driver (nvidia-smi shows "
               "its version) or use an older toolkit";
    }
    if (err != cudaSuccess) {
        return std::string("the CUDA runtime cannot reach a GPU (") + cudaGetErrorString(err) +
               "); check that the NVIDIA driver is loaded (run nvidia-smi)";
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        return "the CUDA runtime could not read the GPU's properties; check the driver with nvidia-smi";
    }
    if (prop.major < 7) {
        return "this GPU (" + std::string(prop.name) + ", compute capability " + std::to_string(prop.major) + "." +
               std::to_string(prop.minor) + ") is older than the workbook's minimum 7.0 (Volta)";
    }
    // Does this build contain code for this GPU? Probing an attribute of a harness kernel answers it.
    if (!harness_kernels_loadable()) {
        return "this build has no code for your GPU (compute capability " + std::to_string(prop.major) + "." +
               std::to_string(prop.minor) +
               "); rebuild for it with `make clean && make CUDA_ARCH=" + std::to_string(prop.major * 10 + prop.minor) +
               "`";
    }
    return "";
}

}   // namespace

bool emulated()
{
#if WORKBOOK_EMULATED
    return true;
#else
    return false;
#endif
}

std::string timing_unavailable_reason()
{
    if (emulated()) return "emulated on the CPU: correctness only, speed needs a GPU";
    if (const char* only = std::getenv("WORKBOOK_CORRECTNESS_ONLY"); only && *only && *only != '0') {
        return "WORKBOOK_CORRECTNESS_ONLY is set";
    }
    return "";
}

const std::string& gpu_unavailable_reason()
{
    static const std::string reason = probe_gpu();
    return reason;
}

const DeviceInfo& device_info()
{
    static const DeviceInfo info = [] {
        cudaDeviceProp prop{};
        WB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        DeviceInfo d;
        d.name = prop.name;
        d.cc_major = prop.major;
        d.cc_minor = prop.minor;
        d.sm_count = prop.multiProcessorCount;
        d.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
        d.global_bytes = prop.totalGlobalMem;
        d.shared_per_block_optin = prop.sharedMemPerBlockOptin;
        d.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
        d.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
        d.registers_per_sm = prop.regsPerMultiprocessor;
        d.shared_per_sm = prop.sharedMemPerMultiprocessor;
        return d;
    }();
    return info;
}

std::size_t larger_than_cache_bytes()
{
    return std::max<std::size_t>(4 * device_info().l2_bytes, std::size_t(256) << 20);
}

double copy_bandwidth_gbps()
{
    static const double gbps = [] {
        // 1 GiB each way where the GPU has room, never less than 4 x L2.
        std::size_t bytes = std::max<std::size_t>(larger_than_cache_bytes(), std::size_t(1) << 30);
        bytes = std::min(bytes, device_info().global_bytes / 8);
        DeviceBuffer<char> src(bytes), dst(bytes);
        WB_CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
        Stream stream;
        const double ms = median_ms(stream.get(), [&](cudaStream_t s) {
            WB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
        });
        return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
    }();
    return gbps;
}

}   // namespace wb
