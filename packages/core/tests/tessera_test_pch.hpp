#pragma once
// The test programs' shared precompiled header (Tessera_ENABLE_TEST_PCH,
// cmake/TesseraHelpers.cmake): what nearly every test source includes, parsed
// once by tessera_test_main and reused by every program tessera_add_test
// makes. Only GoogleTest, core and the standard library: a package's own
// headers stay in its sources, so that a test still says what it uses, and
// nothing here may depend on a macro a test defines (such a test sets
// SKIP_PRECOMPILE_HEADERS on its source).
#include <gtest/gtest.h>
#include <tessera/core.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>
