#include "client/draw/canvas.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hopmap::draw {
namespace {

cairo_status_t WriteToFile(void* closure, const unsigned char* data, unsigned int length) {
  FILE* file = static_cast<FILE*>(closure);
  return std::fwrite(data, 1, length, file) == length ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_WRITE_ERROR;
}

}  // namespace

absl::StatusOr<FileFormat> FileFormatOfPath(absl::string_view path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  const std::string ext =
      dot == absl::string_view::npos || (slash != absl::string_view::npos && dot < slash)
          ? std::string()
          : absl::AsciiStrToLower(path.substr(dot + 1));
  if (ext == "svg") return FileFormat::kSvg;
  if (ext == "png") return FileFormat::kPng;
  if (ext == "pdf") return FileFormat::kPdf;
  return absl::InvalidArgumentError(absl::StrCat(
      "'", path, "': the picture's format comes from its extension: .svg, .png or .pdf"));
}

absl::StatusOr<std::unique_ptr<Canvas>> Canvas::Open(const std::string& path, double width,
                                                     double height) {
  absl::StatusOr<FileFormat> format = FileFormatOfPath(path);
  if (!format.ok()) return format.status();
  std::unique_ptr<Canvas> canvas(new Canvas());
  canvas->path_ = path;
  canvas->format_ = *format;
  canvas->width_ = width;
  canvas->height_ = height;
  std::string temp = path + ".tmpXXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  canvas->temp_path_ = temp;
  // mkstemp makes the file 0600; the picture gets the permissions of any new file.
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  canvas->file_ = fdopen(fd, "wb");
  if (canvas->file_ == nullptr) {
    close(fd);
    return absl::InternalError(absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  switch (*format) {
    case FileFormat::kSvg:
      canvas->surface_ =
          cairo_svg_surface_create_for_stream(WriteToFile, canvas->file_, width, height);
      break;
    case FileFormat::kPdf:
      canvas->surface_ =
          cairo_pdf_surface_create_for_stream(WriteToFile, canvas->file_, width, height);
      break;
    case FileFormat::kPng:
      canvas->surface_ =
          cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(std::ceil(width)),
                                     static_cast<int>(std::ceil(height)));
      break;
  }
  canvas->cr_ = cairo_create(canvas->surface_);
  if (cairo_status(canvas->cr_) != CAIRO_STATUS_SUCCESS) {
    return absl::InternalError(absl::StrCat(
        "cannot draw '", path, "': ", cairo_status_to_string(cairo_status(canvas->cr_))));
  }
  // The whole of a PNG's last, partly covered row and column too: white, not clear.
  canvas->FillRect(0, 0, std::ceil(width), std::ceil(height), {1, 1, 1});
  return canvas;
}

Canvas::~Canvas() {
  if (borrowed_) return;
  if (cr_ != nullptr) cairo_destroy(cr_);
  if (surface_ != nullptr) cairo_surface_destroy(surface_);
  if (file_ != nullptr) std::fclose(file_);
  if (!finished_ && !temp_path_.empty()) std::remove(temp_path_.c_str());
}

void Canvas::FillRect(double x, double y, double w, double h, const Rgb& c) const {
  SetColour(c);
  cairo_rectangle(cr_, x, y, w, h);
  cairo_fill(cr_);
}

void Canvas::StrokeRect(double x, double y, double w, double h, const Rgb& c, double line) const {
  SetColour(c);
  cairo_set_line_width(cr_, line);
  cairo_rectangle(cr_, x, y, w, h);
  cairo_stroke(cr_);
}

void Canvas::Line(double x1, double y1, double x2, double y2, const Rgb& c, double width) const {
  SetColour(c);
  cairo_set_line_width(cr_, width);
  cairo_move_to(cr_, x1, y1);
  cairo_line_to(cr_, x2, y2);
  cairo_stroke(cr_);
}

void Canvas::SetFont(double size, bool bold) const {
  cairo_select_font_face(cr_, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr_, size);
}

double Canvas::TextWidth(absl::string_view text, double size, bool bold) const {
  SetFont(size, bold);
  const std::string s(text);
  cairo_text_extents_t extents;
  cairo_text_extents(cr_, s.c_str(), &extents);
  return extents.x_advance;
}

double Canvas::Text(double x, double y, absl::string_view text, double size, const Rgb& colour,
                    Align align, bool bold) const {
  const double w = TextWidth(text, size, bold);
  if (align == Align::kCentre) x -= w / 2;
  if (align == Align::kRight) x -= w;
  SetColour(colour);
  cairo_move_to(cr_, x, y);
  const std::string s(text);
  cairo_show_text(cr_, s.c_str());
  return w;
}

double MeasureText(absl::string_view text, double size, bool bold) {
  // One scratch context per thread, for the process's life (as Cairo's font cache).
  thread_local cairo_surface_t* const surface =
      cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  thread_local cairo_t* const cr = cairo_create(surface);
  return Canvas(cr, 1, 1).TextWidth(text, size, bold);
}

namespace {

// The longest prefix of `word` that fits `width`: up to the last break character
// (':', ',', '/', '=', '+') that fits, else as many characters as fit (at least one,
// never inside a UTF-8 sequence).
size_t FittingPrefix(absl::string_view word, double size, double width, bool bold) {
  size_t fits = 0, last_break = 0;
  for (size_t i = 1; i <= word.size(); ++i) {
    if (i < word.size() && (static_cast<unsigned char>(word[i]) & 0xc0) == 0x80) continue;
    if (MeasureText(word.substr(0, i), size, bold) > width) break;
    fits = i;
    if (absl::string_view(":,/=+").find(word[i - 1]) != absl::string_view::npos) last_break = i;
  }
  if (last_break > 0) return last_break;
  if (fits > 0) return fits;
  size_t one = 1;
  while (one < word.size() && (static_cast<unsigned char>(word[one]) & 0xc0) == 0x80) ++one;
  return one;
}

}  // namespace

std::vector<std::string> WrapText(absl::string_view text, double size, double width, bool bold) {
  std::vector<std::string> lines;
  std::string line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    const std::string joined = line.empty() ? std::string(word) : absl::StrCat(line, " ", word);
    if (MeasureText(joined, size, bold) <= width) {
      line = joined;
      continue;
    }
    if (!line.empty()) lines.push_back(std::move(line));
    line.clear();
    while (MeasureText(word, size, bold) > width) {
      const size_t cut = FittingPrefix(word, size, width, bold);
      lines.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
    }
    line = std::string(word);
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

std::string FitText(absl::string_view text, double size, double width, bool bold) {
  if (MeasureText(text, size, bold) <= width) return std::string(text);
  // Drop characters from the front until "..." and the rest fit.
  size_t from = 0;
  while (from < text.size()) {
    ++from;
    while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xc0) == 0x80) ++from;
    const std::string shortened = absl::StrCat("...", text.substr(from));
    if (MeasureText(shortened, size, bold) <= width) return shortened;
  }
  return "...";
}

void DrawAsRaster(const Canvas& page, double x, double y, double w, double h,
                  const std::function<void(const Canvas&)>& draw) {
  constexpr double kPixelsPerUnit = 2;
  const int pw = static_cast<int>(std::ceil(w * kPixelsPerUnit)) + 2;
  const int ph = static_cast<int>(std::ceil(h * kPixelsPerUnit)) + 2;
  cairo_surface_t* image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
  cairo_t* layer = cairo_create(image);
  cairo_scale(layer, kPixelsPerUnit, kPixelsPerUnit);
  cairo_translate(layer, -x, -y);
  {
    const Canvas canvas(layer, page.width(), page.height());
    draw(canvas);
  }
  cairo_destroy(layer);
  cairo_surface_flush(image);
  cairo_t* cr = page.cr();
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_scale(cr, 1 / kPixelsPerUnit, 1 / kPixelsPerUnit);
  cairo_set_source_surface(cr, image, 0, 0);
  cairo_paint(cr);
  cairo_restore(cr);
  cairo_surface_destroy(image);
}

absl::Status Canvas::Finish() {
  const auto fail = [this](absl::string_view what) {
    return absl::InternalError(absl::StrCat("cannot write '", path_, "': ", what));
  };
  cairo_status_t status = cairo_status(cr_);
  cairo_destroy(cr_);
  cr_ = nullptr;
  if (status != CAIRO_STATUS_SUCCESS) return fail(cairo_status_to_string(status));
  if (format_ == FileFormat::kPng) {
    status = cairo_surface_write_to_png_stream(surface_, WriteToFile, file_);
    if (status != CAIRO_STATUS_SUCCESS) return fail(cairo_status_to_string(status));
  }
  cairo_surface_finish(surface_);
  status = cairo_surface_status(surface_);
  if (status != CAIRO_STATUS_SUCCESS) return fail(cairo_status_to_string(status));
  const bool write_error = std::ferror(file_) != 0;
  const bool close_error = std::fclose(file_) != 0;
  file_ = nullptr;
  if (write_error || close_error) return fail(std::strerror(errno));
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) return fail(std::strerror(errno));
  finished_ = true;
  return absl::OkStatus();
}

}  // namespace hopmap::draw

// Fontconfig (under Cairo's text) parses its configuration once and keeps it for
// the process's life; LeakSanitizer would report it at exit in sanitizer builds of
// every program that draws. Unused without LeakSanitizer.
extern "C" const char* __lsan_default_suppressions() { return "leak:libfontconfig.so\n"; }
