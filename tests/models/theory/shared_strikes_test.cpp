// Pairs of strikes that fail several decodes: the hand count on two nodes, and where the count
// applies (codes that correct one bad symbol, not two copies).
#include <doctest/doctest.h>

#include <vector>

#include "models/theory/shared_strikes.hpp"
#include "models/theory/training_theory.hpp"

namespace {

using codesim::models::FaultTarget;
using codesim::models::SharedStrikes;

constexpr auto kActivation = static_cast<std::size_t>(FaultTarget::activation);
constexpr auto kDecode = static_cast<std::size_t>(FaultTarget::decode);

}  // namespace

TEST_CASE("two nodes of one codeword: the pairs that fail two or three decodes, by hand") {
  // Two layers, no backward round in layer 0, each node one symbol of one codeword both ways.
  // Per node: delta_0, z_0, W_1^T delta_1 (layer 0) and x_1, delta_1, z_1 (layer 1). Across the
  // nodes, z_0 and z_0 share the forward product of layer 1 and the reads of both blocks (3
  // decodes: 2 extra); x_1 with x_1, delta_1 with delta_1 and z_1 with z_1 share a product and
  // the layer-1 read (1 each); z_0 with x_1 and delta_1 with z_1 likewise, in both orders.
  codesim::models::SharedStrikeShape shape;
  shape.layers = 2;
  shape.corrects_one[0] = shape.corrects_one[1] = true;
  for (int p = 0; p < 2; ++p) shape.nodes.push_back({p, p, 0, 0, 1});
  const SharedStrikes shared = codesim::models::count_shared_strikes(shape);
  for (const auto* table : {&shared.next, &shared.verification}) {
    CHECK((*table)[kActivation][kActivation] == 2);
    CHECK((*table)[kDecode][kDecode] == 3);
    CHECK((*table)[kActivation][kDecode] == 4);
    CHECK((*table)[kDecode][kActivation] == 4);
    CHECK((*table)[static_cast<std::size_t>(FaultTarget::weights)][kActivation] == 0);
  }
  codesim::models::TargetProbabilities eps{};
  eps[kActivation] = 1e-3;
  eps[kDecode] = 2e-3;
  CHECK(SharedStrikes::log_gain(shared.next, eps) ==
        doctest::Approx(2 * 1e-6 + 3 * 4e-6 + 4 * 2e-6));
  // The same symbol never fails a decode by itself; nor does a code that corrects two.
  shape.nodes[1] = shape.nodes[0];
  CHECK(codesim::models::count_shared_strikes(shape).next[kDecode][kDecode] == 0);
  shape.nodes[1] = {1, 1, 0, 0, 1};
  shape.corrects_one[0] = shape.corrects_one[1] = false;
  CHECK(codesim::models::count_shared_strikes(shape).verification[kDecode][kDecode] == 0);
}

TEST_CASE("the shared pairs lower CodeNet's rollbacks and leave two copies' unchanged") {
  codesim::models::TargetProbabilities every{};
  every.fill(1e-3);
  codesim::models::TrainingTheoryOptions independent;
  independent.count_shared_strikes = false;
  const std::vector<int> mlp = {40, 40, 40, 10};
  const auto codenet = codesim::models::codenet_grid_spec(5, 4, 7, 6);
  const codesim::models::TrainingTheory shared(codenet, mlp);
  const codesim::models::TrainingTheory apart(codenet, mlp, independent);
  CHECK(shared.shared_strikes().verification[kActivation][kActivation] > 0);
  CHECK(shared.first_rollback_probability(every) < apart.first_rollback_probability(every));
  CHECK(shared.rollback_probability(every) < apart.rollback_probability(every));
  // Weights only: nothing is shared.
  CHECK(shared.rollback_probability(1e-3) == apart.rollback_probability(1e-3));
  const auto two = codesim::models::replication_spec(5, 4, 2);
  CHECK(codesim::models::TrainingTheory(two, mlp).rollback_probability(every) ==
        codesim::models::TrainingTheory(two, mlp, independent).rollback_probability(every));
}
