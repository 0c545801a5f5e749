// FaultInjector: at each opportunity the protocol offers, decides whether a soft error strikes
// (sampled from rates, or replayed from a log), corrupts the node's matrix and logs the fault.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/faults/fault_log.hpp"
#include "models/faults/fault_targets.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models {

/// One chance for a soft error: the protocol offers one for each (time, node, operation, target)
/// at which the target's data is exposed (for the CodeNet experiment: weights at every forward
/// and backward product before it runs and at every update after it ran).
struct FaultOpportunity {
  double time_s = 0.0;  ///< simulated time, seconds
  int node = 0;
  std::string operation;  ///< "forward", "backward", "update", ... (non-empty)
  int layer = -1;         ///< layer index, -1 for none
  FaultTarget target = FaultTarget::weights;
  double flops = 0.0;  ///< the operation's size, for rate_per_flop; >= 0
};

/// Whether the injector keeps the digest of the opportunities (FNV-1a over each one's time, node,
/// layer, target and operation: about 30 ns per opportunity, 3% of an uncoded batch-1 step).
enum class SequenceDigest { computed, skipped };

/// Samples or replays faults. Opportunities are numbered 0, 1, ... in the order offered; replay
/// is keyed on that number and checks that the opportunity's (time, node, operation, layer,
/// target) and the digest of all opportunities so far match the log. One injector per replica.
class FaultInjector {
 public:
  /// Sampling. A (node, target) whose rate is not disabled draws exactly one uniform per offer
  /// from stream (seed, replica, "fault_strike.<target>", node); a strike's values come from
  /// (seed, replica, "fault_value.<target>", node). So enabling one target or node never shifts
  /// the draws of another. Precondition: validate_fault_config(config, node_count) is empty.
  /// `digest`: skipped when nobody reads the log's digests (no log written, no replay): the
  /// run's results do not change, the log then has no sequence_digest (nor its records).
  FaultInjector(const FaultConfig& config, int node_count, std::uint64_t seed,
                std::uint64_t replica, SequenceDigest digest = SequenceDigest::computed);
  /// Replay of `log`; throws FaultLogError when check_fault_log rejects it.
  explicit FaultInjector(FaultLog log);

  bool replaying() const { return replay_.has_value(); }

  /// Offers the next opportunity; true when it is struck, and then apply() must follow before
  /// the next offer. Replay: struck exactly when the log holds a record at this position; throws
  /// FaultLogError when that record's time (bit for bit), node, operation, layer, target or digest
  /// differ from the run's.
  bool offer(const FaultOpportunity& opportunity);
  /// Corrupts `data` (the struck target's matrix on the struck node) for the pending strike, logs
  /// the fault and returns its record (valid until the next apply). Replay: checks the shape, the
  /// scalar type and every old value bit for bit, then writes the logged new values; throws
  /// FaultLogError on a mismatch, leaving `data` unchanged.
  const FaultRecord& apply(Eigen::Ref<Eigen::MatrixXd> data);
  const FaultRecord& apply(Eigen::Ref<Eigen::MatrixXf> data);
  /// Instead of apply(), for a strike on data another process holds (a run distributed over MPI
  /// ranks, models/training/numeric/node_ranks.hpp): logs the fault that process's apply() made,
  /// whose shape, scalar type and entries `made` holds, so that every process keeps the same log.
  const FaultRecord& adopt(const FaultRecord& made);
  /// offer(), then apply() when struck; nullptr when not struck.
  const FaultRecord* inject(const FaultOpportunity& opportunity, Eigen::Ref<Eigen::MatrixXd> data);
  const FaultRecord* inject(const FaultOpportunity& opportunity, Eigen::Ref<Eigen::MatrixXf> data);

  /// The run's first checkpoint is written: with config.off_before_first_checkpoint, offers
  /// strike from here on (before, each still draws its uniform, so that the strikes after it are
  /// those of a run without the setting). Replay follows the log whatever the setting.
  void checkpoint_written() { quiet_ = false; }

  /// Ends the run. Replay: throws FaultLogError when records were not reached or when the log's
  /// opportunity count or final digest differ from the run's. Sampling: nothing to check.
  void finish() const;

  /// Opportunities offered so far.
  std::uint64_t opportunities() const { return opportunities_; }
  /// The faults of this run so far, with opportunity count and digest (a finished replay's log
  /// equals the replayed one).
  const FaultLog& log() const { return log_; }
  FaultLogSummary summary() const { return summarize(log_); }
  /// Strike probability of an operation of `flops` on (node, target). Sampling only.
  double strike_probability(int node, FaultTarget target, double flops) const;

 private:
  template <typename T>
  const FaultRecord& apply_pending(
      Eigen::Ref<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> data);
  template <typename T>
  void replay_record(const FaultRecord& logged,
                     Eigen::Ref<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> data) const;
  // The record of the pending strike's opportunity, without its data (scalar, shape, entries).
  FaultRecord record_of(const FaultOpportunity& opportunity) const;
  sim::RandomStream& stream(std::vector<std::optional<sim::RandomStream>>& streams,
                            const char* component, int node, FaultTarget target);

  // Sampling.
  FaultConfig config_;
  std::vector<NodeFaultRates> rates_;
  std::uint64_t seed_ = 0;
  std::uint64_t replica_ = 0;
  std::vector<std::optional<sim::RandomStream>> strike_streams_;  ///< node * targets + target
  std::vector<std::optional<sim::RandomStream>> value_streams_;
  bool quiet_ = false;  ///< before the first checkpoint, with off_before_first_checkpoint
  // Replay.
  std::optional<FaultLog> replay_;
  std::size_t next_record_ = 0;
  // Both.
  std::optional<FaultOpportunity> pending_;
  std::uint64_t opportunities_ = 0;
  std::uint64_t digest_ = kEmptyDigest;
  bool digest_computed_ = true;
  FaultLog log_;
};

}  // namespace codesim::models
