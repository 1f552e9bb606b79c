// Bounds checking of Views of structs (LayoutAoS, LayoutSoA): an index
// outside the extents aborts with the View's label, the dimension, the index
// and the extent, as for other Views. Checking is on for this translation
// unit only (see test_bounds_check.cpp).
#undef TESSERA_ENABLE_BOUNDS_CHECK
#define TESSERA_ENABLE_BOUNDS_CHECK 1
#include "tessera_test_spaces.hpp"

namespace {
struct Cell {
  double rho;
  int tag;
  TESSERA_STRUCT_FIELDS(Cell, rho, tag)
};
}  // namespace

TEST(StructLayoutBoundsCheck, IndexOutsideTheExtentsAbortsNamingTheView) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  tessera::View<Cell*, tessera::LayoutSoA, tessera::Serial> soa("soa_cells", 10);
  tessera::View<Cell**, tessera::LayoutAoS, tessera::Serial> aos("aos_cells", 4, 5);
  soa(9).rho() = 1.0;  // in range
  aos(3, 4).tag() = 2;
  EXPECT_DEATH({ soa(10).rho() = 1.0; },
               "View bounds error in View 'soa_cells': index 10 of dimension 0 is outside \\[0, 10\\)");
  EXPECT_DEATH({ aos(1, 5).tag() = 1; },
               "View bounds error in View 'aos_cells': index 5 of dimension 1 is outside \\[0, 5\\)");
  EXPECT_DEATH({ aos(-1, 0).tag() = 1; }, "View 'aos_cells': index -1 of dimension 0");
  // A subview checks against its own extents and keeps the label.
  auto part = tessera::subview(soa, std::make_pair(2, 6));
  EXPECT_DEATH({ part(4).tag() = 1; }, "View 'soa_cells': index 4 of dimension 0 is outside \\[0, 4\\)");
}
