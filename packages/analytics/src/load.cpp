// Inputs of miniTri: files through the graph readers, generator specs, and
// the clean-up counts.
#include <tessera/analytics/load.hpp>
#include <tessera/graph/generators.hpp>
#include <tessera/graph/io.hpp>

#include <stdexcept>
#include <vector>

namespace tessera::analytics {

namespace {

std::int64_t spec_int(const std::string& s, const std::string& what, const std::string& spec) {
  std::size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &pos);
  } catch (...) {
    pos = std::string::npos;
  }
  if (s.empty() || pos != s.size())
    throw std::invalid_argument("generator spec '" + spec + "': " + what + " must be an integer, got '" + s + "'");
  return v;
}

}  // namespace

graph::edge_list load_edges(const std::string& spec) {
  if (spec.rfind("kron:", 0) != 0) return graph::read_edge_list(spec);
  std::vector<std::string> parts;
  for (std::size_t b = 5;;) {
    const auto e = spec.find(':', b);
    parts.push_back(spec.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  if (parts.size() < 2 || parts.size() > 3)
    throw std::invalid_argument("generator spec is kron:SCALE:EDGEFACTOR[:SEED], got '" + spec + "'");
  const auto scale = spec_int(parts[0], "SCALE", spec);
  const auto ef = spec_int(parts[1], "EDGEFACTOR", spec);
  const auto seed = parts.size() == 3 ? spec_int(parts[2], "SEED", spec) : 1;
  if (scale < 1 || scale > 31)
    throw std::invalid_argument("generator spec '" + spec + "': SCALE must be in 1..31, got " + std::to_string(scale));
  if (ef < 1 || ef > 1024)
    throw std::invalid_argument("generator spec '" + spec + "': EDGEFACTOR must be in 1..1024, got " + std::to_string(ef));
  if (seed < 0) throw std::invalid_argument("generator spec '" + spec + "': SEED must be >= 0, got " + std::to_string(seed));
  auto el = graph::kronecker(int(scale), int(ef), std::uint64_t(seed));
  el.origin = spec;
  return el;
}

cleanup_counts count_cleanup(const graph::edge_list& el, std::int64_t simple_edges) {
  cleanup_counts c;
  c.listed = el.size();
  for (std::size_t i = 0; i < el.src.size(); ++i) c.self_loops += el.src[i] == el.dst[i];
  c.edges = simple_edges;
  c.duplicates = c.listed - c.self_loops - simple_edges;
  return c;
}

}  // namespace tessera::analytics
