// Generators: parallel on the default host space, deterministic per seed.
#include <tessera/graph/generators.hpp>

#include <tessera/core.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace tessera::graph {

namespace {
[[noreturn]] void bad_arg(const std::string& what) { throw std::invalid_argument("tessera::graph: " + what); }
}  // namespace

edge_list kronecker(int scale, int edge_factor, std::uint64_t seed, const kronecker_parameters& p,
                    const read_options& progress) {
  return detail::kronecker_share(scale, edge_factor, seed, p, 0, 1, progress);
}

bool is_kronecker_spec(const std::string& text) { return text.rfind("kron:", 0) == 0; }

kronecker_spec parse_kronecker_spec(const std::string& spec, int max_scale) {
  std::vector<std::string> parts;
  if (is_kronecker_spec(spec))
    for (std::size_t b = 5;;) {
      const auto e = spec.find(':', b);
      parts.push_back(spec.substr(b, e == std::string::npos ? std::string::npos : e - b));
      if (e == std::string::npos) break;
      b = e + 1;
    }
  if (parts.size() < 2 || parts.size() > 3)
    throw std::invalid_argument("generator spec is kron:SCALE:EDGEFACTOR[:SEED], got '" + spec + "'");
  const auto field = [&](std::size_t i, const char* what, long long lo, long long hi) {
    const std::string& s = parts[i];
    long long v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
      throw std::invalid_argument("generator spec '" + spec + "': " + what + " must be an integer, got '" + s + "'");
    if (v < lo || v > hi)
      throw std::invalid_argument("generator spec '" + spec + "': " + what + " must be in " + std::to_string(lo) +
                                  ".." + std::to_string(hi) + ", got " + s);
    return v;
  };
  kronecker_spec k;
  k.scale = int(field(0, "SCALE", 1, max_scale));
  k.edge_factor = int(field(1, "EDGEFACTOR", 1, 1024));
  if (parts.size() == 3) k.seed = std::uint64_t(field(2, "SEED", 0, std::numeric_limits<long long>::max()));
  return k;
}

namespace detail {
edge_list kronecker_share(int scale, int edge_factor, std::uint64_t seed, const kronecker_parameters& p,
                          int part, int parts, const read_options& progress) {
  if (scale < 1 || scale > 40) bad_arg("kronecker: scale " + std::to_string(scale) + " outside 1..40");
  if (edge_factor < 1) bad_arg("kronecker: edge factor " + std::to_string(edge_factor) + " must be positive");
  if (p.a < 0 || p.b < 0 || p.c < 0 || p.a + p.b + p.c >= 1.0)
    bad_arg("kronecker: probabilities a, b, c must be non-negative with a + b + c < 1");
  if (parts < 1 || part < 0 || part >= parts)
    bad_arg("kronecker: share " + std::to_string(part) + " of " + std::to_string(parts) + " does not exist");
  const std::int64_t n = std::int64_t(1) << scale;
  const std::int64_t m = n * edge_factor;
  const std::int64_t first = m / parts * part + std::min<std::int64_t>(part, m % parts);
  const std::int64_t count = m / parts + (part < m % parts ? 1 : 0);
  edge_list el;
  el.num_vertices = n;
  el.origin = "kron:" + std::to_string(scale) + ":" + std::to_string(edge_factor);
  el.src.resize(std::size_t(count));
  el.dst.resize(std::size_t(count));
  std::int64_t* src = el.src.data();
  std::int64_t* dst = el.dst.data();
  using Exec = tessera::DefaultHostExecutionSpace;
  // In slices, so a long generation can report progress.
  const std::int64_t slice = std::max<std::int64_t>(std::int64_t(1) << 22, count / 64);
  for (std::int64_t lo = 0; lo < count; lo += slice) {
    const std::int64_t hi = std::min(count, lo + slice);
    tessera::parallel_for("graph::kronecker", tessera::RangePolicy<Exec>(lo, hi),
                          [=](std::int64_t i) { kronecker_edge(scale, seed, p, first + i, src[i], dst[i]); });
    if (progress.progress) progress.progress("generating", hi, count, progress.progress_user);
  }
  if (p.permute_vertices) {
    const std::vector<std::int64_t> perm = kronecker_permutation(scale, seed);
    const std::int64_t* pp = perm.data();
    tessera::parallel_for("graph::kronecker::permute", tessera::RangePolicy<Exec>(0, count),
                          [=](std::int64_t i) {
                            src[i] = pp[src[i]];
                            dst[i] = pp[dst[i]];
                          });
  }
  return el;
}

std::vector<std::int64_t> kronecker_permutation(int scale, std::uint64_t seed) {
  // A seeded Fisher-Yates permutation hides the R-MAT degree/id correlation.
  const std::int64_t n = std::int64_t(1) << scale;
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) perm[std::size_t(i)] = i;
  std::uint64_t s = mix64(seed + 0x5eed);
  for (std::int64_t i = n - 1; i > 0; --i) {
    s = mix64(s);
    std::swap(perm[std::size_t(i)], perm[std::size_t(s % std::uint64_t(i + 1))]);
  }
  return perm;
}
}  // namespace detail

edge_list erdos_renyi(std::int64_t n, std::int64_t m, std::uint64_t seed) {
  if (n < 0) bad_arg("erdos_renyi: negative vertex count " + std::to_string(n));
  if (m < 0) bad_arg("erdos_renyi: negative edge count " + std::to_string(m));
  if (m > 0 && n < 2) bad_arg("erdos_renyi: " + std::to_string(m) + " edges need at least 2 vertices");
  edge_list el;
  el.num_vertices = n;
  el.origin = "er:" + std::to_string(n) + ":" + std::to_string(m);
  el.src.resize(std::size_t(m));
  el.dst.resize(std::size_t(m));
  std::int64_t* src = el.src.data();
  std::int64_t* dst = el.dst.data();
  tessera::parallel_for("graph::erdos_renyi", tessera::RangePolicy<tessera::DefaultHostExecutionSpace>(0, m),
                        [=](std::int64_t i) {
                          std::uint64_t s = detail::mix64(seed ^ detail::mix64(std::uint64_t(i) + 0x1234567ULL));
                          const std::int64_t u = std::int64_t(s % std::uint64_t(n));
                          s = detail::mix64(s);
                          // Uniform over the other n-1 vertices: no self-loops.
                          std::int64_t v = std::int64_t(s % std::uint64_t(n - 1));
                          if (v >= u) ++v;
                          src[i] = u;
                          dst[i] = v;
                        });
  return el;
}

edge_list grid_2d(std::int64_t nx, std::int64_t ny) { return grid_3d(nx, ny, 1); }

edge_list grid_3d(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  if (nx < 0 || ny < 0 || nz < 0)
    bad_arg("grid: negative extent (" + std::to_string(nx) + ", " + std::to_string(ny) + ", " + std::to_string(nz) + ")");
  edge_list el;
  el.num_vertices = nx * ny * nz;
  el.origin = "grid:" + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
  el.symmetric = true;
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x) {
        const std::int64_t v = x + nx * (y + ny * z);
        if (x + 1 < nx) el.add(v, v + 1);
        if (y + 1 < ny) el.add(v, v + nx);
        if (z + 1 < nz) el.add(v, v + nx * ny);
      }
  return el;
}

}  // namespace tessera::graph
