// Tests for the slab-wise initial encoding and read-out of large layers: bit for bit the full
// encoding of glorot_init's weights and their decode.
#include "models/training/numeric/slab_weights.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/linalg/thread_team.hpp"
#include "models/nn/mlp.hpp"

namespace {

using codesim::models::BlockRef;
using codesim::models::CodingScheme;
using codesim::models::Matrix;
using codesim::models::SchemeSpec;

// Every stored block of `a` equals, bit for bit, the same block of `b`.
bool same_blocks(CodingScheme& a, CodingScheme& b) {
  for (int p = 0; p < a.node_count(); ++p) {
    const std::vector<BlockRef> mine = a.stored_blocks(p);
    const std::vector<BlockRef> theirs = b.stored_blocks(p);
    if (mine.size() != theirs.size()) return false;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (mine[i].rows() != theirs[i].rows() || mine[i].cols() != theirs[i].cols() ||
          mine[i] != theirs[i]) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

TEST_CASE(
    "a large layer encoded and read out in slabs matches the whole-matrix encode and decode") {
  // 2000 x 1200: CodeNet in 2 column groups of 600 (16 MiB slabs of 524 columns per group, then
  // 76), GPD in 4 groups of 300 (262, then 38).
  constexpr int kRows = 2000;
  constexpr int kCols = 1200;
  constexpr std::uint64_t kSeed = 7;
  codesim::models::MlpSpec mlp;
  mlp.layer_sizes = {kCols, kRows};
  const Matrix weights = codesim::models::glorot_init(mlp, kSeed).weights[0];
  for (const SchemeSpec& spec :
       {codesim::models::codenet_grid_spec(2, 2, 3, 3), codesim::models::gpd_spec(2, 4, 16)}) {
    const std::unique_ptr<CodingScheme> whole = codesim::models::make_scheme(spec, kRows, kCols);
    whole->encode(weights);
    const std::unique_ptr<CodingScheme> slabs = codesim::models::make_scheme(spec, kRows, kCols);
    codesim::models::detail::encode_initial_weights(spec, *slabs, kSeed, 0, kRows, kCols,
                                                    std::sqrt(2.0 / (kCols + kRows)));
    CHECK(same_blocks(*slabs, *whole));

    const Matrix decoded = whole->decode_weights();
    const Matrix read_out = codesim::models::detail::read_out_weights(spec, *slabs, kRows, kCols);
    CHECK(read_out == decoded);
    for (int p = 0; p < slabs->node_count(); ++p) {
      for (const BlockRef& block : slabs->stored_blocks(p)) CHECK(block.size() == 0);
    }
  }
}

TEST_CASE("a large layer's decoded product is W x summed over slabs, whatever the thread count") {
  // 2000 x 1200 with 4 MiB slabs: CodeNet's 2 column groups of 600 in slabs of 131 columns each,
  // GPD's 4 groups of 300 in slabs of 65; with 1 GiB slabs, one slab.
  constexpr int kRows = 2000;
  constexpr int kCols = 1200;
  codesim::models::MlpSpec mlp;
  mlp.layer_sizes = {kCols, kRows};
  const Matrix weights = codesim::models::glorot_init(mlp, 5).weights[0];
  const Matrix x = Matrix::Random(kCols, 37);
  const Matrix expected = weights * x;
  for (const SchemeSpec& spec :
       {codesim::models::codenet_grid_spec(2, 2, 3, 3), codesim::models::gpd_spec(2, 4, 16)}) {
    const std::unique_ptr<CodingScheme> scheme = codesim::models::make_scheme(spec, kRows, kCols);
    scheme->encode(weights);
    const Matrix sliced =
        codesim::models::detail::decoded_product(spec, *scheme, kRows, kCols, x, 4 << 20);
    CHECK((sliced - expected).cwiseAbs().maxCoeff() < 1e-12 * expected.cwiseAbs().maxCoeff());
    CHECK(sliced != scheme->kernels().product(scheme->decode_weights(), x));  // other sums
    codesim::models::ThreadTeam team(3);
    scheme->use_team(&team);
    CHECK(codesim::models::detail::decoded_product(spec, *scheme, kRows, kCols, x, 4 << 20) ==
          sliced);
    CHECK(codesim::models::detail::decoded_product(spec, *scheme, kRows, kCols, x, 1 << 30) ==
          scheme->kernels().product(scheme->decode_weights(), x));
    scheme->use_team(nullptr);
  }
}
