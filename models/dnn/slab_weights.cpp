// Slab planning, the slab-wise encoding of glorot_init's weights and the slab-wise read-out.
#include "models/dnn/slab_weights.hpp"

#include <algorithm>
#include <array>
#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "models/dnn/round_costs.hpp"
#include "models/dnn/scratch_file.hpp"
#include "sim/check.hpp"
#include "sim/random_stream.hpp"

namespace codesim::models::detail {
namespace {

// Every scheme stores blocks that are linear combinations, entry by entry, of W's blocks, so the
// encoding of the columns {g w + j : g < groups, j in [first, first + width)} of W (w = cols /
// groups) by a scheme of the same spec is, bit for bit, those columns of the full encoding (and
// likewise for decode_weights). A large W is therefore built, encoded and decoded a slab at a time
// and never exists whole beside its blocks.
constexpr double kSlabBytes = 16.0 * 1024 * 1024;

struct SlabPlan {
  int groups = 1;                // column groups: n for the block grids, k for MDS
  Eigen::Index group_width = 0;  // cols / groups: the width of a column-split block
  Eigen::Index slab_width = 0;   // columns per group in one slab; == group_width: no slabs
  bool sliced() const { return slab_width < group_width; }
};

SlabPlan plan_slabs(const SchemeSpec& spec, CodingScheme& scheme, int rows, int cols) {
  SlabPlan plan;
  plan.group_width = cols;
  plan.slab_width = cols;
  Eigen::Index narrowest = cols;
  for (const Matrix* block : scheme.stored_blocks(0))
    narrowest = std::min(narrowest, block->cols());
  if (narrowest < 1 || cols % narrowest != 0) return plan;
  for (const Matrix* block : scheme.stored_blocks(0)) {
    if (block->cols() != narrowest && block->cols() != cols) return plan;
  }
  const auto groups = static_cast<int>(cols / narrowest);
  const double column_bytes = static_cast<double>(rows) * groups * kBytesPerValue;
  const auto width =
      static_cast<Eigen::Index>(std::max(1.0, std::floor(kSlabBytes / column_bytes)));
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
// layer + 1), column after column, N(0, sqrt(2 / (fan_in + fan_out))). With random access, a first
// pass records the generator at the start of every column so that any columns can be redrawn.
class InitialWeights {
 public:
  InitialWeights(std::uint64_t seed, int layer, int rows, int cols, bool random_access)
      : rows_(rows), sd_(std::sqrt(2.0 / (cols + rows))) {
    sim::RandomStream stream({seed, 0, "mlp_init", static_cast<std::uint64_t>(layer) + 1});
    starts_.push_back(stream.generator());
    if (!random_access) return;
    boost::random::normal_distribution<double> normal(0.0, sd_);
    sim::StreamGenerator generator = stream.generator();
    starts_.reserve(static_cast<std::size_t>(cols));
    for (int c = 1; c < cols; ++c) {
      for (int r = 0; r < rows; ++r) normal(generator);
      starts_.push_back(generator);
    }
  }

  // Columns [first, first + out.cols()) into `out` (rows x count).
  void columns(Eigen::Index first, Eigen::Ref<Matrix> out) const {
    CODESIM_CHECK(first >= 0 && static_cast<std::size_t>(first) < starts_.size(),
                  "the first column's generator was recorded");
    boost::random::normal_distribution<double> normal(0.0, sd_);
    sim::StreamGenerator generator = starts_[static_cast<std::size_t>(first)];
    for (Eigen::Index c = 0; c < out.cols(); ++c)
      for (Eigen::Index r = 0; r < rows_; ++r) out(r, c) = normal(generator);
  }

 private:
  int rows_;
  double sd_;
  std::vector<sim::StreamGenerator> starts_;  // generator before each column's first draw
};

}  // namespace

// Writes glorot_init's weights of layer `layer`, encoded, into the blocks of `scheme` (a scheme of
// `spec`, fresh or not): each slab (the whole layer when it is small) is encoded by a scheme of
// its own shape and copied in.
void encode_initial_weights(const SchemeSpec& spec, CodingScheme& scheme, std::uint64_t seed,
                            int layer, int rows, int cols) {
  const SlabPlan plan = plan_slabs(spec, scheme, rows, cols);
  const InitialWeights initial(seed, layer, rows, cols, plan.sliced());
  for (Eigen::Index first = 0; first < plan.group_width; first += plan.slab_width) {
    const Eigen::Index width = std::min(plan.slab_width, plan.group_width - first);
    Matrix slab(rows, plan.groups * width);
    for (const SlabSegment& s : slab_segments(plan, cols, first, width)) {
      initial.columns(s.full_col, slab.middleCols(s.slab_col, s.count));
    }
    const std::unique_ptr<CodingScheme> part =
        make_scheme(spec, rows, static_cast<int>(slab.cols()));
    part->encode(slab);
    for (int p = 0; p < scheme.node_count(); ++p) {
      const std::vector<Matrix*> blocks = scheme.stored_blocks(p);
      const std::vector<Matrix*> parts = part->stored_blocks(p);
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (!plan.sliced()) {
          *blocks[b] = std::move(*parts[b]);
          continue;
        }
        for (const SlabSegment& s : slab_segments(plan, blocks[b]->cols(), first, width)) {
          blocks[b]->middleCols(s.full_col, s.count) = parts[b]->middleCols(s.slab_col, s.count);
        }
      }
    }
  }
}

// decode_weights() of `scheme`, whose blocks it releases. A large layer's blocks go to a
// temporary file first and are decoded a slab at a time from there, so W never sits beside all of
// its blocks.
Matrix read_out_weights(const SchemeSpec& spec, CodingScheme& scheme, int rows, int cols) {
  const SlabPlan plan = plan_slabs(spec, scheme, rows, cols);
  const int nodes = scheme.node_count();
  if (!plan.sliced()) {
    Matrix weights = scheme.decode_weights();
    for (int p = 0; p < nodes; ++p)
      for (Matrix* block : scheme.stored_blocks(p)) *block = Matrix();
    return weights;
  }
  std::vector<std::array<Eigen::Index, 3>> layout;  // per stored block: offset, rows, cols
  ScratchFile file("read-out");
  std::int64_t written = 0;
  for (int p = 0; p < nodes; ++p) {
    for (Matrix* block : scheme.stored_blocks(p)) {
      layout.push_back({written, block->rows(), block->cols()});
      file.write(block->data(), static_cast<std::size_t>(block->size()) * sizeof(double));
      written += static_cast<std::int64_t>(block->size() * sizeof(double));
      *block = Matrix();
    }
  }
  file.flush();
  Matrix weights(rows, cols);
  for (Eigen::Index first = 0; first < plan.group_width; first += plan.slab_width) {
    const Eigen::Index width = std::min(plan.slab_width, plan.group_width - first);
    const std::unique_ptr<CodingScheme> part =
        make_scheme(spec, rows, static_cast<int>(plan.groups * width));
    std::size_t stored = 0;
    for (int p = 0; p < nodes; ++p) {
      for (Matrix* block : part->stored_blocks(p)) {
        const auto [offset, block_rows, block_cols] = layout[stored++];
        CODESIM_CHECK(block->rows() == block_rows, "slab blocks keep the block height");
        for (const SlabSegment& s : slab_segments(plan, block_cols, first, width)) {
          // Columns are contiguous in column-major storage: one read per range.
          file.seek(offset + static_cast<std::int64_t>(s.full_col * block_rows * sizeof(double)));
          file.read(block->col(s.slab_col).data(),
                    static_cast<std::size_t>(s.count * block_rows) * sizeof(double));
        }
      }
    }
    const Matrix slab = part->decode_weights();
    for (const SlabSegment& s : slab_segments(plan, cols, first, width)) {
      weights.middleCols(s.full_col, s.count) = slab.middleCols(s.slab_col, s.count);
    }
  }
  return weights;
}

}  // namespace codesim::models::detail
