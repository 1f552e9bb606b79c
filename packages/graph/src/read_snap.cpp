// SNAP / gapbs-style edge list reader: "u v" or "u v w" lines, 0-based ids,
// '#' or '%' comments, parsed in parallel chunks (text_chunks.hpp).
#include "text_chunks.hpp"

#include <tessera/graph/io.hpp>

#include <algorithm>
#include <cmath>

namespace tessera::graph {

edge_list read_snap(const std::string& path, const read_options& opts) {
  using detail::line_fields;
  using detail::next_line;
  using detail::shown;
  const detail::mapped_file file(path);
  const char* text = file.data();
  const char* end = text + file.size();

  // The first edge line fixes the number of fields for the whole file. The
  // chunks start there: the comment lines above it leave no gaps to close.
  int fields = 0;
  std::int64_t first_line = 1;
  std::size_t body = file.size();
  {
    line_fields lf;
    std::int64_t line = 0;
    for (const char* p = text; p < end;) {
      const char* start = p;
      p = next_line(p, end, lf);
      ++line;
      if (lf.count == 0 || lf.field[0][0] == '#' || lf.field[0][0] == '%') continue;
      if (lf.count != 2 && lf.count != 3)
        throw io_error(path, line, "an edge line holds 'source target [weight]', found " + shown(lf.line));
      fields = lf.count;
      first_line = line;
      body = std::size_t(start - text);
      break;
    }
  }

  auto chunks = detail::cut_lines(file, body, first_line, opts);
  const std::int64_t slots = chunks.empty() ? 0 : chunks.back().first_slot + chunks.back().lines;
  edge_list el;
  el.origin = path;
  const bool weighted = fields == 3;
  detail::size_lists(el, slots, weighted);
  const std::int64_t id_limit = std::int64_t(1) << 40;

  detail::for_each_chunk(chunks, opts, "parsing", [&](detail::text_chunk& c) {
    const char* p = text + c.begin;
    const char* e = text + c.end;
    std::int64_t line = c.first_line - 1;
    std::int64_t* src = el.src.data() + c.first_slot;
    std::int64_t* dst = el.dst.data() + c.first_slot;
    double* w = weighted ? el.weights.data() + c.first_slot : nullptr;
    std::int64_t k = 0, max_id = -1, max_id_line = 0;
    line_fields lf;
    auto bad = [&](std::string what) { return c.problem(line, std::move(what)); };
    // One edge whose ids are read (non-negative); false: stop the chunk.
    auto edge = [&](std::int64_t u, std::int64_t v, std::string_view weight) {
      if (u >= id_limit || v >= id_limit) return bad("vertex id " + std::to_string(std::max(u, v)) + " too large (the limit is 2^40)");
      if (weighted) {
        double x = 0;
        bool overflow = false;
        if (!detail::parse_real(weight, x, overflow))
          return bad("weight " + shown(weight) + (overflow ? " is too large for a double" : " is not a number"));
        if (opts.reject_non_finite && !std::isfinite(x)) return bad("weight " + shown(weight) + " is not finite");
        w[k] = x;
      }
      src[k] = u;
      dst[k] = v;
      if (std::max(u, v) > max_id) {
        max_id = std::max(u, v);
        max_id_line = line;
      }
      ++k;
      return true;
    };
    while (p < e) {
      ++line;
      std::string_view third;
      std::int64_t u = 0, v = 0;
      if (const char* q = detail::quick_line(p, e, u, v, third); q && third.empty() != weighted) {
        p = q;  // "u v [w]", the common line, read in one pass
        if (!edge(u, v, third)) break;
        continue;
      }
      p = next_line(p, e, lf);
      if (lf.count == 0 || lf.field[0][0] == '#' || lf.field[0][0] == '%') continue;
      bool go = true;
      if (lf.count != 2 && lf.count != 3)
        go = bad("an edge line holds 'source target [weight]', found " + shown(lf.line));
      else if (lf.count != fields)
        go = bad("this line has " + std::to_string(lf.count) + " fields, line " + std::to_string(first_line) + " had " +
                 std::to_string(fields));
      else if (!detail::parse_int(lf.field[0], u) || u < 0)
        go = bad("source " + shown(lf.field[0]) + " is not a vertex id (a non-negative integer)");
      else if (!detail::parse_int(lf.field[1], v) || v < 0)
        go = bad("target " + shown(lf.field[1]) + " is not a vertex id (a non-negative integer)");
      else
        go = edge(u, v, weighted ? lf.field[2] : std::string_view());
      if (!go) break;
    }
    c.entries = k;
    c.max_id = max_id;
    c.max_id_line = max_id_line;
  });
  detail::throw_first_problems(path, chunks);

  std::int64_t max_id = -1, max_id_line = 0;
  for (const auto& c : chunks)
    if (c.max_id > max_id) max_id = c.max_id, max_id_line = c.max_id_line;
  detail::check_vertex_count_fits(path, max_id_line, max_id + 1, "vertex id " + std::to_string(max_id));
  el.num_vertices = max_id + 1;
  detail::compact(el.src, chunks);
  detail::compact(el.dst, chunks);
  if (weighted) detail::compact(el.weights, chunks);
  return el;
}

}  // namespace tessera::graph
