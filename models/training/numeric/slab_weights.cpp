// Slab planning, the slab-wise encoding of glorot_init's weights and the slab-wise read-out.
#include "models/training/numeric/slab_weights.hpp"

#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "models/training/protocol/round_costs.hpp"
#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models::detail {
namespace {

// Every scheme stores blocks that are linear combinations, entry by entry, of W's blocks, so the
// encoding of the columns {g w + j : g < groups, j in [first, first + width)} of W (w = cols /
// groups) by a scheme of the same spec is, bit for bit, those columns of the full encoding (and
// likewise for decode_weights). A large W is therefore built, encoded and decoded a slab at a time
// and never exists whole beside its blocks (slabs of kSlabBytes).

struct SlabPlan {
  int groups = 1;                // column groups: n for the block grids, k for MDS
  Eigen::Index group_width = 0;  // cols / groups: the width of a column-split block
  Eigen::Index slab_width = 0;   // columns per group in one slab; == group_width: no slabs
  bool sliced() const { return slab_width < group_width; }
};

SlabPlan plan_slabs(const SchemeSpec& spec, CodingScheme& scheme, int rows, int cols,
                    double slab_bytes = kSlabBytes) {
  SlabPlan plan;
  plan.group_width = cols;
  plan.slab_width = cols;
  Eigen::Index narrowest = cols;
  const std::vector<BlockShape> blocks = scheme.block_shapes();
  for (const BlockShape& block : blocks) narrowest = std::min(narrowest, block.cols);
  if (narrowest < 1 || cols % narrowest != 0) return plan;
  for (const BlockShape& block : blocks) {
    if (block.cols != narrowest && block.cols != cols) return plan;
  }
  const auto groups = static_cast<int>(cols / narrowest);
  const double column_bytes = static_cast<double>(rows) * groups * kBytesPerValue;
  const auto width =
      static_cast<Eigen::Index>(std::max(1.0, std::floor(slab_bytes / column_bytes)));
  if (width >= narrowest) return plan;
  // Every slab width (and the last, narrower one) must make a valid scheme.
  const Eigen::Index last = narrowest % width;
  for (Eigen::Index w : {width, last}) {
    if (w > 0 && !validate_scheme(spec, rows, static_cast<int>(groups * w)).empty()) return plan;
  }
  plan.groups = groups;
  plan.group_width = narrowest;
  plan.slab_width = width;
  return plan;
}

// Column ranges (full column, slab column, count) of a slab [first, first + width) in a matrix
// of `matrix_cols` columns: a column-split block (one range) or a whole-width one (per group).
struct SlabSegment {
  Eigen::Index full_col = 0;
  Eigen::Index slab_col = 0;
  Eigen::Index count = 0;
};

std::vector<SlabSegment> slab_segments(const SlabPlan& plan, Eigen::Index matrix_cols,
                                       Eigen::Index first, Eigen::Index width) {
  if (matrix_cols == plan.group_width) return {{first, 0, width}};
  CODESIM_CHECK(matrix_cols == plan.groups * plan.group_width, "a block is split or whole-width");
  std::vector<SlabSegment> segments;
  for (int g = 0; g < plan.groups; ++g) {
    segments.push_back({g * plan.group_width + first, g * width, width});
  }
  return segments;
}

// Layer `layer`'s initial weights exactly as glorot_init draws them: stream (seed, 0, "mlp_init",
// layer + 1), column after column, N(0, sd). Each column group is read
// from its first column on, a slab after another, so a first pass records the generator where
// each group starts (it draws every column before the last group's start, and no further).
class InitialWeights {
 public:
  InitialWeights(std::uint64_t seed, int layer, int rows, double sd, const SlabPlan& plan)
      : rows_(rows), sd_(sd) {
    sim::RandomStream stream({seed, 0, "mlp_init", static_cast<std::uint64_t>(layer) + 1});
    sim::StreamGenerator generator = stream.generator();
    cursors_.push_back({0, generator});
    if (!plan.sliced()) return;
    boost::random::normal_distribution<double> normal(0.0, sd_);
    for (int g = 1; g < plan.groups; ++g) {
      for (Eigen::Index c = 0; c < plan.group_width; ++c)
        for (int r = 0; r < rows; ++r) normal(generator);
      cursors_.push_back({g * plan.group_width, generator});
    }
  }

  // Columns [first, first + out.cols()) into `out` (rows x count); `first` is a group's start or
  // where an earlier call ended.
  void columns(Eigen::Index first, Eigen::Ref<Matrix> out) {
    const auto cursor = std::find_if(cursors_.begin(), cursors_.end(),
                                     [first](const Cursor& c) { return c.column == first; });
    CODESIM_CHECK(cursor != cursors_.end(), "columns continue a group's earlier draws");
    boost::random::normal_distribution<double> normal(0.0, sd_);
    for (Eigen::Index c = 0; c < out.cols(); ++c)
      for (Eigen::Index r = 0; r < rows_; ++r) out(r, c) = normal(cursor->generator);
    cursor->column += out.cols();
  }

 private:
  struct Cursor {
    Eigen::Index column;  // the next column this generator draws
    sim::StreamGenerator generator;
  };
  int rows_;
  double sd_;
  std::vector<Cursor> cursors_;  // one per column group
};

// Returns the memory pages wholly inside columns [first, first + count) of `block` to the system
// (they read as zeros afterwards): the read-out never reads those columns again, so W grows as
// the blocks shrink and the peak stays that of the blocks, without a round trip through a file.
void release_columns(const BlockRef& block, Eigen::Index first, Eigen::Index count) {
#if defined(__linux__)
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(block.data() + first * block.outerStride());
  const std::uintptr_t end =
      begin + static_cast<std::uintptr_t>(count * block.outerStride()) * sizeof(double);
  const std::uintptr_t from = (begin + page - 1) / page * page;
  const std::uintptr_t to = end / page * page;
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
#else
  (void)block, (void)first, (void)count;
#endif
}

// Copies the columns of slab [first, first + width) of node p's blocks (here) into its blocks in
// `part`, a scheme of the slab's shape; every block of `part` is overwritten whole.
void copy_slab(const SlabPlan& plan, CodingScheme& scheme, CodingScheme& part, int p,
               Eigen::Index first, Eigen::Index width) {
  std::vector<BlockRef> blocks = scheme.stored_blocks(p);
  std::vector<BlockRef> parts = part.stored_blocks(p);
  CODESIM_CHECK(blocks.size() == parts.size(), "a slab scheme stores the same blocks");
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    for (const SlabSegment& s : slab_segments(plan, blocks[b].cols(), first, width))
      parts[b].middleCols(s.slab_col, s.count) = blocks[b].middleCols(s.full_col, s.count);
  }
}

// The columns of slab [first, first + width) of a node's blocks, segment after segment, block
// after block: what the root copies into its slab scheme.
Bytes slab_columns(const SlabPlan& plan, const std::vector<BlockRef>& blocks, Eigen::Index first,
                   Eigen::Index width) {
  Packer packer;
  for (const BlockRef& block : blocks) {
    for (const SlabSegment& s : slab_segments(plan, block.cols(), first, width))
      packer.put_matrix(block.middleCols(s.full_col, s.count));
  }
  return std::move(packer.bytes());
}

}  // namespace

// Writes glorot_init's weights of layer `layer`, encoded, into the blocks of `scheme` (a scheme of
// `spec`, fresh or not): each slab (the whole layer when it is small) is encoded by a scheme of
// its own shape and copied in. Every scheme's encode overwrites all of its blocks, so one slab
// scheme serves every slab of its width.
void encode_initial_weights(const SchemeSpec& spec, CodingScheme& scheme, std::uint64_t seed,
                            int layer, int rows, int cols, double sd) {
  const SlabPlan plan = plan_slabs(spec, scheme, rows, cols);
  InitialWeights initial(seed, layer, rows, sd, plan);
  bool all_resident = true;
  for (int p = 0; p < scheme.node_count(); ++p) all_resident = all_resident && scheme.resident(p);
  if (!plan.sliced() && all_resident) {
    // The whole layer into blocks that all live here: encoded in place (the same arithmetic a
    // scheme of its own would run, without allocating and zeroing a second set of blocks).
    Matrix weights(rows, cols);
    initial.columns(0, weights);
    scheme.encode(weights);
    return;
  }
  std::unique_ptr<CodingScheme> part;
  Eigen::Index part_cols = 0;
  Matrix slab;
  for (Eigen::Index first = 0; first < plan.group_width; first += plan.slab_width) {
    const Eigen::Index width = std::min(plan.slab_width, plan.group_width - first);
    slab.resize(rows, plan.groups * width);
    for (const SlabSegment& s : slab_segments(plan, cols, first, width)) {
      initial.columns(s.full_col, slab.middleCols(s.slab_col, s.count));
    }
    if (!part || part_cols != slab.cols()) {
      part = make_scheme(spec, rows, static_cast<int>(slab.cols()));
      part_cols = slab.cols();
    }
    part->encode(slab);
    for (int p = 0; p < scheme.node_count(); ++p) {
      if (!scheme.resident(p)) continue;  // encoded where its blocks live
      if (!plan.sliced()) {  // the whole layer: the part's blocks, moved in (storage and all)
        const std::vector<Matrix*> storage = scheme.block_storage(p);
        const std::vector<Matrix*> parts = part->block_storage(p);
        for (std::size_t b = 0; b < storage.size(); ++b) *storage[b] = std::move(*parts[b]);
        continue;
      }
      std::vector<BlockRef> blocks = scheme.stored_blocks(p);
      std::vector<BlockRef> parts = part->stored_blocks(p);
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (const SlabSegment& s : slab_segments(plan, blocks[b].cols(), first, width)) {
          blocks[b].middleCols(s.full_col, s.count) = parts[b].middleCols(s.slab_col, s.count);
        }
      }
    }
  }
}

// decode_weights() of `scheme`, whose blocks it releases. A large layer is decoded a slab at a
// time by a scheme of the slab's shape, each slab's columns copied out of the blocks and then
// released, so W never sits beside all of its blocks. Distributed, the root decodes: the other
// ranks send it their blocks (a small layer) or each slab's columns of them.
Matrix read_out_weights(const SchemeSpec& spec, CodingScheme& scheme, int rows, int cols,
                        const NodeRanks& ranks) {
  const SlabPlan plan = plan_slabs(spec, scheme, rows, cols);
  const int nodes = scheme.node_count();
  const std::vector<BlockShape> shapes = scheme.block_shapes();
  const auto release_all = [&] {
    for (int p = 0; p < nodes; ++p)
      for (Matrix* storage : scheme.block_storage(p)) *storage = Matrix();
  };
  if (!plan.sliced()) {
    for (int p = 0; p < nodes; ++p) ranks.lend_blocks(scheme, p, 0);  // to node 0's rank, the root
    Matrix weights = ranks.root() ? scheme.decode_weights() : Matrix();
    release_all();
    return weights;
  }
  Matrix weights(ranks.root() ? rows : 0, ranks.root() ? cols : 0);
  std::unique_ptr<CodingScheme> part;
  Eigen::Index part_cols = 0;
  for (Eigen::Index first = 0; first < plan.group_width; first += plan.slab_width) {
    const Eigen::Index width = std::min(plan.slab_width, plan.group_width - first);
    if (ranks.root() && (!part || part_cols != plan.groups * width)) {
      part = make_scheme(spec, rows, static_cast<int>(plan.groups * width));
      part_cols = plan.groups * width;
    }
    // Every slab block is overwritten whole: its columns are the union of its segments.
    for (int p = 0; p < nodes; ++p) {
      if (!ranks.root()) {
        if (scheme.resident(p))
          ranks.send_to_root(slab_columns(plan, scheme.stored_blocks(p), first, width));
      } else if (scheme.resident(p)) {
        copy_slab(plan, scheme, *part, p, first, width);
      } else {
        const Bytes received = ranks.receive_from(ranks.owner(p));
        Unpacker columns(received);
        std::vector<BlockRef> parts = part->stored_blocks(p);
        for (std::size_t b = 0; b < parts.size(); ++b) {
          for (const SlabSegment& s : slab_segments(plan, shapes[b].cols, first, width))
            parts[b].middleCols(s.slab_col, s.count) = columns.get_matrix();
        }
      }
    }
    if (ranks.root()) {
      const Matrix slab = part->decode_weights();
      for (const SlabSegment& s : slab_segments(plan, cols, first, width)) {
        weights.middleCols(s.full_col, s.count) = slab.middleCols(s.slab_col, s.count);
      }
    }
    for (int p = 0; p < nodes; ++p) {
      if (!scheme.resident(p)) continue;
      for (const BlockRef& block : scheme.stored_blocks(p)) {
        for (const SlabSegment& s : slab_segments(plan, block.cols(), first, width))
          release_columns(block, s.full_col, s.count);
      }
    }
  }
  release_all();
  return weights;
}

// W x for W = decode_weights() of `scheme`, its blocks left as they are. A large layer is
// decoded a slab of columns at a time (copied out of the blocks into a scheme of the slab's shape)
// and its product with the slab's rows of x added to the result, slab after slab, so W is never
// whole beside the blocks. The sums' order follows the slab plan, which the layer's shape and
// scheme fix; the products are cut between the scheme's threads without changing a bit.
Matrix decoded_product(const SchemeSpec& spec, CodingScheme& scheme, int rows, int cols,
                       const Matrix& x, double slab_bytes) {
  const DenseKernels& kernels = scheme.kernels();
  const SlabPlan plan = plan_slabs(spec, scheme, rows, cols, slab_bytes);
  if (!plan.sliced()) return kernels.product(scheme.decode_weights(), x);
  Matrix product = Matrix::Zero(rows, x.cols());
  std::unique_ptr<CodingScheme> part;
  Eigen::Index part_cols = 0;
  Matrix x_slab;  // the slab's rows of x, transposed: samples x slab columns
  for (Eigen::Index first = 0; first < plan.group_width; first += plan.slab_width) {
    const Eigen::Index width = std::min(plan.slab_width, plan.group_width - first);
    if (!part || part_cols != plan.groups * width) {
      part_cols = plan.groups * width;
      part = make_scheme(spec, rows, static_cast<int>(part_cols));
    }
    for (int p = 0; p < scheme.node_count(); ++p) copy_slab(plan, scheme, *part, p, first, width);
    x_slab.resize(x.cols(), part_cols);
    for (const SlabSegment& s : slab_segments(plan, cols, first, width))
      x_slab.middleCols(s.slab_col, s.count) = x.middleRows(s.full_col, s.count).transpose();
    kernels.add_outer_product(product, 1.0, part->decode_weights(), x_slab);
  }
  return product;
}

}  // namespace codesim::models::detail
