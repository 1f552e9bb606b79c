#pragma once
// miniTri: every triangle of an undirected graph, the triangle vertex and
// edge degrees t_v and t_e, and the histogram over triangles of the largest
// k each may belong to (triangle.hpp). One entry point, three methods:
//
//   namespace ta = tessera::analytics;
//   using G = tessera::graph::compressed_sparse_row_graph<tessera::graph::undirectedS, tessera::Threads>;
//   G g(ta::load_graph("karate.mtx").edges, tessera::graph::build_options::simple());
//   ta::minitri_result r = ta::minitri(g);                                 // direct
//   r = ta::minitri(g, {.method = ta::method::tasks, .block_size = 100});   // task DAG
//   r.triangles;  r.histogram;  r.max_k();  r.peak_bytes;
//
// The methods share the orientation, the triangle kernel and the k rule,
// and give identical histograms. tasks needs a host execution space.
#include <tessera/analytics/minitri_data.hpp>
#include <tessera/analytics/minitri_direct.hpp>
#include <tessera/analytics/minitri_options.hpp>
#include <tessera/analytics/minitri_tasks.hpp>

namespace tessera::analytics {

template <class G>
minitri_result minitri(const G& g, const minitri_options& opts = {}) {
  switch (opts.method) {
    case method::direct: return minitri_direct(g, opts);
    case method::data: return minitri_data(g, opts);
    case method::tasks:
      if constexpr (tessera::is_host_execution_space<typename G::execution_space>::value) return minitri_tasks(g, opts);
      else throw std::invalid_argument("tessera::analytics::minitri: the tasks method needs a host execution space");
  }
  throw std::invalid_argument("tessera::analytics::minitri: unknown method");
}

}  // namespace tessera::analytics
