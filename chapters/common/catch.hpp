/// @file catch.hpp
/// @brief Includes Catch2 v3 (Ubuntu 24.04) or v2 (Debian 12) behind one name.
#pragma once

#if WORKBOOK_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif
