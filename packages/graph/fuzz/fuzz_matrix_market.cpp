// libFuzzer target: graph::read_matrix_market on arbitrary bytes, read in one
// chunk and in tiny chunks (see fuzz_support.hpp for what is a finding).
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tessera_fuzz::start_runtime();
  const std::string& path = tessera_fuzz::input_file::instance().hold(data, size);
  // The small chunk size varies with the input so that chunk ends fall
  // everywhere in the header-to-body transition and inside lines.
  tessera_fuzz::read_text_both_ways(
      [](const std::string& p, const tessera::graph::read_options& o) {
        return tessera::graph::read_matrix_market(p, o);
      },
      path, std::int64_t(1 + size % 16));
  return 0;
}
