// The text form of `codesim theory`'s training-model report, read from the typed report.
#include <cmath>
#include <iomanip>
#include <ostream>
#include <string>

#include "app/cli/theory_report.hpp"
#include "app/config/text_format.hpp"
#include "sim/enum_names.hpp"

namespace codesim::app {
namespace {

// A number for text output: 4 significant digits.
std::string text(double value) { return significant(value, 4); }
std::string text(int value) { return std::to_string(value); }
// A number of the checkpoint model, where infinite or NaN means "never completes": "inf".
std::string text_or_inf(double value) { return std::isfinite(value) ? text(value) : "inf"; }

std::string parameter_text(const SchemeParameter& parameter) {
  if (const auto* choice = std::get_if<std::string>(&parameter.value)) return *choice;
  return std::to_string(std::get<int>(parameter.value));
}

void print_scheme(const TheoryReport& r, std::ostream& out) {
  out << "scheme: " << r.scheme;
  const char* separator = " (";
  for (const SchemeParameter& parameter : r.parameters) {
    out << separator << parameter.name << " " << parameter_text(parameter);
    separator = ", ";
  }
  out << ")\n";
  out << "nodes: " << r.nodes << "\n";
  out << "layers:";
  separator = " ";
  for (int size : r.layers) {
    out << separator << size;
    separator = ",";
  }
  out << " (" << r.opportunities.size() << " weight layers; "
      << (r.first_layer_backward ? "every layer has" : "layer 0 has no") << " backward round)\n";
  out << "eps: " << text(r.eps)
      << " per opportunity (weights, before each forward and backward product and after each "
         "update)\n";
  if (r.eps_by_target) {
    out << "every target (" << (r.decentralized ? "decentralized" : "centralized") << " protocol):";
    for (std::size_t k = 0; k < r.eps_by_target->size(); ++k) {
      out << " " << models::kFaultTargetNames[k] << " " << text((*r.eps_by_target)[k]) << " x "
          << (*r.opportunities_by_target)[k];
    }
    out << " opportunities per iteration\n";
  }
  out << "error model: " << sim::name_of(r.error_model, models::kErrorModelNames) << "\n";
}

void print_exposure(const TheoryReport& r, std::ostream& out) {
  out << "opportunities per iteration: " << r.opportunities_per_iteration << "\n";
  for (std::size_t l = 0; l < r.opportunities.size(); ++l) {
    const models::LayerOpportunities& o = r.opportunities[l];
    out << "  layer " << l << ": forward " << o.forward << ", backward " << o.backward
        << ", update " << o.update << "\n";
  }
  out << "latent blocks (read only by the verification pass): " << r.latent_blocks << "\n";
  out << "decodes of a steady iteration (failure = detected, rollback):\n";
  out << "  layer  direction  symbols  correctable  failure     corrected   silent\n";
  for (const TheoryDecode& d : r.decodes) {
    out << "  " << std::left << std::setw(7) << d.layer << std::setw(11)
        << (d.direction == models::Direction::forward ? "forward" : "backward") << std::setw(9)
        << d.symbols << std::setw(13) << (d.detects ? text(d.correctable) : "none") << std::setw(12)
        << text(d.failure) << std::setw(12) << text(d.corrected) << text(d.silent) << std::right
        << "\n";
  }
  out << "rollback probability per iteration: p = " << text(r.rollback_per_iteration)
      << " (first iteration after a checkpoint or rollback: " << text(r.rollback_first_iteration)
      << ")\n";
  out << "expected strikes per iteration: " << text(r.expected_strikes_per_iteration) << "\n";
  out << "expected corrected decodes per iteration: "
      << text(r.expected_corrected_decodes_per_iteration) << "\n";
  out << "silent corruptions per iteration: " << text(r.silent_expected_per_iteration)
      << " expected (probability " << text(r.silent_probability_per_iteration) << ")\n";
  if (r.local_correction) {
    const TheoryLocalCorrection& local = *r.local_correction;
    out << "corrected at the node per strike (" << local.value_model << "):";
    for (std::size_t l = 0; l < local.per_strike.size(); ++l) {
      out << (l == 0 ? " " : "; ") << "layer " << l << " q = " << text(local.per_strike[l])
          << (local.exact[l] ? "" : " (upper bound)") << ", " << local.entries_per_strike[l]
          << " entries per strike";
    }
    out << "\nexpected blocks corrected at their nodes per iteration: "
        << text(local.expected_per_iteration) << "\n";
  }
}

void print_optimal(const char* label, const analysis::OptimalInterval& o, std::ostream& out) {
  out << label << o.tau << (o.at_bound ? " (search bound)" : "") << ", E[T] "
      << text_or_inf(o.time_per_iteration_s) << " s per useful iteration\n";
}

void print_checkpoint_model(const TheoryReport& r, std::ostream& out) {
  out << "checkpoint model: T_it " << text(r.costs.iteration_s) << " s, T_ck "
      << text(r.costs.checkpoint_s) << " s, T_rb " << text(r.costs.rollback_s) << " s\n";
  out << "  stationary p (docs/reproduction.md, checkpoint model): E_exec/tau and E[T]; protocol: "
         "first iteration and the "
         "verification pass included\n";
  out << "  " << std::setw(7) << "tau" << std::setw(13) << "E_exec/tau" << std::setw(13) << "E[T]_s"
      << std::setw(13) << "p_verify" << std::setw(20) << "protocol_E_exec/tau" << std::setw(18)
      << "protocol_E[T]_s"
      << "\n";
  for (const TheoryInterval& i : r.intervals) {
    out << "  " << std::setw(7) << i.tau << std::setw(13) << text_or_inf(i.executions_per_iteration)
        << std::setw(13) << text_or_inf(i.time_per_iteration_s) << std::setw(13)
        << text(i.verification_failure) << std::setw(20)
        << text_or_inf(i.protocol_executions_per_iteration) << std::setw(18)
        << text_or_inf(i.protocol_time_per_iteration_s) << "\n";
  }
  print_optimal("optimal tau (protocol): ", r.optimal, out);
  if (r.energy) {
    out << "energy: J_it " << text(r.energy->iteration_J) << " J, J_ck "
        << text(r.energy->checkpoint_J) << " J, J_rb " << text(r.energy->rollback_J)
        << " J; expected energy per useful iteration (protocol) at tau " << r.optimal.tau << ": "
        << text_or_inf(*r.energy_at_optimal_J) << " J";
    for (const TheoryInterval& i : r.intervals) {
      if (r.requested_tau && i.tau == *r.requested_tau)
        out << ", at tau " << i.tau << ": " << text_or_inf(*i.protocol_energy_per_iteration_J)
            << " J";
    }
    out << "\n";
  }
  print_optimal("optimal tau (stationary p): ", r.optimal_stationary, out);
  out << "young: " << text_or_inf(r.classic.young_iterations)
      << " iterations, daly: " << text_or_inf(r.classic.daly_iterations)
      << " iterations (MTBF T_it / p = " << text_or_inf(r.classic.mtbf_s) << " s); daly E[T] "
      << text_or_inf(r.classic.daly_time_per_iteration_s) << " s per useful iteration\n";
}

}  // namespace

void print_text(const TheoryReport& report, std::ostream& out) {
  print_scheme(report, out);
  print_exposure(report, out);
  print_checkpoint_model(report, out);
}

}  // namespace codesim::app
