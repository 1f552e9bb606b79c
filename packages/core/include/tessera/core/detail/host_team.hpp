#pragma once
// TeamPolicy on every host back-end (Serial, Threads, OpenMP), the host team
// member, and the team context it is built on.
//
// ---------------------------------------------------------------------------
// The host team context: detail::HostTeamShared
// ---------------------------------------------------------------------------
// A host team is a group of pool threads that share one HostTeamShared:
//
//   HostTeamShared team(team_size);          // one per team, shared by its threads
//   team.set_scratch(0, ptr, team_bytes, thread_bytes);   // optional, per level
//   // on each of the team's threads, with its rank r in [0, team_size):
//   HostTeamMember<Exec> member(team, r, league_rank, league_size);
//   functor(member);                          // team_barrier, team_reduce, nested
//                                             // TeamThreadRange, scratch, ... all work
//
// It holds the team barrier (HostTeamBarrier: spin, then yield), one
// cache-line slot per rank through which team_broadcast / team_reduce /
// team_scan / nested reductions exchange values (each thread publishes a
// pointer to its own value, so values of any type and size work), and the
// scratch regions. Nothing in it is tied to TeamPolicy: the tasking package
// forms a team from any run of pool threads the same way. Rules:
// - exactly team_size threads must construct members with distinct ranks
//   and make the same sequence of collective calls;
// - for scratch, the region of level l is set_scratch(l, base, team_bytes,
//   thread_bytes) with base 64-byte aligned and at least
//   HostTeamShared::scratch_bytes(team_size, team_bytes, thread_bytes) long;
// - if a member throws, call team.abort(): members waiting in (or later
//   reaching) a collective then throw HostTeamAborted, which the code that
//   runs the team catches and drops, so the first exception is the one the
//   caller sees and no thread is left waiting.
// A HostTeamShared may be reused for successive teams once all members of
// the previous one have returned (call reset_barrier() after an abort).
//
// TeamPolicy dispatch: a team is a run of consecutive pool thread ids (the
// Threads pool pins thread i to the i-th processing unit in hwloc order, so a
// team shares a core or cache domain); pool_size / team_size teams run at
// once. League ranks go to teams in contiguous blocks (Static), round-robin
// chunks (Static with set_chunk_size) or chunks taken from a shared counter
// (Dynamic). A team barrier separates successive league ranks of a team, so
// scratch memory can be reused safely. Reductions keep one partial per
// thread (per chunk and rank for Dynamic) joined in a fixed order: results
// are bit-identical for a fixed back-end, thread count and team size.
#include <tessera/core/atomics.hpp>
#include <tessera/core/detail/cpu_hints.hpp>
#include <tessera/core/detail/host_region.hpp>
#include <tessera/core/detail/reduction_ops.hpp>
#include <tessera/core/md_range_policy.hpp>
#include <tessera/core/reducers.hpp>
#include <tessera/core/scratch_memory_space.hpp>
#include <tessera/core/space_traits.hpp>
#include <tessera/core/team_policy.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

// Asserts that a vector loop has no loop-carried dependencies (Kokkos'
// contract for ThreadVectorRange parallel_for), without forcing OpenMP simd
// semantics on the body.
#if defined(__clang__)
#define TESSERA_IMPL_VECTOR_LOOP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define TESSERA_IMPL_VECTOR_LOOP _Pragma("GCC ivdep")
#else
#define TESSERA_IMPL_VECTOR_LOOP
#endif

namespace tessera::detail {

// Thrown in the members of an aborted team; the code running the team drops it.
struct HostTeamAborted {};

// Centralized barrier for a few threads: an arrival counter and a generation
// number. Waiters spin briefly (a team's threads share a core or cache, and
// the next arrival is usually close), then yield, then sleep on the
// generation (futex) so that an oversubscribed machine still makes progress;
// the last arrival only pays for a wake-up call when someone sleeps.
class HostTeamBarrier {
 public:
  explicit HostTeamBarrier(int size = 1) : m_size(size) {}
  int size() const { return m_size; }

  void arrive_and_wait() {
    if (m_size == 1) return;
    const unsigned gen = m_generation.load(std::memory_order_acquire);
    if (m_aborted.load(std::memory_order_relaxed)) throw HostTeamAborted{};
    if (m_arrived.fetch_add(1, std::memory_order_acq_rel) == m_size - 1) {
      m_arrived.store(0, std::memory_order_relaxed);
      m_generation.fetch_add(1, std::memory_order_seq_cst);
      if (m_sleepers.load(std::memory_order_seq_cst) > 0) m_generation.notify_all();
      return;
    }
    for (int spins = 0; m_generation.load(std::memory_order_acquire) == gen; ++spins) {
      if (spins < kSpins) {
        host_cpu_relax();
      } else if (spins < kSpins + kYields) {
        std::this_thread::yield();
      } else {
        m_sleepers.fetch_add(1, std::memory_order_seq_cst);
        m_generation.wait(gen, std::memory_order_seq_cst);
        m_sleepers.fetch_sub(1, std::memory_order_seq_cst);
      }
    }
    if (m_aborted.load(std::memory_order_acquire)) throw HostTeamAborted{};
  }
  // Wakes every waiter; they (and later arrivals) throw HostTeamAborted.
  void abort() {
    m_aborted.store(true, std::memory_order_seq_cst);
    m_generation.fetch_add(1, std::memory_order_seq_cst);
    m_generation.notify_all();
  }
  bool aborted() const { return m_aborted.load(std::memory_order_acquire); }
  void reset() {
    m_arrived.store(0);
    m_aborted.store(false);
  }

 private:
  static constexpr int kSpins = 2000;
  static constexpr int kYields = 50;
  alignas(64) std::atomic<int> m_arrived{0};
  alignas(64) std::atomic<unsigned> m_generation{0};
  std::atomic<int> m_sleepers{0};
  std::atomic<bool> m_aborted{false};
  int m_size;
};

class HostTeamShared {
 public:
  explicit HostTeamShared(int team_size)
      : m_barrier(team_size), m_team_size(team_size), m_slots(new Slot[std::size_t(team_size)]) {}
  HostTeamShared(const HostTeamShared&) = delete;
  HostTeamShared& operator=(const HostTeamShared&) = delete;

  int team_size() const { return m_team_size; }
  void barrier() { m_barrier.arrive_and_wait(); }
  void abort() { m_barrier.abort(); }
  bool aborted() const { return m_barrier.aborted(); }
  void reset_barrier() { m_barrier.reset(); }

  // The value slot of rank r: a pointer to a value that rank owns, valid
  // between the two barriers of a collective.
  void publish(int rank, const void* p) { m_slots[rank].ptr = p; }
  const void* published(int rank) const { return m_slots[rank].ptr; }

  // Bytes a scratch region of one level must have: the team part, then one
  // 64-byte aligned block per thread.
  static std::size_t round64(std::size_t n) { return (n + 63) / 64 * 64; }
  static std::size_t scratch_bytes(int team_size, std::size_t team_bytes, std::size_t thread_bytes) {
    return round64(team_bytes) + std::size_t(team_size) * round64(thread_bytes);
  }
  void set_scratch(int level, void* base, std::size_t team_bytes, std::size_t thread_bytes) {
    m_scratch[level] = static_cast<char*>(base);
    m_team_bytes[level] = team_bytes;
    m_thread_bytes[level] = thread_bytes;
  }
  char* scratch_team(int level) const { return m_scratch[level]; }
  char* scratch_thread(int level, int rank) const {
    return m_scratch[level] ? m_scratch[level] + round64(m_team_bytes[level]) +
                                  std::size_t(rank) * round64(m_thread_bytes[level])
                            : nullptr;
  }
  std::size_t team_bytes(int level) const { return m_team_bytes[level]; }
  std::size_t thread_bytes(int level) const { return m_thread_bytes[level]; }

  // Dynamic league schedule: the chunk start a team's leader took, double
  // buffered by chunk parity (see host_team_run).
  std::int64_t impl_chunk_slot[2] = {0, 0};

 private:
  struct alignas(64) Slot {
    const void* ptr = nullptr;
  };
  HostTeamBarrier m_barrier;
  int m_team_size;
  std::unique_ptr<Slot[]> m_slots;
  char* m_scratch[2] = {nullptr, nullptr};
  std::size_t m_team_bytes[2] = {0, 0};
  std::size_t m_thread_bytes[2] = {0, 0};
};

// The team member of the host back-ends (TeamPolicy<HostExec>::member_type).
// Its kernel-facing functions are TESSERA_INLINE_FUNCTION so that kernels
// written once with TESSERA_LAMBDA (host and device) may call them under
// nvcc; their bodies are host code, compiled out of device passes, since a
// host member never runs on a device.
template <class Exec>
class HostTeamMember {
 public:
  using execution_space = Exec;
  using scratch_memory_space = ScratchMemorySpace<Exec>;
  using team_handle = HostTeamMember;

  HostTeamMember(HostTeamShared& team, int team_rank, int league_rank, int league_size)
      : m_team(&team),
        m_team_rank(team_rank),
        m_team_size(team.team_size()),
        m_league_rank(league_rank),
        m_league_size(league_size),
        m_team_scratch(team.scratch_team(0), team.team_bytes(0), team.scratch_team(1), team.team_bytes(1), false),
        m_thread_scratch(team.scratch_thread(0, team_rank), team.thread_bytes(0), team.scratch_thread(1, team_rank),
                         team.thread_bytes(1), true) {}

  TESSERA_INLINE_FUNCTION int league_rank() const { return m_league_rank; }
  TESSERA_INLINE_FUNCTION int league_size() const { return m_league_size; }
  TESSERA_INLINE_FUNCTION int team_rank() const { return m_team_rank; }
  TESSERA_INLINE_FUNCTION int team_size() const { return m_team_size; }

  TESSERA_INLINE_FUNCTION void team_barrier() const { TESSERA_IF_ON_HOST(m_team->barrier();) }

  // Scratch handles: the team's shared region and this thread's private one.
  TESSERA_INLINE_FUNCTION const scratch_memory_space& team_scratch(int level) const {
    TESSERA_IF_ON_HOST(check_level(level, "team_scratch");)
    return m_team_scratch.impl_set_default_level(level);
  }
  TESSERA_INLINE_FUNCTION const scratch_memory_space& thread_scratch(int level) const {
    TESSERA_IF_ON_HOST(check_level(level, "thread_scratch");)
    return m_thread_scratch.impl_set_default_level(level);
  }
  TESSERA_INLINE_FUNCTION const scratch_memory_space& team_shmem() const { return team_scratch(0); }

  // Sets value on every thread to root's value.
  template <class T>
  TESSERA_INLINE_FUNCTION void team_broadcast(T& value, int root) const {
#if !TESSERA_IMPL_ON_DEVICE
    check_root(root);
    if (m_team_size == 1) return;
    if (m_team_rank == root) m_team->publish(root, &value);
    m_team->barrier();
    if (m_team_rank != root) value = *static_cast<const T*>(m_team->published(root));
    m_team->barrier();
#endif
  }
  // Applies f to root's value, then broadcasts it.
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void team_broadcast(const F& f, T& value, int root) const {
#if !TESSERA_IMPL_ON_DEVICE
    check_root(root);
    if (m_team_rank == root) f(value);
    team_broadcast(value, root);
#endif
  }

  // Joins every thread's reducer.reference() (or `contribution`) in rank
  // order and stores the result in every thread's reducer.reference().
  template <class R>
    requires is_reducer_v<R>
  TESSERA_INLINE_FUNCTION void team_reduce(const R& reducer) const {
#if !TESSERA_IMPL_ON_DEVICE
    team_reduce(reducer, reducer.reference());
#endif
  }
  template <class R>
    requires is_reducer_v<R>
  TESSERA_INLINE_FUNCTION void team_reduce(const R& reducer, const typename R::value_type& contribution) const {
#if !TESSERA_IMPL_ON_DEVICE
    using V = typename R::value_type;
    V mine = contribution;
    if (m_team_size == 1) {
      reducer.reference() = mine;
      return;
    }
    m_team->publish(m_team_rank, &mine);
    m_team->barrier();
    V acc;
    reducer.init(acc);
    for (int r = 0; r < m_team_size; ++r) reducer.join(acc, *static_cast<const V*>(m_team->published(r)));
    m_team->barrier();
    reducer.reference() = acc;
#endif
  }

  // Exclusive prefix sum of `value` over the team ranks. With global_accum,
  // the team's total is added to *global_accum atomically and every result
  // is offset by the value it held before (Kokkos semantics: each team gets
  // its own disjoint range of a global counter).
  template <class T>
  TESSERA_INLINE_FUNCTION T team_scan(const T& value, T* global_accum = nullptr) const {
#if !TESSERA_IMPL_ON_DEVICE
    T mine = value;
    T prefix = T();
    T total = mine;
    if (m_team_size > 1) {
      m_team->publish(m_team_rank, &mine);
      m_team->barrier();
      for (int r = 0; r < m_team_rank; ++r) prefix += *static_cast<const T*>(m_team->published(r));
      if (global_accum && m_team_rank == m_team_size - 1) total = prefix + mine;
      m_team->barrier();
    }
    if (global_accum) {
      T base = T();
      if (m_team_rank == m_team_size - 1) base = atomic_fetch_add(global_accum, total);
      team_broadcast(base, m_team_size - 1);
      prefix += base;
    }
    return prefix;
#else
    (void)value;
    (void)global_accum;
    return T();
#endif
  }

  // ---- nested-policy protocol (see nested_policies.hpp) --------------------

  template <class R, class F>
  TESSERA_INLINE_FUNCTION void impl_nested_for(const R& r, const F& f) const {
#if !TESSERA_IMPL_ON_DEVICE
    if constexpr (R::is_md) {
      auto part = md_part(r);
      md_loop(r, part.first, part.last, [&](auto... idx) { f(idx...); });
    } else if constexpr (R::level == NestLevel::ThreadVector) {
      using I = typename R::index_type;
      const I b = r.start, e = r.end;
      TESSERA_IMPL_VECTOR_LOOP
      for (I i = b; i < e; ++i) f(i);
    } else {
      using I = typename R::index_type;
      const auto blk = block_of<I>(r.start, r.end < r.start ? r.start : r.end, m_team_rank, m_team_size);
      const I b = blk.first, e = blk.last;
      if constexpr (R::level == NestLevel::TeamVector) {
        TESSERA_IMPL_VECTOR_LOOP
        for (I i = b; i < e; ++i) f(i);
      } else {
        for (I i = b; i < e; ++i) f(i);
      }
    }
#endif
  }

  // Result into reducer.reference(): on every thread of the team for
  // TeamThread/TeamVector ranges, on the calling thread for ThreadVector.
  template <class R, class F, class Red>
  TESSERA_INLINE_FUNCTION void impl_nested_reduce(const R& r, const F& f, const Red& reducer) const {
#if !TESSERA_IMPL_ON_DEVICE
    using V = typename Red::value_type;
    V v;
    reducer.init(v);
    if constexpr (R::is_md) {
      auto part = md_part(r);
      md_loop(r, part.first, part.last, [&](auto... idx) { f(idx..., v); });
    } else {
      using I = typename R::index_type;
      const I end = r.end < r.start ? r.start : r.end;
      const auto blk = R::level == NestLevel::ThreadVector ? Block<I>{r.start, end}
                                                           : block_of<I>(r.start, end, m_team_rank, m_team_size);
      for (I i = blk.first; i < blk.last; ++i) f(i, v);
    }
    if constexpr (R::level == NestLevel::ThreadVector) reducer.reference() = v;
    else team_reduce(reducer, v);
#endif
  }

  // Inclusive/exclusive scan through the functor's `final` flag; the sum of
  // all contributions goes to *total when given.
  template <class R, class F, class V>
  TESSERA_INLINE_FUNCTION void impl_nested_scan(const R& r, const F& f, V* total) const {
#if !TESSERA_IMPL_ON_DEVICE
    static_assert(!R::is_md, "tessera: parallel_scan does not take multidimensional nested ranges");
    using I = typename R::index_type;
    const I end = r.end < r.start ? r.start : r.end;
    if (R::level == NestLevel::ThreadVector || m_team_size == 1) {
      V update = V();
      for (I i = r.start; i < end; ++i) f(i, update, true);
      if (total) *total = update;
      return;
    }
    const auto blk = block_of<I>(r.start, end, m_team_rank, m_team_size);
    V part = V();
    for (I i = blk.first; i < blk.last; ++i) f(i, part, false);
    m_team->publish(m_team_rank, &part);
    m_team->barrier();
    V offset = V();
    for (int q = 0; q < m_team_rank; ++q) offset += *static_cast<const V*>(m_team->published(q));
    V sum = V();
    if (total)
      for (int q = 0; q < m_team_size; ++q) sum += *static_cast<const V*>(m_team->published(q));
    m_team->barrier();
    for (I i = blk.first; i < blk.last; ++i) f(i, offset, true);
    if (total) *total = sum;
#endif
  }

  template <class F>
  TESSERA_INLINE_FUNCTION void impl_single_team(const F& f) const {
#if !TESSERA_IMPL_ON_DEVICE
    if (m_team_rank == 0) f();
#endif
  }
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void impl_single_team(const F& f, T& value) const {
#if !TESSERA_IMPL_ON_DEVICE
    if (m_team_rank == 0) f(value);
    team_broadcast(value, 0);
#endif
  }
  template <class F>
  TESSERA_INLINE_FUNCTION void impl_single_thread(const F& f) const {
#if !TESSERA_IMPL_ON_DEVICE
    f();
#endif
  }
  template <class F, class T>
  TESSERA_INLINE_FUNCTION void impl_single_thread(const F& f, T& value) const {
#if !TESSERA_IMPL_ON_DEVICE
    f(value);
#endif
  }

  // ---- dispatcher interface -------------------------------------------------

  // Starts league rank `league_rank`: scratch cursors restart.
  void impl_set_league_rank(int league_rank) {
    m_league_rank = league_rank;
    m_team_scratch.impl_reset();
    m_thread_scratch.impl_reset();
  }
  HostTeamShared& impl_team() const { return *m_team; }

 private:
  static int check_level(int level, const char* what) {
    if (level != 0 && level != 1)
      throw_runtime_error(std::string("tessera::TeamMember::") + what + ": scratch level " + std::to_string(level) +
                          " does not exist (levels are 0 and 1)");
    return level;
  }
  void check_root(int root) const {
    if (root < 0 || root >= m_team_size)
      throw_runtime_error("tessera::TeamMember::team_broadcast: root " + std::to_string(root) +
                          " is not a rank of a team of size " + std::to_string(m_team_size));
  }

  // The part [first, last) of an MD range's collapsed index space this thread runs.
  template <class R>
  Block<std::int64_t> md_part(const R& r) const {
    std::int64_t total = 1;
    for (unsigned d = 0; d < R::rank; ++d) total *= r.extents[d] > 0 ? std::int64_t(r.extents[d]) : 0;
    if (R::level == NestLevel::ThreadVector) return {0, total};
    return block_of<std::int64_t>(0, total, m_team_rank, m_team_size);
  }

  // Visits collapsed indices [first, last) of an MD range in its direction:
  // runs along the fastest dimension are plain loops.
  template <class R, class Call>
  static void md_loop(const R& r, std::int64_t first, std::int64_t last, const Call& call) {
    constexpr int N = int(R::rank);
    constexpr bool right = R::direction == Iterate::Right;
    constexpr int fast = right ? N - 1 : 0;
    if (first >= last) return;
    std::int64_t ext[N], idx[N];
    for (int d = 0; d < N; ++d) ext[d] = r.extents[d];
    std::int64_t t = first;
    for (int k = 0; k < N; ++k) {
      const int d = right ? N - 1 - k : k;
      idx[d] = t % ext[d];
      t /= ext[d];
    }
    std::int64_t pos = first;
    while (pos < last) {
      const std::int64_t b = idx[fast];
      const std::int64_t run = std::min(ext[fast] - b, last - pos);
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        for (std::int64_t i = b; i < b + run; ++i) call((int(K) == fast ? i : idx[K])...);
      }(std::make_index_sequence<std::size_t(N)>());
      pos += run;
      idx[fast] = b + run;
      for (int k = 0; k < N - 1 && idx[right ? N - 1 - k : k] == ext[right ? N - 1 - k : k]; ++k) {
        idx[right ? N - 1 - k : k] = 0;
        ++idx[right ? N - 2 - k : k + 1];
      }
    }
  }

  HostTeamShared* m_team;
  int m_team_rank;
  int m_team_size;
  int m_league_rank;
  int m_league_size;
  scratch_memory_space m_team_scratch;
  scratch_memory_space m_thread_scratch;
};

// Team limits of the host back-ends.
template <class Exec>
struct TeamPolicyBackend<Exec, std::enable_if_t<is_host_execution_space<Exec>::value>> {
  using member_type = HostTeamMember<Exec>;
  // Beyond this a centralized barrier stops being cheap.
  static constexpr int max_team_size = 64;

  static int team_size_max(const Exec& exec, int /*vector_length*/) {
    return std::min(exec.impl_thread_pool_size(), max_team_size);
  }
  // AUTO: the smallest team size that divides the pool and still gives every
  // thread work (pool / team_size teams <= league_size): many independent
  // one-thread teams for big leagues, fewer wider teams for small ones.
  static int team_size_recommended(const Exec& exec, int league_size, int vector_length) {
    const int pool = exec.impl_thread_pool_size();
    const int max = team_size_max(exec, vector_length);
    const int league = std::max(league_size, 1);
    int best = 1;
    for (int d = 1; d <= max; ++d) {
      if (pool % d != 0) continue;
      best = d;
      if (pool / d <= league) break;
    }
    return best;
  }
  // Vector loops run on one thread on host; any power of two up to this is accepted.
  static int vector_length_max() { return 1024; }
  // Per team, PerTeam + team_size * PerThread: level 0 is meant to stay in a
  // core's caches, level 1 is plain memory.
  static std::size_t scratch_size_max(int level) {
    return level == 0 ? std::size_t(1) << 20 : std::size_t(1) << 30;
  }
};

// Scratch memory of a dispatch: one 64-byte aligned block, cached per
// dispatching thread so that loops of team kernels do not allocate (and
// page-fault) every time. A nested dispatch while the cache is in use gets
// its own block.
class HostScratchBuffer {
 public:
  explicit HostScratchBuffer(std::size_t bytes) {
    if (bytes == 0) return;
    Cache& c = cache();
    if (!c.in_use) {
      if (c.bytes < bytes) {
        c.release();
        c.ptr = allocate(bytes);
        c.bytes = bytes;
      }
      c.in_use = true;
      m_ptr = c.ptr;
      m_cached = true;
    } else {
      m_ptr = allocate(bytes);
    }
  }
  ~HostScratchBuffer() {
    if (m_cached) cache().in_use = false;
    else if (m_ptr) ::operator delete(m_ptr, std::align_val_t(64));
  }
  HostScratchBuffer(const HostScratchBuffer&) = delete;
  HostScratchBuffer& operator=(const HostScratchBuffer&) = delete;
  char* data() const { return static_cast<char*>(m_ptr); }

 private:
  struct Cache {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    bool in_use = false;
    void release() {
      if (ptr) ::operator delete(ptr, std::align_val_t(64));
      ptr = nullptr;
      bytes = 0;
    }
    ~Cache() { release(); }
  };
  static Cache& cache() {
    static thread_local Cache c;
    return c;
  }
  static void* allocate(std::size_t bytes) {
    try {
      return ::operator new(bytes, std::align_val_t(64));
    } catch (const std::bad_alloc&) {
      throw allocation_error("tessera::TeamPolicy: cannot allocate " + std::to_string(bytes) +
                             " bytes of team scratch memory");
    }
  }
  void* m_ptr = nullptr;
  bool m_cached = false;
};

// Everything one TeamPolicy dispatch needs: team geometry, team contexts and
// scratch memory.
template <class Policy>
class HostTeamDispatch {
 public:
  using Exec = typename Policy::execution_space;
  using Member = HostTeamMember<Exec>;
  static constexpr bool dynamic = Policy::traits::is_dynamic;

  explicit HostTeamDispatch(const Policy& p)
      : m_policy(p),
        m_pool(p.space().impl_thread_pool_size()),
        m_team_size(p.team_size()),
        m_league(p.league_size()),
        m_scratch(prepare_scratch()) {
    m_nteams = std::max(1, m_pool / m_team_size);
    if (dynamic) {
      m_chunk = p.chunk_size() > 0 ? p.chunk_size() : std::max<std::int64_t>(1, m_league / (m_nteams * 16));
      m_chunk = std::max<std::int64_t>(m_chunk, (m_league + 4095 * std::int64_t(m_nteams)) / (4096 * m_nteams));
    } else {
      m_chunk = p.chunk_size();
    }
    for (int t = 0; t < m_nteams; ++t) {
      HostTeamShared& team = m_teams.emplace_back(m_team_size);
      for (int l = 0; l < 2; ++l)
        team.set_scratch(l, m_scratch.data() ? m_scratch.data() + std::size_t(t) * m_team_stride + m_level_offset[l]
                                             : nullptr,
                         p.team_scratch_size(l), p.thread_scratch_size(l));
    }
  }

  int pool() const { return m_pool; }
  int team_size() const { return m_team_size; }
  int league() const { return m_league; }
  std::int64_t chunk() const { return m_chunk; }
  std::int64_t num_chunks() const { return m_chunk > 0 ? (m_league + m_chunk - 1) / m_chunk : 0; }

  // Runs visit(member, chunk_index, thread_id) for every league rank on the
  // team that owns it (member.league_rank() is set). chunk_index is the
  // Dynamic chunk number (0 otherwise); thread_id the pool thread.
  template <class Visit>
  void run(const Visit& visit) {
    if (m_league == 0) return;
    if constexpr (single_thread_v<Exec>) {
      Member member(m_teams[0], 0, 0, m_league);
      run_team(member, m_teams[0], 0, 1, 0, visit);
    } else {
      host_region(m_policy.space(), [&](int tid, int nthreads) {
        const int nteams = nthreads / m_team_size;  // the runtime may give fewer threads than asked
        if (nteams == 0)
          throw_runtime_error("tessera::TeamPolicy on " + std::string(Exec::name()) + ": team_size " +
                              std::to_string(m_team_size) + " but only " + std::to_string(nthreads) +
                              " threads started");
        const int team_id = tid / m_team_size;
        if (team_id >= nteams) return;
        HostTeamShared& team = m_teams[std::size_t(team_id)];
        Member member(team, tid % m_team_size, 0, m_league);
        try {
          run_team(member, team, team_id, nteams, tid, visit);
        } catch (const HostTeamAborted&) {
          // Another member failed first; its exception is the one reported.
        } catch (...) {
          for (auto& t : m_teams) t.abort();
          throw;
        }
      });
    }
  }

 private:
  template <class Visit>
  void run_team(Member& member, HostTeamShared& team, int team_id, int nteams, int tid, const Visit& visit) {
    bool first = true;
    auto one = [&](int league_rank, std::int64_t chunk_index) {
      // Members may still use the previous league rank's scratch or slots.
      if (!first) team.barrier();
      first = false;
      member.impl_set_league_rank(league_rank);
      visit(member, chunk_index, tid);
    };
    if constexpr (dynamic) {
      // The leader takes a chunk and publishes it before the barrier that
      // also separates league ranks; slots alternate so that a slow member
      // still reading the previous chunk is never overwritten.
      std::atomic_ref<std::int64_t> next(m_next);
      for (unsigned k = 0;; ++k) {
        if (member.team_rank() == 0)
          team.impl_chunk_slot[k & 1] = next.fetch_add(m_chunk, std::memory_order_relaxed);
        team.barrier();
        first = true;
        const std::int64_t s = team.impl_chunk_slot[k & 1];
        if (s >= m_league) break;
        const std::int64_t e = std::min<std::int64_t>(s + m_chunk, m_league);
        for (std::int64_t lr = s; lr < e; ++lr) one(int(lr), s / m_chunk);
      }
    } else if (m_chunk > 0) {
      for (std::int64_t s = std::int64_t(team_id) * m_chunk; s < m_league; s += std::int64_t(nteams) * m_chunk) {
        const std::int64_t e = std::min<std::int64_t>(s + m_chunk, m_league);
        for (std::int64_t lr = s; lr < e; ++lr) one(int(lr), 0);
      }
    } else {
      const auto blk = block_of<int>(0, m_league, team_id, nteams);
      for (int lr = blk.first; lr < blk.last; ++lr) one(lr, 0);
    }
  }

  HostScratchBuffer prepare_scratch() {
    if (m_team_size > m_pool)
      throw_runtime_error("tessera::TeamPolicy on " + std::string(Exec::name()) + ": team_size " +
                          std::to_string(m_team_size) + " exceeds the " + std::to_string(m_pool) +
                          " thread(s) available" +
                          (m_pool == 1 && m_policy.space().concurrency() > 1
                               ? " (inside a parallel region a dispatch runs on the calling thread alone)"
                               : ""));
    const int nteams = std::max(1, m_pool / m_team_size);
    std::size_t offset = 0;
    for (int l = 0; l < 2; ++l) {
      const std::size_t need = HostTeamShared::scratch_bytes(m_team_size, m_policy.team_scratch_size(l),
                                                             m_policy.thread_scratch_size(l));
      const std::size_t per_team = m_policy.scratch_size(l, m_team_size);
      const std::size_t max = TeamPolicyBackend<Exec>::scratch_size_max(l);
      if (per_team > max)
        throw_runtime_error("tessera::TeamPolicy on " + std::string(Exec::name()) + ": scratch level " +
                            std::to_string(l) + " needs " + std::to_string(per_team) + " bytes per team (PerTeam " +
                            std::to_string(m_policy.team_scratch_size(l)) + " + team_size " +
                            std::to_string(m_team_size) + " x PerThread " +
                            std::to_string(m_policy.thread_scratch_size(l)) + ") but scratch_size_max(" +
                            std::to_string(l) + ") is " + std::to_string(max));
      m_level_offset[l] = offset;
      offset += need;
    }
    m_team_stride = offset;
    return HostScratchBuffer(offset * std::size_t(nteams));
  }

  const Policy& m_policy;
  int m_pool;
  int m_team_size;
  int m_league;
  std::size_t m_level_offset[2] = {0, 0};
  std::size_t m_team_stride = 0;
  HostScratchBuffer m_scratch;
  int m_nteams = 1;
  std::int64_t m_chunk = 0;
  alignas(64) std::int64_t m_next = 0;
  std::deque<HostTeamShared> m_teams;
};

template <class... P, class F>
void host_parallel_for(const TeamPolicy<P...>& p, const F& f) {
  using Policy = TeamPolicy<P...>;
  using Tag = typename Policy::work_tag;
  HostTeamDispatch<Policy> d(p);
  d.run([&](const auto& member, std::int64_t, int) { invoke_tagged<Tag>(f, member); });
}

template <class... P, class F, class Ops>
void host_parallel_reduce(const TeamPolicy<P...>& p, const F& f, const Ops& ops) {
  using Policy = TeamPolicy<P...>;
  using Tag = typename Policy::work_tag;
  using Member = typename HostTeamDispatch<Policy>::Member;
  using V = typename Ops::value_type;
  HostTeamDispatch<Policy> d(p);
  const std::size_t count = ops.value_count();
  constexpr bool dynamic = Policy::traits::is_dynamic;
  // One partial per pool thread (Static) or per chunk and team rank (Dynamic).
  const std::size_t slots =
      dynamic ? std::size_t(std::max<std::int64_t>(d.num_chunks(), 1)) * std::size_t(d.team_size())
              : std::size_t(d.pool());
  PaddedSlots<V> partial(slots, count);
  for (std::size_t s = 0; s < slots; ++s) ops.init(partial[s]);
  const int ts = d.team_size();
  d.run([&](const Member& member, std::int64_t chunk_index, int tid) {
    const std::size_t slot =
        dynamic ? std::size_t(chunk_index) * std::size_t(ts) + std::size_t(member.team_rank()) : std::size_t(tid);
    ops.template call<Tag, F, const Member&>(f, partial[slot], member);
  });
  V* result = partial[0];
  for (std::size_t s = 1; s < slots; ++s) ops.join(result, partial[s]);
  ops.final(result);
  copy_out_host(ops, result);
}

template <class... P, class F, class Ops, class V>
void host_parallel_scan(const TeamPolicy<P...>&, const F&, const Ops&, V*) {
  static_assert(sizeof(F) == 0, "tessera::parallel_scan does not take a TeamPolicy (as in Kokkos): use a nested "
                                "parallel_scan over TeamThreadRange inside a parallel_for instead");
}

}  // namespace tessera::detail
