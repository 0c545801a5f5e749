// The shared rules of coded training: wait rules, codewords, the start condition of an iteration
// and the progress, checkpoint and rollback bookkeeping.
#include "models/training/protocol/training_protocol.hpp"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace codesim::models {
WaitPolicy wait_policy(const TrainingSpec& spec) { return {spec.wait_for, spec.wait_errors}; }

int RoundCodewords::wait_need(const WaitPolicy& wait) const {
  const int per_codeword = symbols_per_codeword();
  if (!wait.stops_early()) return per_codeword;
  return std::min(per_codeword, decode_need + wait.extra_symbols());
}

RoundCodewords round_codewords(const SchemeSpec& spec, const RoundShape& shape) {
  RoundCodewords layout;
  layout.symbols = static_cast<int>(shape.members.size());
  const bool repetition = repetition_copies(spec) > 0;
  layout.codewords = repetition ? shape.threshold : 1;
  layout.decode_need = repetition ? 1 : shape.threshold;
  CODESIM_CHECK(layout.codewords >= 1 && layout.symbols % layout.codewords == 0,
                "every codeword of a round has the same number of symbols");
  CODESIM_CHECK(layout.decode_need >= 1 && layout.decode_need <= layout.symbols_per_codeword(),
                "a codeword can be decoded from its symbols");
  return layout;
}

bool CodewordTally::decodable() const {
  return std::all_of(present_.begin(), present_.end(),
                     [this](int present) { return present >= layout_.decode_need; });
}

bool enough_symbols(const RoundCodewords& layout, std::span<const char> complete,
                    const WaitPolicy& wait) {
  CodewordTally tally;
  tally.reset(layout, wait);
  for (std::size_t s = 0; s < complete.size(); ++s)
    if (complete[s]) tally.add(static_cast<int>(s));
  return tally.enough();
}

bool iteration_decodable(std::span<const LayerShape> shapes,
                         std::span<const std::array<RoundCodewords, 2>> codewords,
                         const std::function<bool(int)>& usable) {
  const WaitPolicy decodes{WaitRule::k, 0};
  for (std::size_t l = 0; l < shapes.size(); ++l) {
    for (std::size_t d = 0; d < 2; ++d) {
      if (d == 1 && l == 0) continue;  // layer 0's W^T delta is not needed
      const RoundShape& g = shapes[l].dir[d];
      std::vector<char> complete(g.members.size(), 0);
      for (std::size_t s = 0; s < g.members.size(); ++s)
        complete[s] = std::all_of(g.members[s].begin(), g.members[s].end(), usable);
      if (!enough_symbols(codewords[l][d], complete, decodes)) return false;
    }
  }
  return true;
}

std::vector<int> needed_nodes_gone(std::span<const LayerShape> shapes,
                                   std::span<const std::array<RoundCodewords, 2>> codewords,
                                   int nodes, const std::function<bool(int)>& gone) {
  std::vector<int> out;
  for (int p = 0; p < nodes; ++p)
    if (gone(p)) out.push_back(p);
  const auto back = [&out](int p) { return !std::binary_search(out.begin(), out.end(), p); };
  if (out.empty() || iteration_decodable(shapes, codewords, back)) return {};
  return out;
}

bool verification_passes(int layers, const std::function<DecodeStatus(int, int)>& decode,
                         const std::function<bool(int, int)>& regenerate,
                         ProtocolCounters& counts) {
  constexpr int kPasses = 2;
  for (int l = 0; l < layers; ++l) {
    bool clean = false;
    for (int pass = 0; pass < kPasses && !clean; ++pass) {
      clean = true;
      for (int d : {0, 1}) {
        const DecodeStatus status = decode(l, d);
        if (status == DecodeStatus::clean) continue;
        if (status == DecodeStatus::detected) {
          ++counts.detected;
          return false;
        }
        ++counts.corrected;
        if (pass + 1 == kPasses || !regenerate(l, d)) return false;
        clean = false;
      }
    }
  }
  return true;
}

void TrainingProgress::iteration_done(double seconds) {
  storm_.progressed();
  ++done_;
  ++executed_;
  ++since_checkpoint_;
  progress_since_checkpoint_s_ += seconds;
}

bool TrainingProgress::checkpoint_due(const sim::CheckpointPolicy& policy) const {
  return policy.due(since_checkpoint_, progress_since_checkpoint_s_);
}

void TrainingProgress::checkpoint_written(double cost_s) {
  time.committed.checkpoint_s += cost_s;
  time.commit();
  energy.commit();
  ++counts.checkpoints;
  previous_done_ = checkpoint_done_;
  checkpoint_done_ = done_;
  checkpoints_held_ = std::min(checkpoints_held_ + 1, 2);
  watchdog_.restart_record();
  since_checkpoint_ = 0;
  progress_since_checkpoint_s_ = 0.0;
}

RollbackTarget TrainingProgress::roll_back(bool random_events) {
  ++counts.rollbacks;
  time.discard();
  energy.discard();
  RollbackTarget target = RollbackTarget::last_checkpoint;
  if (watchdog_.rolled_back(done_ - checkpoint_done_, random_events)) {
    const std::string why = watchdog_.why();
    watchdog_.restart_record();
    if (checkpoints_held_ == 0) {
      target = RollbackTarget::stop;
      stop_reason_ = fmt::format(
          "no progress from the initial state, after {} checkpoints were "
          "given up: {}",
          counts.checkpoint_fallbacks, why);
    } else {
      ++counts.checkpoint_fallbacks;
      --checkpoints_held_;
      target = checkpoints_held_ == 1 ? RollbackTarget::previous_checkpoint
                                      : RollbackTarget::initial_state;
      checkpoint_done_ = checkpoints_held_ == 1 ? previous_done_ : 0;
    }
  }
  done_ = checkpoint_done_;
  since_checkpoint_ = 0;
  progress_since_checkpoint_s_ = 0.0;
  return target;
}

void TrainingProgress::complete(double now_s) {
  completed_ = true;
  completion_time_s_ = now_s;
  time.commit();
  energy.commit();
}

void TrainingProgress::add_to(sim::MetricSet& metrics, double end_s) const {
  metrics.set("completed", completed_ ? 1.0 : 0.0);
  metrics.set("completion_time_s", completed_ ? completion_time_s_ : end_s);
  metrics.set("iterations", done_);
  metrics.set("iterations_executed", static_cast<double>(executed_));
  if (!stop_reason_.empty()) metrics.set_note("stop_reason", stop_reason_);
}

}  // namespace codesim::models
