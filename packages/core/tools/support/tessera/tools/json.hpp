#pragma once
// The one JSON writer of Tessera's programs (nlohmann-json): the CLIs' --json
// objects, the benchmarks' JSON lines and the digests. Members keep the order
// they were written in (ordered_json); a number that is not finite is null
// (JSON has no NaN or infinity); a string that is not UTF-8 is written with
// U+FFFD in place of the bad bytes rather than failing.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera::tools {

using json = nlohmann::ordered_json;

// x, or null when x is NaN or infinite.
inline json number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

// x rounded to `digits` significant digits (the value "%.<digits>g" prints),
// or null: the benchmark lines carry their figures at the precision they
// always had.
inline json rounded(double x, int digits) {
  if (!std::isfinite(x)) return nullptr;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return std::strtod(buf, nullptr);
}

// x rounded to `decimals` places after the point (the value "%.<decimals>f"
// prints), or null.
inline json fixed(double x, int decimals) {
  if (!std::isfinite(x)) return nullptr;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return std::strtod(buf, nullptr);
}

// The document on one line, without spaces ({"a":1,"b":"x"}).
inline std::string to_line(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The document as one line of `out` (stdout), flushed.
inline void print_line(const json& j, std::FILE* out = stdout) {
  std::fprintf(out, "%s\n", to_line(j).c_str());
  std::fflush(out);
}

}  // namespace tessera::tools
