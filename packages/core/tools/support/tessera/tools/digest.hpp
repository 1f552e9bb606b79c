#pragma once
// A CLI's result in two forms: "label: value" lines for people, and the
// members of one JSON object for scripts (--json). Each item has both a
// JSON key and a text label: the key is snake_case and means the same in
// every Tessera CLI (tessera-dist's bfs says sum_of_levels where
// tessera-graph does); the label is the words of the text line.
#include "json.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tessera::tools {

class Digest {
 public:
  struct Item {
    std::string key, label, text;
  };

  // Any JSON value with its text.
  Digest& add(const std::string& key, const std::string& label, json value, std::string text) {
    m_object[key] = std::move(value);
    m_items.push_back({key, label, std::move(text)});
    return *this;
  }
  Digest& add(const std::string& key, const std::string& label, std::int64_t v) {
    return add(key, label, json(v), std::to_string(v));
  }
  // A real number, printed with `format` in the text ("%.6g" by default);
  // null in JSON when it is not finite.
  Digest& add_real(const std::string& key, const std::string& label, double v, const char* format = "%.6g") {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return add(key, label, number(v), buf);
  }
  Digest& add_string(const std::string& key, const std::string& label, const std::string& s) {
    return add(key, label, json(s), s);
  }
  Digest& add_bool(const std::string& key, const std::string& label, bool b) {
    return add(key, label, json(b), b ? "yes" : "no");
  }

  const json& object() const { return m_object; }
  const std::vector<Item>& items() const { return m_items; }
  // "label: text" lines.
  std::string lines() const {
    std::string r;
    for (const auto& i : m_items) r += i.label + ": " + i.text + "\n";
    return r;
  }

 private:
  json m_object = json::object();
  std::vector<Item> m_items;
};

}  // namespace tessera::tools
