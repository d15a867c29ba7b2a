//===- StableHloAttrText.cpp - StableHLO's opaque attributes, read --------===//
#include "compiler/import/StableHloAttrText.h"

#include <cctype>

namespace shardc {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

bool readInt(std::string_view s, int64_t &out) {
  s = trim(s);
  bool negative = !s.empty() && s.front() == '-';
  if (negative)
    s.remove_prefix(1);
  if (s.empty() || s.size() > 18)
    return false;
  int64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
    v = v * 10 + (c - '0');
  }
  out = negative ? -v : v;
  return true;
}

/// The text between `prefix` and a final '>', trimmed; nullopt if `text`
/// is not shaped so.
std::optional<std::string_view> between(std::string_view text, std::string_view prefix) {
  text = trim(text);
  if (text.substr(0, prefix.size()) != prefix || text.size() <= prefix.size() ||
      text.back() != '>')
    return std::nullopt;
  return trim(text.substr(prefix.size(), text.size() - prefix.size() - 1));
}

} // namespace

const std::vector<int64_t> &StableHloFields::list(const std::string &name) const {
  static const std::vector<int64_t> none;
  auto it = fields.find(name);
  return it == fields.end() ? none : it->second;
}

std::optional<StableHloFields> parseStableHloFields(std::string_view text, std::string &error) {
  StableHloFields out;
  std::string_view t = trim(text);
  size_t open = t.find('<');
  if (t.substr(0, 11) != "#stablehlo." || open == std::string_view::npos) {
    error = "expected #stablehlo.KIND<...>, got '" + std::string(text) + "'";
    return std::nullopt;
  }
  out.kind = std::string(t.substr(11, open - 11));
  std::optional<std::string_view> body = between(t, t.substr(0, open + 1));
  if (!body) {
    error = "expected '>' closing '" + std::string(text) + "'";
    return std::nullopt;
  }
  // name = [a, b], name = n, ... ; lists hold no nested brackets.
  std::string_view rest = *body;
  while (!trim(rest).empty()) {
    size_t eq = rest.find('=');
    if (eq == std::string_view::npos) {
      error = "expected NAME = VALUE in '" + std::string(text) + "'";
      return std::nullopt;
    }
    std::string name(trim(rest.substr(0, eq)));
    rest = trim(rest.substr(eq + 1));
    std::vector<int64_t> values;
    if (!rest.empty() && rest.front() == '[') {
      size_t close = rest.find(']');
      if (close == std::string_view::npos) {
        error = "expected ']' after " + name + " in '" + std::string(text) + "'";
        return std::nullopt;
      }
      std::string_view list = trim(rest.substr(1, close - 1));
      rest = trim(rest.substr(close + 1));
      while (!list.empty()) {
        size_t comma = list.find(',');
        int64_t v;
        if (!readInt(list.substr(0, comma), v)) {
          error = "expected integers in " + name + " of '" + std::string(text) + "'";
          return std::nullopt;
        }
        values.push_back(v);
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      }
    } else {
      size_t comma = rest.find(',');
      int64_t v;
      if (!readInt(rest.substr(0, comma), v)) {
        error = "expected an integer or a list for " + name + " in '" + std::string(text) + "'";
        return std::nullopt;
      }
      values.push_back(v);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma);
    }
    if (name.empty() || out.fields.count(name)) {
      error = "field '" + name + "' is empty or repeated in '" + std::string(text) + "'";
      return std::nullopt;
    }
    out.fields[name] = std::move(values);
    rest = trim(rest);
    if (!rest.empty()) {
      if (rest.front() != ',') {
        error = "expected ',' after " + name + " in '" + std::string(text) + "'";
        return std::nullopt;
      }
      rest.remove_prefix(1);
    }
  }
  return out;
}

std::optional<std::string> parseStableHloEnum(std::string_view text, std::string_view enumName,
                                              std::string &error) {
  std::optional<std::string_view> body = between(text, "#stablehlo<");
  if (!body || body->substr(0, enumName.size()) != enumName ||
      body->size() <= enumName.size() ||
      !std::isspace(static_cast<unsigned char>((*body)[enumName.size()]))) {
    error = "expected #stablehlo<" + std::string(enumName) + " CASE>, got '" + std::string(text) +
            "'";
    return std::nullopt;
  }
  std::string_view value = trim(body->substr(enumName.size()));
  for (char c : value)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
      error = "expected one word after " + std::string(enumName) + " in '" + std::string(text) +
              "'";
      return std::nullopt;
    }
  return std::string(value);
}

} // namespace shardc
