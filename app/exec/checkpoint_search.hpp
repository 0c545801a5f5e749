// checkpoint.policy = "optimal_simulated": the checkpoint interval found by simulation rather than
// by Young's or Daly's formula, which assume exponential failures. Each searching point becomes
// one point per factor of its search_factors (policy daly, interval_factor = the factor), run
// like any sweep point: same seed, same replica numbers, so the candidates meet the same failures
// (common random numbers) and their differences are the intervals'. The results name the fastest.
#pragma once

#include <string>
#include <vector>

#include "app/config/object_reader.hpp"

namespace codesim::app {

/// One search: its candidates are points first_point .. first_point + factors.size() - 1.
struct CheckpointSearch {
  std::size_t first_point = 0;
  std::vector<double> factors;
  std::string label;  ///< the searching point's label ("" without a sweep)
};

/// The scenario documents of the candidates of `document` (a point whose checkpoint policy is
/// optimal_simulated, with `factors`): its checkpoint section with policy daly and
/// interval_factor = each factor, search_factors removed.
std::vector<Json> checkpoint_search_documents(const Json& document,
                                              const std::vector<double>& factors);

/// The results' "checkpoint_search" array: per search, its label, the factors, each
/// candidate's mean completion time and its 95% interval (null where a replica did not
/// complete), the chosen factor: the fastest candidate among those whose every replica
/// completed (the first on ties; null when none did), and each candidate's paired difference to
/// Daly's (factor 1): the mean over replicas of its completion time minus Daly's in the same
/// replica, and that mean's Student-t 95% half-width (null without factor 1 or where a replica
/// did not complete). `points` is the results' points array.
Json checkpoint_search_json(const std::vector<CheckpointSearch>& searches, const Json& points);

}  // namespace codesim::app
