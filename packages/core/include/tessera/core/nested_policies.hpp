#pragma once
// Nested parallelism inside a TeamPolicy kernel (Kokkos semantics):
//
//   parallel_for(TeamThreadRange(member, n), f)          f(i): spread over the team's threads
//   parallel_for(ThreadVectorRange(member, n), f)        f(i): one thread's vector lanes
//   parallel_for(TeamVectorRange(member, b, e), f)       f(i): threads and lanes together
//   parallel_for(TeamThreadMDRange(member, n0, n1), f)   f(i0, i1); also ThreadVectorMDRange,
//                                                        TeamVectorMDRange, ranks 2 to 6
//   parallel_reduce(range, f, result | reducer)          f(i..., value&); the result reaches
//                                                        every thread that took part
//   parallel_scan(range, f [, total])                    f(i, update, final), 1-D ranges
//   single(PerTeam(member), f [, value])                 once per team (value broadcast)
//   single(PerThread(member), f [, value])               once per thread
//
// The range objects are back-end neutral; the work is done by the member
// type through this protocol (HostTeamMember implements it for the host
// back-ends; a device back-end's member type implements the same):
//
//   member.impl_nested_for(range, f)
//   member.impl_nested_reduce(range, f, reducer)   result into reducer.reference()
//   member.impl_nested_scan(range, f, V* total)    1-D ranges only; total may be null
//   member.impl_single_team(f) / (f, value), member.impl_single_thread(f) / (f, value)
//
// where range has `member`, `level` (detail::NestLevel), `is_md`, and either
// `index_type`, `start`, `end` (1-D) or `rank`, `direction`, `extents[rank]`.
#include <tessera/core/macros.hpp>
#include <tessera/core/md_range_policy.hpp>
#include <tessera/core/parallel.hpp>
#include <tessera/core/reducers.hpp>
#include <tessera/core/team_policy.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {

namespace detail {

template <class M>
concept team_member = requires(const M& m) {
  m.team_rank();
  m.team_size();
  m.league_rank();
  m.team_barrier();
};

// A 1-D nested range [start, end) of `member`'s team at `Level`.
template <class I, class Member, NestLevel Level>
struct NestedRangeBoundaries {
  using index_type = I;
  using member_type = Member;
  static constexpr NestLevel level = Level;
  static constexpr bool is_md = false;
  const Member& member;
  I start;
  I end;
  TESSERA_INLINE_FUNCTION NestedRangeBoundaries(const Member& m, I b, I e) : member(m), start(b), end(e) {}
};

template <class I, class M>
using TeamThreadRangeBoundariesStruct = NestedRangeBoundaries<I, M, NestLevel::TeamThread>;
template <class I, class M>
using ThreadVectorRangeBoundariesStruct = NestedRangeBoundaries<I, M, NestLevel::ThreadVector>;
template <class I, class M>
using TeamVectorRangeBoundariesStruct = NestedRangeBoundaries<I, M, NestLevel::TeamVector>;

// An N-D nested box [0, n0) x ... x [0, nN-1) of `member`'s team at `Level`.
template <class RankT, class Member, NestLevel Level>
struct NestedMDRange {
  static_assert(is_rank<RankT>::value, "tessera: nested MD ranges take a Rank<N [, Iterate]> as first parameter");
  using index_type = std::int64_t;
  using member_type = Member;
  static constexpr NestLevel level = Level;
  static constexpr bool is_md = true;
  static constexpr unsigned rank = RankT::rank;
  static constexpr Iterate direction = resolve_iterate<typename Member::execution_space, RankT::outer_direction>;
  const Member& member;
  std::int64_t extents[rank];

  template <class... Args>
    requires(sizeof...(Args) == rank && (std::is_integral_v<Args> && ...))
  TESSERA_INLINE_FUNCTION NestedMDRange(const Member& m, Args... n) : member(m), extents{std::int64_t(n)...} {}
};

template <class M>
struct TeamSingleStruct {
  const M& member;
};
template <class M>
struct ThreadSingleStruct {
  const M& member;
};

template <class R>
struct is_nested_range : std::false_type {};
template <class I, class M, NestLevel L>
struct is_nested_range<NestedRangeBoundaries<I, M, L>> : std::true_type {};
template <class R, class M, NestLevel L>
struct is_nested_range<NestedMDRange<R, M, L>> : std::true_type {};
}  // namespace detail

// ---- 1-D ranges --------------------------------------------------------------

template <class Member, class I>
  requires(detail::team_member<Member> && std::is_integral_v<I>)
TESSERA_INLINE_FUNCTION detail::TeamThreadRangeBoundariesStruct<I, Member> TeamThreadRange(const Member& m, I count) {
  return {m, I(0), count};
}
template <class Member, class I1, class I2>
  requires(detail::team_member<Member> && std::is_integral_v<I1> && std::is_integral_v<I2>)
TESSERA_INLINE_FUNCTION detail::TeamThreadRangeBoundariesStruct<std::common_type_t<I1, I2>, Member> TeamThreadRange(
    const Member& m, I1 begin, I2 end) {
  using I = std::common_type_t<I1, I2>;
  return {m, I(begin), I(end)};
}
template <class Member, class I>
  requires(detail::team_member<Member> && std::is_integral_v<I>)
TESSERA_INLINE_FUNCTION detail::ThreadVectorRangeBoundariesStruct<I, Member> ThreadVectorRange(const Member& m,
                                                                                               I count) {
  return {m, I(0), count};
}
template <class Member, class I1, class I2>
  requires(detail::team_member<Member> && std::is_integral_v<I1> && std::is_integral_v<I2>)
TESSERA_INLINE_FUNCTION detail::ThreadVectorRangeBoundariesStruct<std::common_type_t<I1, I2>, Member>
ThreadVectorRange(const Member& m, I1 begin, I2 end) {
  using I = std::common_type_t<I1, I2>;
  return {m, I(begin), I(end)};
}
template <class Member, class I>
  requires(detail::team_member<Member> && std::is_integral_v<I>)
TESSERA_INLINE_FUNCTION detail::TeamVectorRangeBoundariesStruct<I, Member> TeamVectorRange(const Member& m, I count) {
  return {m, I(0), count};
}
template <class Member, class I1, class I2>
  requires(detail::team_member<Member> && std::is_integral_v<I1> && std::is_integral_v<I2>)
TESSERA_INLINE_FUNCTION detail::TeamVectorRangeBoundariesStruct<std::common_type_t<I1, I2>, Member> TeamVectorRange(
    const Member& m, I1 begin, I2 end) {
  using I = std::common_type_t<I1, I2>;
  return {m, I(begin), I(end)};
}

// ---- N-D ranges ----------------------------------------------------------------
// TeamThreadMDRange<Rank<N [, Iterate]>, Member>(member, n0, ..., nN-1), or
// with deduction: TeamThreadMDRange(member, n0, n1) (Iterate::Default).

template <class RankT, class Member>
struct TeamThreadMDRange : detail::NestedMDRange<RankT, Member, detail::NestLevel::TeamThread> {
  using detail::NestedMDRange<RankT, Member, detail::NestLevel::TeamThread>::NestedMDRange;
};
template <class RankT, class Member>
struct ThreadVectorMDRange : detail::NestedMDRange<RankT, Member, detail::NestLevel::ThreadVector> {
  using detail::NestedMDRange<RankT, Member, detail::NestLevel::ThreadVector>::NestedMDRange;
};
template <class RankT, class Member>
struct TeamVectorMDRange : detail::NestedMDRange<RankT, Member, detail::NestLevel::TeamVector> {
  using detail::NestedMDRange<RankT, Member, detail::NestLevel::TeamVector>::NestedMDRange;
};
template <class Member, class... Args>
TeamThreadMDRange(const Member&, Args...) -> TeamThreadMDRange<Rank<sizeof...(Args)>, Member>;
template <class Member, class... Args>
ThreadVectorMDRange(const Member&, Args...) -> ThreadVectorMDRange<Rank<sizeof...(Args)>, Member>;
template <class Member, class... Args>
TeamVectorMDRange(const Member&, Args...) -> TeamVectorMDRange<Rank<sizeof...(Args)>, Member>;

namespace detail {
template <class R, class M>
struct is_nested_range<TeamThreadMDRange<R, M>> : std::true_type {};
template <class R, class M>
struct is_nested_range<ThreadVectorMDRange<R, M>> : std::true_type {};
template <class R, class M>
struct is_nested_range<TeamVectorMDRange<R, M>> : std::true_type {};
}  // namespace detail

// ---- nested patterns -----------------------------------------------------------

template <class Range, class F>
  requires detail::is_nested_range<Range>::value
TESSERA_INLINE_FUNCTION void parallel_for(const Range& range, const F& f) {
  range.member.impl_nested_for(range, f);
}

// result: a scalar (summed) or a reducer (Sum, Min, MaxLoc, ..., user reducers).
template <class Range, class F, class R>
  requires detail::is_nested_range<Range>::value
TESSERA_INLINE_FUNCTION void parallel_reduce(const Range& range, const F& f, R&& result) {
  using Result = std::remove_cvref_t<R>;
  if constexpr (is_reducer_v<Result>) {
    range.member.impl_nested_reduce(range, f, result);
  } else {
    static_assert(!std::is_const_v<std::remove_reference_t<R>> && std::is_lvalue_reference_v<R>,
                  "tessera: a nested parallel_reduce's scalar result must be a modifiable variable");
    range.member.impl_nested_reduce(range, f, Sum<Result>(result));
  }
}

template <class Range, class F>
  requires(detail::is_nested_range<Range>::value && !Range::is_md)
TESSERA_INLINE_FUNCTION void parallel_scan(const Range& range, const F& f) {
  using V = typename detail::scan_value_type<F, void>::type;
  range.member.impl_nested_scan(range, f, static_cast<std::remove_cvref_t<V>*>(nullptr));
}
// total receives the sum of all contributions, on every thread that took part.
template <class Range, class F, class T>
  requires(detail::is_nested_range<Range>::value && !Range::is_md)
TESSERA_INLINE_FUNCTION void parallel_scan(const Range& range, const F& f, T& total) {
  range.member.impl_nested_scan(range, f, &total);
}

// ---- single ----------------------------------------------------------------------

template <class Member>
  requires detail::team_member<Member>
TESSERA_INLINE_FUNCTION detail::TeamSingleStruct<Member> PerTeam(const Member& m) {
  return {m};
}
template <class Member>
  requires detail::team_member<Member>
TESSERA_INLINE_FUNCTION detail::ThreadSingleStruct<Member> PerThread(const Member& m) {
  return {m};
}

// Runs f() on one thread of the team; no barrier.
template <class Member, class F>
TESSERA_INLINE_FUNCTION void single(const detail::TeamSingleStruct<Member>& s, const F& f) {
  s.member.impl_single_team(f);
}
// Runs f(value) on one thread of the team, then every thread gets that value.
template <class Member, class F, class T>
TESSERA_INLINE_FUNCTION void single(const detail::TeamSingleStruct<Member>& s, const F& f, T& value) {
  s.member.impl_single_team(f, value);
}
// Runs f() once per thread (on one vector lane).
template <class Member, class F>
TESSERA_INLINE_FUNCTION void single(const detail::ThreadSingleStruct<Member>& s, const F& f) {
  s.member.impl_single_thread(f);
}
template <class Member, class F, class T>
TESSERA_INLINE_FUNCTION void single(const detail::ThreadSingleStruct<Member>& s, const F& f, T& value) {
  s.member.impl_single_thread(f, value);
}

}  // namespace tessera
