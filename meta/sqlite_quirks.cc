#include "meta/sqlite_quirks.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace tierfs::meta {

bool IsFalseNullReport(Database* db, const std::string& line) {
  static constexpr std::string_view kPrefix = "NULL value in ";
  if (line.rfind(kPrefix, 0) != 0) return false;
  const std::string rest = line.substr(kPrefix.size());
  const size_t dot = rest.find('.');
  if (dot == std::string::npos) return false;
  const std::string table = rest.substr(0, dot), column = rest.substr(dot + 1);
  auto identifier = [](const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
  };
  if (!identifier(table) || !identifier(column)) return false;
  {
    Statement known = db->Prepare(
        "SELECT 1 FROM sqlite_schema s, pragma_table_info(s.name) c "
        "WHERE s.type = 'table' AND s.name = ?1 AND c.name = ?2");
    known.BindAll(table, column);
    Result<bool> row = known.Step();
    if (!row.ok() || !*row) return false;
  }
  const std::string sql =
      "SELECT 1 FROM \"" + table + "\" WHERE \"" + column + "\" IS NULL LIMIT 1";
  Statement probe = db->Prepare(sql);
  Result<bool> row = probe.Step();
  return row.ok() && !*row;
}

}  // namespace tierfs::meta
