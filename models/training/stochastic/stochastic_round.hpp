// One product round of the stochastic mode, flattened for its inner loop: which tasks finish
// before the round ends under the wait rule (RoundResolver), and what the decode makes of the
// erroneous symbols (SymbolErrors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/training/protocol/round_costs.hpp"
#include "models/training/protocol/training_protocol.hpp"
#include "sim/collectives.hpp"

namespace codesim::models::detail {

inline constexpr int kForward = 0;
inline constexpr int kBackward = 1;

/// Which tasks of a round finished before it ended, and what the decode then has.
struct RoundTiming {
  std::vector<char> done;     ///< per participant
  std::vector<char> present;  ///< per symbol
  CodewordTally tally;        ///< the present symbols per codeword
  double end_s = 0.0;         ///< when the task that ended the round finished, seconds
  bool decodable = true;      ///< every codeword has at least K present symbols
  bool all_present = true;
  /// Per participant, resolve_crashing only: when its node crashed and lost its task (infinity:
  /// it did not).
  std::vector<double> lost_s;
};

/// One product round of one layer and direction.
struct Round {
  int layer = 0;
  int dir = kForward;
  const RoundShape* shape = nullptr;
  std::vector<int> participants;
  std::vector<int> block;              ///< per participant: the block its product reads
  std::vector<double> weight_hazard;   ///< per participant: (weights, dir) before its product
  std::vector<double> product_hazard;  ///< per participant: (product, dir) on its partial
  std::vector<int> symbol_begin;       ///< per participant + 1: its range in symbol_list
  std::vector<int> symbol_list;
  std::vector<int> member_count;  ///< per symbol
  RoundCodewords codewords;
  double flops = 0.0;  ///< one task
  double symbol_bytes = 0.0;
  double product_bytes = 0.0;
  sim::CommunicationCost all_present_communication;
  double nominal_s = 0.0;  ///< the verification pass's round, seconds
  bool fixed = false;      ///< no stragglers: `timing` holds every execution's outcome (from 0)
  RoundTiming timing;
};

/// A decode's status, as the numeric mode's decoders report it.
using Status = DecodeStatus;

/// A decode's outcome.
struct Outcome {
  Status status = Status::clean;
  bool silent = false;  ///< read an erroneous symbol nothing could detect
};

/// What a node that checks its own partial makes of its finished product.
struct CheckedProduct {
  double extra_s = 0.0;   ///< a further task (its block's check) before the partial leaves
  bool withheld = false;  ///< the partial never reaches its symbols (an erasure)
};

/// The crashes and repairs a crash-aware round meets (the run's CrashTimeline, within its time
/// limit).
struct RoundCrashes {
  std::function<double()> next_s;  ///< the next event's time (infinity: none)
  std::function<int()> pop;        ///< processes it: the node that crashed, or -1 (a repair)
};

/// Resolves which tasks of a round finish before it ends; keeps its scratch between rounds.
class RoundResolver {
 public:
  /// Tasks of `r` started at `now_s` taking `durations` seconds (one per participant) under
  /// `wait`, into `t` (ties finish in participant order, as the engine's FIFO events do).
  void resolve(const Round& r, double now_s, const std::vector<double>& durations,
               const WaitPolicy& wait, RoundTiming& t);
  /// The same for nodes that check their partials: `check(i)` is called for each participant
  /// whose product finishes before the round ends, in the order the products finish, and its
  /// partial reaches its symbols extra_s later unless withheld (a further task ending at the same
  /// time as a product finishes after it, as it was scheduled later). t.done: the product
  /// finished.
  void resolve_checked(const Round& r, double now_s, const std::vector<double>& durations,
                       const WaitPolicy& wait, RoundTiming& t,
                       const std::function<CheckedProduct(std::size_t)>& check);
  /// The same with crashes: only the participants flagged in `started` run a task; a crash of a
  /// participant's node before its task (product, or check when `check` is given) ended loses
  /// it (t.lost_s), and the round also ends when no task is left running (the numeric mode's
  /// on_crash). Crashes and repairs before the round's end are popped from `crashes`, those at
  /// the time of a task's end after it.
  void resolve_crashing(const Round& r, double now_s, const std::vector<double>& durations,
                        const std::vector<char>& started, const WaitPolicy& wait, RoundTiming& t,
                        const std::function<CheckedProduct(std::size_t)>* check,
                        const RoundCrashes& crashes);

 private:
  struct Event {
    double time_s = 0.0;
    std::uint64_t sequence = 0;
    int participant = 0;
    bool delivery = false;  // the end of the check task, not of the product
    bool withheld = false;
  };
  void start(const Round& r, double now_s, const WaitPolicy& wait, RoundTiming& t);
  void deliver(const Round& r, std::size_t i, RoundTiming& t);
  void finish(const Round& r, RoundTiming& t) const;

  std::vector<int> order_;
  std::vector<double> ends_;
  std::vector<int> member_done_;
  std::vector<Event> events_;
  std::vector<char> finished_;  // resolve_crashing: per participant, its partial is out or withheld
};

/// The erroneous symbols of one decode and the outcome per codeword: a codeword with a present
/// symbols, K needed and r = a - K is silent when r = 0 (nothing detects it), corrected with at
/// most t erroneous symbols (t = r / 2 adversarial, r - 1 random), else detected.
class SymbolErrors {
 public:
  /// Sizes the scratch for rounds of up to `symbols` symbols and `codewords` codewords.
  void size(std::size_t symbols, std::size_t codewords);
  /// Starts a decode with no erroneous symbol.
  void next_mark();
  /// Marks the present symbols (per `t`) that participant i of `r` feeds as erroneous.
  void mark_symbols(const Round& r, std::size_t i, const RoundTiming& t) {
    for (int k = r.symbol_begin[i]; k < r.symbol_begin[i + 1]; ++k) {
      const int s = r.symbol_list[static_cast<std::size_t>(k)];
      const auto index = static_cast<std::size_t>(s);
      if (!t.present[index] || symbol_mark_[index] == mark_) continue;
      symbol_mark_[index] = mark_;
      erroneous_.push_back(s);
    }
  }
  /// The decode's outcome from the marked symbols and the present ones.
  Outcome decode(const Round& r, const RoundTiming& t, ErrorModel model);
  /// The symbols marked since next_mark, in marking order.
  const std::vector<int>& erroneous() const { return erroneous_; }
  /// Whether the last decode corrected codeword `codeword` (which held a marked symbol).
  bool corrected(int codeword) const {
    return codeword_corrected_[static_cast<std::size_t>(codeword)] != 0;
  }

 private:
  std::vector<std::uint32_t> symbol_mark_;
  std::uint32_t mark_ = 0;
  std::vector<int> erroneous_;
  std::vector<int> codeword_errors_;
  std::vector<char> codeword_corrected_;
  std::vector<int> touched_;
};

/// The regeneration of one set of wrong symbols' member blocks, the same in every round of a
/// direction (cached by the stochastic run).
struct Regeneration {
  bool possible = true;
  std::vector<int> nodes;                    ///< regenerated, ascending
  std::vector<std::vector<int>> sources;     ///< per node of `nodes`
  std::vector<sim::CommunicationCost> cost;  ///< per layer: the slowest node's
  std::vector<double> bytes;                 ///< per layer: sent by the sources
};

}  // namespace codesim::models::detail
