// View: extents (runtime and compile-time, rank 0 to 8, extents 0 and 1),
// queries, const conversion, shared ownership, unmanaged memory,
// view_alloc properties, the error paths of construction, and where a host
// View is first touched (small ones on the calling thread).
#include "tessera_test_layouts.hpp"
#include "tessera_test_spaces.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

template <class V>
auto to_host(const V& v) {
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
}

// Expects `f` to throw E whose message contains every string of `parts`.
template <class E = std::runtime_error, class F>
void expect_throw_with(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "expected an exception";
  } catch (const E& e) {
    const std::string what = e.what();
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
  }
}

// The strides a compact View of `Layout` has, computed here rather than asked
// of the View: the last index runs fastest in LayoutRight, the first in
// LayoutLeft.
template <class Layout, std::size_t Rank>
std::array<std::size_t, Rank> compact_strides(const std::array<std::size_t, Rank>& extents) {
  static_assert(std::is_same_v<Layout, tessera::LayoutRight> || std::is_same_v<Layout, tessera::LayoutLeft>);
  std::array<std::size_t, Rank> strides{};
  std::size_t step = 1;
  for (std::size_t k = 0; k != Rank; ++k) {
    const std::size_t r = std::is_same_v<Layout, tessera::LayoutRight> ? Rank - 1 - k : k;
    strides[r] = step;
    step *= extents[r];
  }
  return strides;
}

template <class V>
std::array<std::size_t, V::rank> extents_of(const V& v) {
  std::array<std::size_t, V::rank> extents{};
  for (std::size_t r = 0; r != V::rank; ++r) extents[r] = v.extent(r);
  return extents;
}

template <class V>
void expect_compact_strides(const V& v) {
  const auto strides = compact_strides<typename V::array_layout>(extents_of(v));
  for (std::size_t r = 0; r != V::rank; ++r) EXPECT_EQ(v.stride(r), strides[r]) << "stride " << r;
}

// For a host View whose every element holds its own position in row-major
// order (a number the layout does not change): each such value must sit at
// the offset that the compact strides of the View's layout give its index.
template <class H>
void expect_element_order_of_its_layout(const H& h) {
  const auto extents = extents_of(h);
  const auto strides = compact_strides<typename H::array_layout>(extents);
  for (std::size_t n = 0; n < h.size(); ++n) {
    std::size_t rest = n, offset = 0;
    for (std::size_t r = H::rank; r-- > 0;) {  // n's index, decoded from the last dimension on
      offset += rest % extents[r] * strides[r];
      rest /= extents[r];
    }
    ASSERT_EQ(h.data()[offset], static_cast<typename H::value_type>(n)) << "row-major position " << n;
  }
}

}  // namespace

template <class Space>
class ViewTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(ViewTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

// No Layout: the space's default (see tessera_test_spaces.hpp).
template <class Space, class... Layout>
void mixed_runtime_and_compile_time_extents() {
  using V = tessera::View<double* [3], Layout..., Space>;
  SCOPED_TRACE(tessera::test::layout_name<typename V::array_layout>());
  static_assert(V::rank == 2 && V::rank() == 2 && V::rank_dynamic == 1);
  static_assert(V::static_extent(1) == 3 && V::static_extent(0) == 0);
  V v("mixed", 5);
  EXPECT_EQ(v.extent(0), 5u);
  EXPECT_EQ(v.extent(1), 3u);
  EXPECT_EQ(v.size(), 15u);
  EXPECT_EQ(v.label(), "mixed");
  expect_compact_strides(v);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 5), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 3; ++j) v(i, j) = 10.0 * i + j;
  });
  auto h = to_host(v);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(h(i, j), 10.0 * i + j);

  // Rank 4 with two runtime and two compile-time extents; all extents may be given.
  using W = tessera::View<int** [2][4], Layout..., Space>;
  static_assert(W::rank == 4 && W::rank_dynamic == 2);
  W w("w", 3, 5, 2, 4);
  EXPECT_EQ(w.extent(0), 3u);
  EXPECT_EQ(w.extent(1), 5u);
  EXPECT_EQ(w.extent(2), 2u);
  EXPECT_EQ(w.extent(3), 4u);
  EXPECT_EQ(w.size(), 120u);
  expect_compact_strides(w);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 3), TESSERA_LAMBDA(int i) {
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 2; ++k)
        for (int l = 0; l < 4; ++l) w(i, j, k, l) = ((i * 5 + j) * 2 + k) * 4 + l;
  });
  auto hw = to_host(w);
  static_assert(std::is_same_v<typename decltype(hw)::array_layout, typename W::array_layout>,
                "the host mirror keeps the layout");
  expect_element_order_of_its_layout(hw);
}

TYPED_TEST(ViewTest, MixedRuntimeAndCompileTimeExtents) {
  mixed_runtime_and_compile_time_extents<TypeParam>();
  mixed_runtime_and_compile_time_extents<TypeParam, tessera::LayoutRight>();
  mixed_runtime_and_compile_time_extents<TypeParam, tessera::LayoutLeft>();
}

TYPED_TEST(ViewTest, CompileTimeExtentGivenDifferentlyIsAnError) {
  using Space = TypeParam;
  expect_throw_with([] { tessera::View<double* [3], Space> v("fixed3", 5, 4); },
                    {"'fixed3'", "extent 1", "given as 4", "fixes it to 3"});
  expect_throw_with([] { using V = tessera::View<double* [3], Space>;
    V v("fixed3", typename V::array_layout(5, 7)); },
                    {"'fixed3'", "extent 1", "as 7", "fixes it to 3"});
}

TYPED_TEST(ViewTest, WrongNumberOfExtentsIsAnError) {
  using Space = TypeParam;
  expect_throw_with([] { tessera::View<double**, Space> v("two", 5); }, {"'two'", "got 1 extents", "expected 2"});
  expect_throw_with([] { tessera::View<double*, Space> v("one"); }, {"'one'", "got 0 extents", "expected 1"});
  expect_throw_with([] { tessera::View<double**, Space> v("three", 1, 2, 3); }, {"'three'", "got 3 extents"});
  expect_throw_with([] { tessera::View<int* [2], Space> v("mixed", 1, 2, 3); },
                    {"'mixed'", "got 3 extents", "expected 1 (the runtime extents) or 2 (all extents)"});
}

TYPED_TEST(ViewTest, RankZero) {
  using Space = TypeParam;
  tessera::View<double, Space> s("scalar");
  static_assert(decltype(s)::rank == 0);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.span(), 1u);
  EXPECT_TRUE(s.span_is_contiguous());
  EXPECT_EQ(s.extent(0), 1u) << "extents past the rank are 1, as in Kokkos";
  double before = -1;
  tessera::deep_copy(before, s);
  EXPECT_EQ(before, 0.0) << "value-initialized";
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) { s() = 42.5; });
  double out = 0;
  tessera::deep_copy(out, s);
  EXPECT_EQ(out, 42.5);
  tessera::deep_copy(s, -3.0);
  tessera::deep_copy(out, s);
  EXPECT_EQ(out, -3.0);
}

template <class Space, class... Layout>
void rank_eight() {
  using V = tessera::View<int********, Layout..., Space>;
  SCOPED_TRACE(tessera::test::layout_name<typename V::array_layout>());
  static_assert(V::rank == 8);
  V v("r8", 2, 1, 3, 1, 2, 1, 2, 3);
  EXPECT_EQ(v.size(), 72u);
  expect_compact_strides(v);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 2), TESSERA_LAMBDA(int a) {
    for (int c = 0; c < 3; ++c)
      for (int e = 0; e < 2; ++e)
        for (int g = 0; g < 2; ++g)
          for (int h = 0; h < 3; ++h) v(a, 0, c, 0, e, 0, g, h) = (((a * 3 + c) * 2 + e) * 2 + g) * 3 + h;
  });
  auto h = to_host(v);
  static_assert(std::is_same_v<typename decltype(h)::array_layout, typename V::array_layout>,
                "the host mirror keeps the layout");
  expect_element_order_of_its_layout(h);
  // Mixed rank 8: five runtime, three compile-time extents.
  tessera::View<char*****[2][1][3], Layout..., Space> m("m8", 1, 2, 1, 2, 1);
  EXPECT_EQ(m.size(), 24u);
  EXPECT_EQ(m.extent(7), 3u);
  expect_compact_strides(m);
}

TYPED_TEST(ViewTest, RankEight) {
  rank_eight<TypeParam>();
  rank_eight<TypeParam, tessera::LayoutRight>();
  rank_eight<TypeParam, tessera::LayoutLeft>();
}

TYPED_TEST(ViewTest, ExtentsOfZeroAndOne) {
  using Space = TypeParam;
  tessera::View<int**, Space> empty("empty", 0, 5);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.span(), 0u);
  EXPECT_EQ(empty.extent(1), 5u);
  EXPECT_TRUE(empty.is_allocated()) << "an empty allocation is still an allocation";
  int calls = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, empty.extent(0)),
                           TESSERA_LAMBDA(int, int& c) { c += 1; }, calls);
  EXPECT_EQ(calls, 0);
  tessera::deep_copy(empty, 7);  // a no-op, not an error

  tessera::View<int***, Space> ones("ones", 1, 1, 1);
  EXPECT_EQ(ones.size(), 1u);
  EXPECT_EQ(ones.span(), 1u);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int i) { ones(i, 0, 0) = 9; });
  EXPECT_EQ(to_host(ones)(0, 0, 0), 9);
}

TYPED_TEST(ViewTest, QueriesOnLayoutRight) {
  using Space = TypeParam;
  tessera::View<float***, tessera::LayoutRight, Space> v("q", 4, 5, 6);
  EXPECT_EQ(v.label(), "q");
  EXPECT_EQ(v.size(), 120u);
  EXPECT_EQ(v.span(), 120u);
  EXPECT_TRUE(v.span_is_contiguous());
  EXPECT_EQ(v.stride(0), 30u);
  EXPECT_EQ(v.stride(1), 6u);
  EXPECT_EQ(v.stride(2), 1u);
  std::size_t s[4];
  v.stride(s);
  EXPECT_EQ(s[0], 30u);
  EXPECT_EQ(s[3], 120u) << "stride(ptr) ends with the span, as in Kokkos";
  EXPECT_EQ(v.extent_int(2), 6);
  EXPECT_NE(v.data(), nullptr);
  EXPECT_EQ(v.use_count(), 1);
}

TYPED_TEST(ViewTest, ConstConversionSharesTheAllocation) {
  using Space = TypeParam;
  tessera::View<double*, Space> v("v", 10);
  tessera::View<const double*, Space> c = v;  // implicit, as in Kokkos
  static_assert(std::is_convertible_v<tessera::View<double*, Space>, tessera::View<const double*, Space>>);
  static_assert(!std::is_convertible_v<tessera::View<const double*, Space>, tessera::View<double*, Space>>);
  static_assert(std::is_same_v<typename decltype(c)::value_type, const double>);
  EXPECT_EQ(c.data(), v.data());
  EXPECT_EQ(v.use_count(), 2);
  EXPECT_EQ(c.label(), "v");
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 10), TESSERA_LAMBDA(int i) { v(i) = i; });
  double sum = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, 10), TESSERA_LAMBDA(int i, double& s) { s += c(i); }, sum);
  EXPECT_EQ(sum, 45.0);
  typename tessera::View<double*, Space>::const_type c2;
  c2 = v;
  EXPECT_EQ(v.use_count(), 3);
}

TYPED_TEST(ViewTest, ShallowCopyAndNullView) {
  using Space = TypeParam;
  tessera::View<int*, Space> null_view;
  EXPECT_EQ(null_view.data(), nullptr);
  EXPECT_EQ(null_view.size(), 0u);
  EXPECT_EQ(null_view.span(), 0u);
  EXPECT_EQ(null_view.use_count(), 0);
  EXPECT_EQ(null_view.label(), "");
  EXPECT_FALSE(null_view.is_allocated());

  tessera::View<int*, Space> a("a", 4);
  {
    auto b = a;  // shallow: same memory, one more reference
    EXPECT_EQ(a.use_count(), 2);
    EXPECT_EQ(b.data(), a.data());
    EXPECT_TRUE(a == b);
    tessera::parallel_for(tessera::RangePolicy<Space>(0, 4), TESSERA_LAMBDA(int i) { b(i) = 5 * i; });
    auto c = std::move(b);
    EXPECT_EQ(a.use_count(), 2) << "a move transfers the reference";
    EXPECT_EQ(b.data(), nullptr);
  }
  EXPECT_EQ(a.use_count(), 1);
  auto h = to_host(a);
  EXPECT_EQ(h(3), 15) << "writes through a copy are visible in the original";
  a = null_view;
  EXPECT_EQ(a.use_count(), 0);
  EXPECT_EQ(a.data(), nullptr);
}

TYPED_TEST(ViewTest, ValueInitializedAndWithoutInitializing) {
  using Space = TypeParam;
  tessera::View<double**, Space> z("z", 100, 7);
  auto hz = to_host(z);
  for (std::size_t i = 0; i < hz.size(); ++i) ASSERT_EQ(hz.data()[i], 0.0);

  tessera::View<double*, Space> w(tessera::view_alloc(tessera::WithoutInitializing, "noinit"), 50);
  EXPECT_EQ(w.label(), "noinit");
  EXPECT_EQ(w.extent(0), 50u);
  tessera::View<double*, Space> w2(tessera::view_alloc("noinit2", tessera::WithoutInitializing), 50);
  EXPECT_EQ(w2.label(), "noinit2") << "properties may come in any order";
  tessera::View<int*, Space> e(tessera::view_alloc(Space(), "on_instance"), 33);
  EXPECT_EQ(e.label(), "on_instance");
  EXPECT_EQ(to_host(e)(32), 0);
}

TYPED_TEST(ViewTest, AllocationFailureNamesLabelAndSize) {
  using Space = TypeParam;
  // 2^60 doubles = 2^63 bytes: no machine has that.
  expect_throw_with<tessera::allocation_error>(
      [] { tessera::View<double*, Space> v("absurd", std::size_t(1) << 60); }, {"absurd", "9223372036854775808"});
  // The element count itself overflows.
  expect_throw_with<tessera::allocation_error>(
      [] { tessera::View<double**, Space> v("overflow", std::size_t(1) << 40, std::size_t(1) << 40); },
      {"'overflow'", "overflow"});
  // allocation_error is a std::bad_alloc, as code written for Kokkos expects.
  EXPECT_THROW((tessera::View<char*, Space>("absurd2", ~std::size_t(0) / 2)), std::bad_alloc);
}

TYPED_TEST(ViewTest, StaticExtentConversionIsChecked) {
  using Space = TypeParam;
  tessera::View<double**, Space> d("dyn", 4, 3);
  tessera::View<double* [3], Space> s = d;  // runtime -> compile-time extent, checked
  EXPECT_EQ(s.extent(1), 3u);
  EXPECT_EQ(s.data(), d.data());
  tessera::View<double**, Space> bad("bad", 4, 2);
  expect_throw_with([&] { tessera::View<double* [3], Space> t = bad; (void)t; },
                    {"'bad'", "extent 1", "is 2", "fixes it to 3"});
}

TYPED_TEST(ViewTest, HostMirrorType) {
  using Space = TypeParam;
  using V = tessera::View<const int** [2], tessera::LayoutLeft, Space>;
  using M = typename V::HostMirror;
  static_assert(std::is_same_v<typename M::memory_space, tessera::HostSpace>);
  static_assert(std::is_same_v<typename M::array_layout, tessera::LayoutLeft>);
  static_assert(std::is_same_v<typename M::value_type, int>, "a mirror is writable");
  static_assert(M::rank == 3 && M::rank_dynamic == 2);
}

// Views over user-owned memory: no reference count, no deallocation.
TEST(ViewUnmanaged, OverUserPointer) {
  std::vector<double> buf(12);
  for (int i = 0; i < 12; ++i) buf[i] = i;
  tessera::View<double**, tessera::HostSpace, tessera::MemoryUnmanaged> u(buf.data(), 3, 4);
  EXPECT_EQ(u(1, 2), 6.0);
  EXPECT_EQ(u.use_count(), 0);
  EXPECT_EQ(u.label(), "");
  auto copy = u;
  EXPECT_EQ(copy.use_count(), 0);
  copy(2, 3) = -1;
  EXPECT_EQ(buf[11], -1.0);
  // A managed View type over a pointer is unmanaged too (Kokkos semantics).
  tessera::View<double*, tessera::HostSpace> p(buf.data(), 12);
  EXPECT_EQ(p.use_count(), 0);
  EXPECT_EQ(p(11), -1.0);
  // Unmanaged strided view: every other element.
  tessera::View<double*, tessera::LayoutStride, tessera::HostSpace, tessera::MemoryUnmanaged> s(
      buf.data(), tessera::LayoutStride(6, 2));
  EXPECT_EQ(s.extent(0), 6u);
  EXPECT_EQ(s(3), 6.0);
  EXPECT_EQ(s.span(), 11u);
  EXPECT_FALSE(s.span_is_contiguous());
  expect_throw_with([&] { tessera::View<double**, tessera::HostSpace> q(buf.data(), 12); }, {"got 1 extents"});
}

TEST(ViewUnmanaged, AssigningManagedToUnmanagedTakesNoReference) {
  tessera::View<int*, tessera::HostSpace> m("m", 8);
  tessera::View<int*, tessera::HostSpace, tessera::MemoryUnmanaged> u = m;
  EXPECT_EQ(m.use_count(), 1);
  EXPECT_EQ(u.data(), m.data());
  u(3) = 4;
  EXPECT_EQ(m(3), 4);
}

// Which thread value-initialized each element, and with what it started.
struct ConstructedBy {
  std::thread::id thread = std::this_thread::get_id();
  double value = 0.5;
};

template <class Space>
class ViewHostInitTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(ViewHostInitTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

// A host View of at most host_inline_init_bytes is initialized on the calling
// thread (no parallel region for a handful of elements); a larger one is
// first touched by the space's threads, every one of them taking a part.
TYPED_TEST(ViewHostInitTest, SmallViewsOnTheCallingThreadLargeOnesOnThePool) {
  constexpr std::size_t limit = tessera::detail::host_inline_init_bytes;
  const std::size_t at_limit = limit / sizeof(ConstructedBy);
  const auto me = std::this_thread::get_id();
  for (const std::size_t n : {std::size_t(1), std::size_t(100), at_limit}) {
    tessera::View<ConstructedBy*, TypeParam> v("small", n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(v(i).value, 0.5) << "element " << i << " of " << n;
      ASSERT_EQ(v(i).thread, me) << "element " << i << " of " << n << " built on another thread";
    }
  }
  const std::size_t large = 8 * at_limit + 3;
  tessera::View<ConstructedBy*, TypeParam> v("large", large);
  std::set<std::thread::id> threads;
  for (std::size_t i = 0; i < large; ++i) {
    ASSERT_EQ(v(i).value, 0.5) << "element " << i;
    threads.insert(v(i).thread);
  }
  const int pool = TypeParam().concurrency();
  if (tessera::detail::single_thread_v<TypeParam> || pool == 1)
    EXPECT_EQ(threads.size(), 1u);
  else
    EXPECT_EQ(threads.size(), std::size_t(pool)) << "first touch by every thread of the space";
}

// Fills and value-initialized Views on both sides of that limit hold the value everywhere.
TYPED_TEST(ViewHostInitTest, FillsAndZerosAcrossTheInlineLimit) {
  const std::size_t at_limit = tessera::detail::host_inline_init_bytes / sizeof(double);
  for (const std::size_t n : {at_limit - 1, at_limit, at_limit + 1, 3 * at_limit}) {
    tessera::View<double*, TypeParam> v(tessera::view_alloc("v", tessera::WithoutInitializing), n);
    tessera::deep_copy(v, 2.5);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v(i), 2.5) << "element " << i << " of " << n;
    tessera::View<double*, TypeParam> z("z", n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(z(i), 0.0) << "element " << i << " of " << n;
  }
}
