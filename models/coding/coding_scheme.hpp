// One interface for every way a layer's weight matrix W is stored and multiplied across P nodes,
// with the data all schemes share in its base, and the base of schemes storing one block a node.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/coding/linear_code.hpp"
#include "models/coding/scheme_spec.hpp"

namespace codesim::models {

/// forward: W X (X is N_in x B); backward: W^T D (D is N_out x B).
enum class Direction { forward, backward };

/// Worst-case capabilities of a scheme in one direction, counted in erroneous nodes.
struct DirectionCapability {
  /// Symbols needed, K: any K for GPD, MDS and the CodeNet grid (grid rows forward, grid columns
  /// backward); one copy of each block row (column) for replication and uncoded.
  int recovery_threshold = 0;
  int correctable_adversarial = 0;
  int correctable_random = 0;
  int detectable = 0;
  int erasures_tolerated = 0;
  double elements_sent_per_node = 0;      ///< per product, batch 1
  double elements_received_per_node = 0;  ///< per product, batch 1 (all results, decentralized)
};

struct SchemeSummary {
  std::string scheme;
  int nodes = 0;
  double storage_fraction_per_node = 0;  ///< of W
  double redundancy = 0;                 ///< total stored / size of W
  DirectionCapability forward;
  DirectionCapability backward;
};

/// Rows [first, first + count) of an input.
struct RowSlice {
  Eigen::Index first = 0;
  Eigen::Index count = 0;
};

/// A stored block's values in place (a Matrix, or a view of a padded one).
using BlockRef = Eigen::Ref<Matrix>;

/// How this process holds a scheme: its kernels, and which nodes' blocks live here. A run
/// distributed over MPI ranks (models/training/numeric/node_ranks.hpp) holds on each rank only the
/// blocks of the nodes that rank owns; the other nodes' blocks stay empty there, never allocated.
struct SchemeContext {
  SchemeContext() = default;
  SchemeContext(Arithmetic arithmetic_) : arithmetic(arithmetic_) {}  // NOLINT: implicit on purpose
  SchemeContext(Arithmetic arithmetic_, std::vector<char> resident_)
      : arithmetic(arithmetic_), resident(std::move(resident_)) {}
  Arithmetic arithmetic = Arithmetic::portable;
  std::vector<char> resident;  ///< per node, non-zero: its blocks live here; empty: every node
};

/// A stored block's shape (padding rows excluded): the same for every node of a scheme.
struct BlockShape {
  Eigen::Index rows = 0;
  Eigen::Index cols = 0;
};

/// Decoded product with its status and the nodes blamed.
struct ProductDecode {
  DecodeStatus status = DecodeStatus::detected;
  Matrix product;                 ///< W X or W^T D; empty when detected
  std::vector<int> blamed_nodes;  ///< ascending
  double condition_number = 0.0;  ///< worst over the codewords decoded
};

/// What node p's own check of its partial result found (ABFT's; other schemes check nothing).
struct PartialCheck {
  /// corrected: put right at the node; detected: wrong beyond repair, so the node withholds it
  /// (an erasure for the decoder).
  DecodeStatus status = DecodeStatus::clean;
  bool block_suspect = false;  ///< the node should check its stored block (repair_block)
};

/// A coding scheme. Nodes are 0..node_count()-1. Products go through "symbols": a symbol is
/// the sum of the partial results of its member nodes (one member for GPD and MDS; a grid row
/// or column for the CodeNet grid, uncoded and replication), and decoding works on symbols.
/// The summary and the symbols are data, set once by each scheme's constructor.
class CodingScheme {
 public:
  virtual ~CodingScheme() = default;
  const SchemeSummary& summary() const { return summary_; }
  int node_count() const { return summary_.nodes; }
  /// Cuts the large node products and updates between `team`'s threads (null: none); the bits
  /// stay those of one thread. The team must outlive the scheme's use of it.
  void use_team(ThreadTeam* team) { kernels_.use_team(team); }
  /// The run's kernels (and team).
  const DenseKernels& kernels() const { return kernels_; }

  /// Whether node p's blocks live in this process (SchemeContext::resident): a node's blocks are
  /// read, written, multiplied, updated and regenerated only where they live.
  bool resident(int node) const {
    return resident_.empty() || resident_.at(static_cast<std::size_t>(node)) != 0;
  }
  /// The shapes of the blocks each node stores, in stored_blocks order, resident or not.
  virtual std::vector<BlockShape> block_shapes() const = 0;
  /// Stores the encoded blocks of W (rows x cols must match the scheme); every node resident.
  virtual void encode(const Matrix& weights) = 0;
  /// The block(s) node p stores, for fault injection and checkpointing (MDS stores two): views
  /// of their values in place, whose columns may lie further apart than their rows (ABFT's blocks
  /// are padded: SingleBlockScheme). Unlike pointers to the matrices, the views do not follow a
  /// block replaced whole (regenerate, update of some schemes): take them again after those.
  virtual std::vector<BlockRef> stored_blocks(int node) = 0;
  /// The matrices that hold node p's stored blocks, whole (padding rows included), for moving
  /// them between schemes of the same spec and shape and for freeing them; the values are read and
  /// written through stored_blocks.
  virtual std::vector<Matrix*> block_storage(int node) = 0;
  /// Recovers W from the stored blocks (error-free; for tests, checkpoints and audits).
  virtual Matrix decode_weights() const = 0;

  /// Nodes that compute a partial result in `dir`: the members of its symbols, ascending.
  const std::vector<int>& participants(Direction dir) const { return symbols(dir).participants; }
  /// Node p's encoding of the input (its own copy): x~_p or delta~_p. By default the copy of its
  /// input_slice, for schemes whose encoding is one.
  virtual Matrix encode_input(int node, Direction dir, const Matrix& input) const;
  /// When node p's encoding of the input is a plain slice of its rows (uncoded, replication, the
  /// CodeNet grid), that slice, which callers may multiply in place (see multiply_input).
  virtual std::optional<RowSlice> input_slice(int /*node*/, Direction /*dir*/) const {
    return std::nullopt;
  }
  /// Node p's partial result from its stored block and its encoded input.
  virtual Matrix multiply(int node, Direction dir,
                          const Eigen::Ref<const Matrix>& encoded_input) const = 0;
  /// Number of symbols in `dir` and the nodes whose partial results sum into symbol s (ascending).
  int symbol_count(Direction dir) const { return static_cast<int>(symbols(dir).members.size()); }
  const std::vector<int>& symbol_members(Direction dir, int symbol) const {
    return symbols(dir).members.at(static_cast<std::size_t>(symbol));
  }
  /// Node p's check of its partial result (from multiply) before it leaves the node: may correct
  /// it, and leaves in it only what the node sends. By default there is nothing to check.
  virtual PartialCheck check_partial(int /*node*/, Direction /*dir*/, Matrix& /*partial*/,
                                     const DecodeOptions& /*options*/) const {
    return {};
  }
  /// Checks node p's stored block(s) against what they carry: clean, corrected (repaired in
  /// place) or detected (beyond repair). By default there is nothing to check.
  virtual DecodeStatus repair_block(int /*node*/, const DecodeOptions& /*options*/) {
    return DecodeStatus::clean;
  }
  /// Rows and columns each stored block carries beyond its share of W (ABFT's checksums), which
  /// the products compute and the nodes keep to themselves; 0 by default.
  virtual int checksum_lines() const { return 0; }
  /// Decodes the product from symbols (nullopt = erasure: a member straggled or crashed).
  virtual ProductDecode decode(Direction dir, std::span<const std::optional<Matrix>> symbols,
                               const DecodeOptions& options) const = 0;
  /// The generator (symbol_count(dir) x K) of the linear code the symbols of `dir` form, whose
  /// K-row subsets `decode` solves; null when the scheme decodes by comparing copies (uncoded,
  /// replication). Owned by the scheme.
  virtual const Matrix* symbol_generator(Direction /*dir*/) const { return nullptr; }

  /// Encoded update W <- W + eta D X^T applied to node p's stored block(s) only, from D
  /// (N_out x B) and X (N_in x B); no decoding, no re-encoding.
  virtual void update(int node, const Matrix& delta, const Matrix& input, double eta) = 0;
  /// Recomputes node p's stored block(s) from the blocks of nodes in `healthy` (no check of
  /// them). Returns false when `healthy` cannot determine the block.
  virtual bool regenerate(int node, std::span<const int> healthy) = 0;
  /// Nodes whose blocks regenerate(node, ...) would read, chosen deterministically among
  /// those not in `exclude` (and not `node`); empty when too few remain.
  virtual std::vector<int> regeneration_sources(int node, std::span<const int> exclude) const = 0;

 protected:
  /// Checks `spec` against W's shape (rows x cols) and keeps its summary; products, updates and
  /// decodes run on the context's kernels.
  CodingScheme(const SchemeSpec& spec, int rows, int cols, const SchemeContext& context);
  /// The members of each symbol, forward and backward (node ids, each list ascending); called
  /// once by the scheme's constructor.
  void set_symbols(std::vector<std::vector<int>> forward, std::vector<std::vector<int>> backward);

  /// W is rows() x cols().
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  /// Rows of the input in `dir`: N_in (cols) forward, N_out (rows) backward.
  int input_length(Direction dir) const { return dir == Direction::forward ? cols_ : rows_; }
  /// Checks that `input` has input_length(dir) rows.
  void check_input(Direction dir, const Matrix& input) const;
  /// Checks that W has the scheme's shape.
  void check_weights(const Matrix& weights) const;
  /// Checks the operands of an update: D is N_out x B and X is N_in x B.
  void check_update(const Matrix& delta, const Matrix& input) const;

 private:
  struct Symbols {
    std::vector<std::vector<int>> members;  // per symbol, ascending
    std::vector<int> participants;          // the union of the members, ascending
  };
  const Symbols& symbols(Direction dir) const {
    return symbols_[dir == Direction::forward ? 0 : 1];
  }

  SchemeSummary summary_;
  int rows_ = 0;
  int cols_ = 0;
  DenseKernels kernels_;
  std::vector<char> resident_;      // per node; empty: every node
  std::array<Symbols, 2> symbols_;  // forward, backward
};

/// A scheme whose nodes each store one block of W (rows/m x cols/n for its m x n block grid) and
/// multiply it in both directions: GPD, replication, uncoded and the CodeNet grid. With checksums
/// (ABFT's, abft_checksums.hpp: the `abft` and `abft_codenet` schemes), each block also carries
/// checksum rows and columns: its products compute their checksums, which the node checks
/// (check_partial) and keeps; its updates keep them current; repair_block checks the block.
class SingleBlockScheme : public CodingScheme {
 public:
  std::vector<BlockShape> block_shapes() const override {
    return {{block_rows_, share_cols_ + checksum_lines_}};
  }
  std::vector<BlockRef> stored_blocks(int node) override { return {block(node)}; }
  std::vector<Matrix*> block_storage(int node) override { return {&stored_.at(node)}; }
  Matrix multiply(int node, Direction dir,
                  const Eigen::Ref<const Matrix>& encoded_input) const override;
  /// With checksums: corrects one wrong entry per column and strips the checksum rows.
  PartialCheck check_partial(int node, Direction dir, Matrix& partial,
                             const DecodeOptions& options) const override;
  /// With checksums: one corrupted entry per column (or row) of the block repaired in place.
  DecodeStatus repair_block(int node, const DecodeOptions& options) override;
  int checksum_lines() const override { return checksum_lines_; }

 protected:
  /// As CodingScheme's, with a zero block for every resident node (with checksums when
  /// `checksummed`).
  SingleBlockScheme(const SchemeSpec& spec, int rows, int cols, const SchemeContext& context,
                    bool checksummed = false);

  /// Node p's stored block: the first rows of its matrix in stored_ (all of them without
  /// checksums; an empty block once its storage is freed).
  Eigen::Block<Matrix> block(int node) {
    Matrix& storage = stored_.at(node);
    return storage.topRows(std::min(storage.rows(), block_rows_));
  }
  Eigen::Block<const Matrix> block(int node) const {
    const Matrix& storage = stored_.at(node);
    return storage.topRows(std::min(storage.rows(), block_rows_));
  }
  /// Node p's share of W: its stored block without the checksums.
  Eigen::Block<Matrix> share(int node) {
    return stored_.at(node).topLeftCorner(share_rows_, share_cols_);
  }
  Eigen::Block<const Matrix> share(int node) const {
    return stored_.at(node).topLeftCorner(share_rows_, share_cols_);
  }
  /// Recomputes every block's checksums from its share (after encode wrote the shares).
  void refresh_checksums();
  /// Node p's block += delta_hat input_hat^T (eta already in delta_hat), checksums included.
  void add_to_block(int node, const Matrix& delta_hat, const Eigen::Ref<const Matrix>& input_hat);

  // Node p's block in the first block_rows_ rows of stored_[p]. With checksums a block has
  // share rows + 3 rows, which would leave most columns off 32-byte boundaries (the products'
  // vector loads then straddle cache lines): its matrix has more rows, a multiple of 4, so that
  // every column starts 32 bytes aligned. The padding rows stay zero and no reader sees them; the
  // products see the block's own row count, so they run the same kernels with the same bits.
  std::vector<Matrix> stored_;

 private:
  Eigen::Index block_rows_ = 0;
  Eigen::Index share_rows_ = 0;
  Eigen::Index share_cols_ = 0;
  int checksum_lines_ = 0;
  std::vector<long> updates_;  // per node, since encode (the checks' round-off scale)
};

/// Checks a spec against W's shape (rows x cols; 0 = do not check divisibility): the descriptor's
/// field ranges, then the scheme's own rules. An empty problem when valid.
SchemeProblem validate_scheme(const SchemeSpec& spec, int rows = 0, int cols = 0);
/// Capabilities of a (valid) spec without building it. Element counts are for a rows x cols W;
/// with rows = cols = 0 they are fractions of the product's length (N_out forward, N_in backward).
SchemeSummary summarize_scheme(const SchemeSpec& spec, int rows = 0, int cols = 0);
/// Builds the scheme for a rows x cols weight matrix. Precondition: validate_scheme(...) is empty.
/// Its products, updates and decodes run on the context's kernels (the run's choice), and it holds
/// the blocks of the context's resident nodes only.
std::unique_ptr<CodingScheme> make_scheme(const SchemeSpec& spec, int rows, int cols,
                                          const SchemeContext& context = {});

/// Capabilities of an (S, K) MDS code whose symbols are single nodes (or, worst case, whose
/// erroneous nodes each spoil a different symbol).
DirectionCapability mds_capability(int symbols, int dimension);
/// mds_capability(symbols, dimension) with the traffic of a product of `length` split into
/// `parts`: a node sends its length / parts elements and receives those of every symbol.
DirectionCapability mds_direction(int symbols, int dimension, double length, int parts);
/// The summary of `nodes` nodes that each store `stored_blocks` blocks of W split into `parts`,
/// with the capabilities of each direction (summarize_scheme names the scheme).
SchemeSummary scheme_summary(int nodes, int stored_blocks, int parts, DirectionCapability forward,
                             DirectionCapability backward);
/// Sets the elements a node sends and receives per product in one direction.
void set_traffic(DirectionCapability& capability, double sent, double received);

/// Node p's partial result from the input: its block times its encoding of the input, with the
/// slice read in place (no copy) when the encoding is one.
Matrix multiply_input(const CodingScheme& scheme, int node, Direction dir, const Matrix& input);

/// Fault hook for compute_and_decode: may alter node p's partial result before summation;
/// returning false drops it (the node straggled or crashed: its symbol becomes an erasure).
using PartialResultHook = std::function<bool(int node, Matrix& partial)>;

/// A decode that succeeded without the partials of `withheld` (nodes whose own check found their
/// block or product beyond repair, abft_codenet): they blamed themselves, so the decode counts as
/// corrected and blames them too, for regeneration. A failed decode is left as it is.
void blame_withheld(ProductDecode& decoded, std::span<const int> withheld);

/// Node p's partial result as it leaves the node.
struct CheckedPartial {
  std::optional<Matrix> partial;             ///< nullopt: lost, or withheld by the node's check
  DecodeStatus check = DecodeStatus::clean;  ///< the node's own check (detected: withheld)
};
/// Node p computes its partial from `input`, `faulty` (when given) strikes or drops it, and the
/// node checks it (check_partial).
CheckedPartial checked_partial(const CodingScheme& scheme, int node, Direction dir,
                               const Matrix& input, const DecodeOptions& options,
                               const PartialResultHook& faulty = {});
/// Where decode_partials gets each participant's checked partial, in participant order.
using PartialSource = std::function<CheckedPartial(int node)>;
/// compute_and_decode with the partials from `source`: summed into symbols in member order, one
/// partial alive at a time, then decoded (withheld nodes blamed as compute_and_decode says).
ProductDecode decode_partials(const CodingScheme& scheme, Direction dir,
                              const DecodeOptions& options, const PartialSource& source);

/// Helper for callers and tests: every participant encodes its input and computes, the partial
/// results are summed into symbols (after `faulty`, when given, and each node's check_partial),
/// then decoded. A node whose own check withholds its partial is blamed when the decode succeeds
/// without it (corrected: its block needs regeneration).
ProductDecode compute_and_decode(const CodingScheme& scheme, Direction dir, const Matrix& input,
                                 const DecodeOptions& options,
                                 const PartialResultHook& faulty = {});

}  // namespace codesim::models
