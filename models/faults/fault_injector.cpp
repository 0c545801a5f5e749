// FaultInjector: per-(node, target) strike draws, value models on strike, and replay that checks
// the run against the log before writing the logged values.
#include "models/faults/fault_injector.hpp"

#include <bit>
#include <utility>

#include "sim/check.hpp"

namespace codesim::models {

namespace {

template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

template <typename T>
constexpr ScalarType scalar_of() {
  return sizeof(T) == 8 ? ScalarType::float64 : ScalarType::float32;
}

std::string describe(const FaultOpportunity& o) {
  return "(time " + std::to_string(o.time_s) + " s, node " + std::to_string(o.node) + ", " +
         o.operation + ", layer " + std::to_string(o.layer) + ", " +
         std::string(to_string(o.target)) + ")";
}

std::size_t slot(int node, FaultTarget target) {
  return static_cast<std::size_t>(node) * kFaultTargetCount + static_cast<std::size_t>(target);
}

}  // namespace

FaultInjector::FaultInjector(const FaultConfig& config, int node_count, std::uint64_t seed,
                             std::uint64_t replica, SequenceDigest digest)
    : config_(config),
      rates_(resolve_fault_rates(config, node_count)),
      seed_(seed),
      replica_(replica),
      strike_streams_(static_cast<std::size_t>(node_count) * kFaultTargetCount),
      value_streams_(static_cast<std::size_t>(node_count) * kFaultTargetCount),
      quiet_(config.off_before_first_checkpoint),
      digest_computed_(digest == SequenceDigest::computed) {
  log_.seed = seed;
  log_.replica = replica;
  log_.opportunities = 0;
  if (digest_computed_) log_.sequence_digest = kEmptyDigest;
}

FaultInjector::FaultInjector(FaultLog log) {
  check_fault_log(log);
  replay_ = std::move(log);
  log_.seed = replay_->seed;
  log_.replica = replay_->replica;
  log_.opportunities = 0;
  log_.sequence_digest = kEmptyDigest;
}

sim::RandomStream& FaultInjector::stream(std::vector<std::optional<sim::RandomStream>>& streams,
                                         const char* component, int node, FaultTarget target) {
  std::optional<sim::RandomStream>& s = streams[slot(node, target)];
  if (!s) {
    // Streams are made on first use; a stream's draws depend only on its key, never on when.
    const std::string name = std::string(component) + "." + std::string(to_string(target));
    s.emplace(sim::StreamKey{seed_, replica_, name, static_cast<std::uint64_t>(node)});
  }
  return *s;
}

double FaultInjector::strike_probability(int node, FaultTarget target, double flops) const {
  CODESIM_CHECK(!replaying(), "a replaying injector has no rates");
  CODESIM_CHECK(node >= 0 && node < static_cast<int>(rates_.size()), "fault node out of range");
  return models::strike_probability(
      rates_[static_cast<std::size_t>(node)][static_cast<std::size_t>(target)], flops);
}

bool FaultInjector::offer(const FaultOpportunity& opportunity) {
  CODESIM_CHECK(!pending_, "offer() while a strike awaits apply()");
  CODESIM_CHECK(opportunity.flops >= 0.0, "operation flops must be >= 0");
  const std::uint64_t index = opportunities_++;
  if (digest_computed_) {
    digest_ = extend_digest(digest_, opportunity.time_s, opportunity.node, opportunity.operation,
                            opportunity.layer, opportunity.target);
    log_.sequence_digest = digest_;
  }
  log_.opportunities = opportunities_;

  bool struck = false;
  if (replaying()) {
    const std::vector<FaultRecord>& records = replay_->records;
    if (next_record_ < records.size() && records[next_record_].opportunity == index) {
      const FaultRecord& r = records[next_record_];
      const std::string at = "/records/" + std::to_string(next_record_);
      const std::string mismatch = " does not match the run's opportunity " +
                                   std::to_string(index) + " " + describe(opportunity);
      if (std::bit_cast<std::uint64_t>(r.time_s) !=
          std::bit_cast<std::uint64_t>(opportunity.time_s)) {
        throw FaultLogError(at + "/time_s", "time " + std::to_string(r.time_s) + mismatch);
      }
      if (r.node != opportunity.node) {
        throw FaultLogError(at + "/node", "node " + std::to_string(r.node) + mismatch);
      }
      if (r.operation != opportunity.operation) {
        throw FaultLogError(at + "/operation", "operation " + r.operation + mismatch);
      }
      if (r.layer != opportunity.layer) {
        throw FaultLogError(at + "/layer", "layer " + std::to_string(r.layer) + mismatch);
      }
      if (r.target != opportunity.target) {
        throw FaultLogError(at + "/target",
                            "target " + std::string(to_string(r.target)) + mismatch);
      }
      if (r.sequence_digest && *r.sequence_digest != digest_) {
        throw FaultLogError(at + "/sequence_digest",
                            "the run's opportunities up to " + std::to_string(index) +
                                " differ from the recorded run's (digest " + hex_bits(digest_) +
                                ", logged " + hex_bits(*r.sequence_digest) + ")");
      }
      struck = true;
    }
  } else {
    CODESIM_CHECK(opportunity.node >= 0 && opportunity.node < static_cast<int>(rates_.size()),
                  "fault node out of range");
    const sim::SoftErrorSpec& rate = rates_[static_cast<std::size_t>(opportunity.node)]
                                           [static_cast<std::size_t>(opportunity.target)];
    if (!is_disabled(rate)) {
      double p = models::strike_probability(rate, opportunity.flops);
      if (!config_.rate_traces.empty()) {
        const auto node = static_cast<std::size_t>(opportunity.node);
        p = sim::scaled_probability(p, config_.rate_traces[node].value_at(opportunity.time_s));
      }
      // Exactly one draw per offer, struck or not, so later draws do not depend on earlier rates.
      const double u =
          stream(strike_streams_, "fault_strike", opportunity.node, opportunity.target).uniform01();
      struck = !quiet_ && u < p;
    }
  }
  if (struck) pending_ = opportunity;
  return struck;
}

template <typename T>
void FaultInjector::replay_record(
    const FaultRecord& logged,
    Eigen::Ref<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> data) const {
  const std::string at = "/records/" + std::to_string(next_record_);
  if (logged.scalar != scalar_of<T>()) {
    throw FaultLogError(at + "/scalar", "scalar " + std::string(to_string(logged.scalar)) +
                                            " but the run's data is " +
                                            std::string(to_string(scalar_of<T>())));
  }
  if (logged.rows != data.rows() || logged.cols != data.cols()) {
    throw FaultLogError(at + "/rows",
                        "a " + std::to_string(logged.rows) + " x " + std::to_string(logged.cols) +
                            " matrix but the run's is " + std::to_string(data.rows()) + " x " +
                            std::to_string(data.cols()));
  }
  const Eigen::Index rows = data.rows();
  auto at_index = [&](std::int64_t index) -> T& {
    return data(static_cast<Eigen::Index>(index % rows), static_cast<Eigen::Index>(index / rows));
  };
  // Check every entry before writing any, so a mismatch leaves the data untouched. A repeated
  // entry's old value is the previous change's new value (check_fault_log made sure).
  for (std::size_t j = 0; j < logged.entries.size(); ++j) {
    const FaultEntry& e = logged.entries[j];
    if (j > 0 && logged.entries[j - 1].index == e.index) continue;
    const std::uint64_t held = std::bit_cast<BitsOf<T>>(at_index(e.index));
    if (held != e.old_bits) {
      throw FaultLogError(at + "/entries/" + std::to_string(j) + "/old_bits",
                          "the run's entry " + std::to_string(e.index) + " holds " +
                              hex_bits(held) + ", not the logged " + hex_bits(e.old_bits));
    }
  }
  for (const FaultEntry& e : logged.entries) {
    at_index(e.index) = std::bit_cast<T>(static_cast<BitsOf<T>>(e.new_bits));
  }
}

template <typename T>
const FaultRecord& FaultInjector::apply_pending(
    Eigen::Ref<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> data) {
  CODESIM_CHECK(pending_.has_value(), "apply() without a struck offer()");
  const FaultOpportunity opportunity = std::move(*pending_);
  pending_.reset();
  if (replaying()) {
    const FaultRecord& logged = replay_->records[next_record_];
    replay_record<T>(logged, data);
    ++next_record_;
    log_.records.push_back(logged);
    return log_.records.back();
  }
  FaultRecord record = record_of(opportunity);
  record.scalar = scalar_of<T>();
  record.rows = data.rows();
  record.cols = data.cols();
  record.entries = apply_value_model(
      config_[opportunity.target].model, data,
      stream(value_streams_, "fault_value", opportunity.node, opportunity.target));
  log_.records.push_back(std::move(record));
  return log_.records.back();
}

FaultRecord FaultInjector::record_of(const FaultOpportunity& opportunity) const {
  FaultRecord record;
  record.opportunity = opportunities_ - 1;
  record.time_s = opportunity.time_s;
  record.node = opportunity.node;
  record.operation = opportunity.operation;
  record.layer = opportunity.layer;
  record.target = opportunity.target;
  record.model = config_[opportunity.target].model.kind;
  if (digest_computed_) record.sequence_digest = digest_;
  return record;
}

const FaultRecord& FaultInjector::adopt(const FaultRecord& made) {
  CODESIM_CHECK(pending_.has_value(), "adopt() without a struck offer()");
  const FaultOpportunity opportunity = std::move(*pending_);
  pending_.reset();
  if (replaying()) {
    log_.records.push_back(replay_->records[next_record_++]);
    return log_.records.back();
  }
  FaultRecord record = record_of(opportunity);
  record.scalar = made.scalar;
  record.rows = made.rows;
  record.cols = made.cols;
  record.entries = made.entries;
  log_.records.push_back(std::move(record));
  return log_.records.back();
}

const FaultRecord& FaultInjector::apply(Eigen::Ref<Eigen::MatrixXd> data) {
  return apply_pending<double>(data);
}

const FaultRecord& FaultInjector::apply(Eigen::Ref<Eigen::MatrixXf> data) {
  return apply_pending<float>(data);
}

const FaultRecord* FaultInjector::inject(const FaultOpportunity& opportunity,
                                         Eigen::Ref<Eigen::MatrixXd> data) {
  return offer(opportunity) ? &apply(data) : nullptr;
}

const FaultRecord* FaultInjector::inject(const FaultOpportunity& opportunity,
                                         Eigen::Ref<Eigen::MatrixXf> data) {
  return offer(opportunity) ? &apply(data) : nullptr;
}

void FaultInjector::finish() const {
  CODESIM_CHECK(!pending_, "finish() while a strike awaits apply()");
  if (!replaying()) return;
  if (next_record_ < replay_->records.size()) {
    const FaultRecord& r = replay_->records[next_record_];
    throw FaultLogError("/records/" + std::to_string(next_record_) + "/opportunity",
                        "the run ended after " + std::to_string(opportunities_) +
                            " opportunities, before this fault's opportunity " +
                            std::to_string(r.opportunity));
  }
  if (replay_->opportunities && *replay_->opportunities != opportunities_) {
    throw FaultLogError("/opportunities",
                        "the recorded run offered " + std::to_string(*replay_->opportunities) +
                            " opportunities, this run " + std::to_string(opportunities_));
  }
  if (replay_->sequence_digest && *replay_->sequence_digest != digest_) {
    throw FaultLogError("/sequence_digest",
                        "the run's opportunities differ from the recorded "
                        "run's (digest " +
                            hex_bits(digest_) + ", logged " + hex_bits(*replay_->sequence_digest) +
                            ")");
  }
}

}  // namespace codesim::models
