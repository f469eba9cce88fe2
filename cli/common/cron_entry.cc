#include "cli/common/cron_entry.h"

#include <cctype>
#include <cstdlib>
#include <vector>

#include "cli/common/scan_schedule.h"

namespace tierfs::cli {

Status CheckCronSchedule(std::string_view schedule) {
  auto bad = [schedule](const std::string& why) {
    return Status::Invalid("cron schedule \"" + std::string(schedule) + "\": " + why);
  };
  static const char* const kKeywords[] = {"@hourly", "@daily",    "@weekly",   "@monthly",
                                          "@yearly", "@annually", "@midnight", "@reboot"};
  for (const char* k : kKeywords) {
    if (schedule == k) return Status::Ok();
  }
  if (!schedule.empty() && schedule[0] == '@') return bad("unknown @keyword");
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < schedule.size()) {
    while (i < schedule.size() && (schedule[i] == ' ' || schedule[i] == '\t')) ++i;
    size_t start = i;
    while (i < schedule.size() && schedule[i] != ' ' && schedule[i] != '\t') ++i;
    if (i > start) fields.push_back(schedule.substr(start, i - start));
  }
  if (fields.size() != 5) {
    return bad(
        "expected five fields (minute hour day-of-month month day-of-week) or @hourly, "
        "@daily...");
  }
  for (std::string_view f : fields) {
    for (char c : f) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '*' && c != '/' && c != ',' &&
          c != '-') {
        return bad(std::string("unexpected character '") + c + "'");
      }
    }
  }
  return Status::Ok();
}

std::string CronDir() {
  const char* dir = std::getenv("TIERFS_CRON_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/etc/cron.d";
}

std::string CronFilePath(const std::string& fs_name) {
  std::string name = "tierfs-" + fs_name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  return CronDir() + "/" + name;
}

std::string CronShellQuote(const std::string& word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else if (c == '%') {
      out += "\\%";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string CronFileText(const std::string& schedule, const std::string& fs_name,
                         const std::string& mount_point, const std::string& fsppadm) {
  return CronScheduleText({{"cron", schedule, "", {"enforce"}}}, fs_name, mount_point, fsppadm,
                          "mkdstfs --cron");
}

}  // namespace tierfs::cli
