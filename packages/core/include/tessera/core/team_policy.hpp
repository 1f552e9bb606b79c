#pragma once
// TeamPolicy: a league of teams of threads (Kokkos semantics).
//
//   TeamPolicy<Exec, Props...>(league_size, team_size | AUTO [, vector_length | AUTO])
//     .set_scratch_size(level, PerTeam(bytes) [, PerThread(bytes)])
//     .set_chunk_size(n)
//
// The functor is called once per league rank with a member handle
// (policy::member_type) that knows its league_rank, team_rank, team_size,
// offers team_barrier / team_broadcast / team_reduce / team_scan and team
// scratch memory, and is what the nested policies (nested_policies.hpp) take.
//
// The policy itself is back-end neutral. What depends on the back-end (its
// member type, team and vector size limits, the AUTO choice, scratch limits)
// comes from detail::TeamPolicyBackend<Exec>, specialized for the host
// spaces in detail/host_team.hpp and by each device back-end:
//
//   template <> struct TeamPolicyBackend<MyExec> {
//     using member_type = ...;
//     static int team_size_max(const MyExec&, int vector_length);
//     static int team_size_recommended(const MyExec&, int league_size, int vector_length);
//     static int vector_length_max();
//     static std::size_t scratch_size_max(int level);
//   };
#include <tessera/core/error.hpp>
#include <tessera/core/policy_traits.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {

// Lets the back-end choose a team size or vector length.
struct AUTO_t {
  constexpr AUTO_t() = default;
};
inline constexpr AUTO_t AUTO{};

// Which pattern a team_size_max / team_size_recommended query is about.
struct ParallelForTag {};
struct ParallelReduceTag {};
struct ParallelScanTag {};

namespace detail {
struct PerTeamValue {
  std::int64_t value;
};
struct PerThreadValue {
  std::int64_t value;
};

// Which loop of a team a nested policy spreads over: the team's threads
// (TeamThreadRange), one thread's vector lanes (ThreadVectorRange), or both
// (TeamVectorRange). Member types dispatch on it (nested_policies.hpp).
enum class NestLevel { TeamThread, ThreadVector, TeamVector };

template <class Exec, class Enable = void>
struct TeamPolicyBackend {
  static_assert(sizeof(Exec) == 0, "no TeamPolicy implementation for this execution space");
};
}  // namespace detail

// Scratch bytes for set_scratch_size: per team, and per thread of the team.
// (PerTeam(member) / PerThread(member) for single() are in nested_policies.hpp.)
inline detail::PerTeamValue PerTeam(std::int64_t bytes) { return {bytes}; }
inline detail::PerThreadValue PerThread(std::int64_t bytes) { return {bytes}; }

template <class... Props>
class TeamPolicy {
 public:
  using traits = detail::ResolvedPolicyTraits<Props...>;
  using execution_space = typename traits::execution_space;
  using index_type = typename traits::index_type;
  using work_tag = typename traits::work_tag;
  using schedule_type = typename traits::schedule_type;
  using launch_bounds = typename traits::launch_bounds;
  using policy = TeamPolicy;
  using backend = detail::TeamPolicyBackend<execution_space>;
  using member_type = typename backend::member_type;
  static_assert(std::is_void_v<typename traits::iteration_pattern>, "tessera::TeamPolicy does not take a Rank<>");

  TeamPolicy() = default;

  TeamPolicy(const execution_space& space, std::int64_t league_size, int team_size, int vector_length = 1)
      : m_space(space) {
    init(league_size, team_size, false, vector_length);
  }
  TeamPolicy(const execution_space& space, std::int64_t league_size, AUTO_t, int vector_length = 1)
      : m_space(space) {
    init(league_size, 0, true, vector_length);
  }
  // AUTO vector length: recorded as 1 here; a back-end that vectorizes across
  // threads may widen it at dispatch (impl_auto_vector_length()).
  TeamPolicy(const execution_space& space, std::int64_t league_size, AUTO_t, AUTO_t) : m_space(space) {
    m_vector_auto = true;
    init(league_size, 0, true, 1);
  }
  TeamPolicy(const execution_space& space, std::int64_t league_size, int team_size, AUTO_t) : m_space(space) {
    m_vector_auto = true;
    init(league_size, team_size, false, 1);
  }
  TeamPolicy(std::int64_t league_size, int team_size, int vector_length = 1)
      : TeamPolicy(execution_space(), league_size, team_size, vector_length) {}
  TeamPolicy(std::int64_t league_size, AUTO_t a, int vector_length = 1)
      : TeamPolicy(execution_space(), league_size, a, vector_length) {}
  TeamPolicy(std::int64_t league_size, AUTO_t a, AUTO_t b) : TeamPolicy(execution_space(), league_size, a, b) {}
  TeamPolicy(std::int64_t league_size, int team_size, AUTO_t a)
      : TeamPolicy(execution_space(), league_size, team_size, a) {}

  const execution_space& space() const { return m_space; }
  int league_size() const { return m_league; }
  // The team size the dispatch uses (AUTO resolved by the back-end).
  int team_size() const {
    return m_team_request > 0 ? m_team_request : backend::team_size_recommended(m_space, m_league, m_vector);
  }
  int vector_length() const { return m_vector; }
  int impl_vector_length() const { return m_vector; }
  bool impl_auto_team_size() const { return m_team_request == 0; }
  bool impl_auto_vector_length() const { return m_vector_auto; }
  std::int64_t chunk_size() const { return m_chunk; }

  // League ranks handed to a team at once (Static: round-robin chunks;
  // Dynamic: taken from a shared counter). 0 lets the back-end choose.
  TeamPolicy& set_chunk_size(std::int64_t chunk) {
    if (chunk < 0) detail::throw_runtime_error("tessera::TeamPolicy::set_chunk_size: negative chunk size " +
                                               std::to_string(chunk));
    m_chunk = chunk;
    return *this;
  }

  TeamPolicy& set_scratch_size(int level, detail::PerTeamValue per_team) {
    return set_scratch(level, per_team.value, -1);
  }
  TeamPolicy& set_scratch_size(int level, detail::PerThreadValue per_thread) {
    return set_scratch(level, -1, per_thread.value);
  }
  TeamPolicy& set_scratch_size(int level, detail::PerTeamValue per_team, detail::PerThreadValue per_thread) {
    return set_scratch(level, per_team.value, per_thread.value);
  }
  TeamPolicy& set_scratch_size(int level, detail::PerThreadValue per_thread, detail::PerTeamValue per_team) {
    return set_scratch(level, per_team.value, per_thread.value);
  }

  std::size_t team_scratch_size(int level) const { return m_team_scratch[check_level(level, "team_scratch_size")]; }
  std::size_t thread_scratch_size(int level) const {
    return m_thread_scratch[check_level(level, "thread_scratch_size")];
  }
  // Bytes of level `level` one team needs: PerTeam + team_size * PerThread.
  std::size_t scratch_size(int level, int team_size_ = -1) const {
    const int l = check_level(level, "scratch_size");
    const std::size_t ts = std::size_t(team_size_ < 0 ? team_size() : team_size_);
    return m_team_scratch[l] + ts * m_thread_scratch[l];
  }
  static std::size_t scratch_size_max(int level) {
    return backend::scratch_size_max(check_level(level, "scratch_size_max"));
  }

  template <class F>
  int team_size_max(const F&, const ParallelForTag&) const {
    return backend::team_size_max(m_space, m_vector);
  }
  template <class F>
  int team_size_max(const F&, const ParallelReduceTag&) const {
    return backend::team_size_max(m_space, m_vector);
  }
  template <class F, class R>
  int team_size_max(const F&, const R&, const ParallelReduceTag&) const {
    return backend::team_size_max(m_space, m_vector);
  }
  template <class F>
  int team_size_recommended(const F&, const ParallelForTag&) const {
    return backend::team_size_recommended(m_space, m_league, m_vector);
  }
  template <class F>
  int team_size_recommended(const F&, const ParallelReduceTag&) const {
    return backend::team_size_recommended(m_space, m_league, m_vector);
  }
  template <class F, class R>
  int team_size_recommended(const F&, const R&, const ParallelReduceTag&) const {
    return backend::team_size_recommended(m_space, m_league, m_vector);
  }
  static int vector_length_max() { return backend::vector_length_max(); }

  // Adds a functor's team_shmem_size(team_size) to the level-0 PerTeam
  // scratch (what parallel_for / parallel_reduce do, as in Kokkos).
  TeamPolicy& impl_add_functor_scratch(std::size_t bytes) {
    if (bytes == 0) return *this;
    const std::size_t ts = std::size_t(team_size());
    const std::size_t total = m_team_scratch[0] + bytes + ts * m_thread_scratch[0];
    const std::size_t max = backend::scratch_size_max(0);
    if (total > max)
      detail::throw_runtime_error("tessera::TeamPolicy: scratch level 0 needs " + std::to_string(total) +
                                  " bytes per team (PerTeam " + std::to_string(m_team_scratch[0]) +
                                  " + the functor's team_shmem_size(" + std::to_string(ts) + ") = " +
                                  std::to_string(bytes) + " + team_size " + std::to_string(ts) + " x PerThread " +
                                  std::to_string(m_thread_scratch[0]) + ") but scratch_size_max(0) is " +
                                  std::to_string(max) + " bytes on " + execution_space::name());
    m_team_scratch[0] += bytes;
    return *this;
  }

 private:
  static int check_level(int level, const char* what) {
    if (level != 0 && level != 1)
      detail::throw_runtime_error(std::string("tessera::TeamPolicy::") + what + ": scratch level " +
                                  std::to_string(level) + " does not exist (levels are 0 and 1)");
    return level;
  }

  void init(std::int64_t league_size, int team_size, bool auto_team, int vector_length) {
    if (league_size < 0)
      detail::throw_runtime_error("tessera::TeamPolicy: negative league_size " + std::to_string(league_size));
    if (league_size > std::int64_t(0x7fffffff))
      detail::throw_runtime_error("tessera::TeamPolicy: league_size " + std::to_string(league_size) +
                                  " does not fit in an int (league ranks are int, as in Kokkos)");
    if (!auto_team && team_size < 1)
      detail::throw_runtime_error("tessera::TeamPolicy: team_size " + std::to_string(team_size) +
                                  " must be at least 1 (or AUTO)");
    if (vector_length < 1 || (vector_length & (vector_length - 1)) != 0)
      detail::throw_runtime_error("tessera::TeamPolicy: vector_length " + std::to_string(vector_length) +
                                  " must be a power of two (1, 2, 4, ...)");
    if (vector_length > backend::vector_length_max())
      detail::throw_runtime_error("tessera::TeamPolicy: vector_length " + std::to_string(vector_length) +
                                  " exceeds vector_length_max() = " + std::to_string(backend::vector_length_max()) +
                                  " on " + execution_space::name());
    m_league = static_cast<int>(league_size);
    m_team_request = team_size;
    m_vector = vector_length;
    if (team_size > 0) {
      const int max = backend::team_size_max(m_space, m_vector);
      if (team_size > max) {
        // concurrency() is 0 for a back-end compiled in without a device here
        // (Cuda on a machine without a GPU), whose limit is then the usual
        // one of its hardware: say so rather than "(0 threads)".
        const int threads = m_space.concurrency();
        const std::string where = threads > 0 ? " (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)")
                                              : " (no device available here: the back-end's usual limit)";
        detail::throw_runtime_error("tessera::TeamPolicy: team_size " + std::to_string(team_size) +
                                    " exceeds team_size_max() = " + std::to_string(max) + " on " +
                                    execution_space::name() + where +
                                    "; query policy.team_size_max(functor, ParallelForTag()) or use AUTO");
      }
    }
  }
  TeamPolicy& set_scratch(int level, std::int64_t per_team, std::int64_t per_thread) {
    const int l = check_level(level, "set_scratch_size");
    if (per_team < -1 || per_thread < -1)
      detail::throw_runtime_error("tessera::TeamPolicy::set_scratch_size: negative " +
                                  std::string(per_team < -1 ? "PerTeam(" + std::to_string(per_team)
                                                            : "PerThread(" + std::to_string(per_thread)) +
                                  ") for level " + std::to_string(level));
    const std::size_t team = per_team >= 0 ? std::size_t(per_team) : m_team_scratch[l];
    const std::size_t thread = per_thread >= 0 ? std::size_t(per_thread) : m_thread_scratch[l];
    const std::size_t ts = std::size_t(team_size());
    const std::size_t total = team + ts * thread;
    const std::size_t max = backend::scratch_size_max(l);
    if (total > max)
      detail::throw_runtime_error("tessera::TeamPolicy::set_scratch_size: level " + std::to_string(l) + " needs " +
                                  std::to_string(total) + " bytes per team (PerTeam " + std::to_string(team) +
                                  " + team_size " + std::to_string(ts) + " x PerThread " + std::to_string(thread) +
                                  ") but scratch_size_max(" + std::to_string(l) + ") is " + std::to_string(max) +
                                  " bytes on " + execution_space::name());
    m_team_scratch[l] = team;
    m_thread_scratch[l] = thread;
    return *this;
  }

  execution_space m_space{};
  int m_league = 0;
  int m_team_request = 0;  // 0: AUTO
  int m_vector = 1;
  bool m_vector_auto = false;
  std::int64_t m_chunk = 0;
  std::size_t m_team_scratch[2] = {0, 0};
  std::size_t m_thread_scratch[2] = {0, 0};
};

template <class T>
struct is_team_policy : std::false_type {};
template <class... P>
struct is_team_policy<TeamPolicy<P...>> : std::true_type {};
template <class T>
inline constexpr bool is_team_policy_v = is_team_policy<T>::value;

}  // namespace tessera
