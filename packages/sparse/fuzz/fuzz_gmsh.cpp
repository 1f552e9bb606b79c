// libFuzzer target: fem::read_gmsh (Gmsh .msh 4.1 ASCII) on arbitrary bytes.
//
// A finding, beyond the sanitizers' and libFuzzer's (crash, report, an
// allocation above -malloc_limit_mb, a hang):
//   - an exception other than sparse_error, or one whose message does not
//     start with the file's name;
//   - a mesh returned that its own check() refuses, or with a non-finite
//     coordinate (a NaN node is a degenerate element to check(), an
//     infinite one may not be).
#include "fuzz_support.hpp"

#include <tessera/sparse/fem/mesh.hpp>

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace fem = tessera::sparse::fem;
  tessera_fuzz::start_runtime();
  const std::string& path = tessera_fuzz::input_file::instance().hold(data, size);
  try {
    const fem::Mesh m = fem::read_gmsh(path);
    try {
      m.check();
    } catch (const tessera::sparse::sparse_error& e) {
      tessera_fuzz::finding(std::string("read_gmsh returned a mesh its check() refuses: ") + e.what());
    }
    for (std::size_t i = 0; i < m.coords.extent(0); ++i)
      for (std::size_t d = 0; d < m.coords.extent(1); ++d)
        if (!std::isfinite(m.coords(i, d)))
          tessera_fuzz::finding("node " + std::to_string(i) + " has a non-finite coordinate");
  } catch (const tessera::sparse::sparse_error& e) {
    if (std::string(e.what()).rfind(path + ":", 0) != 0)
      tessera_fuzz::finding(std::string("sparse_error does not start with the file's name: ") + e.what());
  }
  return 0;
}
