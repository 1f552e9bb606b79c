#pragma once
// The by_degree schedule: a row's edges on one thread, on one thread's vector
// lanes, or on a whole team, chosen by its degree (the thread / warp / CTA
// split of Merrill, Garland & Grimshaw, "Scalable GPU graph traversal",
// PPoPP 2012; the idea only).
//
// Short rows stay on one thread in a kernel over all rows, which skips the
// others: most rows of a power-law graph are short, so they are not copied
// into a list. Medium and long rows are binned into one list, medium from the
// front and long from the back (two counters: contention only among the rows
// that are binned), then run by a team rank each with vector lanes over the
// edges, and by a team each with its threads and lanes over the edges. A
// lane count of 32 makes a team rank a warp on a GPU; host spaces run the
// lanes as a SIMD loop.
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/traversal_options.hpp>

#include <cstdint>
#include <string>

namespace tessera::graph::detail {

template <class G, class Rows, class Sink>
struct by_degree_short {
  G g;
  Rows rows;
  Sink sink;
  std::int64_t warp_degree;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto u = rows(i);
    const auto r = out_edges(u, g);
    if (r.size() >= warp_degree) return;
    for (std::int64_t k = 0; k < r.size(); ++k) sink(u, r.begin() + k);
  }
};

// list(0..) the medium rows, list(count - 1 - ..) the long ones; fill(0),
// fill(1) their counts.
template <class G, class Rows, class LV>
struct by_degree_bin {
  G g;
  Rows rows;
  LV list, fill;
  std::int64_t count, warp_degree, block_degree;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t d = std::int64_t(out_degree(rows(i), g));
    if (d < warp_degree) return;
    if (d < block_degree) list(tessera::atomic_fetch_add(&fill(0), std::int64_t(1))) = i;
    else list(count - 1 - tessera::atomic_fetch_add(&fill(1), std::int64_t(1))) = i;
  }
};

// Team rank r of team t takes medium row list(t * team_size + r).
template <class Member, class G, class Rows, class LV, class Sink>
struct by_degree_medium {
  G g;
  Rows rows;
  LV list;
  Sink sink;
  std::int64_t medium;
  TESSERA_INLINE_FUNCTION void operator()(const Member& mem) const {
    const std::int64_t at = std::int64_t(mem.league_rank()) * mem.team_size() + mem.team_rank();
    if (at >= medium) return;
    const auto u = rows(list(at));
    const auto r = out_edges(u, g);
    tessera::parallel_for(tessera::ThreadVectorRange(mem, r.size()), [&](std::int64_t k) { sink(u, r.begin() + k); });
  }
};

// Team t takes long row list(count - 1 - t).
template <class Member, class G, class Rows, class LV, class Sink>
struct by_degree_long {
  G g;
  Rows rows;
  LV list;
  Sink sink;
  std::int64_t count;
  TESSERA_INLINE_FUNCTION void operator()(const Member& mem) const {
    const auto u = rows(list(count - 1 - std::int64_t(mem.league_rank())));
    const auto r = out_edges(u, g);
    tessera::parallel_for(tessera::TeamVectorRange(mem, r.size()), [&](std::int64_t k) { sink(u, r.begin() + k); });
  }
};

// sink(u, it) for every out-edge of rows(0..count-1), `it` an iterator at it
// (the sink builds the descriptor, *it, only if it needs it).
template <class Exec, class G, class Rows, class Sink>
void by_degree_for(const std::string& label, const G& g, const Rows& rows, std::int64_t count, const Sink& sink,
                   const traversal_options& opts) {
  if (count <= 0) return;
  using S = typename G::memory_space;
  using Policy = tessera::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  constexpr bool host = tessera::is_host_execution_space<Exec>::value;
  const std::int64_t warp = opts.warp_degree > 1 ? opts.warp_degree : 1;
  const std::int64_t block = opts.block_degree > warp ? opts.block_degree : warp;
  tessera::parallel_for(label + "::thread", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, count, 64),
                        by_degree_short<G, Rows, Sink>{g, rows, sink, warp});

  using LV = tessera::View<std::int64_t*, S>;
  LV list(tessera::view_alloc("graph::by_degree::list", tessera::WithoutInitializing), count);
  LV fill("graph::by_degree::fill", 2);
  tessera::parallel_for("graph::by_degree::bin", tessera::RangePolicy<Exec>(0, count),
                        by_degree_bin<G, Rows, LV>{g, rows, list, fill, count, warp, block});
  const auto counts = to_host_vector(fill);
  const std::int64_t medium = counts[0], heavy = counts[1];

  const int lanes = 32 < Policy::vector_length_max() ? 32 : Policy::vector_length_max();
  if (medium > 0) {
    // A GPU block of 256 threads is 8 warps, each on its own row; host teams
    // are one thread (a row per team, handed out like the vertex loop's).
    const int ranks = host ? 1 : 256 / lanes;
    tessera::parallel_for(label + "::warp", Policy((medium + ranks - 1) / ranks, ranks, lanes),
                          by_degree_medium<Member, G, Rows, LV, Sink>{g, rows, list, sink, medium});
  }
  if (heavy > 0) {
    if constexpr (host)
      tessera::parallel_for(label + "::block", Policy(heavy, tessera::AUTO, 1),
                            by_degree_long<Member, G, Rows, LV, Sink>{g, rows, list, sink, count});
    else
      tessera::parallel_for(label + "::block", Policy(heavy, 256 / lanes, lanes),
                            by_degree_long<Member, G, Rows, LV, Sink>{g, rows, list, sink, count});
  }
}

}  // namespace tessera::graph::detail
