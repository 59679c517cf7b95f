// Edge lists: "u v [w]" per line, 0-based task ids, '#' comments.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/io/graph_io_internal.h"
#include "core/io/line_reader.h"

namespace hopmap {
namespace io_internal {
namespace {

bool IsWordChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The digits of a task count declared in a comment: "tasks: N", "tasks=N",
// "vertices=N" or "vertices: N" as a word anywhere in it (case-insensitive), or
// nullopt. `comment` is lower case.
std::optional<absl::string_view> FindDeclaredCount(absl::string_view comment) {
  for (absl::string_view key : {"tasks", "vertices"}) {
    for (size_t at = comment.find(key); at != absl::string_view::npos;
         at = comment.find(key, at + 1)) {
      if (at > 0 && IsWordChar(comment[at - 1])) continue;
      size_t i = at + key.size();
      while (i < comment.size() && comment[i] == ' ') ++i;
      if (i == comment.size() || (comment[i] != ':' && comment[i] != '=')) continue;
      ++i;
      while (i < comment.size() && comment[i] == ' ') ++i;
      size_t end = i;
      while (end < comment.size() &&
             absl::ascii_isdigit(static_cast<unsigned char>(comment[end]))) {
        ++end;
      }
      if (end == i || (end < comment.size() && IsWordChar(comment[end]))) continue;
      return comment.substr(i, end - i);
    }
  }
  return std::nullopt;
}

struct Record {
  TaskId u;
  TaskId v;
  Bytes w;
};

// Reads a run of 1 to 18 decimal digits at *i (no sign: anything else is left to the
// general path, which gives the errors); advances *i past it.
bool ReadDigits(absl::string_view line, size_t* i, int64_t* out) {
  size_t j = *i;
  int64_t value = 0;
  while (j < line.size() && line[j] >= '0' && line[j] <= '9' && j - *i < 18) {
    value = value * 10 + (line[j] - '0');
    ++j;
  }
  if (j == *i || (j < line.size() && line[j] >= '0' && line[j] <= '9')) return false;
  *i = j;
  *out = value;
  return true;
}

size_t SkipBlanks(absl::string_view line, size_t i) {
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

// The common data line "u v" or "u v w" of plain digits separated by blanks, parsed in
// place: a 1M-task graph has millions of them, and splitting each into a vector of
// tokens took most of the read. Returns false for anything else (comments, signs, bad
// or out-of-range ids, extra tokens), which the general path then reads or rejects
// with its message.
bool ParsePlainRecord(absl::string_view line, std::optional<int64_t> declared, Record* r) {
  size_t i = SkipBlanks(line, 0);
  int64_t u = 0;
  int64_t v = 0;
  int64_t w = 1;
  if (!ReadDigits(line, &i, &u)) return false;
  if (i == line.size() || (line[i] != ' ' && line[i] != '\t')) return false;
  i = SkipBlanks(line, i);
  if (!ReadDigits(line, &i, &v)) return false;
  if (i < line.size()) {
    if (line[i] != ' ' && line[i] != '\t') return false;
    i = SkipBlanks(line, i);
    if (i < line.size()) {
      if (!ReadDigits(line, &i, &w)) return false;
      if (SkipBlanks(line, i) != line.size()) return false;
    }
  }
  const int64_t limit = declared.has_value() ? std::min<int64_t>(*declared, kMaxTasks) : kMaxTasks;
  if (u >= limit || v >= limit) return false;
  *r = {static_cast<TaskId>(u), static_cast<TaskId>(v), w};
  return true;
}

}  // namespace

absl::StatusOr<TaskGraph> ParseEdgeList(absl::string_view text, const std::string& source) {
  LineReader reader(text, source);
  std::vector<Record> records;
  records.reserve(text.size() / 16);  // a short line "u v w\n" has >= 6 bytes; most have more
  std::optional<int64_t> declared;    // tasks declared in a comment
  int64_t declared_line = 0;
  int64_t max_id = -1;
  int64_t max_id_line = 0;
  absl::string_view line;
  while (reader.Next(&line)) {
    if (Record r; ParsePlainRecord(line, declared, &r)) {
      const int64_t larger = std::max(r.u, r.v);
      if (larger > max_id) {
        max_id = larger;
        max_id_line = reader.line_number();
      }
      records.push_back(r);
      continue;
    }
    const absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (!stripped.empty() && stripped.front() == '#') {
      const std::string comment = absl::AsciiStrToLower(stripped.substr(1));
      const std::optional<absl::string_view> digits = FindDeclaredCount(comment);
      if (!digits.has_value()) continue;
      int64_t n = 0;
      if (!ParseInteger(*digits, &n)) {
        return reader.Error(
            absl::StrCat("task count ", Quote(*digits), " does not fit in 64 bits"));
      }
      if (absl::Status s = CheckDeclaredTasks(n, reader.text_size()); !s.ok()) {
        return reader.Error(s.message());
      }
      if (declared.has_value() && *declared != n) {
        return reader.Error(absl::StrCat("declares ", n, " tasks but line ", declared_line,
                                         " declared ", *declared));
      }
      if (max_id >= n) {
        return LineError(source, max_id_line,
                         absl::StrCat("task id ", max_id, " is out of range [0, ", n,
                                      ") (the tasks declared on line ", reader.line_number(), ")"));
      }
      declared = n;
      declared_line = reader.line_number();
      continue;
    }
    // Data, with an optional trailing "# comment".
    const absl::string_view data = line.substr(0, line.find('#'));
    const std::vector<absl::string_view> f =
        absl::StrSplit(data, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (f.empty()) continue;
    if (f.size() == 1) {
      return reader.Error(absl::StrCat("expected 'u v [w]', got only ", Quote(f[0])));
    }
    if (f.size() > 3) {
      return reader.Error(absl::StrCat("extra token ", Quote(f[3]), " after 'u v w'"));
    }
    int64_t ids[2];
    for (int k = 0; k < 2; ++k) {
      if (!ParseInteger(f[k], &ids[k]) || ids[k] < 0) {
        return reader.Error(
            absl::StrCat("task id ", Quote(f[k]), " is not a non-negative integer"));
      }
      if (declared.has_value() && ids[k] >= *declared) {
        return reader.Error(absl::StrCat("task id ", ids[k], " is out of range [0, ", *declared,
                                         ") (the tasks declared on line ", declared_line, ")"));
      }
      if (ids[k] >= kMaxTasks) {
        return reader.Error(
            absl::StrCat("task id ", ids[k], " is more than hopmap accepts (", kMaxTasks - 1, ")"));
      }
      if (ids[k] > max_id) {
        max_id = ids[k];
        max_id_line = reader.line_number();
      }
    }
    Bytes w = 1;
    if (f.size() == 3) {
      if (absl::Status s = ParseWeight(f[2], /*allow_real=*/false, &w); !s.ok()) {
        return reader.Error(s.message());
      }
    }
    records.push_back({static_cast<TaskId>(ids[0]), static_cast<TaskId>(ids[1]), w});
  }
  if (!declared.has_value() && max_id >= 0) {
    // Ids give the task count: the same bound as a declared count, or one line
    // "600000000 1 5" would ask for gigabytes of isolated tasks.
    if (absl::Status s = CheckDeclaredTasks(max_id + 1, reader.text_size()); !s.ok()) {
      return LineError(source, max_id_line,
                       absl::StrCat("task id ", max_id, " makes ", max_id + 1,
                                    " tasks in a file of ", reader.text_size(),
                                    " bytes; at most max(2^20, 8 x file size) are accepted "
                                    "(number the tasks from 0, without gaps)"));
    }
  }
  const int64_t n = declared.has_value() ? *declared : max_id + 1;
  TaskGraphBuilder builder(static_cast<TaskId>(n));
  builder.Reserve(records.size());
  for (const Record& r : records) {
    if (absl::Status s = builder.AddTraffic(r.u, r.v, r.w); !s.ok()) {
      return WithSource(source, s);
    }
  }
  records.clear();
  records.shrink_to_fit();
  absl::StatusOr<TaskGraph> g = std::move(builder).Build();
  if (!g.ok()) return WithSource(source, g.status());
  return g;
}

std::string FormatEdgeList(const TaskGraph& g) {
  std::string out = absl::StrCat(
      "# hopmap task graph: one undirected edge 'u v w' per line, w = bytes, tasks 0-based\n"
      "# tasks: ",
      g.num_tasks(), "\n");
  if (g.self_bytes() > 0 && g.num_tasks() > 0) {
    absl::StrAppend(&out, "# '0 0 w' holds all self traffic (", g.self_bytes(),
                    " bytes), whichever tasks sent it\n0 0 ", g.self_bytes(), "\n");
  }
  for (TaskId u = 0; u < g.num_tasks(); ++u) {
    g.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v) absl::StrAppend(&out, u, " ", v, " ", w, "\n");
    });
  }
  return out;
}

}  // namespace io_internal
}  // namespace hopmap
