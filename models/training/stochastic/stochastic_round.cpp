// The stochastic mode's round: task completion under the wait rule and decode outcomes.
#include "models/training/stochastic/stochastic_round.hpp"

#include <algorithm>
#include <limits>

namespace codesim::models::detail {

void RoundResolver::start(const Round& r, double now_s, const WaitPolicy& wait, RoundTiming& t) {
  const std::size_t symbols = r.member_count.size();
  t.done.assign(r.participants.size(), 0);
  t.present.assign(symbols, 0);
  t.tally.reset(r.codewords, wait);
  t.end_s = now_s;
  member_done_.assign(symbols, 0);
}

// Participant i's partial joins its symbols; a symbol is present once all its members' have.
void RoundResolver::deliver(const Round& r, std::size_t i, RoundTiming& t) {
  for (int k = r.symbol_begin[i]; k < r.symbol_begin[i + 1]; ++k) {
    const auto s = static_cast<std::size_t>(r.symbol_list[static_cast<std::size_t>(k)]);
    if (++member_done_[s] != r.member_count[s]) continue;
    t.present[s] = 1;
    t.tally.add(static_cast<int>(s));
  }
}

void RoundResolver::finish(const Round& r, RoundTiming& t) const {
  t.all_present = t.tally.present_total() == static_cast<int>(r.member_count.size());
  t.decodable = t.tally.decodable();
}

void RoundResolver::resolve(const Round& r, double now_s, const std::vector<double>& durations,
                            const WaitPolicy& wait, RoundTiming& t) {
  const std::size_t n = r.participants.size();
  start(r, now_s, wait, t);
  order_.resize(n);
  ends_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    order_[i] = static_cast<int>(i);
    ends_[i] = now_s + durations[i];
  }
  if (wait.stops_early()) {
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
      return ends_[static_cast<std::size_t>(a)] < ends_[static_cast<std::size_t>(b)];
    });
  }
  for (int i : order_) {
    const auto index = static_cast<std::size_t>(i);
    t.done[index] = 1;
    t.end_s = std::max(t.end_s, ends_[index]);
    deliver(r, index, t);
    if (wait.stops_early() && t.tally.enough()) break;
  }
  finish(r, t);
}

void RoundResolver::resolve_checked(const Round& r, double now_s,
                                    const std::vector<double>& durations, const WaitPolicy& wait,
                                    RoundTiming& t,
                                    const std::function<CheckedProduct(std::size_t)>& check) {
  const std::size_t n = r.participants.size();
  start(r, now_s, wait, t);
  // A min-heap of task ends by (time, sequence): products first in participant order, then the
  // check tasks in the order they start.
  const auto later = [](const Event& a, const Event& b) {
    return a.time_s != b.time_s ? a.time_s > b.time_s : a.sequence > b.sequence;
  };
  events_.clear();
  for (std::size_t i = 0; i < n; ++i)
    events_.push_back({now_s + durations[i], i, static_cast<int>(i), false, false});
  std::make_heap(events_.begin(), events_.end(), later);
  std::uint64_t sequence = n;
  std::size_t pending = n;
  while (!events_.empty()) {
    std::pop_heap(events_.begin(), events_.end(), later);
    const Event e = events_.back();
    events_.pop_back();
    const auto i = static_cast<std::size_t>(e.participant);
    t.end_s = std::max(t.end_s, e.time_s);
    bool withheld = e.withheld;
    if (!e.delivery) {
      t.done[i] = 1;
      const CheckedProduct c = check(i);
      if (c.extra_s > 0.0) {
        events_.push_back({e.time_s + c.extra_s, sequence++, e.participant, true, c.withheld});
        std::push_heap(events_.begin(), events_.end(), later);
        continue;
      }
      withheld = c.withheld;
    }
    if (!withheld) deliver(r, i, t);
    if (--pending == 0 || (wait.stops_early() && t.tally.enough())) break;
  }
  finish(r, t);
}

void RoundResolver::resolve_crashing(const Round& r, double now_s,
                                     const std::vector<double>& durations,
                                     const std::vector<char>& started, const WaitPolicy& wait,
                                     RoundTiming& t,
                                     const std::function<CheckedProduct(std::size_t)>* check,
                                     const RoundCrashes& crashes) {
  const std::size_t n = r.participants.size();
  constexpr double kNever = std::numeric_limits<double>::infinity();
  start(r, now_s, wait, t);
  t.lost_s.assign(n, kNever);
  finished_.assign(n, 0);
  const auto later = [](const Event& a, const Event& b) {
    return a.time_s != b.time_s ? a.time_s > b.time_s : a.sequence > b.sequence;
  };
  events_.clear();
  std::size_t pending = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!started[i]) continue;
    events_.push_back({now_s + durations[i], i, static_cast<int>(i), false, false});
    ++pending;
  }
  std::make_heap(events_.begin(), events_.end(), later);
  std::uint64_t sequence = n;
  while (pending > 0) {
    const double task_s = events_.empty() ? kNever : events_.front().time_s;
    const double crash_s = crashes.next_s();
    if (crash_s < task_s) {
      const int node = crashes.pop();
      const auto it = std::find(r.participants.begin(), r.participants.end(), node);
      if (node < 0 || it == r.participants.end()) continue;
      const auto i = static_cast<std::size_t>(it - r.participants.begin());
      if (!started[i] || finished_[i] || t.lost_s[i] != kNever) continue;
      t.lost_s[i] = crash_s;  // the crash lost the running task
      t.end_s = std::max(t.end_s, crash_s);
      --pending;
      continue;
    }
    std::pop_heap(events_.begin(), events_.end(), later);
    const Event e = events_.back();
    events_.pop_back();
    const auto i = static_cast<std::size_t>(e.participant);
    if (t.lost_s[i] != kNever) continue;
    t.end_s = std::max(t.end_s, e.time_s);
    bool withheld = e.withheld;
    if (!e.delivery) {
      t.done[i] = 1;
      if (check != nullptr) {
        const CheckedProduct c = (*check)(i);
        if (c.extra_s > 0.0) {
          events_.push_back({e.time_s + c.extra_s, sequence++, e.participant, true, c.withheld});
          std::push_heap(events_.begin(), events_.end(), later);
          continue;
        }
        withheld = c.withheld;
      }
    }
    finished_[i] = 1;
    if (!withheld) deliver(r, i, t);
    --pending;
    if (wait.stops_early() && t.tally.enough()) break;
  }
  finish(r, t);
}

void SymbolErrors::size(std::size_t symbols, std::size_t codewords) {
  symbol_mark_.assign(symbols, 0);
  codeword_errors_.assign(codewords, 0);
  codeword_corrected_.assign(codewords, 0);
}

void SymbolErrors::next_mark() {
  erroneous_.clear();
  if (++mark_ == 0) {  // wrapped: clear the stale marks
    std::fill(symbol_mark_.begin(), symbol_mark_.end(), 0);
    mark_ = 1;
  }
}

Outcome SymbolErrors::decode(const Round& r, const RoundTiming& t, ErrorModel model) {
  Outcome out;
  if (!t.decodable) {
    out.status = Status::detected;
    return out;
  }
  if (erroneous_.empty()) return out;
  touched_.clear();
  for (int s : erroneous_) {
    const auto c = static_cast<std::size_t>(r.codewords.codeword_of(s));
    if (codeword_errors_[c]++ == 0) touched_.push_back(static_cast<int>(c));
  }
  const bool adversarial = model == ErrorModel::adversarial;
  bool corrected = false;
  bool detected = false;
  for (int c : touched_) {
    const auto index = static_cast<std::size_t>(c);
    const int redundancy = t.tally.present(c) - r.codewords.decode_need;
    const int errors = codeword_errors_[index];
    codeword_errors_[index] = 0;
    codeword_corrected_[index] = 0;
    if (redundancy <= 0) {
      out.silent = true;  // solved from exactly K symbols: nothing to check against
      continue;
    }
    const int correctable = adversarial ? redundancy / 2 : redundancy - 1;
    if (errors <= correctable) {
      corrected = true;
      codeword_corrected_[index] = 1;
    } else {
      detected = true;
    }
  }
  out.status = detected ? Status::detected : corrected ? Status::corrected : Status::clean;
  return out;
}

}  // namespace codesim::models::detail
