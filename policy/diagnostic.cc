#include "policy/diagnostic.h"

namespace tierfs::policy {

std::string Diagnostic::ToString() const {
  std::string out;
  if (line > 0) out += "line " + std::to_string(line) + ": ";
  if (!element.empty()) out += "<" + element + ">: ";
  out += message;
  return out;
}

}  // namespace tierfs::policy
