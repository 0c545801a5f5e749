// Decoding guard: condition numbers of each point's decoding systems and the warnings they call
// for.
#include "app/exec/decoding_guard.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "models/coding/conditioning.hpp"
#include "models/nn/layer_steps.hpp"
#include "sim/check.hpp"

namespace codesim::app {
namespace {

// A condition number as JSON: null when infinite (JSON has no infinity).
Json condition_json(double condition) {
  if (!std::isfinite(condition)) return Json();
  return condition;
}

std::string condition_text(double condition) {
  if (!std::isfinite(condition)) return "inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", condition);
  return text;
}

// The target as written in the issue, e.g. "1e-8" (printf would write "1e-08").
std::string target_text() {
  const double target = models::kDecodeRelativeAccuracyTarget;
  const int exponent = static_cast<int>(std::lround(std::log10(target)));
  if (std::pow(10.0, exponent) == target) return "1e" + std::to_string(exponent);
  return condition_text(target);
}

}  // namespace

std::string guard_point_name(const ExperimentPoint& point, std::size_t index) {
  std::string name = "point " + std::to_string(index);
  if (!point.label.empty()) name += " (" + point.label + ")";
  return name;
}

namespace {

// Conditioning per strategy: sweep points often share one, and it costs up to tens of
// milliseconds at P = 64.
using ConditioningCache = std::map<std::string, models::DecodingConditioning>;

std::string spec_key(const models::SchemeSpec& s) {
  std::string key(models::scheme_name(s));
  for (int value : models::descriptor_of(s).values(s)) key += ' ' + std::to_string(value);
  if (const auto seed = models::generator_seed(s)) key += ' ' + std::to_string(*seed);
  return key;
}

PointDecodingGuard guard_with_cache(const Scenario& scenario, const std::string& point_name,
                                    ConditioningCache& cache) {
  PointDecodingGuard guard;
  // Only a training run decodes.
  const TrainingWorkload* training = training_of(scenario.workload);
  if (training == nullptr) return guard;
  const models::TrainingSpec& spec = training->spec;
  const std::vector<models::WeightShape> shapes = models::weight_shapes(spec);
  double worst_forward = 1.0;
  double worst_backward = 1.0;
  bool ill_conditioned = false;
  Json layers = Json::array();
  // The generators depend on the strategy only, not on the layer's shape: one computation
  // serves every layer (and every point with the same strategy).
  models::DecodingConditioning conditioning;
  for (std::size_t l = 0; l < shapes.size(); ++l) {
    const int rows = shapes[l].rows;
    const int cols = shapes[l].cols;
    CODESIM_CHECK(models::validate_scheme(spec.scheme, rows, cols).empty(),
                  "every layer fits the strategy");
    if (l == 0) {
      const std::string key = spec_key(spec.scheme);
      auto found = cache.find(key);
      if (found == cache.end()) {
        found = cache.emplace(key, models::decoding_conditioning(spec.scheme, rows, cols)).first;
      }
      conditioning = found->second;
    }
    const double forward = conditioning.forward.worst_condition;
    const double backward = conditioning.backward.worst_condition;
    // Conditions are >= 1 or +Inf.
    if (!(forward <= worst_forward)) worst_forward = forward;
    if (!(backward <= worst_backward)) worst_backward = backward;
    Json layer;
    layer["layer"] = static_cast<int>(l);
    layer["forward"] = condition_json(forward);
    layer["backward"] = condition_json(backward);
    layers.push_back(std::move(layer));
    for (const auto& [direction, condition] :
         {std::pair{"forward", forward}, std::pair{"backward", backward}}) {
      if (!models::may_lose_accuracy(condition)) continue;
      ill_conditioned = true;
      guard.warnings.push_back("warning: " + point_name + ": decoding of layer " +
                               std::to_string(l) + " (" + direction + ") has condition number " +
                               condition_text(condition) + ": results may lose accuracy beyond " +
                               target_text() + " relative");
    }
  }
  guard.record["decode_condition"]["forward"] = condition_json(worst_forward);
  guard.record["decode_condition"]["backward"] = condition_json(worst_backward);
  guard.record["ill_conditioned"] = ill_conditioned;
  guard.record["target_relative_accuracy"] = models::kDecodeRelativeAccuracyTarget;
  guard.record["layers"] = std::move(layers);
  return guard;
}

}  // namespace

PointDecodingGuard guard_scenario(const Scenario& scenario, const std::string& point_name) {
  ConditioningCache cache;
  return guard_with_cache(scenario, point_name, cache);
}

DecodingGuard guard_experiment(const Experiment& experiment) {
  DecodingGuard guard;
  ConditioningCache cache;
  for (std::size_t i = 0; i < experiment.points.size(); ++i) {
    const ExperimentPoint& point = experiment.points[i];
    PointDecodingGuard one = guard_with_cache(point.scenario, guard_point_name(point, i), cache);
    guard.records.push_back(std::move(one.record));
    for (std::string& line : one.warnings) guard.warnings.push_back(std::move(line));
  }
  return guard;
}

}  // namespace codesim::app
