/// @file runtime_api.hpp
/// @brief The part of the CUDA runtime API the workbook uses, implemented on the CPU.
///
/// Enumerators keep CUDA's numeric values, so messages and logs read the same on both backends.
/// All device work (kernels, copies, event records) goes to one worker thread in submission order:
/// a valid schedule for any set of streams, since streams only promise order *within* a stream.
#pragma once

#include "emu/vector_types.hpp"

#include <cstddef>
#include <cstdint>

enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorAssert = 710,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureUnmatched = 903,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorUnknown = 999,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;
struct CUevent_st;
typedef struct CUevent_st* cudaEvent_t;
struct CUgraph_st;
typedef struct CUgraph_st* cudaGraph_t;
struct CUgraphNode_st;
typedef struct CUgraphNode_st* cudaGraphNode_t;

enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2,
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

struct cudaDeviceProp {
    char name[256];
    std::size_t totalGlobalMem;
    std::size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    std::size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    std::size_t totalConstMem;
    int major;
    int minor;
    std::size_t textureAlignment;
    int deviceOverlap;
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;
    int integrated;
    int canMapHostMemory;
    int computeMode;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    std::size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int concurrentManagedAccess;
    std::size_t sharedMemPerBlockOptin;
    std::size_t reservedSharedMemPerBlock;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
};

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxPitch = 11,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrStreamPrioritiesSupported = 78,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrMaxPersistingL2CacheSize = 108,
    cudaDevAttrMaxAccessPolicyWindowSize = 109,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrMemoryPoolsSupported = 115,
};

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

/// Values for cudaFuncAttributePreferredSharedMemoryCarveout (any percentage 0..100 is allowed too).
enum cudaSharedCarveout {
    cudaSharedmemCarveoutDefault = -1,
    cudaSharedmemCarveoutMaxShared = 100,
    cudaSharedmemCarveoutMaxL1 = 0,
};

enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3,
};

struct cudaFuncAttributes {
    std::size_t sharedSizeBytes;
    std::size_t constSizeBytes;
    std::size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
};

// ---- errors, devices --------------------------------------------------------------------------------
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes);

// ---- memory -------------------------------------------------------------------------------------
cudaError_t cudaMalloc(void** ptr, std::size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t stream);
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t stream = 0);
cudaError_t cudaMemset2DAsync(void* ptr, std::size_t pitch, int value, std::size_t width, std::size_t height,
                              cudaStream_t stream = 0);

// ---- streams and events ---------------------------------------------------------------------------
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
// Stream capture records the work put on a stream instead of running it; the graders use it to see
// whether a launcher puts its work on the stream it was given. Graphs can be inspected, not launched.
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// ---- kernels: attributes and occupancy (the kernel is any function pointer) -------------------------
namespace emu::detail {
cudaError_t func_get_attributes(cudaFuncAttributes* attributes, const void* kernel);
cudaError_t func_set_attribute(const void* kernel, cudaFuncAttribute attribute, int value);
cudaError_t occupancy_blocks_per_sm(int* blocks, const void* kernel, int block_size, std::size_t dynamic_smem);
cudaError_t memcpy_symbol(void* symbol, std::size_t symbol_bytes, const void* src, std::size_t bytes,
                          std::size_t offset, bool to_symbol, void* dst);
/// The same on @p stream: ordered after the stream's earlier work, recorded when it is captured.
cudaError_t memcpy_symbol_async(void* symbol, std::size_t symbol_bytes, const void* src, std::size_t bytes,
                                std::size_t offset, bool to_symbol, void* dst, cudaStream_t stream);
}   // namespace emu::detail

template <class T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, T* kernel)
{
    return emu::detail::func_get_attributes(attributes, reinterpret_cast<const void*>(kernel));
}
template <class T>
cudaError_t cudaFuncSetAttribute(T* kernel, cudaFuncAttribute attribute, int value)
{
    return emu::detail::func_set_attribute(reinterpret_cast<const void*>(kernel), attribute, value);
}
template <class T>
cudaError_t cudaFuncSetCacheConfig(T*, cudaFuncCache)
{
    return cudaSuccess;
}
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, T* kernel, int block_size,
                                                          std::size_t dynamic_smem)
{
    return emu::detail::occupancy_blocks_per_sm(blocks, reinterpret_cast<const void*>(kernel), block_size,
                                                dynamic_smem);
}
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, T* kernel, std::size_t dynamic_smem = 0,
                                               int block_size_limit = 0)
{
    const int limit = block_size_limit > 0 && block_size_limit < 1024 ? block_size_limit : 1024;
    int best = 32, best_blocks = 0;
    for (int size = 32; size <= limit; size += 32) {
        int blocks = 0;
        const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, size, dynamic_smem);
        if (err != cudaSuccess) return err;
        if (blocks * size >= best_blocks * best) {
            best = size;
            best_blocks = blocks;
        }
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    *block_size = best;
    *min_grid = best_blocks * prop.multiProcessorCount;
    return cudaSuccess;
}

template <class T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, std::size_t bytes, std::size_t offset = 0,
                               cudaMemcpyKind = cudaMemcpyHostToDevice)
{
    return emu::detail::memcpy_symbol(&symbol, sizeof(T), src, bytes, offset, true, nullptr);
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t bytes, std::size_t offset = 0,
                                 cudaMemcpyKind = cudaMemcpyDeviceToHost)
{
    return emu::detail::memcpy_symbol(const_cast<T*>(&symbol), sizeof(T), nullptr, bytes, offset, false, dst);
}
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(T& symbol, const void* src, std::size_t bytes, std::size_t offset = 0,
                                    cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t stream = 0)
{
    return emu::detail::memcpy_symbol_async(&symbol, sizeof(T), src, bytes, offset, true, nullptr, stream);
}
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, std::size_t bytes, std::size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0)
{
    return emu::detail::memcpy_symbol_async(const_cast<T*>(&symbol), sizeof(T), nullptr, bytes, offset, false, dst,
                                            stream);
}
template <class T>
cudaError_t cudaGetSymbolAddress(void** address, T& symbol)
{
    *address = &symbol;
    return cudaSuccess;
}

template <class T>
cudaError_t cudaMalloc(T** ptr, std::size_t bytes)
{
    return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
cudaError_t cudaMallocAsync(T** ptr, std::size_t bytes, cudaStream_t stream)
{
    return cudaMallocAsync(reinterpret_cast<void**>(ptr), bytes, stream);
}
