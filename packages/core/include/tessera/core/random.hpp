#pragma once
// Random numbers usable inside kernels, with Kokkos' names and semantics:
//
//   tessera::Random_XorShift64_Pool<Space> pool(seed);
//   parallel_for(n, TESSERA_LAMBDA(int i) {
//     auto gen = pool.get_state();        // exclusive use of one generator state
//     x(i) = gen.drand(-1.0, 1.0);
//     pool.free_state(gen);               // writes the advanced state back
//   });
//   tessera::fill_random(view, pool, 0, 100);
//
// A pool holds num_states independent generator states, each seeded from
// (seed, state index) through SplitMix64, so the streams of different states
// do not overlap in practice and a pool is reproducible from its seed.
//
// Differences from Kokkos, on purpose:
//  - get_state() on host back-ends starts at the calling thread's index but
//    locks the state it hands out and moves on to the next free one if that
//    is taken (Kokkos hands out state[thread id] unlocked). Two generators are
//    therefore never the same state, even when a pool is used from a kernel
//    of another execution space, from several user threads, or when one work
//    item holds two generators.
//  - host states are padded to a cache line each, so threads advancing their
//    own states do not false-share.
//  - drand()/frand() are in [0, 1) (Kokkos' may return exactly 1), and every
//    ranged draw is in [begin, end).
//  - fill_random(view, pool, ...) gives state c the c-th part of the View, so
//    its result depends only on the seed, num_states and the View's shape —
//    not on thread count, scheduling or timing. It advances the pool's states
//    like any other use.
#include <tessera/core/default_spaces.hpp>
#include <tessera/core/deep_copy.hpp>
#include <tessera/core/mirror.hpp>
#include <tessera/core/view.hpp>

#include <math.h>

#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>

namespace tessera {

namespace detail {

// SplitMix64: the standard seeder for xorshift families; maps any 64-bit
// input (including 0) to a well-mixed output.
TESSERA_INLINE_FUNCTION std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Everything a generator derives from its raw 64-bit draws (CRTP: Derived
// provides urand64()).
template <class Derived>
class RandomDraws {
 public:
  enum : std::uint64_t {
    MAX_URAND = 0xffffffffULL,
    MAX_URAND64 = 0xffffffffffffffffULL - 1,
    MAX_RAND = 0x7fffffffULL,
    MAX_RAND64 = 0x7fffffffffffffffULL - 1
  };

  // 32-bit draws: the high half of a 64-bit draw (the better bits of xorshift*).
  TESSERA_INLINE_FUNCTION std::uint32_t urand() { return static_cast<std::uint32_t>(self().urand64() >> 32); }
  // Unbiased draw in [0, range) by rejection; range 0 gives 0.
  TESSERA_INLINE_FUNCTION std::uint32_t urand(const std::uint32_t& range) {
    if (range == 0) return 0;
    const std::uint32_t limit = std::uint32_t(0xffffffffU) - std::uint32_t(0xffffffffU) % range;
    std::uint32_t x = urand();
    while (x >= limit) x = urand();
    return x % range;
  }
  // In [start, end); an empty range gives start.
  TESSERA_INLINE_FUNCTION std::uint32_t urand(const std::uint32_t& start, const std::uint32_t& end) {
    return end > start ? start + urand(end - start) : start;
  }

  TESSERA_INLINE_FUNCTION std::uint64_t urand64(const std::uint64_t& range) {
    if (range == 0) return 0;
    const std::uint64_t limit = ~std::uint64_t(0) - (~std::uint64_t(0)) % range;
    std::uint64_t x = self().urand64();
    while (x >= limit) x = self().urand64();
    return x % range;
  }
  TESSERA_INLINE_FUNCTION std::uint64_t urand64(const std::uint64_t& start, const std::uint64_t& end) {
    return end > start ? start + urand64(end - start) : start;
  }

  // Non-negative ints in [0, MAX_RAND].
  TESSERA_INLINE_FUNCTION int rand() { return static_cast<int>(urand() >> 1); }
  TESSERA_INLINE_FUNCTION int rand(const int& range) {
    return range > 0 ? static_cast<int>(urand(static_cast<std::uint32_t>(range))) : 0;
  }
  // In [start, end): the width is computed in unsigned arithmetic, so the
  // whole int range works.
  TESSERA_INLINE_FUNCTION int rand(const int& start, const int& end) {
    if (!(start < end)) return start;
    const std::uint32_t width = std::uint32_t(end) - std::uint32_t(start);
    return static_cast<int>(std::uint32_t(start) + urand(width));
  }

  TESSERA_INLINE_FUNCTION std::int64_t rand64() { return static_cast<std::int64_t>(self().urand64() >> 1); }
  TESSERA_INLINE_FUNCTION std::int64_t rand64(const std::int64_t& range) {
    return range > 0 ? static_cast<std::int64_t>(urand64(static_cast<std::uint64_t>(range))) : 0;
  }
  TESSERA_INLINE_FUNCTION std::int64_t rand64(const std::int64_t& start, const std::int64_t& end) {
    if (!(start < end)) return start;
    const std::uint64_t width = std::uint64_t(end) - std::uint64_t(start);
    return static_cast<std::int64_t>(std::uint64_t(start) + urand64(width));
  }

  // Uniform in [0, 1): the top 24 (float) or 53 (double) bits of a draw.
  TESSERA_INLINE_FUNCTION float frand() { return float(self().urand64() >> 40) * 0x1.0p-24f; }
  TESSERA_INLINE_FUNCTION float frand(const float& range) { return range * frand(); }
  TESSERA_INLINE_FUNCTION float frand(const float& start, const float& end) {
    const float x = start + (end - start) * frand();
    return x < end ? x : start;  // rounding may reach end; keep the range half-open
  }
  TESSERA_INLINE_FUNCTION double drand() { return double(self().urand64() >> 11) * 0x1.0p-53; }
  TESSERA_INLINE_FUNCTION double drand(const double& range) { return range * drand(); }
  TESSERA_INLINE_FUNCTION double drand(const double& start, const double& end) {
    const double x = start + (end - start) * drand();
    return x < end ? x : start;
  }

  // Standard normal by the Marsaglia polar method.
  TESSERA_INLINE_FUNCTION double normal() {
    double u, s;
    do {
      u = 2.0 * drand() - 1.0;
      const double v = 2.0 * drand() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * ::sqrt(-2.0 * ::log(s) / s);
  }
  TESSERA_INLINE_FUNCTION double normal(const double& mean, const double& std_dev = 1.0) {
    return mean + std_dev * normal();
  }

 private:
  TESSERA_FORCEINLINE_FUNCTION Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace detail

template <class DeviceType>
class Random_XorShift64_Pool;
template <class DeviceType>
class Random_XorShift1024_Pool;

// xorshift64*: 64 bits of state, period 2^64 - 1. Cheap; good enough for
// Monte Carlo and randomized algorithms (not for cryptography).
template <class DeviceType>
class Random_XorShift64 : public detail::RandomDraws<Random_XorShift64<DeviceType>> {
 public:
  using device_type = DeviceType;
  static constexpr int state_words = 1;

  // A standalone generator (outside any pool); seed 0 is remapped to a
  // non-zero state since xorshift has no zero state.
  TESSERA_INLINE_FUNCTION explicit Random_XorShift64(std::uint64_t seed = 1, int state_idx = 0)
      : m_state(seed ? seed : 0x2545F4914F6CDD1DULL), m_state_idx(state_idx) {}

  TESSERA_INLINE_FUNCTION std::uint64_t urand64() {
    m_state ^= m_state >> 12;
    m_state ^= m_state << 25;
    m_state ^= m_state >> 27;
    return m_state * 0x2545F4914F6CDD1DULL;
  }
  using detail::RandomDraws<Random_XorShift64>::urand64;

  TESSERA_INLINE_FUNCTION int state_index() const { return m_state_idx; }
  // Raw state words (used by the pool to store the state back).
  TESSERA_INLINE_FUNCTION std::uint64_t impl_word(int) const { return m_state; }
  TESSERA_INLINE_FUNCTION void impl_set_word(int, std::uint64_t w) { m_state = w; }

 private:
  std::uint64_t m_state;
  int m_state_idx;
};

// xorshift1024*: 16 words of state, period 2^1024 - 1, for long streams.
template <class DeviceType>
class Random_XorShift1024 : public detail::RandomDraws<Random_XorShift1024<DeviceType>> {
 public:
  using device_type = DeviceType;
  static constexpr int state_words = 17;  // 16 words and the position p

  TESSERA_INLINE_FUNCTION explicit Random_XorShift1024(std::uint64_t seed = 1, int state_idx = 0)
      : m_p(0), m_state_idx(state_idx) {
    for (int k = 0; k < 16; ++k) m_state[k] = detail::splitmix64(seed);
  }

  TESSERA_INLINE_FUNCTION std::uint64_t urand64() {
    const std::uint64_t s0 = m_state[m_p];
    m_p = (m_p + 1) & 15;
    std::uint64_t s1 = m_state[m_p];
    s1 ^= s1 << 31;
    m_state[m_p] = s1 ^ s0 ^ (s1 >> 11) ^ (s0 >> 30);
    return m_state[m_p] * 1181783497276652981ULL;
  }
  using detail::RandomDraws<Random_XorShift1024>::urand64;

  TESSERA_INLINE_FUNCTION int state_index() const { return m_state_idx; }
  TESSERA_INLINE_FUNCTION std::uint64_t impl_word(int k) const { return k < 16 ? m_state[k] : std::uint64_t(m_p); }
  TESSERA_INLINE_FUNCTION void impl_set_word(int k, std::uint64_t w) {
    if (k < 16) m_state[k] = w;
    else m_p = static_cast<int>(w & 15);
  }

 private:
  std::uint64_t m_state[16];
  int m_p;
  int m_state_idx;
};

namespace detail {

// The pool machinery shared by both generator families. States live in one
// View of 64-bit words in the pool's memory space:
//  - on host spaces, state i owns one cache-line padded slot (its words, then
//    its lock word), so threads never share a line;
//  - on devices, word k of state i sits at k * num_states + i, so that
//    neighbouring GPU threads touch neighbouring words (coalesced).
template <class DeviceType, class Generator>
class RandomPoolBase {
 public:
  using execution_space = typename DeviceType::execution_space;
  using memory_space = typename DeviceType::memory_space;
  using device_type = Device<execution_space, memory_space>;
  using generator_type = Generator;

  static constexpr bool host_layout = is_host_execution_space<execution_space>::value;
  static constexpr int words = Generator::state_words;
  // Words per slot on host: state words plus the lock, rounded up to 64 bytes.
  static constexpr int host_slot = ((words + 1) + 7) / 8 * 8;

  TESSERA_DEFAULTED_FUNCTION RandomPoolBase() = default;

  // num_states independent states seeded from seed. The default num_states
  // is the execution space's concurrency (one state per thread, as Kokkos).
  explicit RandomPoolBase(std::uint64_t seed) { init(seed, execution_space().concurrency()); }
  RandomPoolBase(std::uint64_t seed, int num_states) { init(seed, num_states); }

  void init(std::uint64_t seed, int num_states) {
    if (num_states <= 0)
      detail::throw_runtime_error("tessera::Random pool: num_states must be positive, got " +
                                  std::to_string(num_states));
    m_num_states = num_states;
    const std::size_t total = std::size_t(num_states) * (host_layout ? host_slot : words + 1);
    m_words = View<std::uint64_t*, device_type>(view_alloc("tessera::Random pool states", WithoutInitializing), total);
    auto h = create_mirror_view(m_words);
    std::uint64_t s = seed;
    const std::uint64_t base = splitmix64(s);
    for (int i = 0; i < num_states; ++i) {
      // State i's words come from its own SplitMix64 sequence, keyed by a
      // hash of (seed, i); consecutive keys would give overlapping sequences.
      std::uint64_t si = std::uint64_t(i);
      std::uint64_t key = base ^ splitmix64(si);
      for (int k = 0; k < words && k < 16; ++k) {
        const std::uint64_t w = splitmix64(key);
        h(index(i, k)) = w ? w : 0x2545F4914F6CDD1DULL;  // xorshift has no zero state
      }
      if constexpr (words == 17) h(index(i, 16)) = 0;  // position p
      h(index(i, words)) = 0;                          // unlocked
    }
    deep_copy(m_words, h);
  }

  TESSERA_INLINE_FUNCTION int num_states() const { return m_num_states; }

  // A generator with exclusive use of one state until free_state(). Inside a
  // kernel on host spaces the search starts at the calling thread's index,
  // so in the common case the first try succeeds on a line no other thread
  // touches; on a GPU it starts at the global thread index.
  TESSERA_INLINE_FUNCTION Generator get_state() const {
    const int n = m_num_states;
#if TESSERA_IMPL_ON_DEVICE
    const int block = int(blockDim.x * blockDim.y * blockDim.z);
    const int offset = int((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
    const int start =
        int(((std::uint64_t(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * block + offset) % n;
    int i = start;
    while (!try_lock(i)) {
      i += block;
      if (i >= n) i = offset % n;
    }
    return load(i);
#else
    if (n <= 0) tessera::abort("tessera::Random pool: get_state() on a pool that was never initialized");
    int i = execution_space::impl_thread_pool_rank() % n;
    for (int tries = 1; !try_lock(i); ++tries) {
      i = (i + 1) % n;
      if (tries % n == 0) wait_a_little(tries / n);  // every state held: back off
    }
    return load(i);
#endif
  }
  // The generator of state `i` (mod num_states), waiting while another holder
  // has it: for deterministic patterns where work item i always uses state i.
  TESSERA_INLINE_FUNCTION Generator get_state(const int i) const {
    const int s = i % m_num_states;
    for (int tries = 1; !try_lock(s); ++tries) wait_a_little(tries);
    return load(s);
  }
  // Stores the advanced state and releases it.
  TESSERA_INLINE_FUNCTION void free_state(const Generator& g) const {
    impl_store(g);
    memory_fence();
    atomic_store(&m_words(index(g.state_index(), words)), std::uint64_t(0));
  }

  // Internal (fill_random): state i without locking, and its store.
  TESSERA_INLINE_FUNCTION Generator impl_load(int i) const { return load(i); }
  TESSERA_INLINE_FUNCTION void impl_store(const Generator& g) const {
    for (int k = 0; k < words; ++k) m_words(index(g.state_index(), k)) = g.impl_word(k);
  }

 private:
  TESSERA_FORCEINLINE_FUNCTION std::size_t index(int i, int k) const {
    if constexpr (host_layout) return std::size_t(i) * host_slot + std::size_t(k);
    else return std::size_t(k) * std::size_t(m_num_states) + std::size_t(i);
  }
  // A host thread that keeps finding its state held spins a while, then
  // yields its core (the holder may be waiting for it, with more threads
  // than cores). On a GPU the next try is the wait.
  TESSERA_INLINE_FUNCTION static void wait_a_little([[maybe_unused]] int tries) {
#if !TESSERA_IMPL_ON_DEVICE
    if (tries >= 64) std::this_thread::yield();
#endif
  }
  TESSERA_INLINE_FUNCTION bool try_lock(int i) const {
    return atomic_compare_exchange(&m_words(index(i, words)), std::uint64_t(0), std::uint64_t(1)) == 0;
  }
  TESSERA_INLINE_FUNCTION Generator load(int i) const {
    Generator g(1, i);
    for (int k = 0; k < words; ++k) g.impl_set_word(k, m_words(index(i, k)));
    return g;
  }

  View<std::uint64_t*, device_type> m_words;
  int m_num_states = 0;
};

}  // namespace detail

template <class DeviceType = DefaultExecutionSpace>
class Random_XorShift64_Pool : public detail::RandomPoolBase<DeviceType, Random_XorShift64<DeviceType>> {
  using base = detail::RandomPoolBase<DeviceType, Random_XorShift64<DeviceType>>;

 public:
  using base::base;
  TESSERA_DEFAULTED_FUNCTION Random_XorShift64_Pool() = default;
};

template <class DeviceType = DefaultExecutionSpace>
class Random_XorShift1024_Pool : public detail::RandomPoolBase<DeviceType, Random_XorShift1024<DeviceType>> {
  using base = detail::RandomPoolBase<DeviceType, Random_XorShift1024<DeviceType>>;

 public:
  using base::base;
  TESSERA_DEFAULTED_FUNCTION Random_XorShift1024_Pool() = default;
};

namespace detail {

template <class T>
struct is_random_pool : std::false_type {};
template <class D>
struct is_random_pool<Random_XorShift64_Pool<D>> : std::true_type {};
template <class D>
struct is_random_pool<Random_XorShift1024_Pool<D>> : std::true_type {};

// One value of type T in [begin, end).
template <class T, class Gen>
TESSERA_INLINE_FUNCTION T random_in(Gen& g, const T& begin, const T& end) {
  if constexpr (std::is_same_v<T, float>) {
    return g.frand(begin, end);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(g.drand(double(begin), double(end)));
  } else if constexpr (sizeof(T) <= 4) {
    const std::uint32_t width = std::uint32_t(std::uint64_t(end) - std::uint64_t(begin));
    return static_cast<T>(std::uint64_t(begin) + g.urand(width));
  } else {
    const std::uint64_t width = std::uint64_t(end) - std::uint64_t(begin);
    return static_cast<T>(std::uint64_t(begin) + g.urand64(width));
  }
}

template <class Exec, class ViewType, class Pool>
void fill_random_impl(const Exec& exec, const ViewType& a, const Pool& pool,
                      const typename ViewType::non_const_value_type begin,
                      const typename ViewType::non_const_value_type end) {
  using T = typename ViewType::non_const_value_type;
  static_assert(!std::is_const_v<typename ViewType::value_type>, "fill_random: the View must not be const");
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                "fill_random: the View's value type must be an integer or floating-point type");
  static_assert(is_random_pool<Pool>::value, "fill_random: the second argument must be a random pool");
  static_assert(SpaceAccessibility<Exec, typename Pool::memory_space>::accessible,
                "fill_random: the pool's states are not reachable from the View's execution space");
  if (!(begin < end))
    detail::throw_runtime_error("tessera::fill_random on View '" + a.label() + "': empty range [" +
                                std::to_string(begin) + ", " + std::to_string(end) + ")");
  if (pool.num_states() <= 0)
    detail::throw_runtime_error("tessera::fill_random on View '" + a.label() + "': the pool was never initialized");
  const std::size_t n = a.size();
  if (n == 0) return;
  const std::size_t parts = std::min<std::size_t>(std::size_t(pool.num_states()), n);
  const bool contiguous = a.span_is_contiguous() && a.span() == n;
  auto* p = a.data();
  constexpr std::size_t R = ViewType::rank;
  ExtentArray<ViewType> ext(a);
  // Host: part c is one contiguous block (no false sharing between threads).
  // Device: part c is every parts-th element (coalesced writes).
  constexpr bool interleave = !is_host_execution_space<Exec>::value;
  parallel_for(
      "tessera::fill_random", RangePolicy<Exec>(exec, 0, parts), TESSERA_LAMBDA(std::size_t c) {
        auto g = pool.impl_load(int(c));
        std::size_t first, last, step;
        if (interleave) {  // not if constexpr: nvcc forbids first captures inside one
          first = c, last = n, step = parts;
        } else {
          const std::size_t q = n / parts, r = n % parts;
          first = c * q + (c < r ? c : r);
          last = first + q + (c < r ? 1 : 0);
          step = 1;
        }
        for (std::size_t k = first; k < last; k += step) {
          const T v = random_in<T>(g, begin, end);
          if (contiguous) {
            p[k] = v;
          } else {
            std::size_t idx[R > 0 ? R : 1] = {};
            unflatten<R>(k, ext.e, idx);
            a.access_array(idx) = v;
          }
        }
        pool.impl_store(g);
      });
}

}  // namespace detail

// Kokkos' rand<Generator, Scalar>: draws of an arithmetic type named by
// the type, for code generic over value types. max() is the top of the
// default range: [0, max()) for integers, [0, 1) for floating point.
template <class Generator, class Scalar>
struct rand {
  static_assert(std::is_arithmetic_v<Scalar> && !std::is_same_v<Scalar, bool>,
                "tessera::rand<Generator, Scalar>: Scalar must be an integer or floating-point type");
  TESSERA_INLINE_FUNCTION static constexpr Scalar max() {
    if constexpr (std::is_floating_point_v<Scalar>) return Scalar(1);
    else return std::numeric_limits<Scalar>::max();
  }
  TESSERA_INLINE_FUNCTION static Scalar draw(Generator& gen) { return detail::random_in<Scalar>(gen, Scalar(0), max()); }
  TESSERA_INLINE_FUNCTION static Scalar draw(Generator& gen, const Scalar& range) {
    return detail::random_in<Scalar>(gen, Scalar(0), range);
  }
  TESSERA_INLINE_FUNCTION static Scalar draw(Generator& gen, const Scalar& start, const Scalar& end) {
    return detail::random_in<Scalar>(gen, start, end);
  }
};

// Fills `a` with values in [begin, end) (integers: uniform over the integers
// of that range; floating point: uniform over the interval).
template <class ExecutionSpace, class ViewType, class RandomPool>
  requires is_execution_space_v<ExecutionSpace>
void fill_random(const ExecutionSpace& exec, const ViewType& a, RandomPool g,
                 typename ViewType::const_value_type begin, typename ViewType::const_value_type end) {
  detail::fill_random_impl(exec, a, g, begin, end);
}
template <class ExecutionSpace, class ViewType, class RandomPool>
  requires is_execution_space_v<ExecutionSpace>
void fill_random(const ExecutionSpace& exec, const ViewType& a, RandomPool g,
                 typename ViewType::const_value_type range) {
  detail::fill_random_impl(exec, a, g, typename ViewType::non_const_value_type(0), range);
}
template <class ViewType, class RandomPool>
  requires is_view_v<ViewType>
void fill_random(const ViewType& a, RandomPool g, typename ViewType::const_value_type begin,
                 typename ViewType::const_value_type end) {
  using Exec = typename ViewType::execution_space;
  Exec exec;
  detail::fill_random_impl(exec, a, g, begin, end);
  exec.fence("tessera::fill_random");
}
// Fills `a` with values in [0, range).
template <class ViewType, class RandomPool>
  requires is_view_v<ViewType>
void fill_random(const ViewType& a, RandomPool g, typename ViewType::const_value_type range) {
  using Exec = typename ViewType::execution_space;
  Exec exec;
  detail::fill_random_impl(exec, a, g, typename ViewType::non_const_value_type(0), range);
  exec.fence("tessera::fill_random");
}

}  // namespace tessera
