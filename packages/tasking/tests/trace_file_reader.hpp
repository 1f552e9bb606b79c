#pragma once
// Reads a trace file back for the tracing tests: a minimal JSON reader
// (numbers kept as written), the slices and flow ends of the file, and the
// checks every traced DAG must pass.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tessera::test {

// ---- a minimal JSON reader (values, with numbers kept as written) ------------

struct Json {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  std::string text;  // String: the unescaped text; Number: as written
  bool flag = false;
  std::vector<Json> items;
  // An object's members as two parallel vectors: a vector of pair<string,
  // Json> would need Json complete inside its own definition (Clang refuses).
  std::vector<std::string> member_keys;
  std::vector<Json> member_values;

  const Json* get(const std::string& key) const {
    for (std::size_t i = 0; i < member_keys.size(); ++i)
      if (member_keys[i] == key) return &member_values[i];
    return nullptr;
  }
  std::string str(const std::string& key) const {
    const Json* v = get(key);
    return v && (v->type == String || v->type == Number) ? v->text : std::string();
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : m_s(s) {}
  // The document, or an error naming the offset.
  bool document(Json& out, std::string& error) {
    if (!value(out)) {
      error = "invalid JSON at offset " + std::to_string(m_i);
      return false;
    }
    ws();
    if (m_i != m_s.size()) {
      error = "trailing characters at offset " + std::to_string(m_i);
      return false;
    }
    return true;
  }

 private:
  void ws() {
    while (m_i < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_i]))) ++m_i;
  }
  bool literal(const char* word) {
    const std::string w = word;
    if (m_s.compare(m_i, w.size(), w) != 0) return false;
    m_i += w.size();
    return true;
  }
  bool value(Json& v) {
    ws();
    if (m_i >= m_s.size()) return false;
    const char c = m_s[m_i];
    if (c == '{') return object(v);
    if (c == '[') return array(v);
    if (c == '"') {
      v.type = Json::String;
      return string(v.text);
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return number(v);
    if (literal("true")) return v.type = Json::Bool, v.flag = true, true;
    if (literal("false")) return v.type = Json::Bool, true;
    if (literal("null")) return true;
    return false;
  }
  bool object(Json& v) {
    v.type = Json::Object;
    ++m_i;
    ws();
    if (m_i < m_s.size() && m_s[m_i] == '}') return ++m_i, true;
    for (;;) {
      ws();
      std::string key;
      if (!string(key)) return false;
      ws();
      if (m_i >= m_s.size() || m_s[m_i++] != ':') return false;
      Json member;
      if (!value(member)) return false;
      v.member_keys.push_back(std::move(key));
      v.member_values.push_back(std::move(member));
      ws();
      if (m_i < m_s.size() && m_s[m_i] == ',') {
        ++m_i;
        continue;
      }
      return m_i < m_s.size() && m_s[m_i++] == '}';
    }
  }
  bool array(Json& v) {
    v.type = Json::Array;
    ++m_i;
    ws();
    if (m_i < m_s.size() && m_s[m_i] == ']') return ++m_i, true;
    for (;;) {
      Json item;
      if (!value(item)) return false;
      v.items.push_back(std::move(item));
      ws();
      if (m_i < m_s.size() && m_s[m_i] == ',') {
        ++m_i;
        continue;
      }
      return m_i < m_s.size() && m_s[m_i++] == ']';
    }
  }
  bool string(std::string& out) {
    if (m_i >= m_s.size() || m_s[m_i] != '"') return false;
    for (++m_i; m_i < m_s.size(); ++m_i) {
      const char c = m_s[m_i];
      if (c == '"') return ++m_i, true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (++m_i >= m_s.size()) return false;
      const char e = m_s[m_i];
      if (e == 'u') {
        if (m_i + 4 >= m_s.size()) return false;
        out += '?';  // the tests compare ASCII names only
        m_i += 4;
      } else if (std::string("\"\\/bfnrt").find(e) != std::string::npos) {
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        return false;
      }
    }
    return false;
  }
  bool number(Json& v) {
    const std::size_t start = m_i;
    if (m_s[m_i] == '-') ++m_i;
    while (m_i < m_s.size() && (std::isdigit(static_cast<unsigned char>(m_s[m_i])) || m_s[m_i] == '.' ||
                                m_s[m_i] == 'e' || m_s[m_i] == 'E' || m_s[m_i] == '+' || m_s[m_i] == '-'))
      ++m_i;
    v.type = Json::Number;
    v.text = m_s.substr(start, m_i - start);
    return m_i > start + (m_s[start] == '-' ? 1 : 0);
  }

  const std::string& m_s;
  std::size_t m_i = 0;
};

// "12.345" microseconds (as the trace writes them: at most 3 decimals) in
// nanoseconds, exactly.
inline std::int64_t micros_to_ns(const std::string& text) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::string t = negative ? text.substr(1) : text;
  const std::size_t dot = t.find('.');
  std::int64_t ns = std::stoll(t.substr(0, dot)) * 1000;
  if (dot != std::string::npos) {
    std::string frac = t.substr(dot + 1);
    EXPECT_LE(frac.size(), 3u) << "timestamp " << text << " has more than nanosecond digits";
    frac.resize(3, '0');
    ns += std::stoll(frac);
  }
  return negative ? -ns : ns;
}

// ---- the trace, read back --------------------------------------------------------

struct Slice {
  std::string name, cat;
  int tid = 0;
  std::int64_t start = 0, end = 0;
  const Json* args = nullptr;
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
  const std::string text = read_file(path);
  std::string error;
  JsonReader reader(text);
  if (!reader.document(trace->doc, error)) {
    ADD_FAILURE() << path << ": " << error;
    return nullptr;
  }
  const Json* events = trace->doc.get("traceEvents");
  if (!events || events->type != Json::Array) {
    ADD_FAILURE() << path << ": no traceEvents array";
    return nullptr;
  }
  for (const Json& e : events->items) {
    const std::string ph = e.str("ph");
    const int tid = std::stoi(e.str("tid").empty() ? "-1" : e.str("tid"));
    if (ph == "X") {
      Slice s;
      s.name = e.str("name");
      s.cat = e.str("cat");
      s.tid = tid;
      s.start = micros_to_ns(e.str("ts"));
      s.end = s.start + micros_to_ns(e.str("dur"));
      s.args = e.get("args");
      trace->slices.push_back(s);
    } else if (ph == "s" || ph == "f") {
      FlowEnd f{e.str("name"), ph, e.str("bp"), tid, micros_to_ns(e.str("ts"))};
      EXPECT_FALSE(e.str("id").empty()) << "a flow event without id";
      trace->flows[e.str("id")].push_back(f);
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
      EXPECT_EQ(from->args->str("task"), to->args->str("task")) << "flow " << id;
      EXPECT_EQ(std::stoi(to->args->str("run")), std::stoi(from->args->str("run")) + 1) << "flow " << id;
    } else {
      EXPECT_EQ(s.name, "dependence") << "flow " << id;
      EXPECT_NE(from->args->str("task"), to->args->str("task")) << "flow " << id;
    }
  }
}

}  // namespace tessera::test
