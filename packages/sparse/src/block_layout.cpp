// The block-layout picture (SVG).
#include <tessera/sparse/block_layout.hpp>
#include <tessera/sparse/crs_matrix.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace tessera::sparse {

BlockLayoutSummary write_block_layout_svg(const std::string& path, const SymbolicFactor& f, int max_block) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!out) throw sparse_error(path + ": cannot create the picture: " + std::strerror(errno));
  std::FILE* o = out.get();
  const double size = 800, margin = 40;
  const double n = double(std::max<std::int64_t>(f.n, 1));
  const double px = size / n;
  auto rect = [&](double x0, double y0, double x1, double y1, const char* fill) {
    // At least a third of a pixel, so that thin blocks stay visible.
    const double w = std::max((x1 - x0) * px, 0.35), h = std::max((y1 - y0) * px, 0.35);
    std::fprintf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", margin + x0 * px,
                 margin + y0 * px, w, h, fill);
  };
  std::fprintf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\">\n"
               "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"white\"/>\n"
               "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\" stroke-width=\"0.5\"/>\n",
               size + 2 * margin, size + 3 * margin, size + 2 * margin, size + 3 * margin, size + 2 * margin,
               size + 3 * margin, margin, margin, size, size);
  BlockLayoutSummary sum;
  const char* diag_color = "#d62728";     // CHOL: a supernode's dense diagonal block
  const char* off_color = "#1f77b4";      // TRSM / GEMM targets: off-diagonal blocks
  const char* tiled_diag = "#ff7f0e";     // diagonal blocks of a front cut into 2D blocks
  const char* tiled_off = "#2ca02c";
  for (std::int64_t s = 0; s < f.nsuper; ++s) {
    const std::int64_t c0 = f.super_ptr[s], c1 = f.super_ptr[s + 1], nc = c1 - c0;
    const bool tiled = f.nrows(s) > max_block;
    sum.blocked_supernodes += tiled;
    // Diagonal: one block, or the 2D grid of the front's column blocks.
    const std::int64_t parts = tiled ? (nc + max_block - 1) / max_block : 1;
    for (std::int64_t a = 0; a < parts; ++a) {
      const std::int64_t b0 = c0 + nc * a / parts, b1 = c0 + nc * (a + 1) / parts;
      for (std::int64_t b = 0; b <= a; ++b) {
        const std::int64_t d0 = c0 + nc * b / parts, d1 = c0 + nc * (b + 1) / parts;
        rect(double(d0), double(b0), double(d1), double(b1), a == b ? (tiled ? tiled_diag : diag_color) : (tiled ? tiled_off : off_color));
        ++sum.diagonal_blocks;
      }
    }
    // Below: maximal runs of consecutive rows.
    const std::int64_t* r = f.rows.data() + f.rows_ptr[s] + nc;
    const std::int64_t below = f.nrows(s) - nc;
    for (std::int64_t q = 0; q < below;) {
      std::int64_t e = q + 1;
      while (e < below && r[e] == r[e - 1] + 1) ++e;
      rect(double(c0), double(r[q]), double(c1), double(r[e - 1] + 1), tiled ? tiled_off : off_color);
      ++sum.offdiagonal_blocks;
      q = e;
    }
  }
  const double y = size + margin + 20;
  std::fprintf(o,
               "<g font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect x=\"%g\" y=\"%g\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%g\" y=\"%g\">diagonal block</text>\n"
               "<rect x=\"%g\" y=\"%g\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%g\" y=\"%g\">off-diagonal block</text>\n"
               "<rect x=\"%g\" y=\"%g\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%g\" y=\"%g\">2D-blocked front: diagonal</text>\n"
               "<rect x=\"%g\" y=\"%g\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%g\" y=\"%g\">2D-blocked front: off-diagonal</text>\n"
               "<text x=\"%g\" y=\"%g\">n = %lld, %lld supernodes, max block %d</text>\n</g>\n</svg>\n",
               margin, y - 10, diag_color, margin + 14, y, margin + 130, y - 10, off_color, margin + 144, y,
               margin + 280, y - 10, tiled_diag, margin + 294, y, margin + 480, y - 10, tiled_off, margin + 494, y,
               margin, y + 20, (long long)f.n, (long long)f.nsuper, max_block);
  if (std::ferror(o)) throw sparse_error(path + ": write failed");
  return sum;
}

}  // namespace tessera::sparse
