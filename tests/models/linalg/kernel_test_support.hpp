// What the dense-kernel tests share: seeded random matrices and the shape of a product.
#pragma once

#include <Eigen/Dense>
#include <cstdlib>

namespace codesim::test {

/// A rows x cols matrix of uniform values in [-1, 1], the same for the same seed.
inline Eigen::MatrixXd random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::srand(seed);
  return Eigen::MatrixXd::Random(rows, cols);
}

/// A (rows x depth) times (depth x cols) product.
struct KernelShape {
  Eigen::Index rows, depth, cols;
};

}  // namespace codesim::test
