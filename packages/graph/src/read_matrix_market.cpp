// Matrix Market coordinate reader: the banner, comments and size line read
// in order (detail::parse_mm_header, shared with the distributed reader),
// then the entries parsed in parallel chunks (text_chunks.hpp).
// Reference: "The Matrix Market Exchange Formats: Initial Design",
// Boisvert, Pozo and Remington, NISTIR 5935 (1996).
#include "text_chunks.hpp"

#include <tessera/graph/io.hpp>

#include <algorithm>
#include <cmath>

namespace tessera::graph {

namespace {

using detail::line_fields;
using detail::next_line;
using detail::shown;

// The header as the node-level reader takes it: what parse_mm_header checks,
// then the reader's own rules (rectangular files, this machine's memory).
detail::mm_header read_header(const std::string& path, const detail::mapped_file& file, const read_options& opts) {
  detail::mm_header h = *detail::parse_mm_header(path, file.view(), true, opts.accept_complex);
  const std::string shape = "the matrix is " + std::to_string(h.rows) + " x " + std::to_string(h.cols);
  if (h.rows != h.cols && opts.rectangular == rectangular_matrix::refuse)
    throw io_error(path, h.size_line, shape + "; a square matrix is needed here");
  detail::check_vertex_count_fits(path, h.size_line, h.rows != h.cols ? h.rows + h.cols : h.rows, shape);
  return h;
}

}  // namespace

edge_list read_matrix_market(const std::string& path, const read_options& opts) {
  const detail::mapped_file file(path);
  const detail::mm_header h = read_header(path, file, opts);
  auto chunks = detail::cut_lines(file, h.body, h.size_line + 1, opts);
  const std::int64_t slots = chunks.empty() ? 0 : chunks.back().first_slot + chunks.back().lines;

  edge_list el;
  el.origin = path;
  el.mm_field = h.field;
  el.mm_symmetry = h.symmetry;
  el.mm_rows = h.rows;
  el.mm_cols = h.cols;
  el.symmetric = h.symmetry != "general";
  const bool rectangular = h.rows != h.cols;
  el.bipartite = rectangular && opts.rectangular == rectangular_matrix::bipartite;
  el.num_vertices = el.bipartite ? h.rows + h.cols : std::max(h.rows, h.cols);
  const std::int64_t col_shift = el.bipartite ? h.rows : 0;
  const bool pattern = h.field == "pattern";
  const bool integer = h.field == "integer";
  const bool skew = h.symmetry == "skew-symmetric";
  const bool complex = h.field == "complex";
  const bool hermitian = h.symmetry == "hermitian";
  detail::size_lists(el, slots, !pattern);
  if (complex) el.weights_imag.resize(el.weights.size());
  const int want_fields = pattern ? 2 : complex ? 4 : 3;
  const std::string arity = pattern   ? "a pattern entry needs 2 fields (row column)"
                            : complex ? "a complex entry needs 4 fields (row column real imaginary)"
                                      : "a" + std::string(integer ? "n integer" : " real") + " entry needs 3 fields (row column value)";

  const char* text = file.data();
  detail::for_each_chunk(chunks, opts, "parsing", [&](detail::text_chunk& c) {
    const char* p = text + c.begin;
    const char* end = text + c.end;
    std::int64_t line = c.first_line - 1;
    std::int64_t* src = el.src.data() + c.first_slot;
    std::int64_t* dst = el.dst.data() + c.first_slot;
    double* w = pattern ? nullptr : el.weights.data() + c.first_slot;
    double* wi = complex ? el.weights_imag.data() + c.first_slot : nullptr;
    std::int64_t k = 0;
    line_fields lf;
    auto bad = [&](std::string what) { return c.problem(line, std::move(what)); };
    // One entry whose indices are integers; false: stop the chunk.
    auto entry = [&](std::int64_t i, std::int64_t j, std::string_view value, std::string_view imaginary) {
      if (i < 1 || i > h.rows) return bad("row index " + std::to_string(i) + " outside 1.." + std::to_string(h.rows));
      if (j < 1 || j > h.cols) return bad("column index " + std::to_string(j) + " outside 1.." + std::to_string(h.cols));
      if (skew && i == j)
        return bad("a skew-symmetric matrix has no diagonal entries (" + std::to_string(i) + ", " + std::to_string(j) + ")");
      if (!pattern) {
        double x = 0;
        if (integer) {
          std::int64_t iv = 0;
          if (!detail::parse_int(value, iv)) return bad("value " + shown(value) + " is not an integer");
          x = double(iv);
        } else {
          bool overflow = false;
          if (!detail::parse_real(value, x, overflow))
            return bad("value " + shown(value) + (overflow ? " is too large for a double" : " is not a real number"));
        }
        if (opts.reject_non_finite && !std::isfinite(x))
          return bad("value " + shown(value) + " of entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is not finite");
        w[k] = x;
      }
      if (complex) {
        double y = 0;
        bool overflow = false;
        if (!detail::parse_real(imaginary, y, overflow))
          return bad("imaginary part " + shown(imaginary) + (overflow ? " is too large for a double" : " is not a real number"));
        if (opts.reject_non_finite && !std::isfinite(y))
          return bad("imaginary part " + shown(imaginary) + " of entry (" + std::to_string(i) + ", " + std::to_string(j) +
                     ") is not finite");
        if (hermitian && i == j && y != 0)
          return bad("the diagonal entry (" + std::to_string(i) + ", " + std::to_string(j) +
                     ") of a Hermitian matrix must be real, its imaginary part is " + shown(imaginary));
        wi[k] = y;
      }
      src[k] = i - 1;
      dst[k] = col_shift + j - 1;
      ++k;
      return true;
    };
    while (p < end) {
      ++line;
      std::string_view third;
      std::int64_t i = 0, j = 0;
      if (const char* q = complex ? nullptr : detail::quick_line(p, end, i, j, third); q && third.empty() == pattern) {
        p = q;  // "i j [value]", the common line, read in one pass
        if (!entry(i, j, third, {})) break;
        continue;
      }
      p = next_line(p, end, lf);
      if (lf.count == 0 || lf.field[0][0] == '%') continue;
      bool go = true;
      if (lf.count != want_fields)
        go = bad(arity + ", found " + std::to_string(lf.count) + ": " + shown(lf.line));
      else if (!detail::parse_int(lf.field[0], i))
        go = bad("row index " + shown(lf.field[0]) + " is not an integer");
      else if (!detail::parse_int(lf.field[1], j))
        go = bad("column index " + shown(lf.field[1]) + " is not an integer");
      else
        go = entry(i, j, pattern ? std::string_view() : lf.field[2], complex ? lf.field[3] : std::string_view());
      if (!go) break;
    }
    c.entries = k;
  });
  detail::throw_first_problems(path, chunks);

  std::int64_t count = 0;
  for (const auto& c : chunks) {
    if (count + c.entries > h.nnz) {
      // The entry after the declared count: find its line in this chunk.
      std::int64_t line = c.first_line - 1, seen = count;
      line_fields lf;
      for (const char* p = text + c.begin; p < text + c.end;) {
        p = next_line(p, text + c.end, lf);
        ++line;
        if (lf.count > 0 && lf.field[0][0] != '%' && ++seen > h.nnz) break;
      }
      throw io_error(path, line,
                     "more entries than the " + std::to_string(h.nnz) + " declared on line " + std::to_string(h.size_line));
    }
    count += c.entries;
  }
  if (count < h.nnz) {
    const std::int64_t last = chunks.empty() ? h.size_line : chunks.back().first_line + chunks.back().lines - 1;
    throw io_error(path, std::max(last, h.size_line),
                   "the file ends after " + std::to_string(count) + " of the " + std::to_string(h.nnz) +
                       " entries declared on line " + std::to_string(h.size_line));
  }
  detail::compact(el.src, chunks);
  detail::compact(el.dst, chunks);
  if (!pattern) detail::compact(el.weights, chunks);
  if (complex) detail::compact(el.weights_imag, chunks);
  return el;
}

namespace detail {

std::optional<mm_header> parse_mm_header(const std::string& path, std::string_view text, bool whole,
                                         bool accept_complex) {
  const char* p = text.data();
  const char* const end = p + text.size();
  std::int64_t line = 0;
  line_fields lf;
  // The next line, when it is all there: ends in '\n', or ends the file.
  auto next = [&] {
    if (p == end) return false;
    const char* q = next_line(p, end, lf);
    if (!whole && (q == end && (q == p || q[-1] != '\n'))) return false;
    p = q;
    ++line;
    return true;
  };
  auto err = [&](const std::string& what) { return io_error(path, line, what); };
  if (text.empty() && whole) throw io_error(path, 0, "empty file: missing the %%MatrixMarket banner");
  if (!next()) return std::nullopt;
  if (lf.count == 0 || lower(lf.field[0]) != "%%matrixmarket")
    throw err("missing the %%MatrixMarket banner (first line is " + shown(lf.line) + ")");
  if (lf.count != 5)
    throw err("the banner needs 4 words (object format field symmetry), found " + std::to_string(lf.count - 1));
  const std::string object = lower(lf.field[1]), format = lower(lf.field[2]);
  const std::string field = lower(lf.field[3]);
  const std::string symmetry = lower(lf.field[4]);
  if (object != "matrix") throw err("unknown object " + shown(lf.field[1]) + " (expected 'matrix')");
  if (format != "coordinate" && format != "array")
    throw err("unknown format " + shown(lf.field[2]) + " (expected 'coordinate' or 'array')");
  if (field != "pattern" && field != "integer" && field != "real" && field != "double" && field != "complex")
    throw err("unknown field " + shown(lf.field[3]) + " (expected pattern, integer, real or complex)");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" && symmetry != "hermitian")
    throw err("unknown symmetry " + shown(lf.field[4]) + " (expected general, symmetric, skew-symmetric or hermitian)");
  if (symmetry == "hermitian" && field != "complex") throw err("'hermitian' needs a complex field, not '" + field + "'");
  if (field == "complex" && !accept_complex) throw err("complex matrices are not supported by the graph reader");
  if (format == "array") throw err("dense 'array' format is not a graph: use 'coordinate'");
  if (field == "pattern" && symmetry == "skew-symmetric") throw err("a pattern matrix cannot be skew-symmetric");
  mm_header h;
  h.field = field == "double" ? "real" : field;
  h.symmetry = symmetry;

  // Comments (including structured ones such as "%%GraphBLAS type double")
  // and blank lines may appear anywhere; the first other line is the size.
  for (;;) {
    if (!next()) {
      if (!whole) return std::nullopt;  // the size line may come after the prefix
      throw io_error(path, line, "no size line (rows columns entries) after the banner");
    }
    if (lf.count == 0) continue;
    if (lf.field[0][0] == '%') {
      if (lower(lf.field[0]) == "%%graphblas" && lf.count >= 3 && lower(lf.field[1]) == "type") {
        static const char* known[] = {"bool",   "int8",   "int16",  "int32", "int64",  "uint8",         "uint16",
                                      "uint32", "uint64", "float",  "double", "float complex", "double complex"};
        std::string t = lower(lf.field[2]);
        for (int k = 3; k < std::min(lf.count, line_fields::max_fields); ++k) t.append(" ").append(lower(lf.field[k]));
        if (lf.count > line_fields::max_fields || std::find(std::begin(known), std::end(known), t) == std::end(known))
          throw err("unknown GraphBLAS type " + shown(t));
      }
      continue;
    }
    if (lf.count != 3)
      throw err("the size line needs 3 integers (rows columns entries), found " + std::to_string(lf.count) +
                " fields: " + shown(lf.line));
    const char* names[] = {"rows", "columns", "entries"};
    std::int64_t* out[] = {&h.rows, &h.cols, &h.nnz};
    for (int k = 0; k < 3; ++k)
      if (!parse_int(lf.field[k], *out[k]))
        throw err("the size line must hold 3 integers: " + std::string(names[k]) + " " + shown(lf.field[k]) +
                  " is not an integer");
    if (h.rows < 0 || h.cols < 0 || h.nnz < 0) throw err("negative size in " + shown(lf.line));
    h.size_line = line;
    h.body = std::size_t(p - text.data());
    break;
  }
  auto size_err = [&](const std::string& what) { return io_error(path, h.size_line, what); };
  const std::string shape = "the matrix is " + std::to_string(h.rows) + " x " + std::to_string(h.cols);
  if (h.rows != h.cols && symmetry != "general") throw size_err(shape + "; a " + symmetry + " matrix must be square");
  if (h.rows > std::int64_t(1) << 40 || h.cols > std::int64_t(1) << 40)
    throw size_err("too many vertices (" + shape.substr(14) + ")");
  if (symmetry != "general" && double(h.nnz) > double(h.rows) * double(h.rows + 1) / 2 + 1)
    throw size_err(std::to_string(h.nnz) + " entries cannot fit the lower triangle of a " + std::to_string(h.rows) + " x " +
                   std::to_string(h.rows) + " matrix");
  return h;
}

}  // namespace detail

}  // namespace tessera::graph
