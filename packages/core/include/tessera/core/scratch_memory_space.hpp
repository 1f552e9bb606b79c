#pragma once
// ScratchMemorySpace<Exec>: the allocator handle of team scratch memory, as
// returned by member.team_scratch(level), member.thread_scratch(level) and
// member.team_shmem(). Views are carved from it in Kokkos style:
//
//   using ScratchView = View<double*, Exec::scratch_memory_space, MemoryUnmanaged>;
//   policy.set_scratch_size(0, PerTeam(ScratchView::shmem_size(n)));
//   ... ScratchView a(member.team_scratch(0), n);
//
// The handle holds a cursor for level 0 and one for level 1; team_scratch(l)
// selects the level used when get_shmem is called without one. Every thread
// of a team holds its own copy of the team handle; because all threads carve
// the same sequence of sizes, they all obtain the same addresses (exactly as
// in Kokkos). Cursors restart at every league rank.
//
// Difference from Kokkos: asking for more than the policy reserved throws (on
// host; aborts with a message on a device) naming the level, the request and
// what is left, instead of returning a null pointer that the View silently
// wraps.
//
// The memory itself belongs to the execution space's scratch_memory_space
// (HostSpace on host back-ends), so scratch Views are ordinary unmanaged
// Views of that space.
#include <tessera/core/error.hpp>
#include <tessera/core/macros.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {

template <class Exec>
class ScratchMemorySpace {
 public:
  using execution_space = Exec;
  using size_type = std::size_t;
  // Every allocation starts on this boundary (alignment of doubles and
  // pointers); larger alignments are honoured on request.
  static constexpr std::size_t min_alignment = 8;
  static constexpr const char* name() { return "ScratchMemorySpace"; }

  ScratchMemorySpace() = default;
  // Level 0 region [ptr0, ptr0 + size0), level 1 region [ptr1, ptr1 + size1).
  // `per_thread` only changes error messages (thread_scratch vs team_scratch).
  TESSERA_INLINE_FUNCTION ScratchMemorySpace(void* ptr0, std::size_t size0, void* ptr1 = nullptr,
                                             std::size_t size1 = 0, bool per_thread = false)
      : m_per_thread(per_thread) {
    m_base[0] = static_cast<char*>(ptr0);
    m_base[1] = static_cast<char*>(ptr1);
    m_size[0] = size0;
    m_size[1] = size1;
    m_used[0] = m_used[1] = 0;
  }

  // `bytes` of level `level` (the handle's default level when negative).
  TESSERA_INLINE_FUNCTION void* get_shmem(std::size_t bytes, int level = -1) const {
    return get_shmem_aligned(bytes, min_alignment, level);
  }
  TESSERA_INLINE_FUNCTION void* get_shmem_aligned(std::size_t bytes, std::size_t alignment, int level = -1) const {
    const int l = level < 0 ? m_default_level : level;
    if (l > 1) {
      TESSERA_IF_ON_HOST(detail::throw_runtime_error("tessera::ScratchMemorySpace::get_shmem: scratch level " +
                                                     std::to_string(l) + " does not exist (levels are 0 and 1)");)
      TESSERA_IF_ON_DEVICE(::tessera::abort("tessera::ScratchMemorySpace::get_shmem: scratch level must be 0 or 1");)
    }
    if (alignment < min_alignment) alignment = min_alignment;
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(m_base[l]);
    const std::uintptr_t cur = base + m_used[l];
    const std::uintptr_t aligned = (cur + alignment - 1) / alignment * alignment;
    const std::size_t rounded = (bytes + min_alignment - 1) / min_alignment * min_alignment;
    const std::size_t need = std::size_t(aligned - cur) + rounded;
    if (need > m_size[l] - m_used[l]) {
      TESSERA_IF_ON_HOST(report_exhausted(l, bytes, alignment, need);)
      TESSERA_IF_ON_DEVICE(::tessera::abort("tessera::ScratchMemorySpace::get_shmem: scratch memory exhausted "
                                            "(raise TeamPolicy::set_scratch_size)");)
    }
    m_used[l] += need;
    return reinterpret_cast<void*>(aligned);
  }

  // Bytes of level `level` reserved for this handle, and still free.
  TESSERA_INLINE_FUNCTION std::size_t size(int level = -1) const { return m_size[level < 0 ? m_default_level : level]; }
  TESSERA_INLINE_FUNCTION std::size_t free_bytes(int level = -1) const {
    const int l = level < 0 ? m_default_level : level;
    return m_size[l] - m_used[l];
  }

  // Internal: the level get_shmem uses by default (member.team_scratch(l)),
  // and the restart of both cursors at each league rank.
  TESSERA_INLINE_FUNCTION const ScratchMemorySpace& impl_set_default_level(int level) const {
    m_default_level = level;
    return *this;
  }
  TESSERA_INLINE_FUNCTION void impl_reset() const { m_used[0] = m_used[1] = 0; }

 private:
  // `need`: the request's bytes once its start is aligned and its size is
  // rounded up to min_alignment (why a request of the bytes left can fail).
  void report_exhausted(int level, std::size_t bytes, std::size_t alignment, std::size_t need) const {
    detail::throw_runtime_error(std::string("tessera: ") + (m_per_thread ? "thread" : "team") + " scratch level " +
                                std::to_string(level) + " exhausted: requested " + std::to_string(bytes) +
                                " bytes (alignment " + std::to_string(alignment) + "; " + std::to_string(need) +
                                " bytes with the alignment and the size rounded up to a multiple of " +
                                std::to_string(min_alignment) + ") but only " +
                                std::to_string(m_size[level] - m_used[level]) + " of " +
                                std::to_string(m_size[level]) + " bytes are left; reserve more with " +
                                "TeamPolicy::set_scratch_size(" + std::to_string(level) + ", " +
                                (m_per_thread ? "PerThread" : "PerTeam") + "(bytes))");
  }

  char* m_base[2] = {nullptr, nullptr};
  std::size_t m_size[2] = {0, 0};
  mutable std::size_t m_used[2] = {0, 0};
  mutable int m_default_level = 0;
  bool m_per_thread = false;
};

namespace detail {
template <class T>
struct is_scratch_memory_space : std::false_type {};
template <class E>
struct is_scratch_memory_space<ScratchMemorySpace<E>> : std::true_type {};
}  // namespace detail

}  // namespace tessera
