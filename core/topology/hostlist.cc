#include "core/topology/hostlist.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace hopmap {
namespace {

// Numbers in brackets are limited to 18 digits so they fit an int64.
constexpr size_t kMaxDigits = 18;

struct Range {
  int64_t lo;
  int64_t hi;
  int width;  // digits of the first number: the zero padding kept for the range
};

// One bracket group: its ranges and how many names they give.
struct Group {
  std::vector<Range> ranges;
  uint64_t count = 0;
};

absl::Status Error(absl::string_view expr, absl::string_view what, size_t pos) {
  return absl::InvalidArgumentError(
      absl::StrCat("hostlist '", expr, "': ", what, " at position ", pos));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parses the digits of `text` (all digits, 1..kMaxDigits of them).
int64_t ParseDigits(absl::string_view text) {
  int64_t v = 0;
  for (char c : text) v = v * 10 + (c - '0');
  return v;
}

// Parses the inside of a bracket group, `body`, which starts at `pos` in `expr`.
absl::Status ParseGroup(absl::string_view expr, absl::string_view body, size_t pos,
                        size_t max_names, Group& group) {
  size_t start = 0;
  while (true) {
    size_t comma = body.find(',', start);
    if (comma == absl::string_view::npos) comma = body.size();
    absl::string_view piece = body.substr(start, comma - start);
    const size_t piece_pos = pos + start;
    if (piece.empty()) return Error(expr, "empty range inside '[...]'", piece_pos);
    const size_t dash = piece.find('-');
    absl::string_view first = piece.substr(0, dash);
    absl::string_view second = dash == absl::string_view::npos ? first : piece.substr(dash + 1);
    const size_t second_pos = dash == absl::string_view::npos ? piece_pos : piece_pos + dash + 1;
    for (size_t i = 0; i < piece.size(); ++i) {
      if (!IsDigit(piece[i]) && !(i == dash)) {
        return Error(expr,
                     absl::StrCat("non-digit '", piece.substr(i, 1), "' in range '", piece, "'"),
                     piece_pos + i);
      }
    }
    if (first.empty())
      return Error(expr, absl::StrCat("range '", piece, "' has no first number"), piece_pos);
    if (second.empty()) {
      return Error(expr, absl::StrCat("range '", piece, "' has no last number"), second_pos);
    }
    if (first.size() > kMaxDigits || second.size() > kMaxDigits) {
      return Error(expr,
                   absl::StrCat("number in '", piece, "' has more than ", kMaxDigits, " digits"),
                   piece_pos);
    }
    Range r{ParseDigits(first), ParseDigits(second), static_cast<int>(first.size())};
    if (r.hi < r.lo) {
      return Error(expr, absl::StrCat("reversed range ", piece, " (", r.lo, " > ", r.hi, ")"),
                   piece_pos);
    }
    group.count += static_cast<uint64_t>(r.hi - r.lo) + 1;
    if (group.count > max_names) {
      return Error(expr, absl::StrCat("more than ", max_names, " host names"), piece_pos);
    }
    group.ranges.push_back(r);
    if (comma == body.size()) break;
    start = comma + 1;
  }
  return absl::OkStatus();
}

// Expands one top-level item (already trimmed, non-empty) that starts at `pos` in
// `expr`, appending to `out` without letting it grow past `max_names`.
absl::Status ExpandItem(absl::string_view expr, absl::string_view item, size_t pos,
                        size_t max_names, std::vector<std::string>& out) {
  // Split into literal text pieces and bracket groups: literals[0] group[0]
  // literals[1] group[1] ... literals[k].
  std::vector<std::string> literals(1);
  std::vector<Group> groups;
  for (size_t i = 0; i < item.size(); ++i) {
    const char c = item[i];
    if (c == ']') return Error(expr, "unbalanced ']'", pos + i);
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      return Error(expr, "unexpected whitespace inside a host name", pos + i);
    }
    if (c != '[') {
      literals.back().push_back(c);
      continue;
    }
    size_t close = i + 1;
    while (close < item.size() && item[close] != ']') {
      if (item[close] == '[') return Error(expr, "nested '['", pos + close);
      ++close;
    }
    if (close == item.size()) return Error(expr, "unbalanced '[' (no matching ']')", pos + i);
    if (close == i + 1) return Error(expr, "empty '[]'", pos + i);
    Group group;
    if (absl::Status s =
            ParseGroup(expr, item.substr(i + 1, close - i - 1), pos + i + 1, max_names, group);
        !s.ok()) {
      return s;
    }
    groups.push_back(std::move(group));
    literals.emplace_back();
    i = close;
  }
  uint64_t total = 1;
  const uint64_t room = max_names - out.size();
  for (const Group& g : groups) {
    if (g.count > room / total) {
      return Error(expr, absl::StrCat("more than ", max_names, " host names"), pos);
    }
    total *= g.count;
  }
  if (total > room) return Error(expr, absl::StrCat("more than ", max_names, " host names"), pos);
  // An odometer over (group, range, value), the last group fastest.
  const size_t k = groups.size();
  std::vector<size_t> range_index(k, 0);
  std::vector<int64_t> value(k);
  for (size_t g = 0; g < k; ++g) value[g] = groups[g].ranges[0].lo;
  while (true) {
    std::string name = literals[0];
    for (size_t g = 0; g < k; ++g) {
      const Range& r = groups[g].ranges[range_index[g]];
      absl::StrAppend(&name, absl::StrFormat("%0*d", r.width, value[g]), literals[g + 1]);
    }
    out.push_back(std::move(name));
    size_t g = k;
    while (g > 0) {
      --g;
      const Group& group = groups[g];
      if (value[g] < group.ranges[range_index[g]].hi) {
        ++value[g];
        break;
      }
      if (range_index[g] + 1 < group.ranges.size()) {
        value[g] = group.ranges[++range_index[g]].lo;
        break;
      }
      range_index[g] = 0;
      value[g] = group.ranges[0].lo;
      if (g == 0) return absl::OkStatus();
    }
    if (k == 0) return absl::OkStatus();
  }
}

// A name as a prefix and a trailing number (its digits as written); digits empty
// when the name does not end in one (or is only digits, or the number is too long).
struct NumberedName {
  absl::string_view prefix;
  absl::string_view digits;
  int64_t value = 0;
};

NumberedName SplitTrailingNumber(absl::string_view name) {
  size_t start = name.size();
  while (start > 0 && IsDigit(name[start - 1])) --start;
  NumberedName split{name, "", 0};
  if (start == 0 || start == name.size() || name.size() - start > kMaxDigits) return split;
  split.prefix = name.substr(0, start);
  split.digits = name.substr(start);
  split.value = ParseDigits(split.digits);
  return split;
}

}  // namespace

std::string CompressHostlist(const std::vector<std::string>& names) {
  std::vector<std::string> items;
  size_t i = 0;
  while (i < names.size()) {
    const NumberedName first = SplitTrailingNumber(names[i]);
    size_t end = i + 1;  // the run of names with first's prefix and a number
    while (end < names.size()) {
      const NumberedName next = SplitTrailingNumber(names[end]);
      if (next.digits.empty() || next.prefix != first.prefix) break;
      ++end;
    }
    if (first.digits.empty() || end == i + 1) {
      items.push_back(names[i]);
      i = i + 1;
      continue;
    }
    std::vector<std::string> ranges;
    for (size_t j = i; j < end;) {
      const NumberedName lo = SplitTrailingNumber(names[j]);
      const int width = static_cast<int>(lo.digits.size());
      size_t k = j + 1;  // the range runs while numbers follow on with lo's padding
      while (k < end) {
        const NumberedName next = SplitTrailingNumber(names[k]);
        if (next.value != lo.value + static_cast<int64_t>(k - j) ||
            absl::StrFormat("%0*d", width, next.value) != next.digits) {
          break;
        }
        ++k;
      }
      ranges.push_back(
          k == j + 1 ? std::string(lo.digits)
                     : absl::StrCat(lo.digits, "-", SplitTrailingNumber(names[k - 1]).digits));
      j = k;
    }
    items.push_back(absl::StrCat(first.prefix, "[", absl::StrJoin(ranges, ","), "]"));
    i = end;
  }
  return absl::StrJoin(items, ",");
}

std::vector<std::string> SplitTopLevelCommas(absl::string_view text) {
  std::vector<std::string> pieces;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      ++depth;
    } else if (text[i] == ']') {
      if (depth > 0) --depth;
    } else if (text[i] == ',' && depth == 0) {
      pieces.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  pieces.emplace_back(text.substr(start));
  return pieces;
}

absl::StatusOr<std::vector<std::string>> ExpandHostlist(absl::string_view expr, size_t max_names) {
  std::vector<std::string> names;
  size_t pos = 0;
  for (const std::string& piece : SplitTopLevelCommas(expr)) {
    absl::string_view item = piece;
    const size_t lead = item.size() - absl::StripLeadingAsciiWhitespace(item).size();
    item = absl::StripAsciiWhitespace(item);
    if (item.empty()) {
      return Error(expr, expr.empty() ? "empty hostlist" : "empty item", pos + lead);
    }
    if (absl::Status s = ExpandItem(expr, item, pos + lead, max_names, names); !s.ok()) return s;
    pos += piece.size() + 1;
  }
  return names;
}

}  // namespace hopmap
