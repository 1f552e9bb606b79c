#pragma once
// DistGraph: a simple undirected graph spread over the ranks of a Comm by a
// 1-D vertex partition, so that no rank ever holds the whole graph.
//
//   const tessera::dist::Comm world;
//   auto share = tessera::dist::read_edge_list(world, "graph.mtx");   // this rank's bytes of the file
//   const tessera::dist::DistGraph g(world, share);                     // collective
//
// Rank r owns the contiguous global vertex range partition().begin(r) ..
// end(r), balanced by edges (Partition::balanced on the degree prefix), and
// stores the rows of its owned vertices as a local CSR. Local vertex ids:
// owned vertices [0, num_owned()) in global order, then the ghosts (the
// non-owned neighbours of owned vertices) [num_owned(), num_local()) in
// increasing global id, hence grouped by owner rank. Each row lists its
// neighbours in increasing *global* id, as local ids, like the node-level
// CSR rows. Self-loops and repeated edges are dropped exactly as
// graph::build_options::simple() does, so the graph equals the node-level
// compressed_sparse_row_graph<undirectedS> built from the whole list.
//
// The ghost plan: owned vertex send_ids()[k] for k in [send_offsets()[q],
// send_offsets()[q+1]) is a ghost on rank q; update_ghosts(values) sends
// their values and writes the received ones into the ghost entries.
//
// Construction (collective; every rank passes its share of the edges, any
// split will do, and the same num_vertices): the edges go to the owners of
// a uniform vertex split with one Comm::alltoallv (each edge in both
// directions), which sort and deduplicate their rows; the balanced split is
// found from the distributed degree prefix; a second alltoallv moves the
// rows to their final owners; one more exchanges the ghost requests that
// make the plan. A bad id on any rank is the same dist_error on every rank.
// Memory per rank: O(edges of the share + edges and ghosts owned).
#include <tessera/dist/comm.hpp>
#include <tessera/dist/partition.hpp>
#include <tessera/graph/edge_list.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::dist {

// A vertex id local to one rank (owned or ghost).
using local_vertex = std::int32_t;

class DistGraph {
 public:
  // Collective over comm. share.num_vertices is the global vertex count
  // (the same on every rank); ids must lie in [0, num_vertices).
  DistGraph(const Comm& comm, const graph::edge_list& share);

  const Comm& comm() const noexcept { return m_comm; }
  const Partition& partition() const noexcept { return m_partition; }
  const std::string& origin() const noexcept { return m_origin; }
  // Global counts: vertices, and undirected edges (each once).
  std::int64_t num_vertices() const noexcept { return m_n; }
  std::int64_t num_edges() const noexcept { return m_m; }

  // This rank's part.
  std::int64_t owned_begin() const noexcept { return m_partition.begin(m_comm.rank()); }
  std::int64_t owned_end() const noexcept { return m_partition.end(m_comm.rank()); }
  std::int64_t num_owned() const noexcept { return m_partition.count(m_comm.rank()); }
  std::int64_t num_ghosts() const noexcept { return std::int64_t(m_ghosts.size()); }
  std::int64_t num_local() const noexcept { return num_owned() + num_ghosts(); }
  // Entries of the owned rows (each edge between two owned vertices twice).
  std::int64_t num_local_entries() const noexcept { return m_row_map.empty() ? 0 : m_row_map.back(); }

  // Local CSR of the owned rows: num_owned() + 1 offsets, local ids.
  const std::vector<std::int64_t>& row_map() const noexcept { return m_row_map; }
  const std::vector<local_vertex>& adjacency() const noexcept { return m_adjacency; }
  std::int64_t degree(local_vertex v) const noexcept {
    return m_row_map[std::size_t(v) + 1] - m_row_map[std::size_t(v)];
  }

  // Global id of a local vertex; local id of a global one (-1 when it is
  // neither owned nor a ghost here).
  std::int64_t global_id(local_vertex v) const noexcept {
    return v < num_owned() ? owned_begin() + v : m_ghosts[std::size_t(v - num_owned())];
  }
  local_vertex local_id(std::int64_t g) const noexcept {
    if (g >= owned_begin() && g < owned_end()) return local_vertex(g - owned_begin());
    const auto it = std::lower_bound(m_ghosts.begin(), m_ghosts.end(), g);
    return it != m_ghosts.end() && *it == g ? local_vertex(num_owned() + (it - m_ghosts.begin()))
                                            : local_vertex(-1);
  }
  bool is_owned(std::int64_t g) const noexcept { return g >= owned_begin() && g < owned_end(); }
  int owner(std::int64_t g) const noexcept { return m_partition.owner(g); }

  // Ghosts: global ids, increasing; ghost_offsets() (size() + 1 entries)
  // delimit the ghosts owned by each rank, counted from the first ghost.
  const std::vector<std::int64_t>& ghosts() const noexcept { return m_ghosts; }
  const std::vector<std::int64_t>& ghost_offsets() const noexcept { return m_ghost_offsets; }
  // The exchange plan: which owned vertices go to which rank.
  const std::vector<std::int64_t>& send_offsets() const noexcept { return m_send_offsets; }
  const std::vector<local_vertex>& send_ids() const noexcept { return m_send_ids; }

  // Collective: values has num_local() entries; the ghost entries receive
  // their owners' values of the owned entries.
  template <class T>
  void update_ghosts(std::vector<T>& values) const;
  // Collective, the reverse of update_ghosts: each ghost entry of values is
  // added to its owner's entry (ghost entries keep their values).
  template <class T>
  void add_ghosts_to_owners(std::vector<T>& values) const;

 private:
  Comm m_comm;
  Partition m_partition;
  std::string m_origin;
  std::int64_t m_n = 0, m_m = 0;
  std::vector<std::int64_t> m_row_map{0};
  std::vector<local_vertex> m_adjacency;
  std::vector<std::int64_t> m_ghosts;
  std::vector<std::int64_t> m_ghost_offsets;
  std::vector<std::int64_t> m_send_offsets;
  std::vector<local_vertex> m_send_ids;
};

// A vector of the wrong length is this rank's error, agreed on inside the
// exchange: every rank throws it (no rank waits in the alltoallv).
template <class T>
void DistGraph::update_ghosts(std::vector<T>& values) const {
  std::string err;
  if (std::int64_t(values.size()) != num_local())
    err = "tessera::dist::DistGraph::update_ghosts: " + std::to_string(values.size()) + " values for " +
          std::to_string(num_local()) + " local vertices on rank " + std::to_string(m_comm.rank());
  std::vector<T> out(err.empty() ? m_send_ids.size() : 0);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = values[std::size_t(m_send_ids[k])];
  const std::vector<T> in = m_comm.alltoallv(out, m_send_offsets, nullptr, err);
  std::copy(in.begin(), in.end(), values.begin() + num_owned());
}

template <class T>
void DistGraph::add_ghosts_to_owners(std::vector<T>& values) const {
  std::string err;
  if (std::int64_t(values.size()) != num_local())
    err = "tessera::dist::DistGraph::add_ghosts_to_owners: " + std::to_string(values.size()) + " values for " +
          std::to_string(num_local()) + " local vertices on rank " + std::to_string(m_comm.rank());
  // Ghosts are grouped by owner in the order their owners' send_ids list them.
  const std::vector<T> out = err.empty() ? std::vector<T>(values.begin() + num_owned(), values.end()) : std::vector<T>();
  const std::vector<T> in = m_comm.alltoallv(out, m_ghost_offsets, nullptr, err);
  for (std::size_t k = 0; k < in.size(); ++k) values[std::size_t(m_send_ids[k])] += in[k];
}

}  // namespace tessera::dist
