/// @file cuda_runtime.h
/// @brief The CPU backend's stand-in for the CUDA runtime header: types, runtime API, device
/// built-ins, half types, launches and shared memory. The build includes it in every .cu file, as
/// nvcc does with the real one.
#pragma once

#include "emu/platform.hpp"
#include "emu/vector_types.hpp"
#include "emu/runtime_api.hpp"
#include "emu/device_functions.hpp"
#include "emu/launch.hpp"
#include "emu/shared_memory.hpp"
#include "cuda_fp16.h"
#include "cuda_bf16.h"

#include <cstdio>
