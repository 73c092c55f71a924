# Writes modelkit/version.h from include/modelkit/version.h.in with the commit the sources are at now. Run by the build
# on every build (not at configure time, which would keep the commit of the last configure), it rewrites the header
# only when its text changes, so an unchanged commit rebuilds nothing.
# Usage: cmake -DSOURCE_DIR=... -DOUTPUT=... -DPROJECT_VERSION=... -DPROJECT_VERSION_MAJOR=... (MINOR, PATCH) -P this
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE MODELKIT_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR NOT MODELKIT_GIT_COMMIT)
  set(MODELKIT_GIT_COMMIT "unknown")  # built outside a git checkout (a source tarball)
else()
  # Tracked files changed since that commit: the build is not that commit.
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty EQUAL 1)
    string(APPEND MODELKIT_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${SOURCE_DIR}/include/modelkit/version.h.in ${OUTPUT} @ONLY)
