// ABFT's augmented blocks are stored with their columns padded to 32 bytes (SingleBlockScheme):
// everything that reads or writes them through their view must see what an unpadded copy gives,
// bit for bit: the products (whose kernels Eigen picks by row count, not by column distance), the
// updates, the block check, fault injection and checkpoints; the padding rows stay zero.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "models/coding/abft_checksums.hpp"
#include "models/coding/abft_scheme.hpp"
#include "models/faults/fault_injector.hpp"
#include "models/linalg/dense_kernels.hpp"
#include "models/training/numeric/scratch_file.hpp"
#include "tests/models/coding/scheme_test_support.hpp"

namespace codesim::models {
namespace {

using testing::random_matrix;

// Same shape and the same bytes (so -0 differs from 0 and a NaN equals its own bits).
bool same_bits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0;
}

bool padding_is_zero(AbftScheme& scheme, int node) {
  const Matrix& storage = *scheme.block_storage(node).front();
  const Eigen::Index rows = scheme.stored_blocks(node).front().rows();
  return (storage.bottomRows(storage.rows() - rows).array() == 0.0).all();
}

// W's shapes whose block heights + 3 leave every remainder mod 4 (36, 68, 420: padded; 32: not).
struct Shape {
  int rows;
  int cols;
};
constexpr Shape kShapes[] = {{30, 67}, {31, 40}, {29, 250}, {414, 120}};

TEST_CASE("abft stores each augmented block with its columns 32 bytes apart and aligned") {
  for (const Shape& s : kShapes) {
    CAPTURE(s.rows);
    AbftScheme scheme(1, 1, s.rows, s.cols);
    scheme.encode(random_matrix(s.rows, s.cols, 1));
    const BlockRef block = scheme.stored_blocks(0).front();
    CHECK(block.rows() == s.rows + abft::kChecksums);
    CHECK(block.cols() == s.cols + abft::kChecksums);
    CHECK(block.outerStride() % 4 == 0);
    CHECK(block.outerStride() >= block.rows());
    CHECK(block.outerStride() < block.rows() + 4);
    CHECK(reinterpret_cast<std::uintptr_t>(block.data()) % 32 == 0);
    CHECK(scheme.block_storage(0).front()->rows() == block.outerStride());
    CHECK(padding_is_zero(scheme, 0));
  }
}

TEST_CASE("products and updates through a padded block equal those through an unpadded copy") {
  for (const Arithmetic arithmetic : available_arithmetics()) {
    const DenseKernels kernels(arithmetic);
    for (const Shape& s : kShapes) {
      CAPTURE(arithmetic_name(arithmetic));
      CAPTURE(s.rows);
      AbftScheme scheme(1, 1, s.rows, s.cols, arithmetic);
      const Matrix weights = random_matrix(s.rows, s.cols, 2);
      scheme.encode(weights);
      CHECK(same_bits(scheme.stored_blocks(0).front(), abft::augment(weights)));
      for (const int batch : {1, 3, 64}) {
        CAPTURE(batch);
        const Matrix copy = scheme.stored_blocks(0).front();  // columns rows + 3 apart
        const Matrix x = random_matrix(s.cols, batch, 3);
        const Matrix d = random_matrix(s.rows, batch, 4);
        CHECK(same_bits(scheme.multiply(0, Direction::forward, x),
                        kernels.product(copy.leftCols(s.cols), x)));
        CHECK(same_bits(scheme.multiply(0, Direction::backward, d),
                        kernels.transposed_product(copy.topRows(s.rows), d)));
        // The update as add_to_block forms it, on the copy.
        const double eta = -0.01;
        Matrix updated = copy;
        kernels.add_outer_product(updated, 1.0, abft::with_checksums(Matrix(eta * d)),
                                  abft::with_checksums(x));
        scheme.update(0, d, x, eta);
        CHECK(same_bits(scheme.stored_blocks(0).front(), updated));
        CHECK(padding_is_zero(scheme, 0));
      }
    }
  }
}

TEST_CASE("the block check repairs a padded block as it repairs an unpadded copy") {
  for (const Shape& s : kShapes) {
    CAPTURE(s.rows);
    AbftScheme scheme(1, 1, s.rows, s.cols);
    scheme.encode(random_matrix(s.rows, s.cols, 5));
    const Matrix clean = scheme.stored_blocks(0).front();
    for (const Eigen::Index row : {Eigen::Index{3}, Eigen::Index{s.rows + 1}}) {
      BlockRef block = scheme.stored_blocks(0).front();
      block(row, 7) += 2.5;
      Matrix copy = block;
      const abft::CheckResult padded = abft::check_block(block, s.rows, s.cols);
      const abft::CheckResult unpadded = abft::check_block(copy, s.rows, s.cols);
      CHECK(padded.verdict == abft::Verdict::corrected);
      CHECK(padded.verdict == unpadded.verdict);
      CHECK(padded.corrected_values == unpadded.corrected_values);
      CHECK(padded.corrected_checksums == unpadded.corrected_checksums);
      CHECK(same_bits(block, copy));
      CHECK(testing::relative_error(block, clean) < 1e-14);
      CHECK(padding_is_zero(scheme, 0));
    }
    CHECK(scheme.repair_block(0, DecodeOptions{}) == DecodeStatus::clean);
  }
}

TEST_CASE("faults strike a padded block's entries as they strike an unpadded copy's") {
  FaultConfig config = default_fault_config();
  config[FaultTarget::weights].rate = {1.0, 0.0};
  config[FaultTarget::weights].model.density = 0.2;
  for (const Shape& s : kShapes) {
    CAPTURE(s.rows);
    AbftScheme scheme(1, 1, s.rows, s.cols);
    scheme.encode(random_matrix(s.rows, s.cols, 6));
    Matrix copy = scheme.stored_blocks(0).front();
    FaultInjector padded(config, 1, 21, 0);
    FaultInjector unpadded(config, 1, 21, 0);
    for (int i = 0; i < 5; ++i) {
      const FaultOpportunity o{static_cast<double>(i), 0, "forward", 0, FaultTarget::weights, 0.0};
      REQUIRE(padded.inject(o, scheme.stored_blocks(0).front()) != nullptr);
      REQUIRE(unpadded.inject(o, copy) != nullptr);
    }
    CHECK(padded.log().records == unpadded.log().records);
    CHECK(same_bits(scheme.stored_blocks(0).front(), copy));
    CHECK(padding_is_zero(scheme, 0));
  }
}

TEST_CASE("a checkpoint holds a padded block's values alone and restores them in place") {
  AbftScheme scheme(1, 1, 30, 67);
  scheme.encode(random_matrix(30, 67, 7));
  const Matrix clean = scheme.stored_blocks(0).front();
  detail::ScratchFile file("test checkpoint");
  file.write_matrix(scheme.stored_blocks(0).front());
  file.write_matrix(clean);
  file.flush();
  scheme.stored_blocks(0).front().setConstant(1.5);
  file.seek(0);
  BlockRef block = scheme.stored_blocks(0).front();
  file.read_matrix(block);
  CHECK(same_bits(block, clean));
  Matrix unpadded = Matrix::Zero(clean.rows(), clean.cols());
  file.read_matrix(unpadded);  // the file holds the same bytes for the copy
  CHECK(same_bits(unpadded, clean));
  CHECK(padding_is_zero(scheme, 0));
}

}  // namespace
}  // namespace codesim::models
