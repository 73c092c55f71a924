# minja (header-only Jinja2 for chat templates, Debian's libminja-dev from sid), put in MODELKIT_MINJA_DIR by
# scripts/fetch_minja.sh, as the INTERFACE target modelkit::minja (SYSTEM includes: its warnings are not ours).
set(MODELKIT_MINJA_DIR "${PROJECT_SOURCE_DIR}/build/_deps/minja" CACHE PATH
    "Directory with include/minja/minja.hpp (made by scripts/fetch_minja.sh)")
if(NOT EXISTS "${MODELKIT_MINJA_DIR}/include/minja/minja.hpp")
  message(FATAL_ERROR "minja not found in ${MODELKIT_MINJA_DIR}. Run scripts/setup.sh (or scripts/fetch_minja.sh), "
                      "or set MODELKIT_MINJA_DIR.")
endif()
add_library(modelkit_minja INTERFACE)
target_include_directories(modelkit_minja SYSTEM INTERFACE "${MODELKIT_MINJA_DIR}/include")
target_link_libraries(modelkit_minja INTERFACE nlohmann_json::nlohmann_json)
add_library(modelkit::minja ALIAS modelkit_minja)
