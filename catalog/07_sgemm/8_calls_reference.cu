// Catalog, chapter 7, stage 8: the launcher hands the product to the reference solution's stage 8.
// expect: wrong "not yours"
// emulated: wrong "not yours"
//
// Right results at the reference's speed, so neither the comparisons nor the speed check object; the
// launch ledger sees kernels of namespace reference (a GPU names them; the emulator knows the file
// they are launched from) and rejects the stage as not the learner's work.
#include "07_sgemm/stages.cuh"

namespace reference {
void sgemm_8_pipelined(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream);
}   // namespace reference

namespace WORKBOOK_TRACK {

void sgemm_8_pipelined(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream)
{
    reference::sgemm_8_pipelined(M, N, K, alpha, A, B, beta, C, stream);
}

}   // namespace WORKBOOK_TRACK
