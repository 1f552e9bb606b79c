// libFuzzer target: graph::read_matrix_market on arbitrary bytes, read in one
// chunk and in tiny chunks (see fuzz_support.hpp for what is a finding) and,
// when read, compared with the reference reader (fuzz_reference.hpp); then
// once more with the options a numerical reader uses (square only, no NaN or
// Inf), which must also end in edges or an io_error.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace tg = tessera::graph;
  tessera_fuzz::start_runtime();
  const std::string& path = tessera_fuzz::input_file::instance().hold(data, size);
  // The small chunk size varies with the input so that chunk ends fall
  // everywhere in the header-to-body transition and inside lines.
  const auto read = tessera_fuzz::read_text_both_ways(
      [](const std::string& p, const tg::read_options& o) { return tg::read_matrix_market(p, o); }, path,
      std::int64_t(1 + size % 16));
  tessera_fuzz::check_against_reference(read, tessera_fuzz::reference::matrix_market(std::string_view(
                                                  reinterpret_cast<const char*>(data), size)));
  tessera_fuzz::read_text(
      [size](const std::string& p, tg::read_options o) {
        // Both ways of reading a rectangular matrix as square ids, by input.
        o.rectangular = size % 2 ? tg::rectangular_matrix::refuse : tg::rectangular_matrix::indices;
        o.reject_non_finite = true;
        return tg::read_matrix_market(p, o);
      },
      path, 0);
  return 0;
}
