// Checking a policy file on the command line, before (or instead of) sending it
// to a daemon, and printing diagnostics the way compilers do:
//
//   FILE:LINE: <ELEMENT>: message
//   FILE:LINE: <ELEMENT>: warning: message
//
// so that editors can jump to the line. Thread-safe apart from the CliEnv
// streams written to.
#pragma once

#include <string>

#include "cli/common/cli_env.h"

namespace tierfs::cli {

// One diagnostic line (no newline). `line` 0 leaves out ":LINE", an empty
// `element` leaves out "<ELEMENT>: ".
std::string FormatPolicyDiagnostic(const std::string& file, int line, const std::string& element,
                                   const std::string& message, bool warning);

// The same for a diagnostic the daemon sent as text ("line 12: <MIN>: ..."):
// "FILE:12: <MIN>: ..."; text without a "line N: " prefix becomes "FILE: text".
std::string FormatDaemonDiagnostic(const std::string& file, const std::string& text, bool warning);

// Parses and validates `xml` with policy::LoadPolicy, printing every error and
// warning on env.err. Returns true when there is no error; *name gets the
// policy's Name then.
bool CheckPolicyFile(const CliEnv& env, const std::string& file, const std::string& xml,
                     std::string* name);

}  // namespace tierfs::cli
