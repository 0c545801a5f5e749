// The candidates of a checkpoint-interval search and the summary of their results.
#include "app/exec/checkpoint_search.hpp"

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
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace codesim::app
