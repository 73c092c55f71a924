// An HTTP error answered in the OpenAI API's shape: {"error": {"message", "type", "param", "code"}}, with its status.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace modelkit::serve {

class ApiError : public std::runtime_error {
 public:
  // `type`: "invalid_request_error", "authentication_error", "not_found_error", "rate_limit_error", "server_error".
  ApiError(int status, std::string type, const std::string& message, std::string param = "", std::string code = "")
      : std::runtime_error(message),
        status_(status),
        type_(std::move(type)),
        param_(std::move(param)),
        code_(std::move(code)) {}

  int status() const { return status_; }
  // The response body.
  nlohmann::ordered_json Body() const;

 private:
  int status_;
  std::string type_;
  std::string param_;
  std::string code_;
};

// 400 invalid_request_error naming the parameter at fault.
inline ApiError BadRequest(const std::string& message, const std::string& param = "") {
  return ApiError(400, "invalid_request_error", message, param);
}

}  // namespace modelkit::serve
