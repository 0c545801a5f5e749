// CheckpointStore: the blocks, biases, shadow and stale nodes of the last checkpoint in a scratch
// file.
#include "models/training/numeric/checkpoint_store.hpp"

#include <cstddef>
#include <utility>

#include "sim/check.hpp"

namespace codesim::models::detail {

void CheckpointStore::write(const CheckpointContents& contents) {
  if (!spare_) spare_ = std::make_unique<ScratchFile>("checkpoint");
  ScratchFile& file = *spare_;
  file.clear();
  for (const auto& scheme : *contents.schemes) {
    for (int p = 0; p < contents.nodes; ++p)
      for (const BlockRef& block : scheme->stored_blocks(p)) file.write_matrix(block);
  }
  for (const Vector& bias : *contents.biases) file.write_matrix(bias);
  if (contents.shadow != nullptr) {
    for (const Matrix& w : contents.shadow->weights) file.write_matrix(w);
    for (const Vector& b : contents.shadow->biases) file.write_matrix(b);
  }
  if (contents.stale != nullptr) {
    // Kept in the checkpoint's own file, so that a fall-back to the previous one gets its flags.
    Vector flags(static_cast<Eigen::Index>(contents.stale->size()));
    for (std::size_t p = 0; p < contents.stale->size(); ++p)
      flags[static_cast<Eigen::Index>(p)] = (*contents.stale)[p] ? 1.0 : 0.0;
    file.write_matrix(flags);
  }
  file.flush();
  // The file just written becomes the last checkpoint, the last one the previous, and the
  // previous one the spare for the next write.
  std::unique_ptr<ScratchFile> written = std::move(spare_);
  spare_ = std::move(previous_);
  previous_ = std::move(current_);
  current_ = std::move(written);
  if (spare_) spare_->clear();  // the oldest checkpoint: not kept on disk
}

void CheckpointStore::drop_last() {
  CODESIM_CHECK(current_ != nullptr, "a checkpoint is held");
  if (!spare_) spare_ = std::move(current_);
  current_ = std::move(previous_);
}

void CheckpointStore::restore(const CheckpointContents& contents) {
  CODESIM_CHECK(current_ != nullptr, "a checkpoint was written");
  ScratchFile& file = *current_;
  file.seek(0);
  for (const auto& scheme : *contents.schemes) {
    for (int p = 0; p < contents.nodes; ++p)
      for (BlockRef block : scheme->stored_blocks(p)) file.read_matrix(block);
  }
  for (Vector& bias : *contents.biases) file.read_matrix(bias);
  if (contents.shadow != nullptr) {
    for (Matrix& w : contents.shadow->weights) file.read_matrix(w);
    for (Vector& b : contents.shadow->biases) file.read_matrix(b);
  }
  if (contents.stale != nullptr) {
    Vector flags(static_cast<Eigen::Index>(contents.stale->size()));
    file.read_matrix(flags);
    for (std::size_t p = 0; p < contents.stale->size(); ++p)
      (*contents.stale)[p] = flags[static_cast<Eigen::Index>(p)] != 0.0;
  }
}

}  // namespace codesim::models::detail
