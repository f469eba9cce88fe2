// TextTable: column-aligned text for reports and listings, and the escaping
// that keeps one record on one line.
//
// Columns are separated by two spaces; the last column is not padded (it is
// usually a path). Not thread-safe; a value type.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tierfs::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  // Right-aligns column `column` (numbers).
  void AlignRight(size_t column);
  // A row with fewer cells than the header is padded with empty cells.
  void AddRow(std::vector<std::string> row);
  size_t rows() const { return rows_.size(); }
  // Header and rows, each line ending in '\n'. With no rows: the header only.
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// For human-readable columns: control characters (a newline in a file name)
// become '?', so each record stays on one line.
std::string PrintableField(std::string_view text);
// For tab-separated (-P) output: backslash, tab, newline and carriage return
// become \\, \t, \n, \r, so fields never contain a separator.
std::string TsvField(std::string_view text);
// Joins `fields` with tabs, ending in '\n'; the fields are escaped with TsvField.
std::string TsvLine(const std::vector<std::string>& fields);

}  // namespace tierfs::cli
