// Plain-text tables for console reports: columns padded to their widest cell, two spaces apart.
#pragma once

#include <string>
#include <vector>

namespace modelkit {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  // Adds a row; missing trailing cells are blank, extra cells are a bug.
  void AddRow(std::vector<std::string> cells);
  // Renders header and rows, each line indented by `indent` spaces, trailing spaces trimmed.
  std::string Render(int indent = 2) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace modelkit
