#include "cli/common/cli_env.h"

#include <unistd.h>

#include <iostream>

namespace tierfs::cli {

CliEnv DefaultCliEnv() {
  CliEnv env;
  env.out = &std::cout;
  env.err = &std::cerr;
  env.err_is_terminal = isatty(STDERR_FILENO) == 1;
  return env;
}

}  // namespace tierfs::cli
