/// @file cuda_runtime_api.h
/// @brief The CPU backend's runtime API (see emu/runtime_api.hpp).
#pragma once
#include "emu/runtime_api.hpp"
