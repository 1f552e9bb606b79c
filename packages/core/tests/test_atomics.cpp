// Atomic operations from all threads of every back-end, with exact expected
// results: arithmetic, min/max, bitwise, inc/dec, exchange,
// compare-exchange, load/store, for 32/64-bit integers, float, double and
// trivially copyable structs of 16 and 3 bytes (the lock-array fallback).
#include "tessera_test_spaces.hpp"

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>

namespace {

constexpr int N = 20000;

template <class V>
auto to_host(const V& v) {
  return tessera::create_mirror_view_and_copy(tessera::HostSpace(), v);
}

template <class Space, class T>
void check_arithmetic(const char* type_name) {
  SCOPED_TRACE(type_name);
  // Slots: 0 add, 1 sub, 2 min, 3 max, 4 inc, 5 dec, 6 CAS counter, 7 fetch_add, 8 add_fetch, 9 store/load.
  tessera::View<T*, Space> x("x", 10);
  tessera::View<int*, Space> seen_fetch("seen_fetch", N), seen_new("seen_new", N), seen_cas("seen_cas", N);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    x(1) = T(N);
    x(2) = T(N);
    x(3) = T(0);
    x(5) = T(N);
  });
  tessera::parallel_for(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i) {
    tessera::atomic_add(&x(0), 1);  // the value is not deduced: an int literal works for every T
    tessera::atomic_sub(&x(1), T(1));
    tessera::atomic_min(&x(2), T(i));
    tessera::atomic_max(&x(3), T(i));
    tessera::atomic_inc(&x(4));
    tessera::atomic_dec(&x(5));
    // A counter built from compare-exchange alone.
    T old = tessera::atomic_load(&x(6));
    for (;;) {
      const T got = tessera::atomic_compare_exchange(&x(6), old, T(old + T(1)));
      if (got == old) break;
      old = got;
    }
    tessera::atomic_add(&seen_cas(int(old)), 1);
    // fetch_add hands out every old value exactly once; add_fetch every new one.
    const T before = tessera::atomic_fetch_add(&x(7), T(1));
    tessera::atomic_add(&seen_fetch(int(before)), 1);
    const T after = tessera::atomic_add_fetch(&x(8), T(1));
    tessera::atomic_add(&seen_new(int(after) - 1), 1);
  });
  auto h = to_host(x);
  EXPECT_EQ(h(0), T(N));
  EXPECT_EQ(h(1), T(0));
  EXPECT_EQ(h(2), T(0));
  EXPECT_EQ(h(3), T(N - 1));
  EXPECT_EQ(h(4), T(N));
  EXPECT_EQ(h(5), T(0));
  EXPECT_EQ(h(6), T(N));
  EXPECT_EQ(h(7), T(N));
  EXPECT_EQ(h(8), T(N));
  auto sf = to_host(seen_fetch);
  auto sn = to_host(seen_new);
  auto sc = to_host(seen_cas);
  for (int i = 0; i < N; ++i) {
    ASSERT_EQ(sf(i), 1) << "fetch_add value " << i;
    ASSERT_EQ(sn(i), 1) << "add_fetch value " << i + 1;
    ASSERT_EQ(sc(i), 1) << "compare_exchange value " << i;
  }

  // Return values of the fetch_* / *_fetch forms, single-threaded, on a
  // value in the space's memory (an atomic on a kernel-local variable is not
  // one on a GPU: ptxas compiles it as a plain access and warns).
  tessera::View<T*, Space> r("r", 12);
  tessera::View<T, Space> cell("cell");
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    T* const v = &cell();
    *v = T(10);
    r(0) = tessera::atomic_fetch_sub(v, T(3));  // 10, v = 7
    r(1) = tessera::atomic_sub_fetch(v, T(2));  // 5
    r(2) = tessera::atomic_fetch_min(v, T(2));  // 5, v = 2
    r(3) = tessera::atomic_max_fetch(v, T(9));  // 9
    r(4) = tessera::atomic_min_fetch(v, T(20));  // 9
    r(5) = tessera::atomic_fetch_max(v, T(4));  // 9
    r(6) = tessera::atomic_fetch_inc(v);         // 9, v = 10
    r(7) = tessera::atomic_inc_fetch(v);         // 11
    r(8) = tessera::atomic_fetch_dec(v);         // 11, v = 10
    r(9) = tessera::atomic_dec_fetch(v);         // 9
    r(10) = tessera::atomic_exchange(v, T(1));   // 9, v = 1
    tessera::atomic_store(v, T(6));
    r(11) = tessera::atomic_load(v) + T(tessera::atomic_compare_exchange_strong(v, T(5), T(0)) ? 100 : 0);  // 6
  });
  auto hr = to_host(r);
  const T expected[12] = {10, 5, 5, 9, 9, 9, 9, 11, 11, 9, 9, 6};
  for (int k = 0; k < 12; ++k) EXPECT_EQ(hr(k), expected[k]) << "return value " << k;
}

template <class Space, class T>
void check_bitwise(const char* type_name) {
  SCOPED_TRACE(type_name);
  constexpr int bits = int(sizeof(T) * 8);
  tessera::View<T*, Space> x("x", 4);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    x(1) = T(~T(0));
    x(3) = T(~T(0));
  });
  tessera::parallel_for(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i) {
    const T bit = T(T(1) << (i % bits));
    tessera::atomic_or(&x(0), bit);
    tessera::atomic_and(&x(1), T(~bit));
    (void)tessera::atomic_fetch_or(&x(2), bit);
    (void)tessera::atomic_and_fetch(&x(3), T(~bit));
  });
  auto h = to_host(x);
  EXPECT_EQ(h(0), T(~T(0)));
  EXPECT_EQ(h(1), T(0));
  EXPECT_EQ(h(2), T(~T(0)));
  EXPECT_EQ(h(3), T(0));
}

template <class Space, class T>
void check_exchange(const char* type_name) {
  SCOPED_TRACE(type_name);
  // Every value written is returned by exactly one later exchange, or is
  // the final value: together with the initial value, each appears once.
  tessera::View<T, Space> slot("slot");
  tessera::View<int*, Space> seen("seen", N + 1);
  tessera::deep_copy(slot, T(N));
  tessera::parallel_for(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i) {
    const T old = tessera::atomic_exchange(&slot(), T(i));
    tessera::atomic_inc(&seen(int(old)));
  });
  T last{};
  tessera::deep_copy(last, slot);
  auto h = to_host(seen);
  h(int(last)) += 1;
  for (int i = 0; i <= N; ++i) ASSERT_EQ(h(i), 1) << "value " << i;
}

struct Wide {  // 16 bytes: beyond a single hardware CAS on the host
  double sum;
  std::int64_t count;
};
struct Tiny {  // 3 bytes: not a CAS size
  unsigned char a, b, c;
};
static_assert(sizeof(Wide) == 16 && sizeof(Tiny) == 3);

}  // namespace

template <class Space>
class Atomics : public SpaceTest<Space> {};
TYPED_TEST_SUITE(Atomics, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(Atomics, ArithmeticMinMaxIncDecCompareExchange) {
  using Space = TypeParam;
  check_arithmetic<Space, std::int32_t>("int32");
  check_arithmetic<Space, std::int64_t>("int64");
  check_arithmetic<Space, std::uint32_t>("uint32");
  check_arithmetic<Space, std::uint64_t>("uint64");
  check_arithmetic<Space, float>("float");
  check_arithmetic<Space, double>("double");
}

TYPED_TEST(Atomics, Bitwise) {
  using Space = TypeParam;
  check_bitwise<Space, std::int32_t>("int32");
  check_bitwise<Space, std::int64_t>("int64");
  check_bitwise<Space, std::uint32_t>("uint32");
  check_bitwise<Space, std::uint64_t>("uint64");
}

TYPED_TEST(Atomics, Exchange) {
  using Space = TypeParam;
  check_exchange<Space, std::int32_t>("int32");
  check_exchange<Space, std::int64_t>("int64");
  check_exchange<Space, std::uint32_t>("uint32");
  check_exchange<Space, std::uint64_t>("uint64");
  check_exchange<Space, float>("float");
  check_exchange<Space, double>("double");
}

TYPED_TEST(Atomics, StructsThroughTheLockArray) {
  using Space = TypeParam;
  tessera::View<Wide, Space> wide("wide");
  tessera::View<Tiny*, Space> tiny("tiny", 3);  // neighbours share lock stripes and words
  tessera::parallel_for(tessera::RangePolicy<Space>(0, N), TESSERA_LAMBDA(int i) {
    Wide old = tessera::atomic_load(&wide());
    for (;;) {
      const Wide next{old.sum + 0.5, old.count + 1};
      const Wide got = tessera::atomic_compare_exchange(&wide(), old, next);
      if (got.sum == old.sum && got.count == old.count) break;
      old = got;
    }
    Tiny* t = &tiny(i % 3);
    Tiny cur = tessera::atomic_load(t);
    while (!tessera::atomic_compare_exchange_strong(
        t, cur, Tiny{static_cast<unsigned char>(cur.a + 1), static_cast<unsigned char>(cur.b + 2), cur.c})) {
      cur = tessera::atomic_load(t);
    }
  });
  Wide w{};
  tessera::deep_copy(w, wide);
  EXPECT_EQ(w.count, N);
  EXPECT_EQ(w.sum, 0.5 * N);
  auto h = to_host(tiny);
  for (int k = 0; k < 3; ++k) {
    const int count = N / 3 + (k < N % 3 ? 1 : 0);
    EXPECT_EQ(h(k).a, static_cast<unsigned char>(count)) << k;
    EXPECT_EQ(h(k).b, static_cast<unsigned char>(2 * count)) << k;
    EXPECT_EQ(h(k).c, 0) << "the third byte is never touched";
  }
  // Exchange and store on structs.
  tessera::View<Wide*, Space> ws("ws", 2);
  tessera::parallel_for(tessera::RangePolicy<Space>(0, 1), TESSERA_LAMBDA(int) {
    tessera::atomic_store(&ws(0), Wide{1.0, 2});
    ws(1) = tessera::atomic_exchange(&ws(0), Wide{3.0, 4});
  });
  auto hw = to_host(ws);
  EXPECT_EQ(hw(0).count, 4);
  EXPECT_EQ(hw(1).count, 2);
  EXPECT_EQ(hw(1).sum, 1.0);
}

// memory_fence orders plain writes before an atomic flag (message passing
// between two std::threads).
TEST(AtomicsHost, MemoryFenceOrdersMessagePassing) {
  for (int round = 0; round < 200; ++round) {
    int data = 0;
    int flag = 0;
    int seen = -1;
    std::thread reader([&] {
      while (tessera::atomic_load(&flag) == 0) std::this_thread::yield();
      tessera::memory_fence();
      seen = data;
    });
    data = 42 + round;
    tessera::memory_fence();
    tessera::atomic_store(&flag, 1);
    reader.join();
    ASSERT_EQ(seen, 42 + round);
  }
}

// Many std::threads at once on the lock array and on native atomics.
TEST(AtomicsHost, ConcurrentStdThreads) {
  const int threads = 8, per = 20000;
  double d = 0;
  std::uint64_t u = 0;
  Wide w{0, 0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int i = 0; i < per; ++i) {
        tessera::atomic_add(&d, 1.0);
        tessera::atomic_fetch_add(&u, std::uint64_t(3));
        Wide old = tessera::atomic_load(&w);
        while (!tessera::atomic_compare_exchange_strong(&w, old, Wide{old.sum + 1, old.count + 1}))
          old = tessera::atomic_load(&w);
      }
    });
  for (auto& th : pool) th.join();
  EXPECT_EQ(d, double(threads * per));
  EXPECT_EQ(u, std::uint64_t(3) * threads * per);
  EXPECT_EQ(w.count, threads * per);
}
