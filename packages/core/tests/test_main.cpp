// GoogleTest main for Tessera suites: initializes the runtime around the tests.
#include <gtest/gtest.h>
#include <tessera/core.hpp>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tessera::ScopeGuard guard(argc, argv);
  return RUN_ALL_TESTS();
}
