#pragma once
// Delta-stepping with its buckets held on the device (SsspControl::device).
//
// The host form (sssp.hpp) keeps a bin of vertices per bucket per worker in
// std::vectors, which a GPU cannot grow. The first device form checked every
// vertex's active flag on every pass, so a pass cost O(n) whatever the
// frontier held: on a road-like graph thousands of passes each swept the
// whole vertex set. Here the near bucket is a queue and the far buckets are
// a flag per vertex, as in the near-far method of Davidson, Baxter, Garland
// and Owens ("Work-efficient parallel GPU methods for single-source shortest
// paths", IPDPS 2014):
//
// - a round relaxes the out-edges of the queued vertices only (through
//   advance, so a hub's edges are spread over the device); a target whose
//   distance drops below the bucket's end is appended to the next round's
//   queue once (a per-vertex stamp of the round that queued it), any other
//   improved target gets its far flag;
// - when a round queues nothing the bucket is settled: one pass over the
//   vertices finds the smallest far distance (the next bucket's start) and
//   clears the flags of vertices that have since settled, and a second pass
//   moves the far vertices of the next bucket into the queue.
//
// A round costs its frontier's edges plus one count read back to the host;
// the O(n) passes run once per bucket, not once per round. The queue
// counter only grows (a round's entries start at the value read after the
// round before), so no kernel or copy resets it.
//
// The distances are the least fixed point of the same floating-point sums
// as the host form's (every vertex's final distance is relaxed along every
// out-edge, whatever the order), so both forms return the same bits; tests
// run both on every space.
#include <tessera/core.hpp>
#include <tessera/graph/advance.hpp>
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/property_map.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace tessera::graph::detail {

enum class SsspControl { host, device };
template <class Exec>
inline constexpr SsspControl default_sssp_control =
    is_host_execution_space<Exec>::value ? SsspControl::host : SsspControl::device;

// One round's edge work: relax e = (u, t); queue t for the next round when
// its new distance lies in the current bucket, flag it far otherwise.
template <class G, class T, class WeightMap, class Dist, class Flags, class Stamps, class Queue,
          class Counter>
struct sssp_relax_into_buckets {
  G g;
  WeightMap weights;
  Dist dist;
  Flags far;
  Stamps stamp;
  Queue next;
  Counter counter;
  double hi;           // end of the current bucket
  std::int32_t round;  // stamp of the queue being filled
  std::int64_t base;   // counter value when this round began
  template <class V, class E>
  TESSERA_INLINE_FUNCTION void operator()(const V& u, const E& e) const {
    const T nd = T(load_relaxed(&dist(u)) + weights[e]);
    const V t = target(e, g);
    if (!(nd < load_relaxed(&dist(t))) || !(nd < tessera::atomic_fetch_min(&dist(t), nd))) return;
    if (double(nd) < hi) {
      if (tessera::atomic_exchange(&stamp(t), round) != round)
        next(tessera::atomic_fetch_add(&counter(0), std::int64_t(1)) - base) = t;
    } else {
      store_relaxed(&far(t), std::int32_t(1));
    }
  }
};

template <class G, class T, class S1, class S2>
void delta_stepping_device_buckets(const G& g, typename graph_traits<G>::vertex_descriptor source,
                                   const edge_property_map<G, T, S1>& weights,
                                   const vertex_property_map<G, T, S2>& distances, T delta) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  constexpr T inf = std::numeric_limits<T>::max();
  const std::int64_t n = num_vertices(g);
  auto dist = distances.view();
  // Far flags and stamps are 32-bit: narrower atomics are a CAS loop on a GPU.
  tessera::View<std::int32_t*, SS> far(tessera::view_alloc("graph::sssp::far", tessera::WithoutInitializing),
                                       n);
  tessera::View<std::int32_t*, SS> stamp(
      tessera::view_alloc("graph::sssp::stamp", tessera::WithoutInitializing), n);
  // A vertex enters a queue at most once per round (its stamp), so n slots suffice.
  tessera::View<V*, SS> queue(tessera::view_alloc("graph::sssp::queue", tessera::WithoutInitializing), n);
  tessera::View<V*, SS> next(tessera::view_alloc("graph::sssp::next", tessera::WithoutInitializing), n);
  tessera::View<std::int64_t*, SS> counter("graph::sssp::counter", 1);
  tessera::parallel_for(
      "graph::sssp::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
        dist(v) = v == std::int64_t(source) ? T(0) : inf;
        far(v) = 0;
        stamp(v) = v == std::int64_t(source) ? 0 : -1;
        if (v == 0) queue(0) = source;
      });
  std::int64_t size = 1;   // entries in `queue`
  std::int64_t taken = 0;  // counter value when the current round began
  std::int32_t round = 0;  // stamp of the entries in `queue`
  double hi = double(delta);
  using Relax = sssp_relax_into_buckets<G, T, edge_property_map<G, T, S1>, decltype(dist), decltype(far),
                                        decltype(stamp), decltype(next), decltype(counter)>;
  for (;;) {
    while (size > 0) {
      ++round;
      advance("graph::sssp::relax", g,
              tessera::subview(queue, std::pair<std::int64_t, std::int64_t>(0, size)),
              Relax{g, weights, dist, far, stamp, next, counter, hi, round, taken});
      const std::int64_t now = read_one(counter, 0);
      size = now - taken;
      taken = now;
      std::swap(queue, next);
    }
    // The bucket is settled. The next one starts at the smallest distance
    // still flagged far (flags of vertices that have since dropped below hi
    // are cleared: they were queued and relaxed in this bucket).
    double lowest = std::numeric_limits<double>::max();
    tessera::parallel_reduce(
        "graph::sssp::next_bucket", tessera::RangePolicy<Exec>(0, n),
        TESSERA_LAMBDA(std::int64_t v, double& m) {
          if (!far(v)) return;
          const double d = double(dist(v));
          if (d < hi) {
            far(v) = 0;
          } else if (d < m) {
            m = d;
          }
        },
        tessera::Min<double>(lowest));
    // No far vertex left (the Min identity may be max() or +infinity).
    if (!(lowest < std::numeric_limits<double>::max())) break;
    // A width below the rounding step of the distances here would leave
    // hi == lowest and the bucket empty, forever: it moves on by one step.
    const double from = lowest > hi ? lowest : hi;
    hi = from + double(delta) > from ? from + double(delta)
                                     : std::nextafter(from, std::numeric_limits<double>::infinity());
    ++round;
    tessera::parallel_for(
        "graph::sssp::open_bucket", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
          if (!far(v) || !(double(dist(v)) < hi)) return;
          far(v) = 0;
          stamp(v) = round;
          queue(tessera::atomic_fetch_add(&counter(0), std::int64_t(1)) - taken) = V(v);
        });
    const std::int64_t now = read_one(counter, 0);
    size = now - taken;
    taken = now;
  }
}

}  // namespace tessera::graph::detail
