// ORT's own answer to "where did this session's nodes run": asked for on the session options before the session is
// made, read from the session after.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <optional>
#include <string>

#include "modelkit/report/placement.h"

namespace modelkit::ort {

// Asks ORT to record each node's EP while it creates a session with `options` (session config
// "session.record_ep_graph_assignment_info"; negligible cost, made once at load).
void RecordPlacement(Ort::SessionOptions& options);

// `session`'s placement, named `name` in reports, which asked for `requested_ep` (ORT's EP name); nullopt when the
// session was made without RecordPlacement.
std::optional<report::SessionPlacement> ReadPlacement(const Ort::Session& session, const std::string& name,
                                                      const std::string& requested_ep);

}  // namespace modelkit::ort
