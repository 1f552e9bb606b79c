// Right-hand sides from Matrix Market files (array or coordinate format).
#include <tessera/sparse/matrix_io.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <vector>

namespace tessera::sparse {

DenseMatrix read_dense_matrix_market(const std::string& path, std::int64_t expected_rows) {
  std::ifstream in(path);
  if (!in) throw graph::io_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::string line;
  std::int64_t lineno = 0;
  auto err = [&](const std::string& what) { return graph::io_error(path, lineno, what); };
  if (!std::getline(in, line)) throw graph::io_error(path, 0, "empty file: missing the %%MatrixMarket banner");
  ++lineno;
  std::istringstream banner(line);
  std::string mm, object, format, field, symmetry;
  banner >> mm >> object >> format >> field >> symmetry;
  for (auto* w : {&mm, &object, &format, &field, &symmetry})
    for (auto& c : *w) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (mm != "%%matrixmarket") throw err("missing the %%MatrixMarket banner");
  if (object != "matrix") throw err("unknown object '" + object + "' (expected 'matrix')");
  if (format != "array" && format != "coordinate") throw err("unknown format '" + format + "'");
  if (field != "real" && field != "integer" && field != "double")
    throw err("right-hand sides must be real or integer, not '" + field + "'");
  if (symmetry != "general") throw err("right-hand sides must be 'general', not '" + symmetry + "'");
  const bool array = format == "array";
  DenseMatrix d;
  std::int64_t entries = -1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '%' || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream size(line);
    std::string extra;
    if (array ? !(size >> d.rows >> d.cols) : !(size >> d.rows >> d.cols >> entries))
      throw err(std::string("the size line must hold ") + (array ? "2" : "3") + " integers, found '" + line + "'");
    if (size >> extra) throw err("unexpected '" + extra + "' on the size line");
    if (d.rows < 0 || d.cols < 0 || (!array && entries < 0)) throw err("negative size");
    if (expected_rows >= 0 && d.rows != expected_rows)
      throw err(std::to_string(d.rows) + " rows of right-hand sides for a matrix of order " +
                std::to_string(expected_rows));
    break;
  }
  if (d.rows < 0 || (d.rows == 0 && d.cols == 0 && entries < 0 && in.eof()))
    throw graph::io_error(path, lineno, "no size line after the banner");
  if (double(d.rows) * double(d.cols) > 1e10) throw err("too large for a dense block of right-hand sides");
  const std::int64_t want = array ? d.rows * d.cols : entries;
  // Memory grows with the lines read, never with a size line alone: a
  // size line that announces 10^9 values (array) or a 4 x 10^8 block
  // (coordinate) in a short file is an error at the file's end, not an
  // allocation of gigabytes. An array file lists every value, in order; a
  // coordinate file's entries are kept as read and the dense block is made
  // once all of them are in, at the size the file declared (one that cannot
  // be allocated is an error that says how much).
  struct Entry {
    std::int64_t at;  // i + j * rows
    double value;
    std::int64_t line;
  };
  std::vector<Entry> listed;
  constexpr std::int64_t kTrustedCount = std::int64_t(1) << 16;
  if (array) d.values.reserve(std::size_t(std::min(want, kTrustedCount)));
  else listed.reserve(std::size_t(std::min(want, kTrustedCount)));
  std::int64_t count = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '%' || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (count == want) throw err("more entries than the " + std::to_string(want) + " declared");
    std::istringstream e(line);
    std::int64_t i = 0, j = 0;
    double v = 0;
    std::string extra;
    if (array) {
      if (!(e >> v)) throw err("value '" + line + "' is not a number");
    } else {
      if (!(e >> i >> j >> v)) throw err("an entry is 'row column value', found '" + line + "'");
      if (i < 1 || i > d.rows) throw err("row index " + std::to_string(i) + " outside 1.." + std::to_string(d.rows));
      if (j < 1 || j > d.cols) throw err("column index " + std::to_string(j) + " outside 1.." + std::to_string(d.cols));
      --i;
      --j;
    }
    if (e >> extra) throw err("unexpected '" + extra + "' after the entry");
    if (!std::isfinite(v)) throw err("value of entry " + std::to_string(count + 1) + " is not finite");
    if (array) d.values.push_back(v);  // column-major, in file order
    else listed.push_back({i + j * d.rows, v, lineno});
    ++count;
  }
  if (count < want)
    throw graph::io_error(path, lineno, "the file ends after " + std::to_string(count) + " of the " +
                                            std::to_string(want) + " entries declared");
  if (!array) {
    try {
      d.values.assign(std::size_t(d.rows * d.cols), 0.0);
    } catch (const std::bad_alloc&) {
      throw graph::io_error(path, lineno,
                            std::to_string(d.rows) + " x " + std::to_string(d.cols) + " right-hand sides need " +
                                std::to_string(double(d.rows) * double(d.cols) * 8.0 / 1e9) +
                                " GB as a dense block, which could not be allocated");
    }
    // Repeated entries add up; each is finite, a sum may not be (1e308 twice).
    for (const Entry& e : listed) {
      double& x = d.values[std::size_t(e.at)];
      x += e.value;
      if (!std::isfinite(x))
        throw graph::io_error(path, e.line,
                              "entry (" + std::to_string(e.at % d.rows + 1) + ", " + std::to_string(e.at / d.rows + 1) +
                                  ") adds up, with the entries before it there, to a value that is not finite");
    }
  }
  return d;
}

}  // namespace tessera::sparse
