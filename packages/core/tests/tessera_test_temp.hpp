#pragma once
// Temporary files for tests: each test process gets a folder of its own,
// removed with everything in it when the process exits.
//
//   const auto path = tessera::test::temp_path("graph.mtx");
//
// Why a folder per process: ctest runs the typed cases of one test
// (Serial, Threads, ...) as separate processes side by side (ctest -j), so
// a shared name lets one case truncate the file another is reading; and
// files named per process but never removed piled up in /tmp by the
// hundred.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace tessera::test {

class temp_folder {
 public:
  temp_folder()
      : m_owner(::getpid()),
        m_path(std::filesystem::temp_directory_path() / ("tessera_test_" + std::to_string(m_owner))) {
    std::filesystem::create_directories(m_path);
  }
  // Only the process that made the folder removes it: a forked child (a
  // GoogleTest death test) that exits normally must not take the parent's
  // files with it.
  ~temp_folder() {
    if (::getpid() != m_owner) return;
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  pid_t m_owner;
  std::filesystem::path m_path;
};

// A path in this process's temporary folder (the folder exists; the file
// does not until the test writes it).
inline std::filesystem::path temp_path(const std::string& name) {
  static const temp_folder folder;
  return folder.path() / name;
}

// Writes `bytes` as they are to temp_path(name) and returns that path.
inline std::string write_temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace tessera::test
