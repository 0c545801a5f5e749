// The iteration loop both Monte Carlo replays of train_coded's weight-fault protocol share: per
// iteration, the reads of forward layers 0..L-1 then backward L-1..1 (no backward round in layer
// 0), the update's strikes when they all passed, a rollback to the clean checkpoint on a failed
// read, and after tau useful iterations the verification pass. The replays differ in what a
// strike and a read do (hooks).
#pragma once

#include <functional>

namespace codesim::models::testing {

struct ReplayCounts {
  long steady = 0;
  long steady_failures = 0;
  long first = 0;
  long first_failures = 0;
  long verifications = 0;
  long verification_failures = 0;
  double local_corrections = 0.0;  ///< over steady iterations (abft)
};

struct ReplayHooks {
  std::function<void(int layer, int dir)> strike;  ///< before the read of (layer, dir: 0 forward)
  std::function<bool(int layer, int dir)> read;    ///< false: the decode failed
  std::function<void(int layer)> strike_update;    ///< after the update
  std::function<bool(int layer)> verify;           ///< the verification pass's reads of a layer
  std::function<void()> restore;                   ///< back to the clean checkpoint
  std::function<int()> take_corrections;           ///< optional: corrections since last asked
};

inline ReplayCounts replay_protocol(int layers, int tau, int iterations, const ReplayHooks& h) {
  ReplayCounts counts;
  bool first = true;
  int done = 0;
  for (int i = 0; i < iterations; ++i) {
    if (h.take_corrections) h.take_corrections();
    bool ok = true;
    for (int l = 0; l < layers && ok; ++l) {
      h.strike(l, 0);
      ok = h.read(l, 0);
    }
    for (int l = layers - 1; l >= 1 && ok; --l) {
      h.strike(l, 1);
      ok = h.read(l, 1);
    }
    if (ok) {
      for (int l = 0; l < layers; ++l) h.strike_update(l);
    }
    ++(first ? counts.first : counts.steady);
    if (!first && h.take_corrections) counts.local_corrections += h.take_corrections();
    if (!ok) ++(first ? counts.first_failures : counts.steady_failures);
    first = !ok;
    if (!ok) {
      h.restore();
      done = 0;
      continue;
    }
    if (++done < tau) continue;
    ++counts.verifications;
    bool passed = true;
    for (int l = 0; l < layers && passed; ++l) passed = h.verify(l);
    if (!passed) {
      ++counts.verification_failures;
      h.restore();
    }
    first = true;
    done = 0;
  }
  return counts;
}

}  // namespace codesim::models::testing
