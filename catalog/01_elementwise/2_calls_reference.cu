// Catalog, chapter 1, stage 2: the launcher calls the reference solution's launcher.
// expect: wrong "not yours"
// emulated: wrong "not yours"
//
// The grader links the reference stages beside the learner's (it times them in the same run), so a
// learner can declare a reference launcher and call it. Every output is right and the speed is the
// reference's own: only the launch ledger, which sees that the kernels come from namespace reference
// (on a GPU, by their names; on the emulator, by the file they are launched from), can tell.
#include "01_elementwise/stages.cuh"

namespace reference {
void add_2_vectorized(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream);
}   // namespace reference

namespace WORKBOOK_TRACK {

void add_2_vectorized(const float* a, const float* b, float* c, std::int64_t n, cudaStream_t stream)
{
    reference::add_2_vectorized(a, b, c, n, stream);
}

}   // namespace WORKBOOK_TRACK
