# ONNX Runtime as an own IMPORTED target, modelkit::onnxruntime: the runtime library from the npm package
# onnxruntime-node and the headers from Debian's libonnxruntime-dev, both put in MODELKIT_ORT_DIR by
# scripts/fetch_onnxruntime.sh. (The .deb's own CMake files point at libraries that are not there.)
#
# The C++ wrapper is compiled with ORT_API_MANUAL_INIT: modelkit::ort::EnsureApi() requests the headers' API
# version capped at the runtime's, so headers newer than the runtime still work.
set(MODELKIT_ORT_DIR "${PROJECT_SOURCE_DIR}/build/_deps/onnxruntime" CACHE PATH
    "Directory with lib/libonnxruntime.so.1 and include/onnxruntime (made by scripts/fetch_onnxruntime.sh)")

set(_ort_library "${MODELKIT_ORT_DIR}/lib/libonnxruntime.so.1")
set(_ort_include "${MODELKIT_ORT_DIR}/include/onnxruntime")
if(NOT EXISTS "${_ort_library}" OR NOT EXISTS "${_ort_include}/onnxruntime_c_api.h")
  message(FATAL_ERROR "ONNX Runtime not found in ${MODELKIT_ORT_DIR}. Run scripts/setup.sh "
                      "(or scripts/fetch_onnxruntime.sh), or set MODELKIT_ORT_DIR.")
endif()

add_library(modelkit_onnxruntime SHARED IMPORTED GLOBAL)
set_target_properties(modelkit_onnxruntime PROPERTIES
  IMPORTED_LOCATION "${_ort_library}"
  IMPORTED_SONAME "libonnxruntime.so.1"
  INTERFACE_INCLUDE_DIRECTORIES "${_ort_include}"
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_ort_include}"
  INTERFACE_COMPILE_DEFINITIONS "ORT_API_MANUAL_INIT")
add_library(modelkit::onnxruntime ALIAS modelkit_onnxruntime)
set(MODELKIT_ORT_LIBRARY_DIR "${MODELKIT_ORT_DIR}/lib")

# Installed beside modelkit's other private libraries under its soname (the one file the loader looks for).
install(FILES "${_ort_library}" DESTINATION ${MODELKIT_PRIVATE_LIBDIR})
