#pragma once
// miniTri, tasks method: the asynchronous formulation of the seed (Wolf et
// al., HPEC 2015, and the task-DAG chapter's Fig. 6.3), on a host
// TaskScheduler.
//
//   minitri_result r = minitri_tasks(g, opts);   // opts.block_size, opts.priorities, opts.free_triangles
//
// The rows are cut into 1-D blocks of opts.block_size. Per block b, four
// fire-and-forget tasks run the shared kernels:
//   E_b  enumerates the triangles owned by the block's rows and stores them;
//   V_b  adds them to t_v, T_b adds them to t_e (atomics: blocks share
//        vertices and edges), both spawned depending on E_b;
//   K_b  spawned depending only on E_b, which leaves it the degree tasks
//        that can still change the t_v and t_e its triangles read. It
//        respawns itself on those, and then adds each triangle's k to the
//        histogram and frees the block.
// No barrier anywhere: a block's k-count runs as soon as the degrees it
// reads are final, not when all of them are.
//
// Which degree tasks K_b needs: a triangle containing vertex x is owned by x
// or by a neighbour of x, so t_v(x) (and t_e of every edge at x) is final
// once the blocks from that of min(N[x]) to that of max(N[x]) have run
// their V and T tasks. K_b takes the union of these block ranges over its
// triangles' vertices. The range [lo, hi] is covered by O(log B) nodes of a
// segment tree of when_all nodes, built once from the host over the
// (V_j, T_j) pairs; K_b respawns on the first node not yet complete, then
// on the next, so a range spanning every block (a hub's neighbours are
// everywhere) still costs a few respawns.
//
// Bounded memory: K tasks run at High priority (opts.priorities) and free
// their block at once; enumeration tasks are spawned from the host in
// descending block order, so that each worker's last-in-first-out stack
// runs them in ascending order; and an enumeration task runs at most
// opts.window_blocks blocks ahead of the oldest unfinished k-count (it
// respawns on a k-count's future meanwhile) unless a k-count that old can
// need its block. On a graph whose neighbours have nearby ids (a mesh, or
// any graph after a bandwidth-reducing ordering) the stored triangles stay
// a window of a few blocks; on a graph whose ids are random most k-counts
// need the last block and the peak approaches T, as in data.
// result.peak_stored_triangles reports it.
#include <tessera/analytics/detail/histogram.hpp>
#include <tessera/analytics/detail/kernels.hpp>
#include <tessera/analytics/detail/memory_meter.hpp>
#include <tessera/analytics/minitri_options.hpp>
#include <tessera/analytics/oriented_graph.hpp>
#include <tessera/tasking.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::analytics {

namespace detail {

// Everything the tasks of one run share. Lives on the host stack of
// minitri_tasks for the whole wait; tasks hold a pointer to it.
template <class G>
struct tasks_state {
  using Exec = typename G::execution_space;
  using V = typename G::vertex_descriptor;
  using E = typename G::edge_index_type;
  using Tri = triangle<V, E>;
  using Sched = tessera::TaskScheduler<Exec>;
  using Future = tessera::BasicFuture<void, Sched>;

  G g;
  oriented_graph<Exec, V, E> og;
  tessera::View<std::int64_t*, Exec> tv, te;
  tessera::View<std::int64_t**, tessera::LayoutRight, Exec> hist;  // one row per worker
  std::int64_t block_size = 100, blocks = 0;
  std::int64_t leaves = 1;             // segment tree: leaves (a power of two >= blocks)
  std::vector<std::vector<Tri>> tris;  // per block, until its k-count frees them
  // Vectors a running enumeration task holds its block's triangles in as
  // they are found: one per task running at once, kept for the next.
  std::mutex scratch_lock;
  std::vector<std::vector<Tri>> scratch;
  std::vector<std::pair<std::int64_t, std::int64_t>>
      k_range;               // per block: the blocks K_b waits for (E_b writes it)
  std::vector<Future> tree;  // tree[1] the root, tree[leaves + b] = when_all(V_b, T_b)
  Sched sched;
  tessera::TaskPriority kcount_priority = tessera::TaskPriority::High;
  bool free_triangles = true;
  memory_meter* meter = nullptr;
  std::atomic<std::int64_t> stored{0}, peak_stored{0};
  // The enumeration window (see enumerate_block_task). k_low: every K_j
  // with j < k_low has finished. reach[l]: the last block that may be
  // enumerated while k_low == l: l + window - 1, or further when a k-count
  // at or before l can need a later block (hi_pre: the last block any
  // triangle of block j can depend on, from the graph before enumerating).
  std::vector<std::int64_t> reach;
  std::vector<tessera::BasicFuture<void, Sched>> kfut;  // K_b's future: what a held-back E_b waits for
  std::unique_ptr<std::atomic<char>[]> k_done;
  std::atomic<std::int64_t> k_low{0};

  // Seq_cst throughout: two k-counts finishing at once each store their flag
  // and then read the other's; at least one must see both (store-load order).
  void k_finished(std::int64_t b) {
    k_done[std::size_t(b)].store(1);
    std::int64_t l = k_low.load();
    while (l < blocks && k_done[std::size_t(l)].load())
      if (k_low.compare_exchange_weak(l, l + 1)) ++l;
  }

  std::int64_t block_of(std::int64_t v) const { return v / block_size; }

  // Widens [lo, hi] to the blocks whose degree tasks add to t_v(x) or to the
  // t_e of an edge at x: those of N[x]. Rows are sorted, so the first and
  // last neighbours bound it.
  void widen_to_neighbourhood(std::int64_t x, std::int64_t& lo, std::int64_t& hi) const {
    const auto* rm = g.row_map_data();
    const auto* adj = g.entries_data();
    lo = std::min(lo, block_of(std::min<std::int64_t>(x, adj[rm[x]])));
    hi = std::max(hi, block_of(std::max<std::int64_t>(x, adj[rm[x + 1] - 1])));
  }
  std::int64_t row_end(std::int64_t b) const { return std::min(og.n, (b + 1) * block_size); }

  void note_stored(std::int64_t count) {
    const std::int64_t now = stored.fetch_add(count, std::memory_order_relaxed) + count;
    std::int64_t peak = peak_stored.load(std::memory_order_relaxed);
    while (now > peak && !peak_stored.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }

  // The tree nodes covering blocks [lo, hi] (iterative segment-tree walk).
  void cover(std::int64_t lo, std::int64_t hi, std::vector<Future>& out) const {
    for (std::int64_t l = lo + leaves, r = hi + leaves + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) out.push_back(tree[std::size_t(l++)]);
      if (r & 1) out.push_back(tree[std::size_t(--r)]);
    }
  }
};

template <class St>
struct enumerate_block_task {
  using value_type = void;
  St* st;
  std::int64_t b;
  void operator()(typename St::Sched::member_type&) {
    // Held back while b lies beyond reach[k_low], on the future of K_gate,
    // where gate + 1 is the first l whose reach covers b. K_gate cannot need
    // E_b (its triangles depend on blocks <= hi_pre(gate) <= reach[gate] < b),
    // and each wait goes to a strictly older k-count, so nothing waits in a
    // cycle; the blocks the oldest k-count needs are always allowed.
    const std::int64_t low = st->k_low.load();
    if (low < st->blocks && b > st->reach[std::size_t(low)]) {
      const auto first = std::lower_bound(st->reach.begin() + low, st->reach.end(), b) - st->reach.begin();
      std::int64_t gate = std::int64_t(first) - 1;
      if (st->kfut[std::size_t(gate)].is_ready()) gate = st->k_low.load();  // an older one is still running
      if (gate < st->blocks && b > st->reach[std::size_t(std::min(gate, st->blocks - 1))]) {
        tessera::respawn(this, st->kfut[std::size_t(gate)]);
        return;
      }
    }
    // Enumerated into a scratch vector, then copied into a buffer of exactly
    // the block's size: a block's own vector grown by push_back copies its
    // triangles at each doubling and, holding up to twice what it stores,
    // touches up to twice the fresh pages, where most of the time goes
    // (facebook_combined, blocks of 100, 1 thread: 91 MB peak against data's
    // 63 MB, a fifth of the run in page faults and memmove). The scratch
    // vectors (one per enumeration running at once) are kept for the next
    // block, so they grow to the largest block only once, and the copy reads
    // them from cache. Counting first instead enumerates twice, which
    // cost more than it saved (Kronecker 16: 2.9 s against 2.3 s).
    //
    // Meanwhile, the blocks K_b waits for (kcount_block_task): the union of
    // the block ranges of every vertex of its triangles. A triangle
    // (u, v, x) of row u has v and x among u's out-neighbours, and its first
    // two edges are u's slots (edge_numbering::slots), so flagging those
    // slots lists the vertices once per row, not three times per triangle
    // (K_b's first run did it per triangle: nine scattered reads each).
    const auto& og = st->og;
    std::vector<typename St::Tri> scratch;
    {
      const std::lock_guard<std::mutex> hold(st->scratch_lock);
      if (!st->scratch.empty()) {
        scratch.swap(st->scratch.back());
        st->scratch.pop_back();
      }
    }
    const std::size_t scratch_capacity = scratch.capacity();
    scratch.clear();
    std::int64_t lo = b, hi = b;
    std::vector<char> in_triangle;
    for (std::int64_t u = b * st->block_size, e = st->row_end(b); u < e; ++u) {
      const std::int64_t ub = og.row_map(u);
      in_triangle.assign(std::size_t(og.row_map(u + 1) - ub), 0);
      const std::int64_t found = for_each_triangle_in_row(og, u, [&](const typename St::Tri& t) {
        scratch.push_back(t);
        in_triangle[std::size_t(t.e[0] - ub)] = 1;
        in_triangle[std::size_t(t.e[1] - ub)] = 1;
      });
      if (found == 0) continue;
      st->widen_to_neighbourhood(u, lo, hi);
      for (std::size_t j = 0; j < in_triangle.size(); ++j)
        if (in_triangle[j])
          st->widen_to_neighbourhood(std::int64_t(og.entries(ub + std::int64_t(j))), lo, hi);
    }
    st->meter->add(std::int64_t((scratch.capacity() - scratch_capacity) * sizeof(typename St::Tri)));
    auto& out = st->tris[std::size_t(b)];
    out = std::vector<typename St::Tri>(scratch.begin(), scratch.end());
    {
      const std::lock_guard<std::mutex> hold(st->scratch_lock);
      st->scratch.push_back(std::move(scratch));
    }
    st->k_range[std::size_t(b)] = {lo, hi};
    st->meter->add(std::int64_t(out.capacity() * sizeof(typename St::Tri)));
    st->note_stored(std::int64_t(out.size()));
  }
};

// V_b (Op = add_vertex_degrees) or T_b (Op = add_edge_degrees).
template <class St, class Op>
struct degree_block_task {
  using value_type = void;
  St* st;
  std::int64_t b;
  Op op;
  void operator()(typename St::Sched::member_type&) const {
    for (const auto& t : st->tris[std::size_t(b)]) op(t);
  }
};

template <class St>
struct kcount_block_task {
  using value_type = void;
  St* st;
  std::int64_t b;

  void operator()(typename St::Sched::member_type&) {
    auto& mine = st->tris[std::size_t(b)];
    // E_b, done before this task first runs, left the blocks whose degree
    // tasks can change what this block reads (always including its own).
    const auto [lo, hi] = st->k_range[std::size_t(b)];
    // Respawn on the first tree node of [lo, hi] not yet complete, one at a
    // time, rather than on a when_all of them: a when_all made inside a task
    // lets the worker help by running ready tasks nested in it (up to 48
    // deep), which here means enumerating dozens of blocks ahead and storing
    // their triangles before this block can be freed.
    std::vector<typename St::Future> deps;
    st->cover(lo, hi, deps);
    for (auto& d : deps)
      if (!d.is_ready()) {
        tessera::respawn(this, d, st->kcount_priority);
        return;
      }
    // Every degree this block reads is final.
    using Exec = typename St::Exec;
    const std::int64_t rows = std::int64_t(st->hist.extent(0));
    const std::int64_t w = std::int64_t(Exec::impl_thread_pool_rank()) % rows;
    std::int64_t* row = &st->hist(w, 0);
    for (const auto& t : mine)
      add_count<Exec>(&row[triangle_k(t, st->tv, st->te)], 1);  // uncontended: one row per worker
    if (st->free_triangles) {
      st->stored.fetch_sub(std::int64_t(mine.size()), std::memory_order_relaxed);
      st->meter->release(std::int64_t(mine.capacity() * sizeof(typename St::Tri)));
      std::vector<typename St::Tri>().swap(mine);
    }
    st->k_finished(b);
  }
};

// reach[l] for the enumeration window: max(l + window - 1, hi_pre(0..l)),
// where hi_pre(j) is the last block whose degree tasks a triangle of block j
// can depend on: its vertices are a row u of the block and u's out-
// neighbours x, and t_v(x) depends on the blocks of N[x].
template <class G, class OG>
std::vector<std::int64_t> enumeration_reach(const G& g, const OG& og, std::int64_t block_size,
                                            std::int64_t blocks, std::int64_t window) {
  using Exec = typename G::execution_space;
  tessera::View<std::int64_t*, Exec> hi("analytics::tasks::hi_pre", blocks);
  const auto* rm = g.row_map_data();
  const auto* adj = g.entries_data();
  const std::int64_t n = og.n;
  tessera::parallel_for(
      "analytics::tasks::reach", tessera::RangePolicy<Exec>(0, blocks), [=](std::int64_t b) {
        std::int64_t h = b;
        auto last_of = [&](std::int64_t x) {
          return rm[x + 1] > rm[x] && adj[rm[x + 1] - 1] > x ? std::int64_t(adj[rm[x + 1] - 1]) : x;
        };
        for (std::int64_t u = b * block_size, e = std::min(n, (b + 1) * block_size); u < e; ++u) {
          h = std::max(h, last_of(u) / block_size);
          for (auto j = og.row_map(u); j < og.row_map(u + 1); ++j)
            h = std::max(h, last_of(og.entries(j)) / block_size);
        }
        hi(b) = h;
      });
  tessera::fence("analytics::tasks::reach");
  std::vector<std::int64_t> reach(static_cast<std::size_t>(blocks));
  std::int64_t pm = -1;
  for (std::int64_t l = 0; l < blocks; ++l) {
    pm = std::max(pm, hi(l));
    reach[std::size_t(l)] = std::max(l + window - 1, pm);
  }
  return reach;
}

}  // namespace detail

template <class G>
minitri_result minitri_tasks(const G& g, const minitri_options& opts = {}) {
  using Exec = typename G::execution_space;
  static_assert(
      tessera::is_host_execution_space<Exec>::value,
      "miniTri's tasks method runs on a host TaskScheduler: build the graph on Serial, Threads or OpenMP");
  using St = detail::tasks_state<G>;
  using Sched = typename St::Sched;
  using Future = typename St::Future;
  if (opts.block_size < 1)
    throw std::invalid_argument("tessera::analytics::minitri_tasks: block size " +
                                std::to_string(opts.block_size) + " must be at least 1");
  detail::memory_meter meter;
  minitri_result r;
  r.method = method::tasks;
  r.vertices = g.num_vertices();
  r.edges = g.num_edges();

  St st;
  st.g = g;
  st.og = orient(g, edge_numbering::slots);
  meter.add(st.og.bytes());
  detail::degree_arrays<Exec> deg(st.og.n, st.og.m, meter);  // t_e by the orientation's slot
  st.tv = deg.tv;
  st.te = deg.te;
  const std::int64_t bins = detail::histogram_bins(g);
  const std::int64_t workers = std::max(1, Exec().concurrency());
  st.hist = decltype(st.hist)("analytics::tasks::histogram", workers, bins);
  meter.add(std::int64_t(sizeof(std::int64_t)) * workers * bins);
  st.block_size = opts.block_size;
  st.blocks = (st.og.n + opts.block_size - 1) / opts.block_size;
  while (st.leaves < st.blocks) st.leaves *= 2;
  st.tris.resize(std::size_t(st.blocks));
  st.k_range.resize(std::size_t(st.blocks));
  st.kcount_priority = opts.priorities ? tessera::TaskPriority::High : tessera::TaskPriority::Regular;
  st.free_triangles = opts.free_triangles;
  st.k_done.reset(new std::atomic<char>[std::size_t(st.blocks)]);
  for (std::int64_t b = 0; b < st.blocks; ++b) st.k_done[std::size_t(b)].store(0, std::memory_order_relaxed);
  st.reach = detail::enumeration_reach(g, st.og, opts.block_size, st.blocks,
                                       opts.window_blocks > 0 ? opts.window_blocks : 4 * workers);
  st.meter = &meter;
  r.blocks = st.blocks;

  using EnumT = detail::enumerate_block_task<St>;
  using VT = detail::degree_block_task<St, detail::add_vertex_degrees<Exec>>;
  using TT = detail::degree_block_task<St, detail::add_edge_degrees<Exec>>;
  using KT = detail::kcount_block_task<St>;
  // Task memory: every block's four tasks are alive at once before the DAG
  // starts (the k-counts until the end: their futures gate the window),
  // plus the tree (2 * leaves nodes of two inputs). Superblocks serve one
  // block size at a time: leave room for the rounding.
  {
    Sched probe(typename Sched::memory_space(), std::size_t(1) << 20);
    const std::size_t per_block =
        probe.template spawn_allocation_size<EnumT>() + probe.template spawn_allocation_size<VT>() +
        probe.template spawn_allocation_size<TT>() + probe.template spawn_allocation_size<KT>();
    const std::size_t capacity = (std::size_t(st.blocks) * per_block +
                                  std::size_t(2 * st.leaves) * probe.when_all_allocation_size(2)) *
                                     3 / 2 +
                                 (std::size_t(4) << 20);
    st.sched = Sched(typename Sched::memory_space(), capacity);
  }

  // Descending, so that each worker's LIFO stack runs the blocks in
  // ascending order (see the header comment: this is what bounds memory).
  st.tree.assign(std::size_t(2 * st.leaves), Future());
  st.kfut.assign(std::size_t(st.blocks), Future());
  for (std::int64_t b = st.blocks - 1; b >= 0; --b) {
    auto e = tessera::host_spawn(tessera::TaskSingle(st.sched), EnumT{&st, b});
    auto v = tessera::host_spawn(tessera::TaskSingle(e), VT{&st, b, {st.tv}});
    auto t = tessera::host_spawn(tessera::TaskSingle(e), TT{&st, b, {st.te}});
    st.kfut[std::size_t(b)] = tessera::host_spawn(tessera::TaskSingle(e, st.kcount_priority), KT{&st, b});
    st.tree[std::size_t(st.leaves + b)] = st.sched.when_all(v, t);
  }
  for (std::int64_t i = st.leaves - 1; i >= 1; --i)
    st.tree[std::size_t(i)] = st.sched.when_all(st.tree[std::size_t(2 * i)], st.tree[std::size_t(2 * i + 1)]);

  tessera::wait(st.sched);
  const auto stats = st.sched.statistics();
  st.tree.clear();
  st.kfut.clear();

  // The workers' rows summed into one histogram.
  tessera::View<std::int64_t*, tessera::HostSpace> hist("analytics::histogram", bins);
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), st.hist);
  for (std::int64_t w = 0; w < workers; ++w)
    for (std::int64_t k = 0; k < bins; ++k) hist(k) += h(w, k);
  std::int64_t counted = 0;
  r.histogram = detail::histogram_map(hist, &counted);
  r.triangles = counted;
  std::int64_t enumerated = 0;
  for (const auto& v : st.tris) enumerated += std::int64_t(v.size());
  if (st.free_triangles && enumerated != 0)
    throw std::logic_error("tessera::analytics::minitri_tasks: " + std::to_string(enumerated) +
                           " triangles were never counted (a k-count task did not run)");
  r.peak_stored_triangles = st.peak_stored.load();
  // The task pool's peak on top of the arrays' peak: an upper bound (the two
  // need not peak together).
  r.peak_bytes = meter.peak() + std::int64_t(stats.pool_high_water_bytes);
  if (opts.keep_degrees) {
    detail::copy_degrees(deg, r.vertex_triangles, r.edge_triangles);
    detail::slots_to_edge_indices(g, st.og, r.edge_triangles);
  }
  return r;
}

}  // namespace tessera::analytics
