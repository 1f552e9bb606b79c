// Names a Kokkos program uses that a port by renaming (Kokkos -> tessera,
// KOKKOS_ -> TESSERA_, kokkos_ -> tessera_) needs: the spaces' member types,
// shared spaces and traits, math functions and constants, numeric traits,
// the remaining atomics and fences, the "first/last" location reducers,
// tessera_malloc, Profiling::pushRegion, num_threads / device_id and
// TESSERA_ASSERT. Expected values are closed forms or brute force.
#undef NDEBUG  // TESSERA_ASSERT is active in this translation unit
#include "tessera_test_spaces.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

template <class Space>
class KokkosApi : public SpaceTest<Space> {};
TYPED_TEST_SUITE(KokkosApi, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

// ---- spaces -------------------------------------------------------------------

TEST(KokkosApiSpaces, MemorySpacesNameTheirExecutionSpaceAndDevice) {
  using tessera::DefaultHostExecutionSpace;
  using tessera::HostSpace;
  static_assert(std::is_same_v<HostSpace::execution_space, DefaultHostExecutionSpace>);
  static_assert(std::is_same_v<HostSpace::device_type, tessera::Device<DefaultHostExecutionSpace, HostSpace>>);
  static_assert(std::is_same_v<HostSpace::execution_space::memory_space, HostSpace>);
  static_assert(std::is_same_v<tessera::Serial::device_type::memory_space, HostSpace>);
#if TESSERA_ENABLE_CUDA
  static_assert(std::is_same_v<tessera::CudaSpace::execution_space, tessera::Cuda>);
  static_assert(std::is_same_v<tessera::CudaUVMSpace::execution_space, tessera::Cuda>);
  static_assert(std::is_same_v<tessera::CudaHostPinnedSpace::execution_space, DefaultHostExecutionSpace>);
  static_assert(std::is_same_v<tessera::CudaHostPinnedSpace::device_type::memory_space, tessera::CudaHostPinnedSpace>);
  static_assert(std::is_same_v<tessera::SharedSpace, tessera::CudaUVMSpace>);
#else
  static_assert(std::is_same_v<tessera::SharedSpace, HostSpace>);
  static_assert(std::is_same_v<tessera::SharedHostPinnedSpace, HostSpace>);
#endif
  static_assert(tessera::has_shared_space && tessera::has_shared_host_pinned_space);
  // A View on a memory space runs on that space's execution space.
  static_assert(std::is_same_v<tessera::View<int*, HostSpace>::execution_space, HostSpace::execution_space>);
  // Traits.
  static_assert(tessera::is_space_v<HostSpace> && tessera::is_space_v<tessera::Serial> &&
                tessera::is_space_v<tessera::Device<tessera::Serial, HostSpace>> && !tessera::is_space_v<int>);
  static_assert(tessera::is_device_v<HostSpace::device_type> && !tessera::is_device_v<HostSpace>);
  static_assert(tessera::is_array_layout_v<tessera::LayoutLeft> && tessera::is_array_layout_v<tessera::LayoutStride> &&
                !tessera::is_array_layout_v<HostSpace>);
  static_assert(tessera::is_execution_policy_v<tessera::RangePolicy<>> &&
                tessera::is_execution_policy_v<tessera::TeamPolicy<tessera::Serial>> &&
                tessera::is_execution_policy_v<tessera::MDRangePolicy<tessera::Rank<2>>> &&
                !tessera::is_execution_policy_v<tessera::Serial>);
  static_assert(tessera::is_team_handle_v<tessera::TeamPolicy<tessera::Serial>::member_type> &&
                !tessera::is_team_handle_v<int>);
  static_assert(tessera::is_memory_traits_v<tessera::MemoryTraits<tessera::Aligned>> &&
                tessera::MemoryTraits<tessera::Aligned | tessera::Restrict>::is_aligned &&
                !tessera::MemoryManaged::is_aligned);
  // View member types Kokkos code names.
  using V = tessera::View<const double** [2], tessera::Serial>;
  static_assert(std::is_same_v<V::scalar_array_type, const double** [2]>);
  static_assert(std::is_same_v<V::non_const_scalar_array_type, double** [2]>);
  static_assert(std::is_same_v<V::const_scalar_array_type, const double** [2]>);
  static_assert(std::is_same_v<V::array_type::data_type, const double** [2]>);
  static_assert(std::is_same_v<V::host_mirror_space, V::HostMirror::device_type>);
  EXPECT_EQ(tessera::num_threads(), DefaultHostExecutionSpace().concurrency());
#if TESSERA_ENABLE_CUDA
  EXPECT_EQ(tessera::device_id(), tessera::Cuda::impl_is_available() ? tessera::Cuda().cuda_device() : -1);
#else
  EXPECT_EQ(tessera::device_id(), -1);
#endif
}

// Views in a team's scratch named through the member's scratch_memory_space
// (ScratchMemorySpace<Exec>), as well as through Exec::scratch_memory_space.
TYPED_TEST(KokkosApi, ScratchViewsThroughTheMembersScratchMemorySpace) {
  using Space = TypeParam;
  using Policy = tessera::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using A = tessera::View<int*, typename Member::scratch_memory_space, tessera::MemoryUnmanaged>;
  using B = tessera::View<int*, typename Space::scratch_memory_space, tessera::MemoryUnmanaged>;
  static_assert(std::is_same_v<typename A::memory_space, typename B::memory_space>);
  static_assert(std::is_same_v<typename A::execution_space, Space>);
  const int league = 9, n = 20;
  tessera::View<int*, Space> out("out", league);
  tessera::parallel_for(Policy(league, 1).set_scratch_size(0, tessera::PerTeam(A::shmem_size(n) + B::shmem_size(n))),
                        TESSERA_LAMBDA(const Member& m) {
                          A a(m.team_scratch(0), n);
                          B b(m.team_scratch(0), n);
                          int s = 0;
                          for (int i = 0; i < n; ++i) a(i) = i * m.league_rank();
                          for (int i = 0; i < n; ++i) b(i) = a(i) + 1;
                          for (int i = 0; i < n; ++i) s += b(i);
                          out(m.league_rank()) = s;
                        });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), out);
  for (int l = 0; l < league; ++l) EXPECT_EQ(h(l), l * n * (n - 1) / 2 + n) << l;
}

// ---- math -----------------------------------------------------------------------

namespace {
// Unqualified calls in code that uses the namespace stay unambiguous (the
// C library's non-template functions win over tessera's templates).
double unqualified_calls(double x) {
  using namespace tessera;
  return sqrt(x) + fabs(-x) + pow(x, 2) + exp(0.0) + floor(x);
}
}  // namespace

TEST(KokkosApiMath, HostValuesAndUnqualifiedUse) {
  EXPECT_EQ(unqualified_calls(4.0), 2.0 + 4.0 + 16.0 + 1.0 + 4.0);
  EXPECT_EQ(tessera::min(3, 5), 3);
  EXPECT_EQ(tessera::max(3.5, -1.0), 3.5);
  EXPECT_EQ(tessera::clamp(12, 0, 10), 10);
  EXPECT_EQ(tessera::clamp(-2, 0, 10), 0);
  EXPECT_EQ(tessera::clamp(5, 0, 10, [](int a, int b) { return a < b; }), 5);
  int a = 1, b = 2;
  tessera::tessera_swap(a, b);
  EXPECT_EQ(a, 2);
  EXPECT_EQ(b, 1);
  int x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
  tessera::tessera_swap(x, y);
  EXPECT_EQ(x[2], 6);
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(tessera::abs(-7), 7);
  EXPECT_EQ(tessera::abs(-7L), 7L);
  EXPECT_EQ(tessera::abs(7u), 7u);
  EXPECT_EQ(tessera::abs(-2.5f), 2.5f);
  EXPECT_EQ(tessera::sqrt(16), 4.0);  // integers compute in double
  static_assert(std::is_same_v<decltype(tessera::sqrt(2.0f)), float>);
  static_assert(std::is_same_v<decltype(tessera::sqrt(2)), double>);
  static_assert(std::is_same_v<decltype(tessera::pow(2.0f, 3)), double>);
  static_assert(std::is_same_v<decltype(tessera::pow(2.0f, 3.0f)), float>);
  EXPECT_EQ(tessera::hypot(2.0, 3.0, 6.0), 7.0);
  EXPECT_DOUBLE_EQ(tessera::rsqrt(4.0), 0.5);
  EXPECT_DOUBLE_EQ(tessera::numbers::pi, std::acos(-1.0));
  EXPECT_DOUBLE_EQ(tessera::numbers::e, std::exp(1.0));
  EXPECT_FLOAT_EQ(tessera::numbers::sqrt2_v<float>, std::sqrt(2.0f));
  EXPECT_DOUBLE_EQ(tessera::numbers::phi, (1 + std::sqrt(5.0)) / 2);
  EXPECT_DOUBLE_EQ(tessera::numbers::egamma, 0.57721566490153286);
  EXPECT_EQ(tessera::Experimental::finite_max_v<int>, std::numeric_limits<int>::max());
  EXPECT_EQ(tessera::Experimental::finite_min_v<double>, -std::numeric_limits<double>::max());
  EXPECT_EQ(tessera::Experimental::epsilon_v<float>, std::numeric_limits<float>::epsilon());
  EXPECT_EQ(tessera::Experimental::digits_v<double>, 53);
  EXPECT_TRUE(std::isinf(tessera::Experimental::infinity<double>::value));
  EXPECT_TRUE(std::isnan(tessera::Experimental::quiet_NaN_v<float>));
}

namespace {
// Identities whose exact or near-exact values are known: each row is
// f(inputs) - expected, evaluated in a kernel.
template <class T>
TESSERA_INLINE_FUNCTION void math_rows(T* r) {
  using namespace tessera;
  const T pi = numbers::pi_v<T>;
  int k = 0;
  r[k++] = sqrt(T(2.25)) - T(1.5);
  r[k++] = cbrt(T(27)) - T(3);
  r[k++] = exp(log(T(7))) - T(7);
  r[k++] = exp2(T(10)) - T(1024);
  r[k++] = log2(T(1024)) - T(10);
  r[k++] = log10(T(1000)) - T(3);
  r[k++] = expm1(T(0)) + log1p(T(0));
  r[k++] = pow(T(2), T(10)) - T(1024);
  r[k++] = sin(T(0.3)) * sin(T(0.3)) + cos(T(0.3)) * cos(T(0.3)) - T(1);
  r[k++] = tan(pi / 4) - T(1);
  r[k++] = asin(T(1)) - pi / 2;
  r[k++] = acos(T(-1)) - pi;
  r[k++] = atan(T(1)) - pi / 4;
  r[k++] = atan2(T(1), T(1)) - pi / 4;
  r[k++] = cosh(T(0.7)) * cosh(T(0.7)) - sinh(T(0.7)) * sinh(T(0.7)) - T(1);
  r[k++] = tanh(atanh(T(0.5))) - T(0.5);
  r[k++] = sinh(asinh(T(2))) - T(2);
  r[k++] = cosh(acosh(T(2))) - T(2);
  r[k++] = erf(T(0)) + erfc(T(0)) - T(1);
  r[k++] = tgamma(T(5)) - T(24);
  r[k++] = lgamma(T(1));
  r[k++] = ceil(T(2.1)) - T(3);
  r[k++] = floor(T(-2.1)) + T(3);
  r[k++] = trunc(T(-2.7)) + T(2);
  r[k++] = round(T(2.5)) - T(3);
  r[k++] = nearbyint(T(2.5)) - T(2);  // ties to even
  r[k++] = logb(T(40)) - T(5);
  r[k++] = fmod(T(7.5), T(2)) - T(1.5);
  r[k++] = remainder(T(7.5), T(2)) + T(0.5);
  r[k++] = fmin(T(3), T(-4)) + T(4);
  r[k++] = fmax(T(3), T(-4)) - T(3);
  r[k++] = fdim(T(5), T(3)) - T(2);
  r[k++] = copysign(T(3), T(-1)) + T(3);
  r[k++] = nextafter(T(1), T(2)) > T(1) ? T(0) : T(1);
  r[k++] = hypot(T(3), T(4)) - T(5);
  r[k++] = fma(T(2), T(3), T(4)) - T(10);
  r[k++] = fabs(T(-2)) - T(2);
  r[k++] = abs(T(-2)) - T(2);
  r[k++] = rsqrt(T(0.25)) - T(2);
  r[k++] = isnan(T(0) / T(0) * T(0)) && !isnan(T(1)) ? T(0) : T(1);
  r[k++] = isinf(T(1) / T(0)) && !isinf(T(1)) ? T(0) : T(1);
  r[k++] = isfinite(T(1)) && !isfinite(T(-1) / T(0)) ? T(0) : T(1);
  r[k++] = signbit(T(-0.0)) && !signbit(T(1)) ? T(0) : T(1);
  r[k++] = T(max(3, 4) - min(3, 4) - 1) + clamp(T(5), T(0), T(1)) - T(1);
  r[k++] = T(sqrt(9) - 3);
}
constexpr int kMathRows = 45;
}  // namespace

TYPED_TEST(KokkosApi, MathFunctionsInKernels) {
  using Space = TypeParam;
  tessera::View<double*, Space> d("d", kMathRows);
  tessera::View<float*, Space> f("f", kMathRows);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    double rd[kMathRows];
    float rf[kMathRows];
    math_rows(rd);
    math_rows(rf);
    for (int k = 0; k < kMathRows; ++k) {
      d(k) = rd[k];
      f(k) = rf[k];
    }
  });
  auto hd = tessera::create_mirror_view_and_copy(tessera::HostSpace(), d);
  auto hf = tessera::create_mirror_view_and_copy(tessera::HostSpace(), f);
  for (int k = 0; k < kMathRows; ++k) {
    EXPECT_NEAR(hd(k), 0.0, 8e-15) << "double row " << k;
    EXPECT_NEAR(hf(k), 0.0f, 8e-6f) << "float row " << k;
  }
}

// ---- atomics ------------------------------------------------------------------

TYPED_TEST(KokkosApi, RemainingAtomicsAndFences) {
  using Space = TypeParam;
  const int n = 40;
  tessera::View<std::uint64_t*, Space> v("v", 8);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    v(0) = 1;                      // 40 left shifts by 1
    v(1) = std::uint64_t(1) << 62;  // 40 right shifts by 1
    v(2) = 1000003;                 // repeated mod 97
    v(3) = 0b1100;                  // nand 0b1010 once
  });
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) {
    if (i % 2) tessera::atomic_lshift(&v(0), 1u);
    else (void)tessera::atomic_fetch_lshift(&v(0), 1u);
    if (i % 2) (void)tessera::atomic_rshift_fetch(&v(1), 1u);
    else tessera::atomic_rshift(&v(1), 1u);
    if (i % 2) tessera::atomic_mod(&v(2), std::uint64_t(97));
    else (void)tessera::atomic_fetch_mod(&v(2), std::uint64_t(97));
    tessera::store_fence();
    tessera::load_fence();
    if (i == 0) {
      v(4) = tessera::atomic_fetch_nand(&v(3), std::uint64_t(0b1010));  // old value
      v(5) = tessera::atomic_lshift_fetch(&v(6), 3u);                   // 0 << 3
      tessera::atomic_assign(&v(7), std::uint64_t(77));
    }
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
  EXPECT_EQ(h(0), std::uint64_t(1) << n);
  EXPECT_EQ(h(1), std::uint64_t(1) << (62 - n));
  EXPECT_EQ(h(2), 1000003u % 97u);
  EXPECT_EQ(h(3), ~std::uint64_t(0b1000));
  EXPECT_EQ(h(4), 0b1100u);
  EXPECT_EQ(h(5), 0u);
  EXPECT_EQ(h(7), 77u);
  int x = 13;
  EXPECT_EQ(tessera::atomic_mod_fetch(&x, 5), 3);
  EXPECT_EQ(tessera::atomic_nand_fetch(&x, 1), ~1);
  EXPECT_EQ(tessera::atomic_rshift_fetch(&x, 1u), ~1 >> 1);
}

// ---- reducers -------------------------------------------------------------------

TYPED_TEST(KokkosApi, FirstAndLastLocationReducers) {
  using Space = TypeParam;
  const int n = 1000;
  tessera::View<int*, Space> d("d", n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) { d(i) = (i * 7) % 10; });
  // Brute force on the host.
  int min_first = -1, max_first = -1, max_last = -1, first3 = -1, last3 = -1;
  for (int i = 0; i < n; ++i) {
    const int x = (i * 7) % 10;
    if (min_first < 0 && x == 0) min_first = i;
    if (max_first < 0 && x == 9) max_first = i;
    if (x == 9) max_last = i;
    if (first3 < 0 && x == 3) first3 = i;
    if (x == 3) last3 = i;
  }
  using MinF = tessera::MinFirstLoc<int, int>;
  using MaxF = tessera::MaxFirstLoc<int, int>;
  using MinMaxFL = tessera::MinMaxFirstLastLoc<int, int>;
  typename MinF::value_type mn;
  typename MaxF::value_type mx;
  typename MinMaxFL::value_type mm;
  tessera::FirstLocScalar<int> f3;
  tessera::LastLocScalar<int> l3;
  tessera::FirstLocScalar<int> none;
  tessera::parallel_reduce(
      tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i, typename MinF::value_type& u) {
        if (d(i) < u.val || (d(i) == u.val && i < u.loc)) {
          u.val = d(i);
          u.loc = i;
        }
      },
      MinF(mn));
  tessera::parallel_reduce(
      tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i, typename MaxF::value_type& u) {
        if (d(i) > u.val || (d(i) == u.val && i < u.loc)) {
          u.val = d(i);
          u.loc = i;
        }
      },
      MaxF(mx));
  tessera::parallel_reduce(
      tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i, typename MinMaxFL::value_type& u) {
        if (d(i) < u.min_val || (d(i) == u.min_val && i < u.min_loc)) {
          u.min_val = d(i);
          u.min_loc = i;
        }
        if (d(i) > u.max_val || (d(i) == u.max_val && i > u.max_loc)) {
          u.max_val = d(i);
          u.max_loc = i;
        }
      },
      MinMaxFL(mm));
  tessera::parallel_reduce(
      tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i, tessera::FirstLocScalar<int>& u) {
        if (d(i) == 3 && i < u.min_loc_true) u.min_loc_true = i;
      },
      tessera::FirstLoc<int>(f3));
  tessera::parallel_reduce(
      tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i, tessera::LastLocScalar<int>& u) {
        if (d(i) == 3 && i > u.max_loc_true) u.max_loc_true = i;
      },
      tessera::LastLoc<int>(l3));
  tessera::parallel_reduce(
      tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i, tessera::FirstLocScalar<int>& u) {
        if (d(i) == 10 && i < u.min_loc_true) u.min_loc_true = i;
      },
      tessera::FirstLoc<int>(none));
  EXPECT_EQ(mn.val, 0);
  EXPECT_EQ(mn.loc, min_first);
  EXPECT_EQ(mx.val, 9);
  EXPECT_EQ(mx.loc, max_first);
  EXPECT_EQ(mm.min_loc, min_first);
  EXPECT_EQ(mm.max_loc, max_last);
  EXPECT_EQ(mm.max_val, 9);
  EXPECT_EQ(f3.min_loc_true, first3);
  EXPECT_EQ(l3.max_loc_true, last3);
  EXPECT_EQ(none.min_loc_true, std::numeric_limits<int>::max()) << "not found";
}

// ---- tessera_malloc -------------------------------------------------------------

TYPED_TEST(KokkosApi, MallocReallocFree) {
  using Space = TypeParam;
  using M = typename Space::memory_space;
  const int n = 1000;
  int* p = static_cast<int*>(tessera::tessera_malloc<M>("raw", n * sizeof(int)));
  ASSERT_NE(p, nullptr);
  tessera::View<int*, Space, tessera::MemoryUnmanaged> a(p, n);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int i) { a(i) = 3 * i; });
  Space().fence();
  p = static_cast<int*>(tessera::tessera_realloc<M>(p, 2 * n * sizeof(int)));
  tessera::View<int*, Space, tessera::MemoryUnmanaged> b(p, 2 * n);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), b);
  for (int i = 0; i < n; ++i) ASSERT_EQ(h(i), 3 * i) << i;
  p = static_cast<int*>(tessera::tessera_realloc<M>(p, 10 * sizeof(int)));  // shrink keeps the first 10
  tessera::View<int*, Space, tessera::MemoryUnmanaged> c(p, 10);
  auto hc = tessera::create_mirror_view_and_copy(tessera::HostSpace(), c);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(hc(i), 3 * i);
  tessera::tessera_free<M>(p);
  tessera::tessera_free<M>(nullptr);
  void* q = tessera::tessera_realloc<M>(nullptr, 64);
  EXPECT_NE(q, nullptr);
  EXPECT_THROW(tessera::tessera_free<M>(static_cast<char*>(q) + 8), std::runtime_error);
  tessera::tessera_free<M>(q);
  EXPECT_THROW(tessera::tessera_free<M>(q), std::runtime_error) << "double free is caught";
}

// ---- profiling names, TESSERA_ASSERT ---------------------------------------------

namespace {
std::vector<std::string> g_regions;
void on_push(const char* name) { g_regions.push_back(std::string("+") + name); }
void on_pop() { g_regions.push_back("-"); }
}  // namespace

TEST(KokkosApiProfiling, KokkosSpellingsOfRegions) {
  tessera::profiling::Callbacks cb;
  cb.push_region = &on_push;
  cb.pop_region = &on_pop;
  auto old = tessera::profiling::set_callbacks(cb);
  g_regions.clear();
  tessera::Profiling::pushRegion("a");
  {
    tessera::Profiling::ScopedRegion r("b");
    tessera::Tools::pushRegion("c");
    tessera::Tools::popRegion();
  }
  tessera::Profiling::popRegion();
  tessera::profiling::set_callbacks(old);
  EXPECT_EQ(g_regions, (std::vector<std::string>{"+a", "+b", "+c", "-", "-", "-"}));
}

TEST(KokkosApiAssert, AssertAbortsWithTheConditionAndPlace) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TESSERA_ASSERT(1 + 1 == 2);
  TESSERA_EXPECTS(true);
  EXPECT_DEATH(TESSERA_ASSERT(1 + 1 == 3), "assertion '1 \\+ 1 == 3' failed at .*test_kokkos_api.cpp:[0-9]+");
  EXPECT_DEATH(TESSERA_ENSURES(false), "assertion 'false' failed");
}

TEST(KokkosApiSettings, AcceptedKokkosSettings) {
  tessera::InitializationSettings s;
  EXPECT_FALSE(s.has_disable_warnings());
  s.set_disable_warnings(true).set_tune_internals(true);
  EXPECT_TRUE(s.get_disable_warnings());
  EXPECT_TRUE(s.has_tune_internals());
  EXPECT_TRUE(s.get_tune_internals());
}

// ---- allocation properties, mirrors, rand<> ----------------------------------------

TYPED_TEST(KokkosApi, ViewAllocPropertiesAndMirrorForms) {
  using Space = TypeParam;
  using M = typename Space::memory_space;
  tessera::View<int*, Space> a(tessera::ViewAllocateWithoutInitializing("a"), 50);
  EXPECT_EQ(a.label(), "a");
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 50), TESSERA_LAMBDA(int i) { a(i) = i * i; });
  // Memory space named in view_alloc: the mirror lives there.
  auto h = tessera::create_mirror_view(tessera::view_alloc(tessera::HostSpace(), tessera::WithoutInitializing), a);
  static_assert(std::is_same_v<typename decltype(h)::memory_space, tessera::HostSpace>);
  tessera::deep_copy(h, a);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(h(i), i * i);
  auto hm = tessera::create_mirror(tessera::view_alloc(tessera::WithoutInitializing), a);  // no space: the host
  static_assert(std::is_same_v<typename decltype(hm)::memory_space, tessera::HostSpace>);
  EXPECT_NE(hm.data(), a.data());
  auto zero = tessera::create_mirror(tessera::view_alloc(tessera::HostSpace()), a);  // initialized
  for (int i = 0; i < 50; ++i) ASSERT_EQ(zero(i), 0);
  auto same = tessera::create_mirror_view(tessera::view_alloc(M()), a);
  EXPECT_EQ(same.data(), a.data()) << "already in that memory space";
  auto c = tessera::create_mirror_view_and_copy(tessera::view_alloc(tessera::HostSpace(), "copy"), a);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(c(i), i * i);
  auto back = tessera::create_mirror_view_and_copy(tessera::view_alloc(Space(), M()), c);
  static_assert(std::is_same_v<typename decltype(back)::memory_space, M>);
  Space().fence();
  int sum = 0;
  tessera::parallel_reduce(tessera::RangePolicy<Space>(0, 50), TESSERA_LAMBDA(int i, int& s) { s += back(i); }, sum);
  EXPECT_EQ(sum, 49 * 50 * 99 / 6);
}

TYPED_TEST(KokkosApi, RandByValueType) {
  using Space = TypeParam;
  using Pool = tessera::Random_XorShift64_Pool<Space>;
  using Gen = typename Pool::generator_type;
  Pool pool(12345);
  const int n = 2000;
  tessera::View<int*, Space> bad("bad", 6);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, n), TESSERA_LAMBDA(int) {
    Gen g = pool.get_state();
    const int i = tessera::rand<Gen, int>::draw(g);
    const int r = tessera::rand<Gen, int>::draw(g, 10);
    const long l = tessera::rand<Gen, long>::draw(g, -5, 5);
    const double d = tessera::rand<Gen, double>::draw(g);
    const float f = tessera::rand<Gen, float>::draw(g, 2.0f, 3.0f);
    const unsigned u = tessera::rand<Gen, unsigned>::draw(g, 7u);
    pool.free_state(g);
    if (i < 0 || i >= tessera::rand<Gen, int>::max()) tessera::atomic_add(&bad(0), 1);
    if (r < 0 || r >= 10) tessera::atomic_add(&bad(1), 1);
    if (l < -5 || l >= 5) tessera::atomic_add(&bad(2), 1);
    if (d < 0 || d >= 1) tessera::atomic_add(&bad(3), 1);
    if (f < 2 || f >= 3) tessera::atomic_add(&bad(4), 1);
    if (u >= 7) tessera::atomic_add(&bad(5), 1);
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), bad);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(h(k), 0) << "draw " << k << " out of range";
  static_assert(tessera::rand<Gen, double>::max() == 1.0);
  static_assert(tessera::rand<Gen, short>::max() == 32767);
}
