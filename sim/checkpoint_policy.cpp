// Checkpoint policies: validation, write cost, Young and Daly intervals, Daly's expected time.
#include "sim/checkpoint_policy.hpp"

#include <cmath>
#include <sstream>

#include "sim/check.hpp"
#include "sim/enum_names.hpp"

namespace codesim::sim {
namespace {

// "checkpoint <what> (got value)"; the tests are written so NaN fails them.
std::string problem(const std::string& what, double got) {
  std::ostringstream out;
  out << "checkpoint " << what << " (got " << got << ")";
  return out.str();
}

bool finite_non_negative(double value) { return value >= 0.0 && std::isfinite(value); }

}  // namespace

std::string_view to_string(CheckpointKind kind) { return name_of(kind, kCheckpointKindNames); }

std::string validate_checkpoint(const CheckpointSpec& spec) {
  const CheckpointKind policy = spec.policy;
  if (static_cast<std::size_t>(policy) >= kCheckpointKindNames.size())
    return "unknown checkpoint policy " + std::to_string(static_cast<int>(policy));
  if (!finite_non_negative(spec.write_s))
    return problem("write_s must be finite and >= 0", spec.write_s);
  if (!finite_non_negative(spec.bytes)) return problem("bytes must be finite and >= 0", spec.bytes);
  if (!finite_non_negative(spec.write_bandwidth_Bps))
    return problem("write_bandwidth_Bps must be finite and >= 0", spec.write_bandwidth_Bps);
  if (!finite_non_negative(spec.restart_s))
    return problem("restart_s must be finite and >= 0", spec.restart_s);
  if (spec.max_stalled_rollbacks < 1)
    return problem("max_stalled_rollbacks must be >= 1", spec.max_stalled_rollbacks);
  if (!(spec.mtbf_s >= 0.0)) return problem("mtbf_s must be > 0, or 0 to derive it", spec.mtbf_s);
  switch (policy) {
    case CheckpointKind::none:
      return "";
    case CheckpointKind::every_iterations:
      if (spec.every_iterations <= 0)
        return problem("every_iterations must be > 0", spec.every_iterations);
      return "";
    case CheckpointKind::every_seconds:
      if (!(spec.every_s > 0.0 && std::isfinite(spec.every_s)))
        return problem("every_s must be finite and > 0", spec.every_s);
      return "";
    case CheckpointKind::young:
    case CheckpointKind::daly:
    case CheckpointKind::optimal_simulated:
      if (!(spec.interval_factor > 0.0 && std::isfinite(spec.interval_factor)))
        return problem("interval_factor must be finite and > 0", spec.interval_factor);
      if (policy == CheckpointKind::optimal_simulated && spec.search_factors.size() < 2)
        return problem("search_factors needs at least two factors",
                       static_cast<double>(spec.search_factors.size()));
      for (double f : spec.search_factors)
        if (!(f > 0.0 && std::isfinite(f)))
          return problem("search_factors must be finite and > 0", f);
      if (!(checkpoint_write_cost_s(spec) > 0.0))
        return problem(std::string(to_string(policy)) +
                           " needs a positive write cost (write_s, or bytes with "
                           "write_bandwidth_Bps)",
                       checkpoint_write_cost_s(spec));
      return "";
  }
  return "";
}

double checkpoint_write_cost_s(const CheckpointSpec& spec) {
  const double transfer_s =
      spec.write_bandwidth_Bps > 0.0 ? spec.bytes / spec.write_bandwidth_Bps : 0.0;
  return spec.write_s + transfer_s;
}

double young_interval_s(double write_cost_s, double mtbf_s) {
  CODESIM_CHECK(write_cost_s >= 0.0 && mtbf_s >= 0.0, "Young needs delta >= 0 and M >= 0");
  if (mtbf_s == 0.0) return 0.0;  // even with an infinite delta: failures never let work wait
  return std::sqrt(2.0 * write_cost_s * mtbf_s);
}

double daly_interval_s(double write_cost_s, double mtbf_s) {
  CODESIM_CHECK(write_cost_s >= 0.0 && mtbf_s >= 0.0, "Daly needs delta >= 0 and M >= 0");
  const double delta = write_cost_s;
  const double m = mtbf_s;
  if (std::isinf(m)) return INFINITY;
  if (delta >= 2.0 * m) return m;
  return std::sqrt(2.0 * delta * m) *
             (1.0 + std::sqrt(delta / (2.0 * m)) / 3.0 + delta / (18.0 * m)) -
         delta;
}

double daly_expected_completion_s(double work_s, double tau_s, double write_cost_s,
                                  double restart_s, double mtbf_s) {
  CODESIM_CHECK(
      work_s >= 0.0 && tau_s > 0.0 && write_cost_s >= 0.0 && restart_s >= 0.0 && mtbf_s > 0.0,
      "Daly completion needs work >= 0, tau > 0, delta >= 0, R >= 0 and M > 0");
  const double m = mtbf_s;
  // Without failures the formula's limit is the work plus one write per interval.
  if (std::isinf(m)) return work_s * (1.0 + write_cost_s / tau_s);
  return m * std::exp(restart_s / m) * std::expm1((tau_s + write_cost_s) / m) * work_s / tau_s;
}

CheckpointCosts checkpoint_costs(const CheckpointSpec& spec) {
  return {checkpoint_write_cost_s(spec), spec.restart_s};
}

CheckpointCosts add_storage_transfers(CheckpointCosts costs, const CheckpointSpec& spec,
                                      const Topology& topology, int nodes, double bytes_per_node) {
  costs.write_s += storage_transfer_time_s(topology, spec.storage, nodes, bytes_per_node, true);
  costs.restart_s += storage_transfer_time_s(topology, spec.storage, nodes, bytes_per_node, false);
  return costs;
}

CheckpointPolicy::CheckpointPolicy(const CheckpointSpec& spec, double mtbf_s, CheckpointCosts costs)
    : write_cost_s_(costs.write_s), restart_s_(costs.restart_s) {
  CODESIM_CHECK(costs.write_s >= 0.0 && costs.restart_s >= 0.0,
                "checkpoint costs must be >= 0 seconds");
  const std::string error = validate_checkpoint(spec);
  CODESIM_CHECK(error.empty(), error.c_str());
  switch (spec.policy) {
    case CheckpointKind::none:
      kind_ = Kind::none;
      interval_s_ = INFINITY;
      break;
    case CheckpointKind::every_iterations:
      kind_ = Kind::iterations;
      every_iterations_ = spec.every_iterations;
      interval_s_ = 0.0;
      break;
    case CheckpointKind::every_seconds:
      kind_ = Kind::seconds;
      interval_s_ = spec.every_s;
      break;
    case CheckpointKind::young:
    case CheckpointKind::daly:
    case CheckpointKind::optimal_simulated: {
      const double m = spec.mtbf_s > 0.0 ? spec.mtbf_s : mtbf_s;
      // M = 0 (failures at an infinite rate): an interval of 0, a checkpoint every iteration.
      CODESIM_CHECK(m >= 0.0, "young/daly need an MTBF >= 0");
      interval_s_ = spec.interval_factor * (spec.policy == CheckpointKind::young
                                                ? young_interval_s(write_cost_s_, m)
                                                : daly_interval_s(write_cost_s_, m));
      // A job that never fails never needs a checkpoint.
      kind_ = std::isinf(interval_s_) ? Kind::none : Kind::seconds;
      break;
    }
  }
}

bool CheckpointPolicy::due(int iterations, double progress_s) const {
  switch (kind_) {
    case Kind::none:
      return false;
    case Kind::iterations:
      return iterations >= every_iterations_;
    case Kind::seconds:
      return progress_s >= interval_s_;
  }
  return false;
}

std::string CheckpointPolicy::restart_past_limit(double now_s, double time_limit_s) const {
  if (now_s + restart_s_ <= time_limit_s) return {};
  std::ostringstream out;
  out << "the restart after a rollback takes " << restart_s_ << " s and would end after the "
      << "time limit (time_limit_s " << time_limit_s << " s, now " << now_s
      << " s): the run cannot complete and ended as at its limit, the failures after this "
         "rollback not simulated";
  return out.str();
}

}  // namespace codesim::sim
