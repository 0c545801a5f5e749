// Run summaries: plain text built from the results document's aggregates.
#include "app/cli/run_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "app/config/text_format.hpp"
#include "sim/checkpoint_policy.hpp"
#include "sim/energy_meter.hpp"
#include "sim/iterative_job.hpp"
#include "sim/overloaded.hpp"

namespace codesim::app {

namespace {

std::string format_value(double value, int precision = 4) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : "nan";
  return significant(value, precision);
}

/// The aggregate mean of `metric`, if the results have it.
std::optional<double> mean_of(const Json& aggregate, const std::string& metric) {
  if (!aggregate.contains(metric) || !aggregate[metric]["mean"].is_number()) return std::nullopt;
  return aggregate[metric]["mean"].get<double>();
}

double system_mtbf_s(const sim::ClusterSpec& cluster) {
  double rate = 0.0;
  for (const auto& crash : cluster.crashes) rate += 1.0 / crash.mtbf_s();
  for (const auto& domain : cluster.shared_failures.domains)
    rate += 1.0 / sim::mean_s(domain.failure);
  return rate > 0.0 ? 1.0 / rate : INFINITY;
}

/// "mean +- ci95" of `metric`, or "-" when the results lack it (stochastic mode's accuracy).
std::string mean_and_ci(const Json& aggregate, const std::string& metric, int precision,
                        double scale = 1.0) {
  const auto mean = mean_of(aggregate, metric);
  if (!mean) return "-";
  std::string text = format_value(*mean * scale, precision);
  const Json& ci = aggregate[metric]["ci95"];
  if (ci.is_number() && aggregate[metric]["n"].get<int>() > 1) {
    text += " +- " + format_value(ci.get<double>() * scale, 2);
  }
  return text;
}

/// The mean energy in kJ (as training's table shows it) and each part's share, like the time's.
void print_iterative_job_energy(const Json& aggregate, std::ostream& out) {
  const auto energy = mean_of(aggregate, "energy_J");
  if (!energy) return;
  out << "energy: " << mean_and_ci(aggregate, "energy_J", 4, 1e-3) << " kJ";
  std::string split;
  for (std::string_view part : sim::kEnergyParts) {
    const auto mean = mean_of(aggregate, "energy_" + std::string(part) + "_J");
    if (!mean || *energy <= 0.0) continue;
    std::ostringstream share;
    share << std::fixed << std::setprecision(1) << 100.0 * *mean / *energy << "%";
    split += (split.empty() ? "" : ", ") + std::string(part) + " " + share.str();
  }
  if (!split.empty()) out << " (" << split << ")";
  out << "\n";
}

void print_iterative_job(const Scenario& scenario, const Json& aggregate, std::ostream& out) {
  const auto& job = std::get<sim::IterativeJobSpec>(scenario.workload);
  const int nodes = scenario.cluster.node_count();
  const int tasks = job.tasks == 0 ? nodes : job.tasks;
  out << "workload: " << job.iterations << " iterations of " << tasks << " tasks, each waiting for "
      << (job.wait_for == 0 ? std::string("all") : "the fastest " + std::to_string(job.wait_for))
      << "\n";
  if (scenario.checkpoint.policy != sim::CheckpointKind::none) {
    const double mtbf = scenario.checkpoint.mtbf_s > 0.0 ? scenario.checkpoint.mtbf_s
                                                         : system_mtbf_s(scenario.cluster);
    const sim::Topology topology(scenario.cluster.network);
    const sim::CheckpointPolicy policy(
        scenario.checkpoint, mtbf,
        sim::iterative_job_checkpoint_costs(scenario.checkpoint, topology));
    out << "checkpoint: " << sim::to_string(scenario.checkpoint.policy);
    if (scenario.checkpoint.policy == sim::CheckpointKind::every_iterations) {
      out << " every " << scenario.checkpoint.every_iterations << " iterations";
    } else if (std::isinf(policy.interval_s())) {
      out << " never due (no failures expected)";
    } else if (policy.interval_s() > 0.0) {
      out << " every " << format_value(policy.interval_s()) << " s of progress";
    }
    out << ", write " << format_value(policy.write_cost_s()) << " s, restart "
        << format_value(policy.restart_s()) << " s (job MTBF " << format_value(mtbf) << " s)\n";
  }
  if (aggregate.contains("completion_time_s")) {
    const Json& time = aggregate["completion_time_s"];
    out << "completion time: " << (time["mean"].is_number() ? format_value(time["mean"]) : "n/a")
        << " s +- " << (time["ci95"].is_number() ? format_value(time["ci95"]) : "n/a")
        << " s (mean, 95% CI over " << time["n"].get<int>() << " replicas)\n";
  }
  if (const auto completed = mean_of(aggregate, "completed"); completed && *completed < 1.0) {
    out << "unfinished: " << format_value(100.0 * (1.0 - *completed), 3)
        << "% of replicas hit workload.time_limit_s\n";
  }
  std::string events;
  const std::array<std::pair<const char*, const char*>, 5> counters = {
      {{"crashes", "crashes"},
       {"rollbacks", "rollbacks"},
       {"iterations_redone", "iterations redone"},
       {"checkpoints", "checkpoints"},
       {"soft_errors", "soft errors"}}};
  for (const auto& [metric, label] : counters) {
    if (const auto mean = mean_of(aggregate, metric)) {
      events += (events.empty() ? "" : ", ") + format_value(*mean, 3) + " " + label;
    }
  }
  if (const auto silent = mean_of(aggregate, "silent_soft_errors"); silent && !events.empty()) {
    events += " (" + format_value(*silent, 3) + " silent)";
  }
  if (!events.empty()) out << "per replica (mean): " << events << "\n";
  std::string split;
  const auto completion = mean_of(aggregate, "completion_time_s");
  for (const char* part : {"compute", "communication", "checkpoint", "restart", "lost"}) {
    const auto mean = mean_of(aggregate, std::string("time_") + part + "_s");
    if (!mean || !completion || *completion <= 0.0) continue;
    std::ostringstream share;
    share << std::fixed << std::setprecision(1) << 100.0 * *mean / *completion << "%";
    split += (split.empty() ? "" : ", ") + std::string(part) + " " + share.str();
  }
  if (!split.empty()) out << "time share: " << split << "\n";
  print_iterative_job_energy(aggregate, out);
}

/// "1x28x28 conv2d 6@5x5+2 relu max_pool 2/2 ... dense 10": a network on one line.
std::string network_text(const models::NetworkSpec& network) {
  std::string text =
      fmt::format("{}x{}x{}", network.input.channels, network.input.height, network.input.width);
  for (const models::Layer& layer : network.layers)
    text += fmt::format(" {}", models::describe(layer));
  return text;
}

/// A point's name in the table: its label, else the strategy.
std::string training_row_name(const ExperimentPoint& point) {
  if (!point.label.empty()) return point.label;
  return std::string(
      models::scheme_name(std::get<TrainingWorkload>(point.scenario.workload).spec.scheme));
}

void print_training(const Experiment& experiment, const Json& results, std::ostream& out) {
  const Scenario& first = experiment.points.front().scenario;
  const models::TrainingSpec& spec = std::get<TrainingWorkload>(first.workload).spec;
  std::string layers = spec.network ? "network " + network_text(*spec.network) : "MLP ";
  for (std::size_t i = 0; !spec.network && i < spec.mlp.layer_sizes.size(); ++i)
    layers += fmt::format("{}{}", i > 0 ? "-" : "", spec.mlp.layer_sizes[i]);
  const std::string data =
      spec.mode == models::TrainingMode::stochastic
          ? std::string("stochastic mode (no data)")
          : std::string(models::to_string(std::get<TrainingWorkload>(first.workload).dataset.kind));
  out << "training: " << data << ", " << layers << ", batch " << spec.sgd.batch_size << ", "
      << spec.iterations << " iterations, learning rate " << format_value(spec.sgd.learning_rate)
      << "\n";
  const std::array<std::string, 7> headers = {
      "strategy",  "nodes",     "final accuracy (%)", "simulated time (s)",
      "rollbacks", "corrected", "energy (kJ)"};
  std::vector<std::array<std::string, 7>> rows;
  for (std::size_t p = 0; p < experiment.points.size(); ++p) {
    const ExperimentPoint& point = experiment.points[p];
    const Json& aggregate = results["points"][p]["aggregate"];
    rows.push_back(
        {training_row_name(point),
         std::to_string(models::summarize_scheme(
                            std::get<TrainingWorkload>(point.scenario.workload).spec.scheme)
                            .nodes),
         mean_and_ci(aggregate, "final_test_accuracy", 4, 100.0),
         mean_and_ci(aggregate, "completion_time_s", 4), mean_and_ci(aggregate, "rollbacks", 3),
         mean_and_ci(aggregate, "corrected", 3), mean_and_ci(aggregate, "energy_J", 4, 1e-3)});
  }
  std::array<std::size_t, 7> widths{};
  for (std::size_t c = 0; c < widths.size(); ++c) {
    widths[c] = headers[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  auto print_row = [&](const std::array<std::string, 7>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      out << (c == 0 ? std::left : std::right) << std::setw(static_cast<int>(widths[c])) << row[c]
          << (c + 1 < row.size() ? "  " : "\n");
    }
  };
  print_row(headers);
  for (const auto& row : rows) print_row(row);
  out << std::left;
  const int replicas = results["points"][0]["replicas"].size();
  out << "(means over " << replicas << " replica" << (replicas == 1 ? "" : "s")
      << (replicas > 1 ? ", +- 95% CI" : "") << "; simulated time includes checkpoints, "
      << "restarts and lost work)\n";
}

/// One line per checkpoint-interval search: the fastest factor of Daly's interval, against Daly's,
/// with their paired difference (common random numbers).
void print_checkpoint_searches(const Json& results, std::ostream& out) {
  if (!results.contains("checkpoint_search")) return;
  for (const Json& search : results["checkpoint_search"]) {
    out << "checkpoint search"
        << (search["label"] == "" ? "" : " (" + search["label"].get<std::string>() + ")") << ": ";
    if (search["chosen_factor"].is_null()) {
      out << "no candidate completed every replica\n";
      continue;
    }
    const Json& factors = search["factors"];
    const auto index_of = [&factors](const Json& factor) {
      return static_cast<std::size_t>(std::find(factors.begin(), factors.end(), factor) -
                                      factors.begin());
    };
    const auto time_text = [&search](const char* mean, const char* ci, std::size_t k) {
      return format_value(search[mean][k].get<double>()) + " s +- " +
             format_value(search[ci][k].get<double>()) + " s";
    };
    const std::size_t chosen = index_of(search["chosen_factor"]);
    const std::size_t daly = index_of(1.0);
    out << "fastest " << format_value(factors[chosen].get<double>()) << " x Daly's interval, "
        << time_text("mean_completion_time_s", "ci95_completion_time_s", chosen);
    if (daly < factors.size() && search["mean_completion_time_s"][daly].is_number()) {
      out << " (Daly's: " << time_text("mean_completion_time_s", "ci95_completion_time_s", daly)
          << ")";
      if (chosen != daly) {
        out << "; paired difference to Daly's "
            << time_text("difference_to_daly_s", "ci95_difference_to_daly_s", chosen);
      }
    }
    out << "\n";
  }
}

// The header line, then the training table or each point's iterative-job summary.
void print_run_summary_points(const Experiment& experiment, const Json& results,
                              std::ostream& out) {
  const Scenario& first = experiment.points.front().scenario;
  out << "scenario " << first.name << ": " << first.cluster.node_count() << " nodes ("
      << sim::to_string(first.cluster.network.shape) << "), " << first.replicas
      << " replicas, seed " << first.seed;
  if (experiment.points.size() > 1) out << ", " << experiment.points.size() << " sweep points";
  out << "\n";
  std::visit(sim::Overloaded{
                 [&](const TrainingWorkload&) { print_training(experiment, results, out); },
                 [&](const sim::IterativeJobSpec&) {
                   for (std::size_t p = 0; p < experiment.points.size(); ++p) {
                     if (experiment.points.size() > 1)
                       out << "point " << p << ": " << experiment.points[p].label << "\n";
                     print_iterative_job(experiment.points[p].scenario,
                                         results["points"][p]["aggregate"], out);
                   }
                 },
             },
             first.workload);
}

}  // namespace

void print_run_summary(const Experiment& experiment, const Json& results, std::ostream& out) {
  print_run_summary_points(experiment, results, out);
  print_checkpoint_searches(results, out);
}

}  // namespace codesim::app
