// cuBLAS GEMM with fp16 / bf16 inputs and fp32 compute on the chapter's layouts: chapter 8's baseline.
#include "08_tensor_gemm/grader/baselines.hpp"

#include <stdexcept>
#include <string>

#if !defined(WORKBOOK_EMULATED)
#include <cublas_v2.h>
#endif

namespace ch08 {

#if defined(WORKBOOK_EMULATED)

void cublas_hgemm(int, int, int, float, const void*, const void*, Dtype, float, float*, cudaStream_t, int)
{
    throw std::runtime_error("cuBLAS GEMM with 16-bit inputs needs an NVIDIA GPU (no stand-in in the emulator)");
}

#else

namespace {

void check_cublas(cublasStatus_t status, const char* what)
{
    if (status == CUBLAS_STATUS_SUCCESS) return;
    throw std::runtime_error(std::string("cuBLAS call `") + what + "` failed with status " +
                             std::to_string(static_cast<int>(status)));
}

cublasHandle_t handle()
{
    static cublasHandle_t h = [] {
        cublasHandle_t created = nullptr;
        check_cublas(cublasCreate(&created), "cublasCreate");
        return created;
    }();   // never destroyed: the driver frees it when the grader ends
    return h;
}

}   // namespace

void cublas_hgemm(int M, int N, int K, float alpha, const void* A, const void* B, Dtype dtype, float beta, float* C,
                  cudaStream_t stream, int ld)
{
    if (ld == 0) ld = K;
    cublasHandle_t h = handle();
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    const cudaDataType type = dtype == Dtype::f16 ? CUDA_R_16F : CUDA_R_16BF;
    check_cublas(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, B, type, ld, A, type, ld, &beta, C,
                              CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
}

#endif

}   // namespace ch08
