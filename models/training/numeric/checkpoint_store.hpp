// The last checkpoint of a numeric coded training run, outside the process: every stored block,
// the biases, the audit's shadow and which nodes were stale, as raw doubles in a temporary file,
// so that a rollback restores them bit for bit without a second copy in memory.
#pragma once

#include <memory>
#include <vector>

#include "models/coding/coding_scheme.hpp"
#include "models/nn/mlp.hpp"
#include "models/training/numeric/scratch_file.hpp"

namespace codesim::models::detail {

/// What a checkpoint holds: every layer's scheme (the stored blocks of nodes 0 .. nodes - 1),
/// the biases, when not null the audit's shadow parameters and, when not null, which nodes were
/// stale (their blocks missed updates: the checkpoint holds them outdated, and a rollback must
/// regenerate them again). The pointers outlive the call.
struct CheckpointContents {
  const std::vector<std::unique_ptr<CodingScheme>>* schemes = nullptr;
  int nodes = 0;
  std::vector<Vector>* biases = nullptr;
  MlpParameters* shadow = nullptr;
  std::vector<bool>* stale = nullptr;  ///< `nodes` flags
};

/// The last two written checkpoints (the older one for a fall-back when the last one stalls).
/// Checkpoint 0 (the initial state) is not stored: the run rebuilds it from the seed, so a fresh
/// store is empty.
class CheckpointStore {
 public:
  /// Whether no checkpoint is held.
  bool empty() const { return current_ == nullptr; }
  /// Gives the last checkpoint up: the one before it (if held) becomes the last.
  void drop_last();
  /// Writes `contents` as the new checkpoint: to a spare file that replaces the current one once
  /// complete (a failed write throws and leaves the last checkpoint in place).
  void write(const CheckpointContents& contents);
  /// Reads the last checkpoint back into `contents`, whose matrices keep the shapes they had at
  /// the write. Precondition: !empty().
  void restore(const CheckpointContents& contents);

 private:
  std::unique_ptr<ScratchFile> current_;
  std::unique_ptr<ScratchFile> previous_;
  std::unique_ptr<ScratchFile> spare_;
};

}  // namespace codesim::models::detail
