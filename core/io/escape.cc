#include "core/io/escape.h"

#include "absl/strings/str_format.h"

namespace hopmap {

std::string EscapeControlCharacters(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", byte);
    }
  }
  return out;
}

}  // namespace hopmap
