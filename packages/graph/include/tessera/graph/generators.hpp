#pragma once
// Graph generators. Each returns a host edge_list; all are deterministic
// for their arguments (the same seed gives the same edges on every back-end
// and thread count: each edge draws from its own counter-based stream).
//
//   kronecker(scale, edge_factor, seed)        Graph500 R-MAT: 2^scale vertices, edge_factor*2^scale edges,
//                                              A=0.57 B=0.19 C=0.19, vertex labels permuted; self-loops and
//                                              duplicates are kept (build with build_options::simple())
//   erdos_renyi(n, m, seed)                    G(n, M): m edges with independent uniform endpoints, no loops
//   grid_2d(nx, ny)  grid_3d(nx, ny, nz)       4- / 6-neighbour lattices, each edge once, vertex x + nx*(y + ny*z)
#include <tessera/graph/edge_list.hpp>
#include <tessera/graph/io.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::graph {

struct kronecker_parameters {
  double a = 0.57, b = 0.19, c = 0.19;  // d = 1 - a - b - c
  bool permute_vertices = true;
};

edge_list kronecker(int scale, int edge_factor, std::uint64_t seed, const kronecker_parameters& p = {},
                    const read_options& progress = {});

// A generator spec as the CLIs take it: kron:SCALE:EDGEFACTOR[:SEED] (seed 1
// by default). SCALE in 1..max_scale, EDGEFACTOR in 1..1024, SEED >= 0;
// anything else throws std::invalid_argument naming the spec and the field
// ("generator spec 'kron:x:4': SCALE must be an integer, got 'x'").
struct kronecker_spec {
  int scale = 0, edge_factor = 0;
  std::uint64_t seed = 1;
};
bool is_kronecker_spec(const std::string& text);  // starts with "kron:"
kronecker_spec parse_kronecker_spec(const std::string& spec, int max_scale = 40);
edge_list erdos_renyi(std::int64_t n, std::int64_t m, std::uint64_t seed);
edge_list grid_2d(std::int64_t nx, std::int64_t ny);
edge_list grid_3d(std::int64_t nx, std::int64_t ny, std::int64_t nz);

namespace detail {
// splitmix64: the counter-based stream behind every generator.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform double in [0, 1) from the top 53 bits of x.
inline double unit_interval(std::uint64_t x) { return double(x >> 11) * (1.0 / 9007199254740992.0); }

// The i-th edge of kronecker(scale, ., seed, p) before the vertex
// permutation: each edge draws from its own stream, so any subset of the
// edge indices (one MPI rank's share, say) can be generated alone.
inline void kronecker_edge(int scale, std::uint64_t seed, const kronecker_parameters& p, std::int64_t i,
                           std::int64_t& u, std::int64_t& v) {
  const double a = p.a, ab = p.a + p.b, abc = p.a + p.b + p.c;
  std::uint64_t state = mix64(seed ^ mix64(std::uint64_t(i)));
  u = 0;
  v = 0;
  for (int level = 0; level < scale; ++level) {
    state = mix64(state);
    const double r = unit_interval(state);
    const int q = r < a ? 0 : r < ab ? 1 : r < abc ? 2 : 3;
    u = (u << 1) | (q >> 1);
    v = (v << 1) | (q & 1);
  }
}

// Share `part` of `parts` of kronecker(scale, edge_factor, seed, p): its
// contiguous range of the edge indices (the first m % parts shares one edge
// longer), drawn and relabelled as kronecker draws them, so the shares in
// order are its edge list edge for edge. kronecker itself is share 0 of 1;
// dist's generator gives rank r share r. Bad arguments: std::invalid_argument.
edge_list kronecker_share(int scale, int edge_factor, std::uint64_t seed, const kronecker_parameters& p,
                          int part, int parts, const read_options& progress = {});

// The vertex relabelling of kronecker (when p.permute_vertices): a seeded
// Fisher-Yates permutation of [0, 2^scale), the edge (u, v) becoming
// (perm[u], perm[v]).
std::vector<std::int64_t> kronecker_permutation(int scale, std::uint64_t seed);
}  // namespace detail

}  // namespace tessera::graph
