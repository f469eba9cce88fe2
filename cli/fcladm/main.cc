// fcladm: File Change Log administration (see cli/fcladm/fcladm.h).
#include <string>
#include <vector>

#include "cli/common/cli_env.h"
#include "cli/fcladm/fcladm.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return tierfs::cli::FcladmMain(args, tierfs::cli::DefaultCliEnv());
}
