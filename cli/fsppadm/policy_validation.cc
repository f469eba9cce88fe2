#include "cli/fsppadm/policy_validation.h"

#include <cctype>

#include "policy/loader.h"

namespace tierfs::cli {

std::string FormatPolicyDiagnostic(const std::string& file, int line, const std::string& element,
                                   const std::string& message, bool warning) {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!element.empty()) out += "<" + element + ">: ";
  if (warning) out += "warning: ";
  return out + message;
}

std::string FormatDaemonDiagnostic(const std::string& file, const std::string& text, bool warning) {
  const std::string prefix = "line ";
  if (text.compare(0, prefix.size(), prefix) == 0) {
    size_t i = prefix.size();
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start && text.compare(i, 2, ": ") == 0) {
      std::string rest = text.substr(i + 2);
      std::string out = file + ":" + text.substr(start, i - start) + ": ";
      if (warning) {
        // Keep "<ELEMENT>: " first, as in local diagnostics.
        if (!rest.empty() && rest[0] == '<') {
          size_t close = rest.find(">: ");
          if (close != std::string::npos) {
            return out + rest.substr(0, close + 3) + "warning: " + rest.substr(close + 3);
          }
        }
        out += "warning: ";
      }
      return out + rest;
    }
  }
  return file + ": " + (warning ? "warning: " : "") + text;
}

bool CheckPolicyFile(const CliEnv& env, const std::string& file, const std::string& xml,
                     std::string* name) {
  policy::LoadResult result = policy::LoadPolicy(xml);
  for (const policy::Diagnostic& d : result.errors) {
    *env.err << FormatPolicyDiagnostic(file, d.line, d.element, d.message, false) << "\n";
  }
  for (const policy::Diagnostic& d : result.warnings) {
    *env.err << FormatPolicyDiagnostic(file, d.line, d.element, d.message, true) << "\n";
  }
  env.err->flush();
  if (!result.ok()) return false;
  if (name != nullptr) *name = result.policy->name;
  return true;
}

}  // namespace tierfs::cli
