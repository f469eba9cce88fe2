# Runs at install time (cmake --install, CPack), after cli/tierfs/mount.fuse.tierfs is
# installed to <prefix>/<TIERFS_SBINDIR>: makes <TIERFS_LINK_DIR>/mount.fuse.tierfs
# a symbolic link to it, because mount(8) looks for helpers only in /sbin (and
# /sbin/fs.d, /sbin/fs), never under a prefix such as /usr/local.
#
# Nothing is linked when TIERFS_LINK_DIR is empty, or when it is the helper's
# own directory (prefix /usr on a merged-/usr system: /sbin -> usr/sbin; the
# Debian package). DESTDIR is honoured. Failing to link (no root for a home
# prefix) is a warning, not an error: the rest of the install is still usable.
if(TIERFS_LINK_DIR STREQUAL "")
  return()
endif()
if(IS_ABSOLUTE "${TIERFS_SBINDIR}")
  set(tierfs_helper_dir "${TIERFS_SBINDIR}")
else()
  set(tierfs_helper_dir "${CMAKE_INSTALL_PREFIX}/${TIERFS_SBINDIR}")
endif()
set(tierfs_helper "${tierfs_helper_dir}/mount.fuse.tierfs")

# Compared as real paths on this machine, without DESTDIR: where the helper
# will run from, not where it is staged.
file(REAL_PATH "${TIERFS_LINK_DIR}" tierfs_link_real)
file(REAL_PATH "${tierfs_helper_dir}" tierfs_helper_real)
if(tierfs_link_real STREQUAL tierfs_helper_real)
  return()
endif()

set(tierfs_link "$ENV{DESTDIR}${TIERFS_LINK_DIR}/mount.fuse.tierfs")
message(STATUS "Installing: ${tierfs_link} -> ${tierfs_helper}")
file(MAKE_DIRECTORY "$ENV{DESTDIR}${TIERFS_LINK_DIR}")
file(CREATE_LINK "${tierfs_helper}" "${tierfs_link}" RESULT tierfs_link_result SYMBOLIC)
if(tierfs_link_result EQUAL 0)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${tierfs_link}")
else()
  message(WARNING "cannot create ${tierfs_link} (${tierfs_link_result}): "
                  "`mount -t fuse.tierfs` will not find tierfs. As root: "
                  "ln -s ${tierfs_helper} ${TIERFS_LINK_DIR}/mount.fuse.tierfs")
endif()
