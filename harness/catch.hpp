/// @file catch.hpp
/// @brief Includes Catch2 v3 (Ubuntu 24.04) or v2 (Debian 12) behind one name.
#pragma once

#if WORKBOOK_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
using Catch::Approx;   // v2 has it in the global namespace; the harness's CPU tests use it
#else
#include <catch2/catch.hpp>
#endif
