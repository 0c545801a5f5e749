// Transfer schedules of the collectives; one bookkeeping rule (a node sends after everything it
// took part in) gives every algorithm its data dependencies.
#include "sim/collective_schedules.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "sim/check.hpp"

namespace codesim::sim {
namespace {

// Tracks, per participant, the transfers it took part in since its last send. Transfers are
// issued in steps: what a participant receives in a step counts for its sends of later steps
// only, as with MPI_Sendrecv. With ordered receives (the binomial reduce, which combines its
// children's partial results one after another) a participant's receives follow one another.
class Collective {
 public:
  Collective(TransferSchedule& schedule, std::span<const int> participants, ScheduleStart start,
             bool ordered_receives = false)
      : schedule_(schedule),
        participants_(participants),
        start_(start),
        ordered_receives_(ordered_receives),
        since_send_(participants.size()),
        last_receive_(participants.size()) {
    if (start) {
      for (auto& ids : since_send_) ids.push_back(*start);
    }
  }

  // Participant `from` sends `bytes` to participant `to` (indices into participants).
  void send(std::size_t from, std::size_t to, double bytes) {
    CODESIM_CHECK(bytes >= 0.0, "collective size must be >= 0 bytes");
    std::vector<TransferId> after = std::move(since_send_[from]);
    if (ordered_receives_ && last_receive_[to]) after.push_back(*last_receive_[to]);
    const TransferId id =
        schedule_.add(participants_[from], participants_[to], bytes, std::move(after));
    since_send_[from] = {id};
    arrivals_.emplace_back(to, id);
    if (ordered_receives_) last_receive_[to] = id;
    ids_.push_back(id);
  }

  void end_step() {
    for (const auto& [to, id] : arrivals_) since_send_[to].push_back(id);
    arrivals_.clear();
  }

  TransferId finish() {
    if (ids_.empty() && start_) ids_.push_back(*start_);
    return schedule_.join(std::move(ids_));
  }

 private:
  TransferSchedule& schedule_;
  std::span<const int> participants_;
  ScheduleStart start_;
  bool ordered_receives_;
  std::vector<std::vector<TransferId>> since_send_;
  std::vector<std::optional<TransferId>> last_receive_;
  std::vector<std::pair<std::size_t, TransferId>> arrivals_;
  std::vector<TransferId> ids_;
};

void ring_steps(Collective& c, std::size_t p, std::size_t steps, double bytes) {
  for (std::size_t step = 0; step < steps; ++step) {
    for (std::size_t i = 0; i < p; ++i) c.send(i, (i + 1) % p, bytes);
    c.end_step();
  }
}

// The scatter's rounds on `c`: pieces of `piece` bytes.
void binomial_scatter_steps(Collective& c, std::size_t p, double piece) {
  std::size_t top = 1;
  while (top * 2 < p) top *= 2;
  for (std::size_t stride = top; stride >= 1 && p > 1; stride /= 2) {
    for (std::size_t i = 0; i + stride < p; i += 2 * stride)
      c.send(i, i + stride, piece * static_cast<double>(std::min(i + 2 * stride, p) - i - stride));
    c.end_step();
  }
}

}  // namespace

TransferId add_broadcast(TransferSchedule& schedule, std::span<const int> participants,
                         double bytes, ScheduleStart start) {
  Collective c(schedule, participants, start);
  const std::size_t p = participants.size();
  for (std::size_t stride = 1; stride < p; stride *= 2) {
    for (std::size_t i = 0; i < stride && i + stride < p; ++i) c.send(i, i + stride, bytes);
    c.end_step();
  }
  return c.finish();
}

TransferId add_binomial_scatter(TransferSchedule& schedule, std::span<const int> participants,
                                double bytes, ScheduleStart start) {
  Collective c(schedule, participants, start);
  const std::size_t p = participants.size();
  binomial_scatter_steps(c, p, bytes / static_cast<double>(std::max<std::size_t>(p, 1)));
  return c.finish();
}

TransferId add_scatter_all_gather_broadcast(TransferSchedule& schedule,
                                            std::span<const int> participants, double bytes,
                                            ScheduleStart start) {
  Collective c(schedule, participants, start);
  const std::size_t p = participants.size();
  if (p > 1) {
    const double piece = bytes / static_cast<double>(p);
    binomial_scatter_steps(c, p, piece);
    ring_steps(c, p, p - 1, piece);
  }
  return c.finish();
}

TransferId add_reduce(TransferSchedule& schedule, std::span<const int> participants, double bytes,
                      ScheduleStart start) {
  Collective c(schedule, participants, start, /*ordered_receives=*/true);
  const std::size_t p = participants.size();
  std::size_t top = 1;
  while (top * 2 < p) top *= 2;
  for (std::size_t stride = top; stride >= 1 && p > 1; stride /= 2) {
    for (std::size_t i = 0; i < stride && i + stride < p; ++i) c.send(i + stride, i, bytes);
    c.end_step();
  }
  return c.finish();
}

TransferId add_ring_all_gather(TransferSchedule& schedule, std::span<const int> participants,
                               double bytes_each, ScheduleStart start) {
  Collective c(schedule, participants, start);
  const std::size_t p = participants.size();
  if (p > 1) ring_steps(c, p, p - 1, bytes_each);
  return c.finish();
}

TransferId add_bruck_all_gather(TransferSchedule& schedule, std::span<const int> participants,
                                double bytes_each, ScheduleStart start) {
  Collective c(schedule, participants, start);
  const std::size_t p = participants.size();
  for (std::size_t stride = 1; stride < p; stride *= 2) {
    const double bytes = static_cast<double>(std::min(stride, p - stride)) * bytes_each;
    for (std::size_t i = 0; i < p; ++i) c.send(i, (i + p - stride) % p, bytes);
    c.end_step();
  }
  return c.finish();
}

TransferId add_ring_all_reduce(TransferSchedule& schedule, std::span<const int> participants,
                               double bytes, ScheduleStart start) {
  Collective c(schedule, participants, start);
  const std::size_t p = participants.size();
  if (p > 1) ring_steps(c, p, 2 * (p - 1), bytes / static_cast<double>(p));
  return c.finish();
}

TransferId add_gather(TransferSchedule& schedule, std::span<const int> participants,
                      double bytes_each, ScheduleStart start) {
  Collective c(schedule, participants, start);
  for (std::size_t i = 1; i < participants.size(); ++i) c.send(i, 0, bytes_each);
  return c.finish();
}

}  // namespace codesim::sim
