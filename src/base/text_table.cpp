#include "modelkit/base/text_table.h"

#include <algorithm>

#include "modelkit/base/check.h"

namespace modelkit {
namespace {

// Columns on a terminal: UTF-8 code points, not bytes ("µs" is one column narrower than its two bytes).
size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

void TextTable::AddRow(std::vector<std::string> cells) {
  MODELKIT_CHECK(cells.size() <= header_.size());
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render(int indent) const {
  std::vector<size_t> widths(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) widths[c] = DisplayWidth(header_[c]);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  std::string out;
  auto render_line = [&](const std::vector<std::string>& cells) {
    std::string line(static_cast<size_t>(indent), ' ');
    for (size_t c = 0; c < cells.size(); ++c) {
      line += cells[c];
      if (c + 1 < cells.size()) line += std::string(widths[c] - DisplayWidth(cells[c]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  render_line(header_);
  for (const auto& row : rows_) render_line(row);
  return out;
}

}  // namespace modelkit
