// Control characters made visible, so that what a user's file or flag held cannot
// break a one-line error in two or drive the terminal (a damaged file's 0x0b, an
// escape sequence).
#ifndef HOPMAP_CORE_IO_ESCAPE_H_
#define HOPMAP_CORE_IO_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace hopmap {

// Bytes below 0x20 and 0x7f become \n, \r, \t or \xNN; everything else (UTF-8 text
// included) is kept as it is.
std::string EscapeControlCharacters(absl::string_view text);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_ESCAPE_H_
