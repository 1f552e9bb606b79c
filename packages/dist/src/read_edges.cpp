// Parallel edge-list and Matrix Market readers: each rank reads and parses
// the lines that start in its byte range of the body. The rules and
// messages follow the node-level readers (packages/graph/src/read_snap.cpp,
// read_matrix_market.cpp): the fields of a line, its tokens and the Matrix
// Market header come from the same helpers (graph/detail/text_lines.hpp).
#include <tessera/dist/graph/read.hpp>
#include <tessera/graph/detail/text_lines.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::dist {

namespace {

std::string where(const std::string& path, std::int64_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

// A file read by ranges with pread; errors are "<path>:0: <problem>".
class RangeFile {
 public:
  explicit RangeFile(const std::string& path) : m_path(path) {
    m_fd = ::open(path.c_str(), O_RDONLY);
    if (m_fd < 0)
      throw std::runtime_error(where(path, 0) + "cannot open the file (" + std::strerror(errno) + ")");
    struct stat st {};
    if (::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(m_fd);
      throw std::runtime_error(where(path, 0) +
                               "not a regular file: the parallel reader needs to read it by byte ranges");
    }
    m_size = std::int64_t(st.st_size);
  }
  ~RangeFile() { ::close(m_fd); }
  RangeFile(const RangeFile&) = delete;
  RangeFile& operator=(const RangeFile&) = delete;
  std::int64_t size() const { return m_size; }
  std::string read(std::int64_t begin, std::int64_t end) const {
    std::string s(std::size_t(std::max<std::int64_t>(end - begin, 0)), '\0');
    std::size_t got = 0;
    while (got < s.size()) {
      const ssize_t r = ::pread(m_fd, s.data() + got, s.size() - got, off_t(begin + std::int64_t(got)));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0)
        throw std::runtime_error(where(m_path, 0) + "read failed (" +
                                 (r < 0 ? std::strerror(errno) : "file shrank") + ")");
      got += std::size_t(r);
    }
    return s;
  }
  // The first line start at or after x (x itself when a line starts there,
  // the end of the file when none does). lo: the start of the text.
  std::int64_t line_start_from(std::int64_t x, std::int64_t lo) const {
    if (x <= lo || x >= m_size) return std::min(std::max(x, lo), m_size);
    constexpr std::int64_t block = 1 << 16;
    for (std::int64_t at = x - 1; at < m_size; at += block) {
      const std::string s = read(at, std::min(at + block, m_size));
      const auto nl = s.find('\n');
      if (nl != std::string::npos) return at + std::int64_t(nl) + 1;
    }
    return m_size;
  }

 private:
  std::string m_path;
  int m_fd = -1;
  std::int64_t m_size = 0;
};

// This rank's lines of the body [body, size): its text and the number of
// its first line.
struct LineRange {
  std::string text;
  std::int64_t first_line = 1;
  std::int64_t lines = 0;      // lines that start in the text
  std::int64_t last_line = 0;  // number of the file's last line (every rank)
};

LineRange my_lines(const Comm& comm, const RangeFile& f, std::int64_t body) {
  const int P = comm.size(), r = comm.rank();
  const std::int64_t len = f.size() - body;
  auto nominal = [&](int q) { return body + len / P * q + std::min<std::int64_t>(q, len % P); };
  LineRange lr;
  const std::int64_t begin = f.line_start_from(nominal(r), body);
  const std::int64_t end = r + 1 == P ? f.size() : f.line_start_from(nominal(r + 1), body);
  if (begin < end) lr.text = f.read(begin, end);
  lr.lines = std::int64_t(std::count(lr.text.begin(), lr.text.end(), '\n'));
  if (!lr.text.empty() && lr.text.back() != '\n') ++lr.lines;
  return lr;
}

// Fills first_line / last_line from every rank's line count (collective).
void number_lines(const Comm& comm, LineRange& lr, std::int64_t body_first_line) {
  const auto counts = comm.allgather(lr.lines);
  std::int64_t before = 0, total = 0;
  for (int q = 0; q < comm.size(); ++q) {
    if (q < comm.rank()) before += counts[std::size_t(q)];
    total += counts[std::size_t(q)];
  }
  lr.first_line = body_first_line + before;
  lr.last_line = body_first_line + total - 1;
}

using graph::detail::line_fields;
using graph::detail::lower;
using graph::detail::next_line;
using graph::detail::parse_int;
using graph::detail::parse_real;
using graph::detail::shown;

// The first few bad lines of this rank, as the node-level readers report them.
struct Problems {
  static constexpr std::size_t max_problems = 3;
  std::vector<std::pair<std::int64_t, std::string>> list;
  bool add(std::int64_t line, std::string what) {
    list.emplace_back(line, std::move(what));
    return list.size() < max_problems;
  }
  std::string message(const std::string& path) const {
    if (list.empty()) return "";
    std::string msg = where(path, list[0].first) + list[0].second;
    for (std::size_t i = 1; i < list.size(); ++i)
      msg += (i == 1 ? " (also line " : "; line ") + std::to_string(list[i].first) + ": " + list[i].second;
    if (list.size() > 1) msg += ")";
    return msg;
  }
};

bool comment(const line_fields& lf, bool hash_too) {
  return lf.field[0][0] == '%' || (hash_too && lf.field[0][0] == '#');
}

// The Matrix Market header as rank 0 reads it, in growing prefixes of the
// file until the size line is complete, by the node-level reader's rules
// (graph::detail::parse_mm_header); trivially copyable, to broadcast.
struct MMHeader {
  std::int64_t rows = -1, cols = -1, nnz = -1, size_line = 0, body = 0;
  int field = 0;     // 0 pattern, 1 integer, 2 real
  int symmetry = 0;  // 0 general, 1 symmetric, 2 skew-symmetric
};

MMHeader read_mm_header(const std::string& path) {
  const RangeFile f(path);
  for (std::int64_t want = 1 << 16;; want *= 4) {
    const std::int64_t have = std::min(want, f.size());
    const std::string text = f.read(0, have);
    const auto h = graph::detail::parse_mm_header(path, text, have == f.size());
    if (!h) continue;  // the size line lies beyond this prefix
    MMHeader m;
    m.rows = h->rows;
    m.cols = h->cols;
    m.nnz = h->nnz;
    m.size_line = h->size_line;
    m.body = std::int64_t(h->body);
    m.field = h->field == "pattern" ? 0 : h->field == "integer" ? 1 : 2;
    m.symmetry = h->symmetry == "general" ? 0 : h->symmetry == "symmetric" ? 1 : 2;
    return m;
  }
}

}  // namespace

graph::edge_list read_snap(const Comm& comm, const std::string& path) {
  graph::edge_list el;
  el.origin = path;
  LineRange lr;
  comm.agreed([&] {
    const RangeFile f(path);
    lr = my_lines(comm, f, 0);
  });
  number_lines(comm, lr, 1);
  const std::string_view text(lr.text);
  // The first edge line of the file fixes the number of fields: each rank
  // finds its own first one, the lowest rank that has one decides.
  struct First {
    std::int64_t fields = 0, line = 0;
  };
  First mine;
  {
    line_fields lf;
    std::int64_t line = lr.first_line - 1;
    for (const char *p = text.data(), *end = p + text.size(); p < end;) {
      p = next_line(p, end, lf);
      ++line;
      if (lf.count == 0 || comment(lf, true)) continue;
      mine = {lf.count, line};
      break;
    }
  }
  First first;
  for (const First& x : comm.allgather(mine))
    if (x.line > 0) {
      first = x;
      break;
    }
  const bool weighted = first.fields == 3;
  const std::int64_t id_limit = std::int64_t(1) << 40;
  std::int64_t max_id = -1;
  Problems problems;
  {
    line_fields lf;
    std::int64_t line = lr.first_line - 1;
    auto bad = [&](std::string what) { return problems.add(line, std::move(what)); };
    for (const char *p = text.data(), *end = p + text.size(); p < end;) {
      p = next_line(p, end, lf);
      ++line;
      if (lf.count == 0 || comment(lf, true)) continue;
      std::int64_t u = 0, v = 0;
      bool go = true;
      if (lf.count != 2 && lf.count != 3)
        go = bad("an edge line holds 'source target [weight]', found " + shown(lf.line));
      else if (lf.count != first.fields)
        go = bad("this line has " + std::to_string(lf.count) + " fields, line " + std::to_string(first.line) +
                 " had " + std::to_string(first.fields));
      else if (!parse_int(lf.field[0], u) || u < 0)
        go = bad("source " + shown(lf.field[0]) + " is not a vertex id (a non-negative integer)");
      else if (!parse_int(lf.field[1], v) || v < 0)
        go = bad("target " + shown(lf.field[1]) + " is not a vertex id (a non-negative integer)");
      else if (u >= id_limit || v >= id_limit)
        go = bad("vertex id " + std::to_string(std::max(u, v)) + " too large (the limit is 2^40)");
      else {
        if (weighted) {
          double w = 0;
          bool overflow = false;
          if (!parse_real(lf.field[2], w, overflow))
            go = bad("weight " + shown(lf.field[2]) +
                     (overflow ? " is too large for a double" : " is not a number"));
        }
        if (go) {
          el.add(u, v);
          max_id = std::max({max_id, u, v});
        }
      }
      if (!go) break;
    }
  }
  comm.agree(problems.message(path));
  el.num_vertices = comm.max(max_id) + 1;
  return el;
}

graph::edge_list read_matrix_market(const Comm& comm, const std::string& path) {
  MMHeader h = comm.agreed([&] { return comm.rank() == 0 ? read_mm_header(path) : MMHeader(); });
  h = comm.broadcast(h);
  LineRange lr;
  comm.agreed([&] {
    const RangeFile f(path);
    lr = my_lines(comm, f, h.body);
  });
  number_lines(comm, lr, h.size_line + 1);
  graph::edge_list el;
  el.origin = path;
  el.mm_field = h.field == 0 ? "pattern" : h.field == 1 ? "integer" : "real";
  el.mm_symmetry = h.symmetry == 0 ? "general" : h.symmetry == 1 ? "symmetric" : "skew-symmetric";
  el.mm_rows = h.rows;
  el.mm_cols = h.cols;
  el.symmetric = h.symmetry != 0;
  el.bipartite = h.rows != h.cols;
  el.num_vertices = el.bipartite ? h.rows + h.cols : h.rows;
  const std::int64_t col_shift = el.bipartite ? h.rows : 0;
  const bool pattern = h.field == 0, integer = h.field == 1, skew = h.symmetry == 2;
  const int want_fields = pattern ? 2 : 3;
  const std::string arity = pattern ? "a pattern entry needs 2 fields (row column)"
                                    : "a" + std::string(integer ? "n integer" : " real") +
                                          " entry needs 3 fields (row column value)";
  const std::string_view text(lr.text);
  Problems problems;
  {
    line_fields lf;
    std::int64_t line = lr.first_line - 1;
    auto bad = [&](std::string what) { return problems.add(line, std::move(what)); };
    for (const char *p = text.data(), *end = p + text.size(); p < end;) {
      p = next_line(p, end, lf);
      ++line;
      if (lf.count == 0 || lf.field[0][0] == '%') continue;
      std::int64_t i = 0, j = 0;
      bool go = true;
      if (lf.count != want_fields)
        go = bad(arity + ", found " + std::to_string(lf.count) + ": " + shown(lf.line));
      else if (!parse_int(lf.field[0], i))
        go = bad("row index " + shown(lf.field[0]) + " is not an integer");
      else if (!parse_int(lf.field[1], j))
        go = bad("column index " + shown(lf.field[1]) + " is not an integer");
      else if (i < 1 || i > h.rows)
        go = bad("row index " + std::to_string(i) + " outside 1.." + std::to_string(h.rows));
      else if (j < 1 || j > h.cols)
        go = bad("column index " + std::to_string(j) + " outside 1.." + std::to_string(h.cols));
      else if (skew && i == j)
        go = bad("a skew-symmetric matrix has no diagonal entries (" + std::to_string(i) + ", " +
                 std::to_string(j) + ")");
      else if (!pattern) {
        const std::string_view value = lf.field[2];
        if (integer) {
          std::int64_t iv = 0;
          if (!parse_int(value, iv)) go = bad("value " + shown(value) + " is not an integer");
        } else {
          double x = 0;
          bool overflow = false;
          if (!parse_real(value, x, overflow))
            go = bad("value " + shown(value) +
                     (overflow ? " is too large for a double" : " is not a real number"));
        }
      }
      if (go) el.add(i - 1, col_shift + j - 1);
      if (!go) break;
    }
  }
  comm.agree(problems.message(path));

  // The entry count against the size line.
  const auto counts = comm.allgather(el.size());
  std::int64_t before = 0, total = 0;
  for (int q = 0; q < comm.size(); ++q) {
    if (q < comm.rank()) before += counts[std::size_t(q)];
    total += counts[std::size_t(q)];
  }
  if (total > h.nnz) {
    // The rank holding the entry after the declared count names its line.
    std::string err;
    if (before <= h.nnz && h.nnz < before + el.size()) {
      line_fields lf;
      std::int64_t line = lr.first_line - 1, seen = before;
      for (const char *p = text.data(), *end = p + text.size(); p < end;) {
        p = next_line(p, end, lf);
        ++line;
        if (lf.count > 0 && lf.field[0][0] != '%' && ++seen > h.nnz) break;
      }
      err = where(path, line) + "more entries than the " + std::to_string(h.nnz) + " declared on line " +
            std::to_string(h.size_line);
    }
    comm.agree(err);
  }
  if (total < h.nnz)
    throw dist_error(where(path, std::max(lr.last_line, h.size_line)) + "the file ends after " +
                     std::to_string(total) + " of the " + std::to_string(h.nnz) +
                     " entries declared on line " + std::to_string(h.size_line));
  return el;
}

graph::edge_list read_edge_list(const Comm& comm, const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : lower(std::string_view(path).substr(dot));
  if (ext == ".tgb")
    throw dist_error(where(path, 0) +
                     "a binary CSR file: the parallel readers take edge lists and Matrix Market files");
  return ext == ".mtx" ? read_matrix_market(comm, path) : read_snap(comm, path);
}

}  // namespace tessera::dist
