#pragma once
// What miniTri is asked (method, block size, priorities) and what it returns
// (triangles, the k-count histogram, memory figures).
//
//   analytics::minitri_options o;            // direct, the default
//   o.method = analytics::method::tasks;  o.block_size = 100;
//   analytics::minitri_result r = analytics::minitri(g, o);
//   r.triangles; r.histogram[k];  r.peak_bytes;
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::analytics {

// The three formulations; all give the same histogram, bit for bit.
enum class method {
  direct,  // two passes over the triangles, none stored: O(V + E) memory (the default, the fast path)
  tasks,   // task DAG over 1-D row blocks, respawn on the degree tasks, triangles freed per block
  data,    // bulk-synchronous: one kernel per step, a barrier between steps, every triangle stored
};

inline const char* to_string(method m) {
  switch (m) {
    case method::direct: return "direct";
    case method::tasks: return "tasks";
    case method::data: return "data";
  }
  return "?";
}

// "direct" | "tasks" | "data"; anything else throws std::invalid_argument naming it.
inline method parse_method(const std::string& s) {
  if (s == "direct") return method::direct;
  if (s == "tasks") return method::tasks;
  if (s == "data") return method::data;
  throw std::invalid_argument("unknown miniTri method '" + s + "' (expected direct, tasks or data)");
}

// direct: how a row's triangles are found. marks: u's out-list written into
// an array of n entries per thread and each out-neighbour of its
// out-neighbours looked up (host spaces; detail/direct_marks.hpp); merge:
// the sorted merge of for_each_triangle_in_row (every space, O(V + E)
// memory). automatic: marks on a host space unless the arrays would outweigh
// the orientation, else merge. Both give the same histogram.
enum class triangle_lookup { automatic, marks, merge };

// direct by marks: where pass 1 adds its counts. A triangle u -> v -> w
// adds to t_e of {v, w}, the one edge of the three that u's row does not
// own, and to t_v of v and w (the rest gather per row and per v).
// per_thread: each pool thread has an 8-bit counter per edge for {v, w} (a
// counter that wraps carries 256 into t_e) and a t_v of its own, m + 8n
// bytes a thread, added into t_v and t_e after the pass: no atomic per
// triangle. shared: atomic adds into t_e and t_v themselves (plain on
// Serial), which two threads contend for on the hubs: on facebook, pass 1
// took as long on two threads as on one. automatic: per_thread on a pool of
// threads while every thread's counters together weigh no more than the
// orientation, else shared. Both give the same t_v and t_e.
enum class edge_count_updates { automatic, per_thread, shared };

struct minitri_options {
  analytics::method method = analytics::method::direct;
  // tasks: rows per block (each block is one enumeration, two degree tasks
  // and one k-count task).
  std::int64_t block_size = 100;
  // tasks: k-count tasks run at High priority (else Regular), so a block's
  // triangles are counted and freed as soon as its degrees are final.
  bool priorities = true;
  // tasks: free a block's triangles when its k-count task finishes (else keep
  // them to the end, as data does).
  bool free_triangles = true;
  // tasks: an enumeration task runs at most this many blocks ahead of the
  // oldest unfinished k-count, unless a waiting k-count needs its block
  // (0: 4 per worker thread). Bounds the stored triangles when the
  // dependencies are local; never stops progress.
  std::int64_t window_blocks = 0;
  // direct: marks or merge (above); marks on a GPU space is the merge.
  triangle_lookup lookup = triangle_lookup::automatic;
  // direct by marks: per-thread or shared t_v and t_e counts of pass 1 (above).
  edge_count_updates edge_counts = edge_count_updates::automatic;
  // Copy t_v and t_e into the result (host vectors), e.g. to check them.
  bool keep_degrees = false;
};

struct minitri_result {
  analytics::method method = analytics::method::direct;
  std::int64_t vertices = 0;
  std::int64_t edges = 0;       // undirected edges of the simple graph
  std::int64_t triangles = 0;
  // k -> number of triangles whose k is exactly k; only k that occur.
  std::map<int, std::int64_t> histogram;
  // Bytes of everything the computation allocates beyond the input graph
  // (orientation, degrees, histogram, stored triangles, task memory), at
  // the peak. Counted from the sizes of the arrays, not sampled.
  std::int64_t peak_bytes = 0;
  // Triangles held in memory at once, at the peak: T for data, 0 for direct.
  std::int64_t peak_stored_triangles = 0;
  std::int64_t blocks = 0;      // tasks: number of row blocks
  // With keep_degrees: t_v per vertex, t_e per edge index of the input graph.
  std::vector<std::int64_t> vertex_triangles, edge_triangles;
  // The largest k with a nonzero count: an upper bound on the largest clique
  // (0 without triangles).
  int max_k() const { return histogram.empty() ? 0 : histogram.rbegin()->first; }
};

}  // namespace tessera::analytics
