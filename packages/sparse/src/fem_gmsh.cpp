// Gmsh .msh 4.1 ASCII reader (tessera/sparse/fem/mesh.hpp). Every error
// names the file and the line at fault.
#include <tessera/sparse/fem/mesh.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>

namespace tessera::sparse::fem {

namespace {

class MshLines {
 public:
  explicit MshLines(const std::string& path) : m_path(path), m_in(path) {
    if (!m_in) throw sparse_error(path + ": cannot open the file");
  }
  // The next line (trailing '\r' removed); false at the end of the file.
  bool next(std::string& line) {
    if (!std::getline(m_in, line)) return false;
    ++m_line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  std::string need(const char* what) {
    std::string line;
    if (!next(line)) fail("the file ends where " + std::string(what) + " was expected");
    return line;
  }
  [[noreturn]] void fail(const std::string& problem) const {
    throw sparse_error(m_path + ":" + std::to_string(m_line) + ": " + problem);
  }
  // The whitespace-separated numbers of a line, exactly `count` of them
  // (count < 0: any number).
  template <class T>
  std::vector<T> numbers(const std::string& line, int count, const char* what) const {
    std::vector<T> out;
    const char* p = line.data();
    const char* end = p + line.size();
    while (true) {
      while (p < end && (*p == ' ' || *p == '\t')) ++p;
      if (p == end) break;
      T v{};
      auto r = std::from_chars(p, end, v);
      if (r.ec != std::errc() || (r.ptr < end && *r.ptr != ' ' && *r.ptr != '\t'))
        fail(std::string("cannot read ") + what + " from \"" + line + "\"");
      out.push_back(v);
      p = r.ptr;
    }
    if (count >= 0 && int(out.size()) != count)
      fail(std::string(what) + ": expected " + std::to_string(count) + " numbers, found " + std::to_string(out.size()) +
           " in \"" + line + "\"");
    return out;
  }
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
  std::ifstream m_in;
  std::int64_t m_line = 0;
};

int gmsh_dimension(int type) {
  switch (type) {
    case 15: return 0;                   // point
    case 1: case 8: case 26: case 27: case 28: return 1;  // lines
    case 2: case 3: case 9: case 10: case 16: case 20: case 21: case 22: case 23: case 24: case 25: return 2;
    default: return 3;
  }
}

}  // namespace

Mesh read_gmsh(const std::string& path) {
  MshLines in(path);
  std::string line;
  bool have_format = false, have_nodes = false, have_elements = false;
  std::unordered_map<std::int64_t, std::int32_t> node_index;  // Gmsh tag -> 0-based
  std::vector<double> xyz;
  struct Block {
    int dim, type;
    std::vector<std::int64_t> tags;  // node tags, n per element
  };
  std::vector<Block> blocks;
  while (in.next(line)) {
    if (line.empty()) continue;
    if (line[0] != '$') in.fail("expected a section header such as $Nodes, found \"" + line + "\"");
    const std::string section = line.substr(1);
    const std::string end = "$End" + section;
    if (section == "MeshFormat") {
      const std::string f = in.need("the format line");
      std::istringstream s(f);
      std::string version;
      int binary = -1, size = 0;
      s >> version >> binary >> size;
      if (version != "4.1")
        in.fail("format version " + version + " is not supported: Tessera reads MSH 4.1 (save with Gmsh's " +
                "-format msh41 or Mesh.MshFileVersion = 4.1)");
      if (binary != 0) in.fail("binary .msh is not supported: save as ASCII (Mesh.Binary = 0)");
      if (in.need(end.c_str()) != end) in.fail("expected " + end);
      have_format = true;
    } else if (section == "Nodes") {
      if (!have_format) in.fail("$Nodes before $MeshFormat");
      const auto head = in.numbers<std::int64_t>(in.need("the $Nodes header"), 4, "the $Nodes header");
      const std::int64_t nblocks = head[0], nnodes = head[1];
      if (nnodes < 0 || nnodes > std::numeric_limits<std::int32_t>::max()) in.fail("node count " + std::to_string(nnodes));
      // Counts are the file's word: memory grows with the lines actually
      // read, never with a count alone (a header that announces 2^31 nodes
      // in a short file is an error on its last line, not an allocation of
      // 50 GB).
      constexpr std::int64_t kTrustedCount = std::int64_t(1) << 16;
      xyz.reserve(std::size_t(std::min(nnodes, kTrustedCount)) * 3);
      for (std::int64_t b = 0; b < nblocks; ++b) {
        const auto bh = in.numbers<std::int64_t>(in.need("a node block header"), 4, "a node block header");
        const bool parametric = bh[2] != 0;
        const std::int64_t count = bh[3];
        const std::int64_t read = std::int64_t(xyz.size() / 3);
        if (count < 0 || count > nnodes - read)
          in.fail("a node block of " + std::to_string(count) + " nodes, where the $Nodes header announced " +
                  std::to_string(nnodes) + " in all and " + std::to_string(read) + " came before");
        std::vector<std::int64_t> tags;
        tags.reserve(std::size_t(std::min(count, kTrustedCount)));
        const std::int32_t first = std::int32_t(read);
        for (std::int64_t k = 0; k < count; ++k) {
          tags.push_back(in.numbers<std::int64_t>(in.need("a node tag"), 1, "a node tag")[0]);
          if (!node_index.emplace(tags.back(), first + std::int32_t(k)).second)
            in.fail("node tag " + std::to_string(tags.back()) + " is defined twice");
        }
        for (std::int64_t k = 0; k < count; ++k) {
          const std::string l = in.need("node coordinates");
          const auto c = in.numbers<double>(l, -1, "node coordinates");
          if (c.size() < 3 || (!parametric && c.size() != 3))
            in.fail("node " + std::to_string(tags[k]) + ": expected x y z" + (parametric ? " and parameters" : "") +
                    ", found \"" + l + "\"");
          // from_chars reads "nan" and "inf": refused here, where the line
          // is known (an element check would call the element degenerate).
          for (int d = 0; d < 3; ++d)
            if (!std::isfinite(c[std::size_t(d)]))
              in.fail("node " + std::to_string(tags[k]) + ": coordinate " + "xyz"[d] + " is not finite in \"" + l + "\"");
          xyz.insert(xyz.end(), c.begin(), c.begin() + 3);
        }
      }
      if (std::int64_t(node_index.size()) != nnodes)
        in.fail("$Nodes announced " + std::to_string(nnodes) + " nodes, its blocks hold " +
                std::to_string(node_index.size()));
      if (in.need(end.c_str()) != end) in.fail("expected " + end);
      have_nodes = true;
    } else if (section == "Elements") {
      if (!have_nodes) in.fail("$Elements before $Nodes");
      const auto head = in.numbers<std::int64_t>(in.need("the $Elements header"), 4, "the $Elements header");
      for (std::int64_t b = 0; b < head[0]; ++b) {
        const auto bh = in.numbers<std::int64_t>(in.need("an element block header"), 4, "an element block header");
        Block blk{int(bh[0]), int(bh[2]), {}};
        const int n = blk.type == 2 ? 3 : blk.type == 9 ? 6 : blk.type == 4 ? 4 : blk.type == 11 ? 10 : -1;
        if (n < 0 && blk.dim >= 2)
          in.fail("element type " + std::to_string(blk.type) +
                  " is not supported: Tessera's fem takes triangles and tetrahedra (Gmsh types 2, 9, 4, 11)");
        for (std::int64_t k = 0; k < bh[3]; ++k) {
          const std::string l = in.need("an element");
          if (n < 0) continue;  // points and lines: skipped
          const auto v = in.numbers<std::int64_t>(l, n + 1, "an element (its tag and nodes)");
          for (int a = 1; a <= n; ++a) {
            auto it = node_index.find(v[a]);
            if (it == node_index.end())
              in.fail("element " + std::to_string(v[0]) + " refers to node " + std::to_string(v[a]) +
                      ", which $Nodes does not define");
            blk.tags.push_back(it->second);
          }
        }
        blocks.push_back(std::move(blk));
      }
      if (in.need(end.c_str()) != end) in.fail("expected " + end);
      have_elements = true;
    } else {  // $PhysicalNames, $Entities, ...: not needed
      std::string l;
      bool closed = false;
      while (in.next(l))
        if (l == end) {
          closed = true;
          break;
        }
      if (!closed) in.fail("the file ends inside $" + section + " (no " + end + ")");
    }
  }
  if (!have_format) throw sparse_error(path + ": no $MeshFormat section: not a Gmsh .msh file");
  if (!have_elements) throw sparse_error(path + ": no $Elements section");
  int dim = 0;
  for (const auto& b : blocks)
    if (!b.tags.empty()) dim = std::max(dim, b.dim);
  if (dim < 2) throw sparse_error(path + ": no triangles or tetrahedra in $Elements");
  int type = -1;
  std::int64_t count = 0;
  for (const auto& b : blocks)
    if (b.dim == dim && !b.tags.empty()) {
      if (type >= 0 && b.type != type)
        throw sparse_error(path + ": mixes Gmsh element types " + std::to_string(type) + " and " +
                           std::to_string(b.type) + " in dimension " + std::to_string(dim) + " (one type per mesh)");
      type = b.type;
    }
  Mesh m;
  m.type = type == 2 ? ElementType::Triangle3
           : type == 9 ? ElementType::Triangle6
           : type == 4 ? ElementType::Tetrahedron4
                       : ElementType::Tetrahedron10;
  if (gmsh_dimension(type) != dim)
    throw sparse_error(path + ": element type " + std::to_string(type) + " listed in an entity of dimension " +
                       std::to_string(dim));
  const int n = nodes_of(m.type);
  for (const auto& b : blocks)
    if (b.dim == dim) count += std::int64_t(b.tags.size()) / n;
  m.origin = path;
  // Nodes no kept element uses (geometry points, nodes of skipped lower-
  // dimensional elements only) are dropped: they would be empty rows.
  std::vector<std::int32_t> renumber(xyz.size() / 3, -1);
  for (const auto& b : blocks)
    if (b.dim == dim)
      for (std::int64_t v : b.tags) renumber[std::size_t(v)] = 0;
  std::int32_t nnodes = 0;
  for (auto& r : renumber)
    if (r == 0) r = nnodes++;
  m.coords = View<double**, LayoutRight, HostSpace>("fem::coords", nnodes, dim);
  for (std::size_t i = 0; i < renumber.size(); ++i)
    if (renumber[i] >= 0)
      for (int d = 0; d < dim; ++d) m.coords(renumber[i], d) = xyz[i * 3 + std::size_t(d)];
  m.elements = View<std::int32_t**, LayoutRight, HostSpace>("fem::elements", count, n);
  std::int64_t e = 0;
  for (const auto& b : blocks)
    if (b.dim == dim)
      for (std::size_t k = 0; k < b.tags.size(); k += n, ++e)
        for (int a = 0; a < n; ++a) m.elements(e, a) = renumber[std::size_t(b.tags[k + a])];
  m.check();
  return m;
}

}  // namespace tessera::sparse::fem
