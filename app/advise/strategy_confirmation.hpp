// Stage 3 of codesim advise (--confirm K): the K best configurations of stage 2 trained in
// numeric mode, with the real coded arithmetic, beside an error-free reference run. What the
// stochastic mode cannot see shows here: the accuracy reached, silent corruptions of the weights,
// decodes that detected more errors than they correct. A configuration that loses accuracy
// against the reference or corrupts silently is demoted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/config/object_reader.hpp"

namespace codesim::app {

/// A configuration loses accuracy when its mean final test accuracy is more than this below the
/// error-free reference's (absolute: 0.01 = one percentage point).
inline constexpr double kAccuracyTolerance = 0.01;

/// One configuration's numeric training, over its replicas.
struct Confirmation {
  int replicas = 0;
  double accuracy = 0.0;            ///< mean final test accuracy, 0..1
  double accuracy_ci95 = 0.0;       ///< Student-t half-width
  double silent_corruptions = 0.0;  ///< summed over the replicas
  double decode_failures = 0.0;     ///< decodes that detected errors beyond correction, summed
  double rollbacks = 0.0;           ///< summed
  /// Mean simulated seconds until the test accuracy first reached the target (infinite when a
  /// replica never did or did not complete).
  double time_to_accuracy_s = 0.0;
  bool demoted = false;
  std::string verdict;  ///< "confirmed", or why it was demoted
};

struct ConfirmationRun {
  double reference_accuracy = 0.0;          ///< the error-free reference's mean final test accuracy
  double target_accuracy = 0.0;             ///< what time_to_accuracy_s waits for, 0..1
  std::vector<Confirmation> confirmations;  ///< per document given
};

/// The final test accuracy of the error-free reference over its replicas.
struct ReferenceAccuracy {
  double mean = 0.0;
  double lowest = 0.0;  ///< of its replicas: the default target of time to accuracy, less the
                        ///< tolerance, is one every replica of the reference reached
};

/// Trains `reference` (the scenario without faults or crashes, reference_document) with the
/// scenario's replicas on `jobs` threads. Run before the search, so that missing data is
/// reported before anything else runs.
ReferenceAccuracy reference_accuracy(const Json& reference, const std::string& file, int jobs);

/// Trains `documents` (scenario documents in numeric mode, one per configuration), each with the
/// scenario's replicas on `jobs` threads, against the reference's accuracy. `target_accuracy`
/// defaults to the reference's lowest less the tolerance. `file` labels errors.
ConfirmationRun confirm_by_training(const std::vector<Json>& documents,
                                    const ReferenceAccuracy& reference, const std::string& file,
                                    int jobs, std::optional<double> target_accuracy);

/// What one configuration's numeric `replicas` (a results file's replica objects) say against
/// the reference's accuracy, with time to `target_accuracy` from their accuracy_vs_time series.
Confirmation judge_replicas(const Json& replicas, double reference_accuracy,
                            double target_accuracy);

/// The scenario document of the error-free reference: `document` without faults or crashes.
Json reference_document(const Json& document);

}  // namespace codesim::app
