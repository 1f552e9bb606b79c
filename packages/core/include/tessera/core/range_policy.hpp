#pragma once
// RangePolicy: a 1-D index range [begin, end) for parallel patterns.
#include <tessera/core/error.hpp>
#include <tessera/core/policy_traits.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {

template <class... Props>
class RangePolicy {
 public:
  using traits = detail::ResolvedPolicyTraits<Props...>;
  using execution_space = typename traits::execution_space;
  using index_type = typename traits::index_type;
  using member_type = index_type;
  using work_tag = typename traits::work_tag;
  using schedule_type = typename traits::schedule_type;
  using launch_bounds = typename traits::launch_bounds;
  using policy = RangePolicy;

  RangePolicy() = default;

  template <class B, class E,
            std::enable_if_t<std::is_integral_v<B> && std::is_integral_v<E>, int> = 0>
  RangePolicy(B begin, E end, std::int64_t chunk_size = 0)
      : RangePolicy(execution_space(), begin, end, chunk_size) {}

  template <class B, class E,
            std::enable_if_t<std::is_integral_v<B> && std::is_integral_v<E>, int> = 0>
  RangePolicy(const execution_space& space, B begin, E end, std::int64_t chunk_size = 0)
      : m_space(space),
        m_begin(static_cast<index_type>(begin)),
        m_end(static_cast<index_type>(end)),
        m_chunk(chunk_size) {
    if (std::is_signed_v<B> && std::is_unsigned_v<index_type> && begin < 0)
      detail::throw_runtime_error("tessera::RangePolicy: negative begin " + std::to_string(begin) +
                                  " for an unsigned index type");
    if (static_cast<std::int64_t>(begin) > static_cast<std::int64_t>(end))
      detail::throw_runtime_error("tessera::RangePolicy: begin " + std::to_string(begin) +
                                  " is past end " + std::to_string(end));
    if (chunk_size < 0)
      detail::throw_runtime_error("tessera::RangePolicy: negative chunk size " +
                                  std::to_string(chunk_size));
  }

  TESSERA_INLINE_FUNCTION index_type begin() const { return m_begin; }
  TESSERA_INLINE_FUNCTION index_type end() const { return m_end; }
  const execution_space& space() const { return m_space; }
  std::int64_t chunk_size() const { return m_chunk; }
  RangePolicy& set_chunk_size(std::int64_t chunk) {
    m_chunk = chunk;
    return *this;
  }

 private:
  execution_space m_space{};
  index_type m_begin = 0;
  index_type m_end = 0;
  std::int64_t m_chunk = 0;
};

}  // namespace tessera
