// The candidates of a checkpoint-interval search and the summary of their results.
#include "app/exec/checkpoint_search.hpp"

#include <algorithm>

#include "analysis/summary_statistics.hpp"

namespace codesim::app {

std::vector<Json> checkpoint_search_documents(const Json& document,
                                              const std::vector<double>& factors) {
  std::vector<Json> out;
  for (double factor : factors) {
    Json candidate = document;
    Json& checkpoint = candidate["checkpoint"];
    checkpoint["policy"] = "daly";
    checkpoint.erase("search_factors");
    checkpoint["interval_factor"] = factor;
    out.push_back(std::move(candidate));
  }
  return out;
}

namespace {

/// Whether every replica of a results point completed (a replica without the metric counts as
/// completed: workloads that always finish).
bool all_completed(const Json& point) {
  for (const Json& replica : point["replicas"])
    if (replica.contains("completed") && replica["completed"].get<double>() != 1.0) return false;
  return !point["replicas"].empty();
}

/// Per replica (in replica order), candidate's completion time minus Daly's: the paired
/// differences of common random numbers, far less noisy than two means' intervals.
std::vector<double> paired_differences(const Json& candidate, const Json& daly) {
  std::vector<double> out;
  const Json& a = candidate["replicas"];
  const Json& b = daly["replicas"];
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    out.push_back(a[i]["completion_time_s"].get<double>() -
                  b[i]["completion_time_s"].get<double>());
  return out;
}

/// The paired differences to Daly's candidate (factor 1): mean and Student-t 95% half-width per
/// candidate, null where either did not complete every replica or there is no factor 1.
void add_differences_to_daly(const CheckpointSearch& search, const Json& points, Json& entry) {
  const auto daly = std::find(search.factors.begin(), search.factors.end(), 1.0);
  Json means = Json::array();
  Json intervals = Json::array();
  for (std::size_t k = 0; k < search.factors.size(); ++k) {
    const Json& point = points.at(search.first_point + k);
    if (daly == search.factors.end() || entry["mean_completion_time_s"][k].is_null() ||
        entry["mean_completion_time_s"][daly - search.factors.begin()].is_null()) {
      means.push_back(nullptr);
      intervals.push_back(nullptr);
      continue;
    }
    const Json& daly_point =
        points.at(search.first_point + static_cast<std::size_t>(daly - search.factors.begin()));
    const std::vector<double> differences = paired_differences(point, daly_point);
    const analysis::SummaryStatistics s = analysis::summarize(differences);
    means.push_back(s.mean);
    intervals.push_back(s.ci95);
  }
  entry["difference_to_daly_s"] = std::move(means);
  entry["ci95_difference_to_daly_s"] = std::move(intervals);
}

}  // namespace

Json checkpoint_search_json(const std::vector<CheckpointSearch>& searches, const Json& points) {
  Json out = Json::array();
  for (const CheckpointSearch& search : searches) {
    Json entry = Json::object();
    entry["label"] = search.label;
    entry["factors"] = search.factors;
    Json means = Json::array();
    Json intervals = Json::array();
    Json chosen = nullptr;
    double best = 0.0;
    for (std::size_t k = 0; k < search.factors.size(); ++k) {
      const Json& point = points.at(search.first_point + k);
      const Json& time = point["aggregate"]["completion_time_s"];
      if (!all_completed(point) || !time["mean"].is_number()) {
        means.push_back(nullptr);
        intervals.push_back(nullptr);
        continue;
      }
      const double mean = time["mean"].get<double>();
      means.push_back(mean);
      intervals.push_back(time["ci95"]);
      if (chosen.is_null() || mean < best) {
        chosen = search.factors[k];
        best = mean;
      }
    }
    entry["mean_completion_time_s"] = std::move(means);
    entry["ci95_completion_time_s"] = std::move(intervals);
    entry["chosen_factor"] = chosen;
    add_differences_to_daly(search, points, entry);
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace codesim::app
