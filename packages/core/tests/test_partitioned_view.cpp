// Partitioning (geometry) and PartitionedView (one View per partition with
// halo cells): partitions tile the domain, halos hold exactly the
// neighbours' cells (several layers deep, corners included) and boundary
// values outside the domain, scatter/gather round-trip, bad input names the
// dimension and the View.
#include "tessera_test_spaces.hpp"

#include <tessera/core/partitioned_view.hpp>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

template <class Space>
class PartitionedViews : public SpaceTest<Space> {};
TYPED_TEST_SUITE(PartitionedViews, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {

template <std::size_t R>
bool inside(const tessera::Box<R>& b, const std::array<std::int64_t, R>& i) {
  for (std::size_t d = 0; d < R; ++d)
    if (i[d] < b.lo[d] || i[d] >= b.hi[d]) return false;
  return true;
}

// Every cell of `domain` lies in exactly one of `boxes`, and no box reaches
// outside it (brute force over the cells).
template <std::size_t R>
void expect_tiling(const tessera::Box<R>& domain, const std::vector<tessera::Box<R>>& boxes, const std::string& what) {
  std::int64_t total = 0;
  for (const auto& b : boxes) {
    EXPECT_EQ(tessera::intersect(b, domain), b) << what << ": " << tessera::to_string(b) << " leaves the domain";
    total += b.size();
  }
  EXPECT_EQ(total, domain.size()) << what;
  std::array<std::int64_t, R> i = domain.lo;
  if (domain.empty()) return;
  while (true) {
    int n = 0;
    for (const auto& b : boxes) n += inside(b, i) ? 1 : 0;
    ASSERT_EQ(n, 1) << what << ": a cell is covered " << n << " times";
    std::size_t d = R;
    while (d-- > 0) {
      if (++i[d] < domain.hi[d]) break;
      i[d] = domain.lo[d];
    }
    if (d == std::size_t(-1)) break;
  }
}

}  // namespace

TEST(Partitioning, PartitionsSubpartitionsAndSlabsTileTheirBoxes) {
  const tessera::Partitioning<2> parts({10, 7}, {3, 2}, {1, 2}, 2);
  ASSERT_EQ(parts.size(), 6);
  std::vector<tessera::Box<2>> owned;
  for (int p = 0; p < parts.size(); ++p) {
    owned.push_back(parts.owned(p));
    // Block sizes along each dimension differ by at most one: 10 = 4+3+3, 7 = 4+3.
    EXPECT_TRUE(owned.back().extent(0) == 4 || owned.back().extent(0) == 3);
    EXPECT_TRUE(owned.back().extent(1) == 4 || owned.back().extent(1) == 3);
    std::vector<tessera::Box<2>> subs;
    for (int s = 0; s < parts.subpartitions(); ++s) subs.push_back(parts.subpartition(p, s));
    expect_tiling(parts.owned(p), subs, "sub-partitions of " + std::to_string(p));
    std::vector<tessera::Box<2>> pieces = parts.boundary(p);
    pieces.push_back(parts.interior(p));
    expect_tiling(parts.owned(p), pieces, "interior and boundary of " + std::to_string(p));
  }
  expect_tiling(parts.domain(), owned, "partitions");
  // Row-major grid coordinates: partition 3 is (1, 1), owning [4:7, 4:7).
  EXPECT_EQ(parts.coords(3), (std::array<int, 2>{1, 1}));
  EXPECT_EQ(parts.owned(3), (tessera::Box<2>{{4, 4}, {7, 7}}));
  EXPECT_EQ(parts.padded(3), (tessera::Box<2>{{3, 2}, {8, 9}}));
}

TEST(Partitioning, NeighboursAreThePartitionsOwningHaloCells) {
  // Extent 5 in 4 parts: owned widths 2, 1, 1, 1, so a halo of 2 reaches two
  // partitions away.
  const tessera::Partitioning<1> deep({5}, {4}, {2});
  EXPECT_EQ(deep.neighbors(0), (std::vector<int>{1, 2}));
  EXPECT_EQ(deep.neighbors(2), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(deep.halo_from(2, 0), (tessera::Box<1>{{1}, {2}}));
  // 2x2 with halo 1: the diagonal partition owns a corner cell.
  const tessera::Partitioning<2> grid({4, 4}, {2, 2}, {1, 1});
  EXPECT_EQ(grid.neighbors(0), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(grid.halo_from(0, 3), (tessera::Box<2>{{2, 2}, {3, 3}}));
  // No halo: no neighbours.
  EXPECT_TRUE(tessera::Partitioning<2>({4, 4}, {2, 2}).neighbors(1).empty());
}

TEST(Partitioning, BadInputNamesTheDimension) {
  auto message = [](auto make) {
    try {
      make();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([] { tessera::Partitioning<2>({8, 3}, {2, 4}); }).find("dimension 1: 4 partitions of an extent of 3"),
            std::string::npos);
  EXPECT_NE(message([] { tessera::Partitioning<1>({8}, {0}); }).find("dimension 0: 0 partitions"), std::string::npos);
  EXPECT_NE(message([] { tessera::Partitioning<1>({8}, {1}, {-1}); }).find("halo width -1"), std::string::npos);
  EXPECT_NE(message([] { tessera::Partitioning<1>({8}, {4}, {0}, 3); }).find("fewer than its 3 sub-partitions"),
            std::string::npos);
  EXPECT_THROW(tessera::Partitioning<1>({8}, {2}).owned(2), std::out_of_range);
  EXPECT_THROW(tessera::Partitioning<1>({8}, {2}).subpartition(0, 1), std::out_of_range);
}

namespace {

// Exchanges halos of a tensor whose cell value encodes its global
// coordinates and checks every padded cell of every partition on the host:
// inside the domain the owner's value, outside it the boundary value.
template <class Space, std::size_t R, class DT>
void check_exchange(const tessera::Partitioning<R>& parts) {
  using PV = tessera::PartitionedView<DT, Space>;
  auto code = [](const std::array<std::int64_t, R>& i) {
    double c = 0;
    for (std::size_t d = 0; d < R; ++d) c = c * 100 + double(i[d]);
    return c;
  };
  PV v("u", parts);
  v.fill(-1.0);
  auto make_global = [&] {
    if constexpr (R == 1) return tessera::View<DT, tessera::HostSpace>("global", parts.extents()[0]);
    else if constexpr (R == 2)
      return tessera::View<DT, tessera::HostSpace>("global", parts.extents()[0], parts.extents()[1]);
    else
      return tessera::View<DT, tessera::HostSpace>("global", parts.extents()[0], parts.extents()[1],
                                                   parts.extents()[2]);
  };
  auto g = make_global();
  tessera::Box<R> dom = parts.domain();
  auto for_cells = [](const tessera::Box<R>& b, auto f) {
    if (b.empty()) return;
    std::array<std::int64_t, R> i = b.lo;
    while (true) {
      f(i);
      std::size_t d = R;
      while (d-- > 0) {
        if (++i[d] < b.hi[d]) break;
        i[d] = b.lo[d];
      }
      if (d == std::size_t(-1)) return;
    }
  };
  auto at = [](const auto& view, const std::array<std::int64_t, R>& i) -> auto& {
    if constexpr (R == 1) return view(i[0]);
    else if constexpr (R == 2) return view(i[0], i[1]);
    else return view(i[0], i[1], i[2]);
  };
  for_cells(dom, [&](const auto& i) { at(g, i) = code(i); });
  v.scatter(g);
  v.exchange_halos();
  for (int p = 0; p < parts.size(); ++p) {
    auto h = tessera::create_mirror_view(tessera::HostSpace(), v.view(p));
    tessera::deep_copy(h, v.view(p));
    const auto origin = v.origin(p);
    for_cells(parts.padded(p), [&](const auto& i) {
      std::array<std::int64_t, R> local;
      for (std::size_t d = 0; d < R; ++d) local[d] = i[d] - origin[d];
      const double expected = inside(dom, i) ? code(i) : -1.0;
      ASSERT_EQ(at(h, local), expected) << "partition " << p << " of " << parts.describe();
    });
  }
  // gather(scatter(g)) == g, into a cleared View.
  auto back = make_global();
  v.gather(back);
  for_cells(dom, [&](const auto& i) { ASSERT_EQ(at(back, i), code(i)); });
}

}  // namespace

TYPED_TEST(PartitionedViews, HalosHoldTheNeighboursCellsAndBoundaryValues) {
  using S = TypeParam;
  check_exchange<S, 1, double*>(tessera::Partitioning<1>({17}, {4}, {1}));
  check_exchange<S, 1, double*>(tessera::Partitioning<1>({5}, {4}, {2}));  // two layers deep
  check_exchange<S, 2, double**>(tessera::Partitioning<2>({9, 7}, {2, 2}, {1, 1}));
  check_exchange<S, 2, double**>(tessera::Partitioning<2>({9, 7}, {4, 1}, {2, 1}));
  check_exchange<S, 3, double***>(tessera::Partitioning<3>({5, 6, 4}, {2, 2, 2}, {1, 1, 1}));
  check_exchange<S, 3, double***>(tessera::Partitioning<3>({6, 3, 3}, {1, 1, 1}, {1, 0, 2}));
}

TYPED_TEST(PartitionedViews, ScatterOfAWrongShapeNamesBothViews) {
  using S = TypeParam;
  tessera::PartitionedView<double**, S> v("field", tessera::Partitioning<2>({4, 6}, {2, 1}, {1, 1}));
  EXPECT_EQ(v.size(), 2);
  EXPECT_EQ(v.view(0).extent(0), 4u);  // 2 owned rows + 2 halo rows
  EXPECT_EQ(v.view(0).extent(1), 8u);
  EXPECT_EQ(v.view(1).label(), "field[1]");
  tessera::View<double**, tessera::HostSpace> wrong("wrong", 4, 5);
  try {
    v.scatter(wrong);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'field'"), std::string::npos) << m;
    EXPECT_NE(m.find("'wrong' has extent 5 in dimension 1"), std::string::npos) << m;
  }
}

// The example of docs/partitioned-views.md: a three-point average over four
// partitions equals the same average over one array (zero outside).
TYPED_TEST(PartitionedViews, ManualExampleThreePointAverage) {
  using S = TypeParam;
  const std::int64_t n = 1000;
  const tessera::Partitioning<1> parts({n}, {4}, {1});
  tessera::PartitionedView<double*, S> u("u", parts), avg("avg", parts);
  tessera::View<double*, tessera::HostSpace> global("global", n);
  for (std::int64_t i = 0; i < n; ++i) global(i) = double(i * i);
  u.scatter(global);
  u.exchange_halos();
  for (int p = 0; p < parts.size(); ++p) {
    const auto in = u.view(p);
    const auto out = avg.view(p);
    const auto o = u.origin(p)[0];
    const auto own = parts.owned(p);
    tessera::parallel_for(tessera::RangePolicy<S>(u.instance(p), own.lo[0], own.hi[0]),
                          TESSERA_LAMBDA(std::int64_t i) {
                            const auto k = i - o;
                            out(k) = (in(k - 1) + in(k) + in(k + 1)) / 3;
                          });
  }
  tessera::fence();
  tessera::View<double*, tessera::HostSpace> result("result", n);
  avg.gather(result);
  EXPECT_EQ(u.view(1).extent(0), 252u);
  for (std::int64_t i = 0; i < n; ++i) {
    const double left = i > 0 ? double((i - 1) * (i - 1)) : 0.0;
    const double right = i + 1 < n ? double((i + 1) * (i + 1)) : 0.0;
    ASSERT_EQ(result(i), (left + double(i * i) + right) / 3) << "cell " << i;
  }
}
