// Stage 3 of codesim advise (strategy_confirmation.hpp).
#include "app/advise/strategy_confirmation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/summary_statistics.hpp"
#include "app/advise/strategy_bounds.hpp"
#include "app/advise/strategy_space.hpp"
#include "app/exec/runner.hpp"
#include "app/exec/unit_executor.hpp"

namespace codesim::app {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// The replicas of running `document` (one point) on `jobs` threads of this process.
Json replicas_of(const Json& document, const std::string& file, int jobs) {
  const Experiment experiment = make_experiment(document, file);
  const std::unique_ptr<UnitExecutor> executor = make_local_executor();
  const PreparedRun prepared = prepare_run(experiment, *executor);
  RunOptions options;
  options.jobs = jobs;
  const RunOutput output = run_prepared(experiment, prepared, options);
  if (!output.results.value("complete", false)) throw AdviseInterrupted();
  return output.results["points"][0]["replicas"];
}

/// Simulated seconds until `replica`'s test accuracy first reached `target`; infinite when it
/// never did or the replica did not complete.
double time_to_accuracy_s(const Json& replica, double target) {
  if (replica.value("completed", 0.0) <= 0.0 || !replica.contains("accuracy_vs_time"))
    return kInfinity;
  const Json& series = replica["accuracy_vs_time"];
  std::size_t time_column = 0, accuracy_column = 0;
  for (std::size_t c = 0; c < series["columns"].size(); ++c) {
    if (series["columns"][c] == "time_s") time_column = c;
    if (series["columns"][c] == "test_accuracy") accuracy_column = c;
  }
  for (const Json& row : series["rows"]) {
    if (row[accuracy_column].is_number() && row[accuracy_column].get<double>() >= target)
      return row[time_column].get<double>();
  }
  return kInfinity;
}

double sum_of(const Json& replicas, const char* metric) {
  double sum = 0.0;
  for (const Json& replica : replicas) sum += replica.value(metric, 0.0);
  return sum;
}

}  // namespace

Confirmation judge_replicas(const Json& replicas, double reference_accuracy, double target) {
  Confirmation c;
  std::vector<double> accuracies, times;
  for (const Json& replica : replicas) {
    accuracies.push_back(replica.value("final_test_accuracy", 0.0));
    times.push_back(time_to_accuracy_s(replica, target));
  }
  const analysis::SummaryStatistics accuracy = analysis::summarize(accuracies);
  c.replicas = static_cast<int>(accuracies.size());
  c.accuracy = accuracy.mean;
  c.accuracy_ci95 = accuracy.ci95;
  c.silent_corruptions = sum_of(replicas, "silent_corruptions");
  c.decode_failures = sum_of(replicas, "detected");
  c.rollbacks = sum_of(replicas, "rollbacks");
  c.time_to_accuracy_s = analysis::summarize(times).mean;
  if (c.silent_corruptions > 0.0) {
    c.verdict = "corrupted silently in numeric training";
  } else if (c.accuracy < reference_accuracy - kAccuracyTolerance) {
    c.verdict = "lost accuracy: " + number_text(c.accuracy) + " against the error-free " +
                number_text(reference_accuracy);
  } else if (sum_of(replicas, "completed") < double(c.replicas)) {
    c.verdict = "did not complete its numeric training";
  }
  c.demoted = !c.verdict.empty();
  if (!c.demoted) c.verdict = "confirmed";
  return c;
}

Json reference_document(const Json& document) {
  Json d = document;
  d.erase("faults");
  d.erase("sweep");
  if (d.contains("cluster")) {
    Json& cluster = d["cluster"];
    for (const char* key :
         {"crashes", "soft_errors", "domains", "availability_trace", "link_failures"})
      cluster.erase(key);
    if (cluster.contains("overrides") && cluster["overrides"].is_array()) {
      for (Json& o : cluster["overrides"]) {
        o.erase("crashes");
        o.erase("soft_errors");
      }
    }
  }
  return d;
}

ReferenceAccuracy reference_accuracy(const Json& reference, const std::string& file, int jobs) {
  std::vector<double> values;
  for (const Json& replica : replicas_of(reference, file, jobs))
    values.push_back(replica.value("final_test_accuracy", 0.0));
  return {analysis::summarize(values).mean, *std::min_element(values.begin(), values.end())};
}

ConfirmationRun confirm_by_training(const std::vector<Json>& documents,
                                    const ReferenceAccuracy& reference, const std::string& file,
                                    int jobs, std::optional<double> target_accuracy) {
  ConfirmationRun run;
  run.reference_accuracy = reference.mean;
  run.target_accuracy = target_accuracy.value_or(reference.lowest - kAccuracyTolerance);
  for (const Json& document : documents) {
    run.confirmations.push_back(
        judge_replicas(replicas_of(document, file, jobs), reference.mean, run.target_accuracy));
  }
  return run;
}

}  // namespace codesim::app
