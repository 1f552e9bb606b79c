#pragma once
// The one JSON writer of Tessera's programs (nlohmann-json): the CLIs' --json
// objects, the benchmarks' JSON lines and the digests. Members keep the order
// they were written in (ordered_json); a number that is not finite is null
// (JSON has no NaN or infinity); a string that is not UTF-8 is written with
// U+FFFD in place of the bad bytes rather than failing.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace tessera::tools {

using json = nlohmann::ordered_json;

// x, or null when x is NaN or infinite.
inline json number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

// The JSON value of x printed with a printf format: what a hand-written
// JSON line held when it printed x so ("%.6g" of 5.0 is the integer 5, of
// 0.1234567 the real 0.123457), or null when x is not finite.
inline json printed(double x, const char* format) {
  if (!std::isfinite(x)) return nullptr;
  char buf[512];
  std::snprintf(buf, sizeof buf, format, x);
  return json::parse(buf);
}

// x rounded to `digits` significant digits ("%.<digits>g"), or null: the
// benchmark lines carry their figures as they always printed them.
inline json rounded(double x, int digits) {
  char format[16];
  std::snprintf(format, sizeof format, "%%.%dg", digits);
  return printed(x, format);
}

// x rounded to `decimals` places after the point ("%.<decimals>f"), or null.
inline json fixed(double x, int decimals) {
  char format[16];
  std::snprintf(format, sizeof format, "%%.%df", decimals);
  return printed(x, format);
}

// The document on one line, without spaces ({"a":1,"b":"x"}).
inline std::string to_line(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The document as one line of `out` (stdout), flushed.
inline void print_line(const json& j, std::FILE* out = stdout) {
  std::fprintf(out, "%s\n", to_line(j).c_str());
  std::fflush(out);
}

}  // namespace tessera::tools
