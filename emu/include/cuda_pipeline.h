/// @file cuda_pipeline.h
/// @brief The CPU backend's stand-in for <cuda_pipeline.h>: the pipeline primitives
/// (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior). The C++ pipeline class of
/// the real header is not provided.
#pragma once

#include "cuda_pipeline_primitives.h"
