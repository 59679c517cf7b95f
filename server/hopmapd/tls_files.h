// The daemon's TLS certificate and key, checked before gRPC sees them: gRPC
// reports an unreadable PEM, a key that does not match, or an expired certificate
// only as a failed bind ("cannot listen"), or not at all until clients fail.
#ifndef HOPMAP_SERVER_HOPMAPD_TLS_FILES_H_
#define HOPMAP_SERVER_HOPMAPD_TLS_FILES_H_

#include <string>

#include "absl/status/statusor.h"

namespace hopmap::server {

struct TlsFiles {
  std::string cert_chain_pem;   // --tls-cert, as read
  std::string private_key_pem;  // --tls-key, as read
  std::string subject;          // of the first certificate, for the start-up line
  std::string not_after;        // its expiry, e.g. "Nov 27 01:30:00 2026 GMT"
};

// Reads both files and checks that --tls-cert holds at least one PEM certificate,
// --tls-key a PEM private key that belongs to the first one, and that the first
// one is valid now. Errors name the flag and the file:
// "--tls-key /etc/hopmap/key.pem: does not match the certificate in ...".
absl::StatusOr<TlsFiles> LoadTlsFiles(const std::string& cert_path, const std::string& key_path);

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_HOPMAPD_TLS_FILES_H_
