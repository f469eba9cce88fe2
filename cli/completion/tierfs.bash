# bash completion for tierfs, mkdstfs, fsppadm, fcladm, fsvoladm and fsmap.
#
# Installed once per command name in share/bash-completion/completions/
# (bash-completion loads a command's file on first use); each copy registers
# all five commands. Self-contained: it uses only compgen, so it also works
# sourced into a shell without the bash-completion package.
#
# The option lists mirror each command's --help (tests/cli/help_test.cc checks
# that every option the help shows is offered here).

# Sets COMPREPLY to the words of $1 matching the current word.
_tierfs_words() {
  local IFS=$' \t\n'
  COMPREPLY=($(compgen -W "$1" -- "${COMP_WORDS[COMP_CWORD]}"))
}

# Sets COMPREPLY to file names (directories only with "-d") matching the current
# word, one per line, so names with spaces stay whole.
_tierfs_files() {
  local IFS=$'\n'
  COMPREPLY=($(compgen "${1:--f}" -- "${COMP_WORDS[COMP_CWORD]}"))
  compopt -o filenames 2>/dev/null
}

_tierfs_tierfs() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local sub=${COMP_WORDS[1]}
  if [[ $COMP_CWORD -gt 1 && ( $sub == check || $sub == backup ) ]]; then
    if [[ $sub == backup && $prev == --cron ]]; then
      _tierfs_words "@hourly @daily @weekly @monthly"
    elif [[ $cur == -* ]]; then
      if [[ $sub == check ]]; then
        _tierfs_words "-r --repair --trust-objects --delete-orphans --json -h --help --version"
      else
        _tierfs_words "--json --cron -h --help --version"
      fi
    else
      _tierfs_files
    fi
    return 0
  fi
  case $prev in
    -o)
      _tierfs_words "allow_other default_permissions ro rw"
      return 0 ;;
    -entry_timeout|-attr_timeout|-flush_seconds|-writeback_seconds|-threads|-running_threads|-cached_inodes|-cached_dentries|-cached_opens|-commit_ms|-fcl_keep_hours|-fcl_max_records|-iostat_keep_days|-metrics_listen)
      return 0 ;;
    -metrics_textfile)
      _tierfs_files
      return 0 ;;
  esac
  if [[ $cur == -* ]]; then
    _tierfs_words "-f -d -o -sync_full -entry_timeout -attr_timeout -flush_seconds -writeback_seconds
                   -threads -running_threads -commit_ms -writeback_cache -direct_writes -io_uring -cached_inodes -cached_dentries -cached_opens -no_open -passthrough -exact_atime -fcl_keep_hours -fcl_max_records
                   -iostat_keep_days -syslog -metrics_listen -metrics_textfile -h --help --version"
  elif [[ $COMP_CWORD -eq 1 ]]; then
    _tierfs_words "check backup"
    local words=("${COMPREPLY[@]}")
    _tierfs_files -d
    COMPREPLY=("${words[@]}" "${COMPREPLY[@]}")
  else
    _tierfs_files -d
  fi
  return 0
}

_tierfs_mkdstfs() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  case $prev in
    -m) _tierfs_words "allow_other default_permissions ro"; return 0 ;;
    --cron) _tierfs_words "@hourly @daily @weekly @monthly"; return 0 ;;
    --heat-bucket) _tierfs_words "60 600 3600"; return 0 ;;
  esac
  if [[ $cur == -* ]]; then
    _tierfs_words "-f --force -v --verbose -m --cron --heat-bucket --no-mount -h --help --version"
  else
    _tierfs_files -d
  fi
  return 0
}

_tierfs_fsppadm() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local commands="assign unassign list print validate enforce analyze query status heatbucket advise report schedule tag help"
  if [[ $COMP_CWORD -eq 1 ]]; then
    _tierfs_words "$commands --help --version"
    return 0
  fi
  local command=${COMP_WORDS[1]} opts="-h --help --version"
  case $command in
    help) [[ $COMP_CWORD -eq 2 ]] && _tierfs_words "$commands"; return 0 ;;
    assign|validate) opts+=" -f --force" ;;
    list) opts+=" --json" ;;
    status) opts+=" -n --json" ;;
    enforce|analyze|query)
      opts+=" -C -T -F -P --json -r -a -s -n -t -p --no-wait"
      case $prev in
        -T) _tierfs_words "ssd hdd mixed ssdmetadata"; return 0 ;;
        -F|-r) _tierfs_files; return 0 ;;
        -s|-n|-t|-p) return 0 ;;
      esac ;;
    advise)
      opts+=" --json --interval --class --periods --thresholds --limits -n --show -o"
      case $prev in
        --class) _tierfs_words "ssd hdd mixed ssdmetadata"; return 0 ;;
        -o) _tierfs_files; return 0 ;;
        --interval|--periods|--thresholds|--limits|-n|--show) return 0 ;;
      esac ;;
    report)
      opts+=" --html --json --depth --hours"
      case $prev in
        --html) _tierfs_files; return 0 ;;
        --depth|--hours) return 0 ;;
      esac ;;
    schedule)
      opts+=" --hourly-active --daily-full --list --remove" ;;
    tag)
      if [[ $COMP_CWORD -eq 2 && $cur != -* ]]; then
        _tierfs_words "add remove list"
        return 0
      fi ;;
  esac
  [[ $command == status && $prev == -n ]] && return 0
  if [[ $cur == -* ]]; then
    _tierfs_words "$opts"
  else
    _tierfs_files
  fi
  return 0
}

_tierfs_fcladm() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  if [[ $COMP_CWORD -eq 1 ]]; then
    _tierfs_words "on off state sync print --help --version"
    return 0
  fi
  local opts="--json -h --help --version"
  if [[ ${COMP_WORDS[1]} == print ]]; then
    opts+=" -s -t -n"
    case $prev in -s|-t|-n) return 0 ;; esac
  fi
  if [[ $cur == -* ]]; then
    _tierfs_words "$opts"
  else
    _tierfs_files -d
  fi
  return 0
}

_tierfs_fsvoladm() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  if [[ $COMP_CWORD -eq 1 ]]; then
    _tierfs_words "list add remove setclass --help --version"
    return 0
  fi
  local opts="--json -h --help --version"
  [[ ${COMP_WORDS[1]} == add ]] && opts+=" -v --verbose"
  if [[ $cur == -* ]]; then
    _tierfs_words "$opts"
  else
    _tierfs_files -d
  fi
  return 0
}

_tierfs_fsmap() {
  if [[ ${COMP_WORDS[COMP_CWORD]} == -* ]]; then
    _tierfs_words "-H --human-readable --json -h --help --version"
  else
    _tierfs_files
  fi
  return 0
}

complete -F _tierfs_tierfs tierfs
complete -F _tierfs_mkdstfs mkdstfs
complete -F _tierfs_fsppadm fsppadm
complete -F _tierfs_fcladm fcladm
complete -F _tierfs_fsvoladm fsvoladm
complete -F _tierfs_fsmap fsmap
