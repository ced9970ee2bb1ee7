/// @file vector_types.h
/// @brief Part of the CPU backend's cuda_runtime.h, which defines everything.
#pragma once
#include "cuda_runtime.h"
