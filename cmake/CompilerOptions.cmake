# Warning and sanitizer flags for every modelkit target, applied through the modelkit_options interface target.
add_library(modelkit_options INTERFACE)
target_compile_options(modelkit_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                                  -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
# Source paths relative to the repository in __FILE__ (check failures) and debug information: what is built names
# no directory of the machine it was built on, so an installed tree carries none (docs/install.md).
target_compile_options(modelkit_options INTERFACE -ffile-prefix-map=${PROJECT_SOURCE_DIR}/=)
if(MODELKIT_WARNINGS_AS_ERRORS)
  target_compile_options(modelkit_options INTERFACE -Werror)
endif()
if(MODELKIT_SANITIZE)
  target_compile_options(modelkit_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                    -fno-sanitize-recover=undefined)
  target_link_options(modelkit_options INTERFACE -fsanitize=address,undefined)
endif()
