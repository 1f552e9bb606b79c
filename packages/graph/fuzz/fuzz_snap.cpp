// libFuzzer target: graph::read_snap (SNAP / edge-list text) on arbitrary
// bytes, read in one chunk and in tiny chunks (see fuzz_support.hpp) and,
// when read, compared with the reference reader (fuzz_reference.hpp); then
// once more refusing NaN and Inf weights, which must also end in edges or an
// io_error.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace tg = tessera::graph;
  tessera_fuzz::start_runtime();
  const std::string& path = tessera_fuzz::input_file::instance().hold(data, size);
  const auto read = tessera_fuzz::read_text_both_ways(
      [](const std::string& p, const tg::read_options& o) { return tg::read_snap(p, o); }, path,
      std::int64_t(1 + size % 16));
  tessera_fuzz::check_against_reference(
      read, tessera_fuzz::reference::snap(std::string_view(reinterpret_cast<const char*>(data), size)));
  tessera_fuzz::read_text(
      [](const std::string& p, tg::read_options o) {
        o.reject_non_finite = true;
        return tg::read_snap(p, o);
      },
      path, 0);
  return 0;
}
