#pragma once
// Reads a trace file back for the tracing tests: the document parsed with
// nlohmann-json (the one JSON reader of the tests and tools), the slices and
// flow ends of the file, and the checks every traced DAG must pass.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tessera::test {

using Json = nlohmann::json;

// A member as text: a string's characters, a number as JSON writes it
// ("1", "2"), empty when absent.
inline std::string text(const Json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// A timestamp or duration in microseconds (the trace writes at most 3
// decimals: nanoseconds) in nanoseconds, exactly.
inline std::int64_t micros_to_ns(const Json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>() * 1000;
  const double ns = v.get<double>() * 1000.0;
  const double whole = std::nearbyint(ns);
  EXPECT_LE(std::abs(ns - whole), 1e-6 + 1e-12 * std::abs(ns)) << "timestamp " << v.dump() << " has more than nanosecond digits";
  return static_cast<std::int64_t>(whole);
}

// ---- the trace, read back --------------------------------------------------------

struct Slice {
  std::string name, cat;
  int tid = 0;
  std::int64_t start = 0, end = 0;
  Json args;  // the slice's args object (null when it has none)
  bool is_task() const { return cat == "task" || cat == "task,respawn"; }
};
struct FlowEnd {
  std::string name, phase, bp;
  int tid = 0;
  std::int64_t ts = 0;
};

struct Trace {
  Json doc;
  std::vector<Slice> slices;
  std::map<std::string, std::vector<FlowEnd>> flows;  // by id

  std::size_t task_slices(const std::string& name_part, bool respawns_only = false) const {
    std::size_t n = 0;
    for (const Slice& s : slices)
      if (s.is_task() && s.name.find(name_part) != std::string::npos && (!respawns_only || s.cat == "task,respawn"))
        ++n;
    return n;
  }
  std::size_t flow_pairs(const std::string& name) const {
    std::size_t n = 0;
    for (const auto& [id, ends] : flows)
      if (!ends.empty() && ends[0].name == name) ++n;
    return n;
  }
  // The innermost slice of track tid that encloses ts.
  const Slice* enclosing(int tid, std::int64_t ts) const {
    const Slice* best = nullptr;
    for (const Slice& s : slices)
      if (s.tid == tid && s.start <= ts && ts <= s.end && (!best || s.end - s.start < best->end - best->start))
        best = &s;
    return best;
  }
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Parses the file and collects slices and flow ends (failing the test on a
// malformed file or event).
inline std::unique_ptr<Trace> read_trace(const std::string& path) {
  auto trace = std::make_unique<Trace>();
  try {
    trace->doc = Json::parse(read_file(path));
  } catch (const Json::parse_error& e) {
    ADD_FAILURE() << path << ": " << e.what();
    return nullptr;
  }
  const auto events = trace->doc.find("traceEvents");
  if (events == trace->doc.end() || !events->is_array()) {
    ADD_FAILURE() << path << ": no traceEvents array";
    return nullptr;
  }
  for (const Json& e : *events) {
    const std::string ph = text(e, "ph");
    const int tid = e.contains("tid") ? e["tid"].get<int>() : -1;
    if (ph == "X") {
      Slice s;
      s.name = text(e, "name");
      s.cat = text(e, "cat");
      s.tid = tid;
      s.start = micros_to_ns(e.at("ts"));
      s.end = s.start + micros_to_ns(e.at("dur"));
      if (e.contains("args")) s.args = e["args"];
      trace->slices.push_back(s);
    } else if (ph == "s" || ph == "f") {
      FlowEnd f{text(e, "name"), ph, text(e, "bp"), tid, micros_to_ns(e.at("ts"))};
      EXPECT_FALSE(text(e, "id").empty()) << "a flow event without id";
      trace->flows[text(e, "id")].push_back(f);
    }
  }
  return trace;
}

inline std::string trace_path(const char* what) {
  return ::testing::TempDir() + "tessera_task_trace_" + what + "_" + std::to_string(getpid()) + ".json";
}

// Every arrow has one start and one finish (binding point "e"), later than
// its start, each inside a task slice of its track; a respawn arrow joins
// consecutive runs of one task, a dependence arrow two tasks.
inline void expect_flows_bind_to_task_slices(const Trace& trace) {
  for (const auto& [id, ends] : trace.flows) {
    ASSERT_EQ(ends.size(), 2u) << "flow id " << id << " is not unique or lacks an end";
    const FlowEnd& s = ends[0].phase == "s" ? ends[0] : ends[1];
    const FlowEnd& f = ends[0].phase == "s" ? ends[1] : ends[0];
    ASSERT_EQ(s.phase, "s") << "flow " << id;
    ASSERT_EQ(f.phase, "f") << "flow " << id;
    EXPECT_EQ(f.bp, "e") << "flow " << id;
    EXPECT_LT(s.ts, f.ts) << "flow " << id;
    const Slice* from = trace.enclosing(s.tid, s.ts);
    const Slice* to = trace.enclosing(f.tid, f.ts);
    ASSERT_TRUE(from && from->is_task()) << "flow " << id << " starts outside a task slice (tid " << s.tid << ")";
    ASSERT_TRUE(to && to->is_task()) << "flow " << id << " ends outside a task slice (tid " << f.tid << ")";
    if (s.name == "respawn") {
      EXPECT_EQ(text(from->args, "task"), text(to->args, "task")) << "flow " << id;
      EXPECT_EQ(std::stoi(text(to->args, "run")), std::stoi(text(from->args, "run")) + 1) << "flow " << id;
    } else {
      EXPECT_EQ(s.name, "dependence") << "flow " << id;
      EXPECT_NE(text(from->args, "task"), text(to->args, "task")) << "flow " << id;
    }
  }
}

}  // namespace tessera::test
