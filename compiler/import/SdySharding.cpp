//===- SdySharding.cpp - Shardy's sharding text, read for the importer ----===//
#include "compiler/import/SdySharding.h"

#include <cctype>

namespace shardc {

namespace {

/// A recursive-descent reader over the attribute text; every read skips
/// leading blanks, and the first failure keeps its message.
class Reader {
public:
  explicit Reader(std::string_view text) : text_(text) {}

  bool failed() const { return !error_.empty(); }
  const std::string &error() const { return error_; }

  void skipBlanks() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool atEnd() {
    skipBlanks();
    return pos_ == text_.size();
  }
  bool peek(char c) {
    skipBlanks();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool consume(char c) {
    if (!peek(c))
      return false;
    ++pos_;
    return true;
  }
  bool consume(std::string_view word) {
    skipBlanks();
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }
  bool expect(char c) {
    if (consume(c))
      return true;
    fail(std::string("'") + c + "'");
    return false;
  }
  void fail(const std::string &expected) {
    if (!failed())
      error_ = "expected " + expected + " at character " + std::to_string(pos_ + 1) +
               " of the sharding";
  }
  void failWith(const std::string &message) {
    if (!failed())
      error_ = message;
  }

  /// "axis" (no escapes: mesh axis names are identifiers).
  std::optional<std::string> quoted() {
    if (!consume('"')) {
      fail("a quoted axis name");
      return std::nullopt;
    }
    size_t end = text_.find('"', pos_);
    if (end == std::string_view::npos || end == pos_) {
      fail("a non-empty axis name and its closing '\"'");
      return std::nullopt;
    }
    std::string name(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return name;
  }

  /// @name
  std::optional<std::string> symbol() {
    if (!consume('@')) {
      fail("'@' and the mesh name");
      return std::nullopt;
    }
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '.' || text_[pos_] == '$' || text_[pos_] == '-'))
      ++pos_;
    if (pos_ == start) {
      fail("a mesh name after '@'");
      return std::nullopt;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  /// A non-negative integer of at most `maxDigits` digits.
  std::optional<int64_t> integer(const char *what, size_t maxDigits = 18) {
    skipBlanks();
    size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) &&
           pos_ - start < maxDigits)
      value = value * 10 + (text_[pos_++] - '0');
    if (pos_ == start) {
      fail(what);
      return std::nullopt;
    }
    return value;
  }

  /// Items separated by commas up to `close` (the opening bracket already
  /// read); `item` reads one and returns false on failure.
  template <typename Item> bool listUntil(char close, Item item) {
    for (bool first = true; !consume(close); first = false)
      if ((!first && !expect(',')) || !item())
        return false;
    return true;
  }

  /// A quoted whole mesh axis; a sub-axis ("z":(4)2) is an error.
  std::optional<std::string> axis() {
    std::optional<std::string> name = quoted();
    if (name && peek(':')) {
      failWith("sub-axis \"" + *name +
               "\":(...) splits one mesh axis into parts, which a garray mesh cannot name; "
               "use whole axes");
      return std::nullopt;
    }
    return name;
  }

  /// {"a", "b", ?}p1
  std::optional<SdyDim> dim() {
    SdyDim d;
    bool ok = expect('{') && listUntil('}', [&] {
      if (d.open) { // `?` ends the list
        fail("'}'");
        return false;
      }
      if (consume('?'))
        return d.open = true;
      std::optional<std::string> a = axis();
      if (a)
        d.axes.push_back(*a);
      return a.has_value();
    });
    if (!ok)
      return std::nullopt;
    if (consume('p')) {
      std::optional<int64_t> p = integer("a priority number after 'p'", 9);
      if (!p)
        return std::nullopt;
      d.priority = *p;
    }
    return d;
  }

  /// {"a", "b"} after replicated= / unreduced=
  std::optional<std::vector<std::string>> axisSet() {
    std::vector<std::string> axes;
    bool ok = expect('{') && listUntil('}', [&] {
      std::optional<std::string> a = axis();
      if (a)
        axes.push_back(*a);
      return a.has_value();
    });
    if (!ok)
      return std::nullopt;
    return axes;
  }

  std::optional<SdyMesh> mesh() {
    SdyMesh m;
    bool wrapped = consume("#sdy.mesh");
    if (wrapped && !expect('<'))
      return std::nullopt;
    bool ok = expect('[') && listUntil(']', [&] {
      std::optional<std::string> a = quoted();
      if (!a || !expect('='))
        return false;
      std::optional<int64_t> size = integer("an axis size");
      if (!size)
        return false;
      m.axes.push_back(*a);
      m.sizes.push_back(*size);
      return true;
    });
    if (!ok)
      return std::nullopt;
    if (consume(',')) {
      if (!consume("device_ids") || !expect('=') || !expect('[')) {
        fail("'device_ids=['");
        return std::nullopt;
      }
      int64_t next = 0;
      ok = listUntil(']', [&] {
        std::optional<int64_t> id = integer("a device id");
        if (id && *id != next)
          failWith("device_ids lists device " + std::to_string(*id) + " in position " +
                   std::to_string(next) +
                   "; a garray mesh numbers its devices in row-major order only");
        ++next;
        return id && !failed();
      });
      if (!ok)
        return std::nullopt;
    }
    if (wrapped && !expect('>'))
      return std::nullopt;
    if (!atEnd()) {
      fail("the end of the mesh");
      return std::nullopt;
    }
    return m;
  }

  std::optional<SdySharding> sharding() {
    bool wrapped = consume("#sdy.sharding");
    if (wrapped && !expect('<'))
      return std::nullopt;
    std::optional<SdySharding> s = shardingBody();
    if (!s || (wrapped && !expect('>')))
      return std::nullopt;
    if (!atEnd()) {
      fail("the end of the sharding");
      return std::nullopt;
    }
    return s;
  }

  /// #sdy.sharding_per_value<[<@mesh, [...]>, ...]> (or what is between
  /// its outer angle brackets).
  std::optional<std::vector<SdySharding>> shardingPerValue() {
    std::vector<SdySharding> all;
    bool wrapped = consume("#sdy.sharding_per_value");
    if (wrapped && !expect('<'))
      return std::nullopt;
    bool ok = expect('[') && listUntil(']', [&] {
      std::optional<SdySharding> s;
      if (!expect('<') || !(s = shardingBody()) || !expect('>'))
        return false;
      all.push_back(std::move(*s));
      return true;
    });
    if (!ok || (wrapped && !expect('>')))
      return std::nullopt;
    if (!atEnd()) {
      fail("the end of the shardings");
      return std::nullopt;
    }
    return all;
  }

  /// #sdy<manual_axes{"a", "b"}> (or from `{`).
  std::optional<std::vector<std::string>> manualAxes() {
    bool wrapped = consume("#sdy<manual_axes");
    std::optional<std::vector<std::string>> axes = axisSet();
    if (!axes || (wrapped && !expect('>')))
      return std::nullopt;
    if (!atEnd()) {
      fail("the end of the manual axes");
      return std::nullopt;
    }
    return axes;
  }

private:
  /// @mesh, [dims...], replicated={...}, unreduced={...}
  std::optional<SdySharding> shardingBody() {
    SdySharding s;
    std::optional<std::string> mesh = symbol();
    if (!mesh)
      return std::nullopt;
    s.mesh = *mesh;
    bool ok = expect(',') && expect('[') && listUntil(']', [&] {
      std::optional<SdyDim> d = dim();
      if (d)
        s.dims.push_back(std::move(*d));
      return d.has_value();
    });
    if (!ok)
      return std::nullopt;
    while (consume(',')) {
      bool replicated = consume("replicated");
      if (!replicated && !consume("unreduced")) {
        fail("'replicated=' or 'unreduced='");
        return std::nullopt;
      }
      if (!expect('='))
        return std::nullopt;
      std::optional<std::vector<std::string>> axes = axisSet();
      if (!axes)
        return std::nullopt;
      (replicated ? s.replicated : s.unreduced) = std::move(*axes);
    }
    return s;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

} // namespace

namespace {

/// Runs `read` (a Reader method) over all of `text`; on failure sets
/// `error` to the reader's, or to "malformed <what>".
template <typename T>
std::optional<T> parseAll(std::string_view text, std::string &error,
                          std::optional<T> (Reader::*read)(), const char *what) {
  Reader r(text);
  std::optional<T> value = (r.*read)();
  if (!value || r.failed()) {
    error = r.failed() ? r.error() : std::string("malformed ") + what;
    return std::nullopt;
  }
  return value;
}

} // namespace

std::optional<SdySharding> parseSdySharding(std::string_view text, std::string &error) {
  return parseAll(text, error, &Reader::sharding, "sharding");
}

std::optional<std::vector<SdySharding>> parseSdyShardingPerValue(std::string_view text,
                                                                  std::string &error) {
  return parseAll(text, error, &Reader::shardingPerValue, "shardings");
}

std::optional<std::vector<std::string>> parseSdyManualAxes(std::string_view text,
                                                           std::string &error) {
  return parseAll(text, error, &Reader::manualAxes, "manual axes");
}

std::optional<SdyMesh> parseSdyMesh(std::string_view text, std::string &error) {
  return parseAll(text, error, &Reader::mesh, "mesh");
}

std::string garraySpec(const SdySharding &sharding) {
  std::string spec = "P(";
  for (size_t i = 0; i < sharding.dims.size(); ++i) {
    const SdyDim &d = sharding.dims[i];
    std::string entry;
    if (d.axes.empty()) {
      entry = d.open ? "?" : "None";
    } else {
      for (size_t k = 0; k < d.axes.size(); ++k)
        entry += (k ? ", \"" : "\"") + d.axes[k] + "\"";
      if (d.axes.size() > 1)
        entry = "(" + entry + ")";
      if (d.open)
        entry += "?";
    }
    if (d.priority >= 0)
      entry += " p" + std::to_string(d.priority);
    spec += (i ? ", " : "") + entry;
  }
  return spec + ")";
}

} // namespace shardc
