// IDX reading and writing through zlib (which reads plain files transparently), and Fashion-MNIST.
#include "models/data/idx_loader.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <memory>
#include <utility>

#include <fmt/format.h>

namespace codesim::models {
namespace {

constexpr std::uint8_t kUnsignedByteType = 0x08;
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
// No real IDX file comes near this; it stops a corrupt header from requesting absurd memory.
constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 36;

struct GzClose {
  void operator()(gzFile_s* gz) const { gzclose(gz); }
};
using GzHandle = std::unique_ptr<gzFile_s, GzClose>;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw DatasetError("IDX file '" + file.string() + "': " + what);
}

std::string join_dimensions(const std::vector<std::uint32_t>& dimensions) {
  return fmt::format("{}", fmt::join(dimensions, " x "));
}

// "0x" followed by the bytes in hexadecimal, most significant first.
std::string hex(const std::uint8_t* bytes, std::size_t count) {
  return fmt::format("0x{:02X}", fmt::join(bytes, bytes + count, ""));
}

// zlib's note on a stream that ended early or is corrupt, or "" when there is none.
std::string zlib_note(gzFile_s* gz) {
  int code = Z_OK;
  const char* message = gzerror(gz, &code);
  if (code == Z_OK || message == nullptr) return "";
  return std::string(" (gzip: ") + message + ")";
}

// Reads up to `count` bytes and returns how many arrived; a zlib error (corrupt gzip) throws.
std::size_t read_some(gzFile_s* gz, const std::filesystem::path& file, std::uint8_t* out,
                      std::size_t count) {
  std::size_t done = 0;
  while (done < count) {
    const auto want = static_cast<unsigned>(std::min(count - done, kChunkBytes));
    const int got = gzread(gz, out + done, want);
    if (got < 0) fail(file, "corrupt gzip data" + zlib_note(gz));
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

// Opens `file` (plain or gzip) for reading; throws when it is missing or cannot be opened.
GzHandle open_idx(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) fail(file, "not found (or not a regular file)");
  GzHandle gz(gzopen(file.c_str(), "rb"));
  if (!gz) fail(file, "cannot be opened");
  gzbuffer(gz.get(), static_cast<unsigned>(kChunkBytes));
  return gz;
}

// Reads and checks the magic number and the dimensions; returns the dimensions.
std::vector<std::uint32_t> read_header(gzFile_s* gz, const std::filesystem::path& file) {
  std::uint8_t magic[4] = {};
  const std::size_t magic_read = read_some(gz, file, magic, 4);
  if (magic_read < 4)
    fail(file,
         "too short for an IDX header (" + std::to_string(magic_read) + " bytes)" + zlib_note(gz));
  if (magic[0] != 0 || magic[1] != 0)
    fail(file, "bad magic number " + hex(magic, 4) +
                   ": not an IDX file (it must start with two zero bytes)");
  if (magic[2] != kUnsignedByteType)
    fail(file, "unsupported IDX element type " + hex(&magic[2], 1) +
                   " (only unsigned bytes, 0x08, are supported)");
  const unsigned rank = magic[3];
  if (rank == 0) fail(file, "bad magic number " + hex(magic, 4) + ": zero dimensions");

  std::vector<std::uint32_t> dimensions;
  std::vector<std::uint8_t> header(4 * std::size_t{rank});
  const std::size_t header_read = read_some(gz, file, header.data(), header.size());
  if (header_read < header.size())
    fail(file, "truncated header: " + std::to_string(rank) + " dimensions need " +
                   std::to_string(header.size()) + " bytes but only " +
                   std::to_string(header_read) + " follow" + zlib_note(gz));
  std::uint64_t expected = 1;
  for (unsigned d = 0; d < rank; ++d) {
    const std::uint8_t* b = &header[4 * std::size_t{d}];
    const std::uint32_t size = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
                               (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]};
    dimensions.push_back(size);
    if (size != 0 && expected > kMaxValues / size)
      fail(file, "dimensions " + join_dimensions(dimensions) + "... are implausibly large");
    expected *= size;
  }
  if (expected == 0) fail(file, "dimensions " + join_dimensions(dimensions) + " include a zero");
  return dimensions;
}

}  // namespace

std::vector<std::uint32_t> read_idx_dimensions(const std::filesystem::path& file) {
  GzHandle gz = open_idx(file);
  return read_header(gz.get(), file);
}

IdxArray read_idx(const std::filesystem::path& file) {
  GzHandle gz = open_idx(file);
  IdxArray array;
  array.dimensions = read_header(gz.get(), file);
  std::uint64_t expected = 1;
  for (std::uint32_t size : array.dimensions) expected *= size;

  // Grow in chunks so a header that lies about its size cannot allocate more than the data.
  array.values.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(expected, 1u << 26)));
  std::size_t have = 0;
  while (have < expected) {
    const std::size_t want = std::min<std::size_t>(expected - have, 4 * kChunkBytes);
    array.values.resize(have + want);
    const std::size_t got = read_some(gz.get(), file, array.values.data() + have, want);
    have += got;
    if (got < want) {
      fail(file, "truncated: dimensions " + join_dimensions(array.dimensions) + " need " +
                     std::to_string(expected) + " data bytes but only " + std::to_string(have) +
                     " follow" + zlib_note(gz.get()));
    }
  }
  // Reading past the end also makes zlib verify the gzip checksum.
  std::uint8_t extra = 0;
  if (read_some(gz.get(), file, &extra, 1) != 0)
    fail(file, "more bytes than dimensions " + join_dimensions(array.dimensions) +
                   " account for (wrong dimensions?)");
  const std::string note = zlib_note(gz.get());
  if (!note.empty()) fail(file, "corrupt or truncated gzip stream" + note);
  return array;
}

void write_idx(const std::filesystem::path& file, const IdxArray& array, bool gzip) {
  if (array.dimensions.empty() || array.dimensions.size() > 255)
    fail(file, "cannot write " + std::to_string(array.dimensions.size()) + " dimensions");
  std::uint64_t count = 1;
  for (std::uint32_t size : array.dimensions) count *= size;
  if (count != array.values.size())
    fail(file, "cannot write: dimensions " + join_dimensions(array.dimensions) + " hold " +
                   std::to_string(count) + " values, not " + std::to_string(array.values.size()));

  std::vector<std::uint8_t> bytes = {0, 0, kUnsignedByteType,
                                     static_cast<std::uint8_t>(array.dimensions.size())};
  for (std::uint32_t size : array.dimensions)
    for (int shift = 24; shift >= 0; shift -= 8)
      bytes.push_back(static_cast<std::uint8_t>((size >> shift) & 0xFF));
  bytes.insert(bytes.end(), array.values.begin(), array.values.end());

  if (gzip) {
    GzHandle gz(gzopen(file.c_str(), "wb"));
    if (!gz) fail(file, "cannot be created");
    std::size_t done = 0;
    while (done < bytes.size()) {
      const auto want = static_cast<unsigned>(std::min(bytes.size() - done, kChunkBytes));
      if (gzwrite(gz.get(), bytes.data() + done, want) != static_cast<int>(want))
        fail(file, "write failed" + zlib_note(gz.get()));
      done += want;
    }
    if (gzclose(gz.release()) != Z_OK) fail(file, "write failed on close");
    return;
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) fail(file, "write failed");
}

Dataset load_idx(const std::filesystem::path& images_file, const std::filesystem::path& labels_file,
                 std::string name, int classes, double pixel_scale) {
  if (classes < 1) throw DatasetError("dataset '" + name + "': class count must be >= 1");
  if (!(pixel_scale > 0.0) || !std::isfinite(pixel_scale))
    throw DatasetError("dataset '" + name + "': pixel scale must be positive and finite");

  IdxArray images = read_idx(images_file);
  if (images.dimensions.size() < 2)
    fail(images_file, "an image file needs at least 2 dimensions (count x pixels...), found " +
                          std::to_string(images.dimensions.size()));
  const IdxArray labels = read_idx(labels_file);
  if (labels.dimensions.size() != 1)
    fail(labels_file, "a label file needs exactly 1 dimension, found " +
                          std::to_string(labels.dimensions.size()) + " (" +
                          join_dimensions(labels.dimensions) + ")");

  const std::uint32_t count = images.dimensions[0];
  if (labels.dimensions[0] != count)
    throw DatasetError("IDX files '" + images_file.string() + "' and '" + labels_file.string() +
                       "': " + std::to_string(count) + " images but " +
                       std::to_string(labels.dimensions[0]) + " labels");
  const std::uint64_t features = images.values.size() / count;
  if (count > INT_MAX || features > INT_MAX)
    fail(images_file, "dimensions " + join_dimensions(images.dimensions) + " are too large");

  Dataset data;
  data.name = std::move(name);
  data.classes = classes;
  data.labels.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const int label = labels.values[i];
    if (label >= classes)
      fail(labels_file, "label " + std::to_string(label) + " at index " + std::to_string(i) +
                            " is outside 0.." + std::to_string(classes - 1));
    data.labels[i] = label;
  }
  // IDX stores samples one after another, which is exactly Eigen's column-major layout.
  using ByteMatrix = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic>;
  const Eigen::Map<const ByteMatrix> pixels(
      images.values.data(), static_cast<Eigen::Index>(features), static_cast<Eigen::Index>(count));
  data.images = pixels.cast<double>() * pixel_scale;
  return data;
}

DatasetSplit load_fashion_mnist(const std::filesystem::path& directory, double pixel_scale) {
  const std::filesystem::path files[4] = {
      directory / "train-images-idx3-ubyte.gz", directory / "train-labels-idx1-ubyte.gz",
      directory / "t10k-images-idx3-ubyte.gz", directory / "t10k-labels-idx1-ubyte.gz"};
  for (const auto& file : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
      throw DatasetError("Fashion-MNIST file '" + file.string() +
                         "' not found; install the Debian package dataset-fashion-mnist "
                         "(`scripts/setup --data`, or `sudo apt-get install -y "
                         "dataset-fashion-mnist`)");
  }
  DatasetSplit split;
  split.train = load_idx(files[0], files[1], "fashion-mnist/train", 10, pixel_scale);
  split.test = load_idx(files[2], files[3], "fashion-mnist/test", 10, pixel_scale);
  return split;
}

}  // namespace codesim::models
