#pragma once
// for_each_cell(member, box, f): the cells of a box shared among the threads
// of a task team (one contiguous block of the first dimension per rank, the
// other dimensions looped inside), calling f(i0, i1, ...) with global
// indices. Each cell is visited once by one thread, so the result of a
// kernel does not depend on the team size.
#include <tessera/core/detail/host_region.hpp>
#include <tessera/core/partitioning.hpp>

#include <cstdint>

namespace tessera {

template <class Member, class F>
void for_each_cell(const Member& member, const Box<1>& b, const F& f) {
  const auto blk = detail::block_of(b.lo[0], b.hi[0], member.team_rank(), member.team_size());
  for (std::int64_t i = blk.first; i < blk.last; ++i) f(i);
}
template <class Member, class F>
void for_each_cell(const Member& member, const Box<2>& b, const F& f) {
  const auto blk = detail::block_of(b.lo[0], b.hi[0], member.team_rank(), member.team_size());
  for (std::int64_t i = blk.first; i < blk.last; ++i)
    for (std::int64_t j = b.lo[1]; j < b.hi[1]; ++j) f(i, j);
}
template <class Member, class F>
void for_each_cell(const Member& member, const Box<3>& b, const F& f) {
  const auto blk = detail::block_of(b.lo[0], b.hi[0], member.team_rank(), member.team_size());
  for (std::int64_t i = blk.first; i < blk.last; ++i)
    for (std::int64_t j = b.lo[1]; j < b.hi[1]; ++j)
      for (std::int64_t k = b.lo[2]; k < b.hi[2]; ++k) f(i, j, k);
}

}  // namespace tessera
