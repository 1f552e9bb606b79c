// sort / sort_by_key of rank-1 Views, on every back-end, against std::sort
// and std::stable_sort.
#include "tessera_test_spaces.hpp"

#include <tessera/core/sort.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

template <class Space>
class Sort : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Sort, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

namespace {

enum class Shape { random, sorted, reversed, all_equal, few_distinct, negative_mix };
const Shape kShapes[] = {Shape::random, Shape::sorted, Shape::reversed, Shape::all_equal, Shape::few_distinct,
                         Shape::negative_mix};

template <class T>
std::vector<T> make_input(Shape shape, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (shape) {
      case Shape::random: v[i] = static_cast<T>(rng()); break;
      case Shape::sorted: v[i] = static_cast<T>(i); break;
      case Shape::reversed: v[i] = static_cast<T>(n - i); break;
      case Shape::all_equal: v[i] = static_cast<T>(7); break;
      case Shape::few_distinct: v[i] = static_cast<T>(rng() % 5); break;
      case Shape::negative_mix:
        v[i] = static_cast<T>(std::int64_t(rng() % 2001) - 1000);
        break;
    }
  }
  return v;
}

template <class Space, class T>
tessera::View<T*, Space> to_view(const std::vector<T>& v, const std::string& label = "v") {
  tessera::View<T*, Space> d(label, v.size());
  auto h = tessera::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  tessera::deep_copy(d, h);
  return d;
}

template <class V>
auto to_vector(const V& d) {
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), d);
  std::vector<typename V::non_const_value_type> v(d.extent(0));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = h(i);
  return v;
}

template <class Space, class T>
void check_sort(std::size_t n) {
  for (Shape shape : kShapes) {
    auto in = make_input<T>(shape, n, unsigned(n) + 17);
    auto d = to_view<Space>(in);
    tessera::sort(d);
    auto expect = in;
    std::sort(expect.begin(), expect.end());
    ASSERT_EQ(to_vector(d), expect) << "n=" << n << " shape=" << int(shape);
  }
}

// A struct value for sort_by_key; at namespace scope because nvcc forbids
// local types in device lambda captures.
struct SortPayload {
  int a;
  float b;
};

}  // namespace

TYPED_TEST(Sort, IntegerKeysEveryShapeAndSize) {
  using Space = TypeParam;
  for (std::size_t n : {0, 1, 2, 3, 100, 4097, 40000, 100003}) {
    check_sort<Space, std::int32_t>(n);
    check_sort<Space, std::uint64_t>(n);
    check_sort<Space, std::int64_t>(n);
  }
  check_sort<Space, std::int8_t>(5000);
  check_sort<Space, std::uint16_t>(70000);
}

TYPED_TEST(Sort, FloatingPointAndCustomComparator) {
  using Space = TypeParam;
  for (std::size_t n : {0, 1, 2, 1000, 50000, 200001}) {
    std::mt19937 rng{unsigned(n)};
    std::normal_distribution<double> dist;
    std::vector<double> in(n);
    for (auto& x : in) x = dist(rng);
    auto d = to_view<Space>(in);
    tessera::sort(d);
    auto expect = in;
    std::sort(expect.begin(), expect.end());
    ASSERT_EQ(to_vector(d), expect) << "n=" << n;

    // Descending, through a device-callable comparator.
    auto e = to_view<Space>(in);
    tessera::sort(e, TESSERA_LAMBDA(double a, double b) { return a > b; });
    std::sort(expect.begin(), expect.end(), std::greater<>());
    ASSERT_EQ(to_vector(e), expect) << "descending n=" << n;

    auto ints = make_input<int>(Shape::few_distinct, n, 3);
    auto f = to_view<Space>(ints);
    tessera::sort(Space(), f, TESSERA_LAMBDA(int a, int b) { return a > b; });
    std::sort(ints.begin(), ints.end(), std::greater<>());
    ASSERT_EQ(to_vector(f), ints) << "descending ints n=" << n;
  }
}

TYPED_TEST(Sort, LargeInputsMatchStdSort) {
  using Space = TypeParam;
  const std::size_t n = 1000000;
  auto in64 = make_input<std::uint64_t>(Shape::random, n, 1);
  auto d64 = to_view<Space>(in64);
  tessera::sort(Space(), d64);
  std::sort(in64.begin(), in64.end());
  ASSERT_EQ(to_vector(d64), in64);

  auto in32 = make_input<std::int32_t>(Shape::negative_mix, n, 2);
  auto d32 = to_view<Space>(in32);
  tessera::sort(d32);
  std::sort(in32.begin(), in32.end());
  ASSERT_EQ(to_vector(d32), in32);

  std::vector<float> inf(n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  for (auto& x : inf) x = u(rng);
  auto df = to_view<Space>(inf);
  tessera::sort(df);
  std::sort(inf.begin(), inf.end());
  ASSERT_EQ(to_vector(df), inf);
}

TYPED_TEST(Sort, Subrange) {
  using Space = TypeParam;
  const std::size_t n = 60000;
  auto in = make_input<std::int64_t>(Shape::random, n, 9);
  for (auto [b, e] : {std::pair<std::size_t, std::size_t>{0, n}, {1000, 50000}, {5, 6}, {7, 7}, {n - 3, n}, {0, 0}}) {
    auto d = to_view<Space>(in);
    tessera::sort(d, b, e);
    auto expect = in;
    std::sort(expect.begin() + b, expect.begin() + e);
    ASSERT_EQ(to_vector(d), expect) << "[" << b << ", " << e << ")";
  }
  auto d = to_view<Space>(in, "my_keys");
  try {
    tessera::sort(d, 10, n + 1);
    FAIL() << "a range past the end must throw";
  } catch (const std::runtime_error& err) {
    EXPECT_NE(std::string(err.what()).find("my_keys"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find(std::to_string(n + 1)), std::string::npos) << err.what();
  }
  EXPECT_THROW(tessera::sort(d, 20, 10), std::runtime_error);
}

TYPED_TEST(Sort, StridedView) {
  using Space = TypeParam;
  const int rows = 5000;
  tessera::View<int**, tessera::LayoutRight, Space> m("m", rows, 3);
  auto hm = tessera::create_mirror_view(m);
  std::mt19937 rng(4);
  std::vector<int> col(rows);
  for (int i = 0; i < rows; ++i) {
    col[i] = int(rng() % 100000);
    hm(i, 0) = -1, hm(i, 1) = col[i], hm(i, 2) = -2;
  }
  tessera::deep_copy(m, hm);
  auto c = tessera::subview(m, tessera::ALL, 1);  // stride 3
  tessera::sort(c);
  std::sort(col.begin(), col.end());
  tessera::deep_copy(hm, m);
  for (int i = 0; i < rows; ++i) {
    ASSERT_EQ(hm(i, 1), col[i]) << i;
    ASSERT_EQ(hm(i, 0), -1);
    ASSERT_EQ(hm(i, 2), -2);
  }
}

template <class Space, class K>
void check_sort_by_key(std::size_t n, Shape shape) {
  auto keys = make_input<K>(shape, n, unsigned(n) * 3 + 1);
  if (shape == Shape::random)  // plenty of duplicate keys to exercise stability
    for (auto& k : keys) k = static_cast<K>(k % K(n / 4 + 1));
  std::vector<std::int32_t> vals(n);
  for (std::size_t i = 0; i < n; ++i) vals[i] = std::int32_t(i);
  auto dk = to_view<Space>(keys, "keys");
  auto dv = to_view<Space>(vals, "values");
  tessera::sort_by_key(dk, dv);
  std::vector<std::pair<K, std::int32_t>> expect(n);
  for (std::size_t i = 0; i < n; ++i) expect[i] = {keys[i], vals[i]};
  std::stable_sort(expect.begin(), expect.end(), [](auto& a, auto& b) { return a.first < b.first; });
  auto hk = to_vector(dk);
  auto hv = to_vector(dv);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(hk[i], expect[i].first) << "n=" << n << " i=" << i;
    ASSERT_EQ(hv[i], expect[i].second) << "stability: n=" << n << " i=" << i;
  }
}

TYPED_TEST(Sort, SortByKeyIsStable) {
  using Space = TypeParam;
  // 200003 is six times the 2^15 elements above which the sort splits the
  // input into blocks, one per thread (LargeInputsMatchStdSort takes a million).
  for (std::size_t n : {0, 1, 2, 999, 70001, 200003})
    for (Shape shape : {Shape::random, Shape::all_equal, Shape::reversed, Shape::few_distinct}) {
      check_sort_by_key<Space, std::int64_t>(n, shape);
      check_sort_by_key<Space, std::uint32_t>(n, shape);
    }
  check_sort_by_key<Space, std::int32_t>(100000, Shape::negative_mix);
}

TYPED_TEST(Sort, SortByKeyWithComparatorIsStable) {
  using Space = TypeParam;
  for (std::size_t n : {0, 1, 3, 5000, 300000}) {
    std::mt19937 rng{unsigned(n)};
    std::vector<double> keys(n);
    std::vector<std::int64_t> vals(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = double(rng() % 50) * 0.5;  // many ties
      vals[i] = std::int64_t(i) * 10;
    }
    auto dk = to_view<Space>(keys);
    auto dv = to_view<Space>(vals);
    tessera::sort_by_key(dk, dv, TESSERA_LAMBDA(double a, double b) { return a > b; });
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return keys[a] > keys[b]; });
    auto hk = to_vector(dk);
    auto hv = to_vector(dv);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(hk[i], keys[perm[i]]) << "n=" << n << " i=" << i;
      ASSERT_EQ(hv[i], vals[perm[i]]) << "stability: n=" << n << " i=" << i;
    }
  }
  // Default order on floating keys (merge path, not radix), with a struct value.
  const std::size_t n = 100000;
  tessera::View<float*, Space> k("k", n);
  tessera::View<SortPayload*, Space> v("v", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(std::size_t i) {
    k(i) = float((i * 7919) % 1000) - 500.0f;
    v(i) = SortPayload{int(i), float(i) * 0.5f};
  });
  tessera::sort_by_key(Space(), k, v);
  auto hk = tessera::create_mirror_view_and_copy(tessera::HostSpace(), k);
  auto hv = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  for (std::size_t i = 1; i < n; ++i) {
    ASSERT_LE(hk(i - 1), hk(i)) << i;
    if (hk(i - 1) == hk(i)) {
      ASSERT_LT(hv(i - 1).a, hv(i).a) << "stability at " << i;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(hk(i), float((std::size_t(hv(i).a) * 7919) % 1000) - 500.0f) << "value moved without its key";
    ASSERT_EQ(hv(i).b, float(hv(i).a) * 0.5f);
  }
}

TYPED_TEST(Sort, SortByKeyExtentMismatchNamesBoth) {
  using Space = TypeParam;
  tessera::View<int*, Space> k("the_keys", 10);
  tessera::View<int*, Space> v("the_values", 9);
  try {
    tessera::sort_by_key(k, v);
    FAIL() << "mismatched extents must throw";
  } catch (const std::runtime_error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("the_keys"), std::string::npos) << w;
    EXPECT_NE(w.find("the_values"), std::string::npos) << w;
  }
}
