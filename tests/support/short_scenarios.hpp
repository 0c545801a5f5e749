// Shortening a shipped training scenario for the suites that run every one of them: the
// --set overrides that replace its MNIST digits by synthetic data of the same input size.
#pragma once

#include <string>
#include <vector>

namespace codesim::test {

/// --set overrides for a numeric training scenario that reads a dataset: synthetic data with
/// MNIST's 784 features and 10 classes (no download needed), 20 evaluation samples, and a small
/// MLP; a convolutional network (`has_network`) keeps its layers (LeNet-5 on 28 x 28 inputs
/// takes 784 features) at batch 4.
inline std::vector<std::string> synthetic_data_sets(bool has_network) {
  std::vector<std::string> sets = {
      "--set",
      "/workload/dataset={\"kind\": \"synthetic\", \"features\": 784, \"classes\": 10, "
      "\"samples\": 300, \"test_samples\": 50}",
      "--set", "/workload/eval_samples=20"};
  if (has_network) {
    sets.insert(sets.end(), {"--set", "/workload/batch=4"});
  } else {
    sets.insert(sets.end(), {"--set", "/workload/layers=[784, 40, 40, 10]"});
  }
  return sets;
}

}  // namespace codesim::test
