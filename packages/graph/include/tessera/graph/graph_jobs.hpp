#pragma once
// Concurrent graph jobs: many BFS, shortest-path, PageRank and Jaccard jobs
// on one graph, run together so that one sweep over the structure serves
// every job active on it.
//
//   std::vector<tg::graph_job> jobs = {tg::graph_job::bfs(17), tg::graph_job::sssp(3),
//                                      tg::graph_job::pagerank(0.85), tg::graph_job::pagerank(0.9, {1, 5, 9}),
//                                      tg::graph_job::jaccard(3, 7)};
//   auto r = tg::run_jobs(g, jobs);              // unit weights; or run_jobs(g, jobs, weights)
//   r.levels(0); r.distances(1); r.ranks(2); r.similarity(4);   // host copies, per job
//
// Jobs of one kind are fused, each keeping its own result:
//  - BFS: bit-parallel multi-source BFS (multi_source_bfs: 64 searches per
//    sweep, bit j of a word per vertex); on host spaces only when it pays:
//    the first search runs alone and says whether the graph is one of few
//    levels, and the rest are fused when they are at least five
//    (job_options::fuse_bfs_from);
//  - shortest paths: delta-stepping with a shared bucket sequence, 64 jobs
//    per sweep (detail/jobs_sssp.hpp);
//  - PageRank: one pull sweep updating W = 1, 2, 4 or 8 rank vectors per
//    vertex, stored side by side (detail/jobs_pagerank.hpp);
//  - Jaccard: the pairs' sorted-list merges in one parallel pass
//    (detail/jobs_jaccard.hpp).
// A kind with a single job runs the library's single-job algorithm
// (breadth_first_search, delta_stepping_shortest_paths, pagerank), as does
// every job with job_options::fuse = false: "one after another".
//
// Results equal running each job alone: BFS levels and distances exactly,
// Jaccard exactly, PageRank to rounding (same formula, same stopping test
// per job; the sums are added in another order).
#include <tessera/graph/bfs.hpp>
#include <tessera/graph/detail/jobs_jaccard.hpp>
#include <tessera/graph/detail/jobs_pagerank.hpp>
#include <tessera/graph/detail/jobs_sssp.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/multi_source_bfs.hpp>
#include <tessera/graph/pagerank.hpp>
#include <tessera/graph/property_map.hpp>
#include <tessera/graph/sssp.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace tessera::graph {

enum class job_kind { bfs, sssp, pagerank, jaccard };

inline const char* job_kind_name(job_kind k) {
  switch (k) {
    case job_kind::bfs: return "bfs";
    case job_kind::sssp: return "sssp";
    case job_kind::pagerank: return "pagerank";
    case job_kind::jaccard: return "jaccard";
  }
  return "?";
}

// One job. `origin` says where it came from ("jobs.txt:4"), for messages.
struct graph_job {
  job_kind kind = job_kind::bfs;
  std::int64_t source = 0;                       // bfs, sssp
  double damping = 0.85;                         // pagerank
  std::vector<std::int64_t> personalization;     // pagerank: teleport set; empty = every vertex
  std::int64_t u = 0, v = 0;                     // jaccard
  std::string origin;

  static graph_job bfs(std::int64_t s) { return make(job_kind::bfs, s); }
  static graph_job sssp(std::int64_t s) { return make(job_kind::sssp, s); }
  static graph_job pagerank(double d, std::vector<std::int64_t> personalize = {}) {
    graph_job j = make(job_kind::pagerank, 0);
    j.damping = d;
    j.personalization = std::move(personalize);
    return j;
  }
  static graph_job jaccard(std::int64_t a, std::int64_t b) {
    graph_job j = make(job_kind::jaccard, 0);
    j.u = a, j.v = b;
    return j;
  }
  // The job as a job-file line: "bfs 17", "pagerank 0.9 personalize 1,5,9".
  std::string text() const {
    switch (kind) {
      case job_kind::bfs:
      case job_kind::sssp: return std::string(job_kind_name(kind)) + " " + std::to_string(source);
      case job_kind::jaccard: return "jaccard " + std::to_string(u) + " " + std::to_string(v);
      case job_kind::pagerank: {
        char d[32];
        for (int digits = 1; digits <= 17; ++digits) {  // the shortest form that reads back the same
          std::snprintf(d, sizeof d, "%.*g", digits, damping);
          if (std::strtod(d, nullptr) == damping) break;
        }
        std::string s = std::string("pagerank ") + d;
        for (std::size_t i = 0; i < personalization.size(); ++i)
          s += (i ? "," : " personalize ") + std::to_string(personalization[i]);
        return s;
      }
    }
    return "?";
  }

 private:
  static graph_job make(job_kind k, std::int64_t s) {
    graph_job j;
    j.kind = k;
    j.source = s;
    return j;
  }
};

struct job_options {
  double pagerank_tolerance = 1e-9;  // per job: stop when sum |r' - r| < tolerance
  int pagerank_max_iterations = 100;
  double sssp_delta = 0;             // bucket width; 0: the mean weight (as delta_stepping_shortest_paths)
  bool fuse = true;                  // false: every job alone, one after another (the baseline)
  // BFS jobs on host spaces: the bit-parallel sweep wins only where the
  // searches share adjacency reads, several of them on a graph of few
  // levels. So the first BFS job runs alone, and the others are fused when
  // there are at least fuse_bfs_from of them and the first search took at
  // most fuse_bfs_max_levels levels; otherwise they too run one after
  // another. Measured, 2 cores, fused / one after another: Kronecker 18
  // (7 levels) 0.53x with 2 searches, 0.98x with 4, 1.41x with 6, 1.9x with
  // 8, 3.0x with 16; a 1024 x 1024 grid (2,000 levels) 0.33x to 0.77x at
  // every count from 2 to 32. Device spaces fuse any two or more (no GPU
  // figure yet says where they cross). job_set_result::bfs_fused says how
  // many ran fused.
  int fuse_bfs_from = 5;
  int fuse_bfs_max_levels = 64;
  // How the fused BFS and shortest-path sweeps spread an active vertex's
  // edges over threads (traversal_options.hpp): automatic keeps host spaces
  // on one loop over the vertices, and on a device lists the active vertices
  // and expands them edge_balanced (multi_source_bfs, detail/jobs_sssp.hpp).
  traversal_options traversal{};
};

namespace detail {
// Column c of a row-major n x k result matrix, as a host vector: gathered in
// the matrix's space and copied out alone (n values, not the n x k matrix,
// cross to the host from a device).
template <class M>
std::vector<typename M::non_const_value_type> matrix_column(const M& m, std::int64_t c) {
  using T = typename M::non_const_value_type;
  const std::int64_t n = std::int64_t(m.extent(0));
  if constexpr (tessera::detail::host_accessible<typename M::memory_space>::value) {
    std::vector<T> out(static_cast<std::size_t>(n));
    for (std::int64_t v = 0; v < n; ++v) out[std::size_t(v)] = m(v, c);
    return out;
  } else {
    tessera::View<T*, typename M::memory_space> col(
        tessera::view_alloc("graph::jobs::column", tessera::WithoutInitializing), n);
    tessera::parallel_for("graph::jobs::get_column", tessera::RangePolicy<typename M::execution_space>(0, n),
                          TESSERA_LAMBDA(std::int64_t v) { col(v) = m(v, c); });
    return to_host_vector(col);
  }
}
}  // namespace detail

// Each job's result lives in the column of its kind's matrix given by
// column(i); the host accessors copy one job's column out.
template <class G>
struct job_set_result {
  using SS = typename G::space_type;
  std::vector<graph_job> jobs;
  std::vector<std::int64_t> column;
  tessera::View<std::int32_t**, tessera::LayoutRight, SS> level_matrix;  // n x (BFS jobs), -1 unreached
  tessera::View<double**, tessera::LayoutRight, SS> distance_matrix;     // n x (SSSP jobs), max() unreached
  tessera::View<double**, tessera::LayoutRight, SS> rank_matrix;         // n x (PageRank jobs)
  std::vector<int> pagerank_iterations;                                  // per PageRank column
  std::vector<double> jaccard;                                           // per Jaccard column
  std::int64_t bfs_fused = 0;  // BFS jobs run by the bit-parallel sweep (job_options::fuse_bfs_from)

  std::vector<std::int32_t> levels(std::size_t i) const { return column_of(level_matrix, i, job_kind::bfs); }
  std::vector<double> distances(std::size_t i) const { return column_of(distance_matrix, i, job_kind::sssp); }
  std::vector<double> ranks(std::size_t i) const { return column_of(rank_matrix, i, job_kind::pagerank); }
  int iterations(std::size_t i) const { return pagerank_iterations[std::size_t(col(i, job_kind::pagerank))]; }
  double similarity(std::size_t i) const { return jaccard[std::size_t(col(i, job_kind::jaccard))]; }

 private:
  std::int64_t col(std::size_t i, job_kind want) const {
    if (i >= jobs.size()) detail::fail("job_set_result: job " + std::to_string(i) + " outside [0, " + std::to_string(jobs.size()) + ")");
    if (jobs[i].kind != want)
      detail::fail("job_set_result: job " + std::to_string(i) + " (" + jobs[i].text() + ") is a " + job_kind_name(jobs[i].kind) +
                   " job, not " + job_kind_name(want));
    return column[i];
  }
  template <class M>
  std::vector<typename M::non_const_value_type> column_of(const M& m, std::size_t i, job_kind want) const {
    return detail::matrix_column(m, col(i, want));
  }
};

namespace detail {

inline std::string job_name(const graph_job& j, std::size_t i) {
  return "job " + std::to_string(i) + " (" + (j.origin.empty() ? "" : j.origin + ": ") + j.text() + ")";
}

// Every job checked against the graph before anything runs.
inline void check_jobs(const std::vector<graph_job>& jobs, std::int64_t n) {
  auto vertex = [n](const graph_job& j, std::size_t i, std::int64_t x, const char* what) {
    if (x < 0 || x >= n)
      fail("run_jobs: " + job_name(j, i) + ": " + what + " " + std::to_string(x) + " is not a vertex of the graph ([0, " +
           std::to_string(n) + "))");
  };
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const graph_job& j = jobs[i];
    switch (j.kind) {
      case job_kind::bfs:
      case job_kind::sssp: vertex(j, i, j.source, "source"); break;
      case job_kind::jaccard:
        vertex(j, i, j.u, "vertex");
        vertex(j, i, j.v, "vertex");
        break;
      case job_kind::pagerank:
        if (!(j.damping >= 0.0 && j.damping < 1.0))
          fail("run_jobs: " + job_name(j, i) + ": damping " + std::to_string(j.damping) + " outside [0, 1)");
        for (auto x : j.personalization) vertex(j, i, x, "personalization vertex");
        break;
    }
  }
}

// Copies column 0 of a single-job result (a rank-1 View) into column c of m.
template <class Exec, class M, class Col>
void put_column(const M& m, std::int64_t c, const Col& col) {
  tessera::parallel_for("graph::jobs::put_column", tessera::RangePolicy<Exec>(0, std::int64_t(col.extent(0))),
                        TESSERA_LAMBDA(std::int64_t v) { m(v, c) = col(v); });
}

template <int W, PullSchedule Pull, class G, class M>
void pagerank_batch(const G& g, const M& ranks, std::int64_t col0, const std::vector<const graph_job*>& batch,
                    const job_options& o, std::vector<int>& iterations) {
  using SS = typename G::space_type;
  const std::int64_t n = num_vertices(g);
  const int count = int(batch.size());
  // Teleport vector of each lane, built in the graph's space: 1/n
  // everywhere, or 1/|S| on the personalization set S and 0 elsewhere (and 0
  // for unused lanes). Only the sets cross from the host.
  tessera::View<double**, tessera::LayoutRight, SS> tele(
      tessera::view_alloc("graph::jobs::pagerank::teleport", tessera::WithoutInitializing), n, W);
  pagerank_lane_fill<W> fill{};
  std::vector<double> damping;
  std::vector<std::int64_t> set_vertex, set_lane;
  std::vector<double> set_value;
  for (int k = 0; k < count; ++k) {
    const graph_job& j = *batch[std::size_t(k)];
    damping.push_back(j.damping);
    if (j.personalization.empty()) {
      fill.value[k] = 1.0 / double(n);
    } else {
      std::vector<std::int64_t> s = j.personalization;
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
      for (auto v : s) {
        set_vertex.push_back(v);
        set_lane.push_back(k);
        set_value.push_back(1.0 / double(s.size()));
      }
    }
  }
  using Exec = typename G::execution_space;
  tessera::parallel_for("graph::jobs::pagerank::teleport_fill", tessera::RangePolicy<Exec>(0, n),
                        TESSERA_LAMBDA(std::int64_t v) {
                          for (int k = 0; k < W; ++k) tele(v, k) = fill.value[k];
                        });
  if (!set_vertex.empty()) {
    // Distinct (vertex, lane) pairs: no two writes meet.
    auto sv = to_space<std::int64_t, SS>("graph::jobs::pagerank::set_vertex", set_vertex);
    auto sl = to_space<std::int64_t, SS>("graph::jobs::pagerank::set_lane", set_lane);
    auto sw = to_space<double, SS>("graph::jobs::pagerank::set_value", set_value);
    tessera::parallel_for("graph::jobs::pagerank::teleport_sets",
                          tessera::RangePolicy<Exec>(0, std::int64_t(set_vertex.size())),
                          TESSERA_LAMBDA(std::int64_t i) { tele(sv(i), sl(i)) = sw(i); });
  }
  std::vector<int> it;
  pagerank_lanes<W, Pull>(g, ranks, col0, count, damping, tele, o.pagerank_tolerance, o.pagerank_max_iterations, it);
  iterations.insert(iterations.end(), it.begin(), it.end());
}

// run_jobs with the PageRank batches' pull schedule named (Pull; run_jobs
// takes jobs_pull_schedule_for): tests and benchmarks run the others.
template <PullSchedule Pull, class G, class S>
job_set_result<G> run_jobs_with(const G& g, const std::vector<graph_job>& jobs,
                                const edge_property_map<G, double, S>* weights, const job_options& o) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  const std::int64_t n = num_vertices(g);
  detail::check_jobs(jobs, n);
  if (!(o.sssp_delta >= 0) || !std::isfinite(o.sssp_delta))
    detail::fail("run_jobs: sssp_delta " + std::to_string(o.sssp_delta) +
                 " is not a bucket width (a finite number >= 0; 0: the mean weight)");
  job_set_result<G> r;
  r.jobs = jobs;
  r.column.assign(jobs.size(), -1);
  std::vector<std::size_t> of[4];
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto& list = of[int(jobs[i].kind)];
    r.column[i] = std::int64_t(list.size());
    list.push_back(i);
  }
  const auto& bfs_jobs = of[int(job_kind::bfs)];
  const auto& sssp_jobs = of[int(job_kind::sssp)];
  const auto& pr_jobs = of[int(job_kind::pagerank)];
  const auto& jac_jobs = of[int(job_kind::jaccard)];
  r.level_matrix = decltype(r.level_matrix)("graph::jobs::levels", n, bfs_jobs.size());
  r.distance_matrix = decltype(r.distance_matrix)("graph::jobs::distances", n, sssp_jobs.size());
  r.rank_matrix = decltype(r.rank_matrix)("graph::jobs::ranks", n, pr_jobs.size());

  // Breadth-first search: alone, or fused (job_options::fuse_bfs_from).
  if (!bfs_jobs.empty()) {
    const std::size_t nb = bfs_jobs.size();
    std::size_t alone = 0;  // columns [0, alone) ran one after another
    vertex_property_map<G, std::int32_t> lv(g);
    const auto run_alone = [&](std::size_t c) {
      const bfs_result b = breadth_first_search(g, V(jobs[bfs_jobs[c]].source), bfs_levels_visitor<G>(lv));
      detail::put_column<Exec>(r.level_matrix, std::int64_t(c), lv.view());
      return b;
    };
    if (!o.fuse || nb == 1 || tessera::is_host_execution_space<Exec>::value) {
      // The first search alone; it says whether the rest are fused.
      const bfs_result first = run_alone(alone++);
      const bool fuse_rest = o.fuse && nb - 1 >= std::size_t(std::max(o.fuse_bfs_from, 2)) &&
                             first.levels <= o.fuse_bfs_max_levels;
      if (!fuse_rest)
        while (alone < nb) run_alone(alone++);
    }
    if (alone < nb) {
      std::vector<std::int64_t> src;
      for (std::size_t c = alone; c < nb; ++c) src.push_back(jobs[bfs_jobs[c]].source);
      const auto fused = multi_source_bfs(g, src, o.traversal);
      const std::int64_t first = std::int64_t(alone), k = std::int64_t(src.size());
      if (first == 0) {
        r.level_matrix = fused;
      } else {
        const auto lm = r.level_matrix;
        tessera::parallel_for("graph::jobs::bfs::fused_columns", tessera::RangePolicy<Exec>(0, n),
                              TESSERA_LAMBDA(std::int64_t v) {
                                for (std::int64_t j = 0; j < k; ++j) lm(v, first + j) = fused(v, j);
                              });
      }
      r.bfs_fused = k;
    }
  }

  // Shortest paths.
  if (!sssp_jobs.empty()) {
    edge_property_map<G, double, S> unit;
    const bool has_weights = weights != nullptr;
    double delta = o.sssp_delta;
    if (has_weights) {
      if (weights->size() != edge_index_bound(g))
        detail::fail("run_jobs: weight map '" + weights->label() + "' has " + std::to_string(weights->size()) + " values for " +
                     std::to_string(edge_index_bound(g)) + " edge indices");
      const auto w = weights->view();
      std::int64_t bad = weights->size();
      double sum = 0;
      tessera::parallel_reduce(
          "graph::jobs::sssp::check", tessera::RangePolicy<Exec>(0, weights->size()),
          TESSERA_LAMBDA(std::int64_t i, std::int64_t & b, double& s) {
            if (!(w(i) >= 0.0) && i < b) b = i;
            s += w(i);
          },
          tessera::Min<std::int64_t>(bad), tessera::Sum<double>(sum));
      if (bad < weights->size())
        detail::fail("run_jobs: weight map '" + weights->label() + "' has a negative or NaN weight at edge index " +
                     std::to_string(bad) + " (shortest-path jobs need non-negative weights)");
      if (delta <= 0) delta = weights->size() > 0 && sum > 0 ? sum / double(weights->size()) : 1.0;
    } else if (delta <= 0) {
      delta = 1.0;
    }
    if (sssp_jobs.size() == 1 || !o.fuse) {
      if (!has_weights) unit = edge_property_map<G, double, S>(g, 1.0, "unit_weight");
      const auto& w = has_weights ? *weights : unit;
      vertex_property_map<G, double> d(g);
      for (std::size_t c = 0; c < sssp_jobs.size(); ++c) {
        delta_stepping_shortest_paths(g, jobs[sssp_jobs[c]].source, w, d, delta);
        detail::put_column<Exec>(r.distance_matrix, std::int64_t(c), d.view());
      }
    } else {
      const auto wv = has_weights ? weights->view() : typename edge_property_map<G, double, S>::view_type();
      for (std::size_t base = 0; base < sssp_jobs.size(); base += 64) {
        const int cnt = int(std::min<std::size_t>(64, sssp_jobs.size() - base));
        std::vector<std::int64_t> src;
        for (int k = 0; k < cnt; ++k) src.push_back(jobs[sssp_jobs[base + std::size_t(k)]].source);
        detail::sssp_lanes(has_weights ? detail::with_stored_edge_indices(g) : g, r.distance_matrix, std::int64_t(base), cnt,
                           src, wv, !has_weights, delta, o.traversal);
      }
    }
  }

  // PageRank: uniform jobs alone through pagerank(); batches of up to 8
  // lanes otherwise (the width rounded up to 1, 2, 4 or 8).
  if (!pr_jobs.empty()) {
    const bool alone = pr_jobs.size() == 1 || !o.fuse;
    std::size_t c = 0;
    while (c < pr_jobs.size()) {
      const graph_job& j = jobs[pr_jobs[c]];
      if (alone && j.personalization.empty()) {
        vertex_property_map<G, double> pr(g);
        r.pagerank_iterations.push_back(pagerank(g, pr, j.damping, o.pagerank_tolerance, o.pagerank_max_iterations));
        detail::put_column<Exec>(r.rank_matrix, std::int64_t(c), pr.view());
        ++c;
        continue;
      }
      const std::size_t cnt = alone ? 1 : std::min<std::size_t>(8, pr_jobs.size() - c);
      std::vector<const graph_job*> batch;
      for (std::size_t k = 0; k < cnt; ++k) batch.push_back(&jobs[pr_jobs[c + k]]);
      const auto col0 = std::int64_t(c);
      if (cnt == 1) detail::pagerank_batch<1, Pull>(g, r.rank_matrix, col0, batch, o, r.pagerank_iterations);
      else if (cnt == 2) detail::pagerank_batch<2, Pull>(g, r.rank_matrix, col0, batch, o, r.pagerank_iterations);
      else if (cnt <= 4) detail::pagerank_batch<4, Pull>(g, r.rank_matrix, col0, batch, o, r.pagerank_iterations);
      else detail::pagerank_batch<8, Pull>(g, r.rank_matrix, col0, batch, o, r.pagerank_iterations);
      c += cnt;
    }
  }

  // Jaccard similarity.
  if (!jac_jobs.empty()) {
    std::vector<std::int64_t> us, vs;
    for (auto i : jac_jobs) us.push_back(jobs[i].u), vs.push_back(jobs[i].v);
    if (o.fuse) {
      r.jaccard = detail::jaccard_pairs(g, us, vs);
    } else {
      for (std::size_t k = 0; k < us.size(); ++k) r.jaccard.push_back(detail::jaccard_pairs(g, {us[k]}, {vs[k]})[0]);
    }
  }
  return r;
}

}  // namespace detail

// Runs a job set; weights (one per edge index, non-negative) serve the
// shortest-path jobs. Errors (a vertex outside the graph, a damping outside
// [0, 1), a negative weight) name the job and its origin, before any job runs.
template <class G, class S>
job_set_result<G> run_jobs(const G& g, const std::vector<graph_job>& jobs, const edge_property_map<G, double, S>* weights,
                           const job_options& o = {}) {
  return detail::run_jobs_with<detail::jobs_pull_schedule_for<G>>(g, jobs, weights, o);
}

// Without weights: every shortest-path job uses weight 1 on every edge.
template <class G>
job_set_result<G> run_jobs(const G& g, const std::vector<graph_job>& jobs, const job_options& o = {}) {
  return run_jobs(g, jobs, static_cast<const edge_property_map<G, double, typename G::space_type>*>(nullptr), o);
}
template <class G, class S>
job_set_result<G> run_jobs(const G& g, const std::vector<graph_job>& jobs, const edge_property_map<G, double, S>& weights,
                           const job_options& o = {}) {
  return run_jobs(g, jobs, &weights, o);
}

}  // namespace tessera::graph
