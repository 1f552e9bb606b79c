// The command-line support every Tessera program shares
// (packages/core/tools/support): the parser's rules (runtime flags taken out
// first, usage errors naming the flag and the value with status 2, --help),
// the JSON writer's null for non-finite numbers and its rounding, digests,
// and progress: redrawn on a terminal, one line per phase elsewhere.
#include <tessera/tools/cli.hpp>
#include <tessera/tools/digest.hpp>
#include <tessera/tools/json.hpp>
#include <tessera/tools/progress.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace tt = tessera::tools;

namespace {

// argv from words (the program name first), as main receives it.
struct Argv {
  explicit Argv(std::vector<std::string> words) : m_words(std::move(words)) {
    for (auto& w : m_words) m_ptrs.push_back(w.data());
    m_ptrs.push_back(nullptr);
    argc = int(m_words.size());
  }
  char** argv() { return m_ptrs.data(); }
  int argc = 0;

 private:
  std::vector<std::string> m_words;
  std::vector<char*> m_ptrs;
};

struct Parsed {
  std::optional<int> status;
  std::string out, err;
  int repeats = 5;
  double tolerance = 1e-10;
  tessera::InitializationSettings settings;
  int argc_left = 0;
};

Parsed parse(std::vector<std::string> words) {
  words.insert(words.begin(), "prog");
  Argv a(words);
  tt::Command cmd("prog", "A test program.");
  Parsed p;
  cmd.app().add_option("--repeats", p.repeats, "repeats")->check(tt::integer(1, 1000));
  cmd.app().add_option("--tolerance", p.tolerance, "tolerance")->check(tt::real(0, 1, true));
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  p.status = cmd.parse(a.argc, a.argv());
  p.out = testing::internal::GetCapturedStdout();
  p.err = testing::internal::GetCapturedStderr();
  p.settings = cmd.settings();
  p.argc_left = a.argc;
  return p;
}

std::string read_all(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[256];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) s.append(buf, n);
  return s;
}

}  // namespace

TEST(ToolsCli, RuntimeFlagsAreTakenOutFirst) {
  const Parsed p = parse({"--tessera-num-threads=1", "--repeats", "3"});
  EXPECT_FALSE(p.status.has_value()) << p.err;
  EXPECT_EQ(p.repeats, 3);
  EXPECT_TRUE(p.settings.has_num_threads());
  EXPECT_EQ(p.settings.get_num_threads(), 1);
  EXPECT_EQ(p.argc_left, 3);  // prog --repeats 3
}

TEST(ToolsCli, UsageErrorsNameTheFlagAndTheValueWithStatus2) {
  struct Case {
    std::vector<std::string> args;
    std::string words;
  };
  for (const Case& c : {Case{{"--repeats", "x"}, "--repeats: 'x' is not an integer"},
                        Case{{"--repeats", "0"}, "--repeats: 0 is not in 1..1000"},
                        Case{{"--repeats=1.5"}, "--repeats: '1.5' is not an integer"},
                        Case{{"--tolerance", "abc"}, "--tolerance: 'abc' is not a number"},
                        Case{{"--tolerance", "0"}, "--tolerance: 0 is not in (0, 1]"},
                        Case{{"--tolerance", "nan"}, "--tolerance: 'nan' is not a number"},
                        Case{{"--frobnicate"}, "--frobnicate"}, Case{{"--repeats"}, "--repeats"},
                        Case{{"--tessera-num-threads=x"}, "invalid value 'x' for --tessera-num-threads"},
                        Case{{"--tessera-bogus"}, "unknown flag '--tessera-bogus'"}}) {
    const Parsed p = parse(c.args);
    ASSERT_TRUE(p.status.has_value()) << c.args[0];
    EXPECT_EQ(*p.status, tt::usage_exit_code);
    EXPECT_NE(p.err.find("prog: "), std::string::npos) << p.err;
    EXPECT_NE(p.err.find(c.words), std::string::npos) << "expected '" << c.words << "' in: " << p.err;
    EXPECT_TRUE(p.out.empty());
  }
}

TEST(ToolsCli, HelpListsTheOptionsAndTheRuntimeFlags) {
  const Parsed p = parse({"--help"});
  ASSERT_TRUE(p.status.has_value());
  EXPECT_EQ(*p.status, 0);
  EXPECT_NE(p.out.find("A test program."), std::string::npos);
  EXPECT_NE(p.out.find("--repeats"), std::string::npos);
  EXPECT_NE(p.out.find("--tessera-num-threads"), std::string::npos);
  EXPECT_TRUE(p.err.empty());
}

TEST(ToolsJson, NonFiniteIsNullAndRoundingKeepsThePrintedValue) {
  tt::json j;
  j["nan"] = tt::number(std::nan(""));
  j["inf"] = tt::number(std::numeric_limits<double>::infinity());
  j["x"] = tt::number(0.5);
  j["g"] = tt::rounded(1.0 / 3.0, 6);
  j["f"] = tt::fixed(2.0 / 3.0, 4);
  j["i"] = tt::rounded(5.0, 6);  // "%.6g" prints 5: an integer, as the hand-written lines had it
  j["s"] = "a\"b\n";
  EXPECT_EQ(tt::to_line(j), R"({"nan":null,"inf":null,"x":0.5,"g":0.333333,"f":0.6667,"i":5,"s":"a\"b\n"})");
  EXPECT_EQ(tt::to_line(tt::json::parse(tt::to_line(j))), tt::to_line(j));
  EXPECT_EQ(tt::to_line(tt::json(std::string("bad \xff byte"))), "\"bad \xEF\xBF\xBD byte\"");
}

TEST(ToolsDigest, TextLinesAndJsonMembersOfTheSameItems) {
  tt::Digest d;
  d.add("sum_of_levels", "sum of levels", std::int64_t(42));
  d.add_real("largest_distance", "largest distance", std::nan(""));
  d.add_bool("converged", "converged", true);
  EXPECT_EQ(d.lines(), "sum of levels: 42\nlargest distance: nan\nconverged: yes\n");
  EXPECT_EQ(tt::to_line(d.object()), R"({"sum_of_levels":42,"largest_distance":null,"converged":true})");
}

TEST(ToolsProgress, OneLinePerPhaseWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    tt::Progress p("prog", f, false, 0.0);
    p.update("reading", 1, 4);
    p.update("reading", 2, 4);
    p.phase("building");
    p.end();
    p.phase("solving");
  }
  const std::string s = read_all(f);
  std::fclose(f);
  EXPECT_EQ(s.find('\r'), std::string::npos) << s;
  EXPECT_NE(s.find("prog: reading 100.0% ("), std::string::npos) << s;
  EXPECT_NE(s.find("prog: building ("), std::string::npos) << s;
  EXPECT_NE(s.find("prog: solving ("), std::string::npos) << s;
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 3) << s;
}

TEST(ToolsProgress, RedrawnOnATerminalAndSilentForShortPhases) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    tt::Progress p("prog", f, true, 0.0);
    p.update("reading", 1, 4);
    p.update("reading", 3, 4);
  }
  const std::string s = read_all(f);
  std::fclose(f);
  EXPECT_NE(s.find("\rprog: reading  25.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("\rprog: reading  75.0%"), std::string::npos) << s;
  EXPECT_EQ(s.back(), '\n');

  std::FILE* g = std::tmpfile();
  ASSERT_NE(g, nullptr);
  for (bool terminal : {false, true}) {
    tt::Progress p("prog", g, terminal, 3600.0);  // no phase lasts an hour
    p.update("reading", 1, 4);
    p.phase("building");
  }
  EXPECT_EQ(read_all(g), "");
  std::fclose(g);
}
