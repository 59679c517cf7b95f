#include "server/hopmapd/tls_files.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace hopmap::server {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Cert = std::unique_ptr<X509, X509Free>;
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(flag, " ", path, ": cannot read: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(flag, " ", path, ": read error"));
  return text.str();
}

// OpenSSL's reason for the last failure (and clears its error queue).
std::string OpenSslReason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no PEM block found";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "unknown OpenSSL error";
}

std::string Text(BIO* out) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  return size > 0 ? std::string(data, static_cast<size_t>(size)) : std::string();
}

}  // namespace

absl::StatusOr<TlsFiles> LoadTlsFiles(const std::string& cert_path, const std::string& key_path) {
  TlsFiles files;
  absl::StatusOr<std::string> cert_pem = ReadPem(cert_path, "--tls-cert");
  if (!cert_pem.ok()) return cert_pem.status();
  absl::StatusOr<std::string> key_pem = ReadPem(key_path, "--tls-key");
  if (!key_pem.ok()) return key_pem.status();
  files.cert_chain_pem = *std::move(cert_pem);
  files.private_key_pem = *std::move(key_pem);

  ERR_clear_error();
  Bio cert_bio(
      BIO_new_mem_buf(files.cert_chain_pem.data(), static_cast<int>(files.cert_chain_pem.size())));
  Cert leaf(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  if (leaf == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls-cert ", cert_path, ": not a PEM certificate (", OpenSslReason(), ")"));
  }
  // A passphrase-protected key would make OpenSSL prompt on the terminal; the
  // callback refuses instead, so it fails like any other unreadable key.
  auto no_passphrase = [](char*, int, int, void*) { return -1; };
  Bio key_bio(BIO_new_mem_buf(files.private_key_pem.data(),
                              static_cast<int>(files.private_key_pem.size())));
  Pkey key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, no_passphrase, nullptr));
  if (key == nullptr) {
    std::string why = OpenSslReason();
    if (files.private_key_pem.find("PRIVATE KEY-----") == std::string::npos) {
      why = "no '-----BEGIN ... PRIVATE KEY-----' block";
    } else if (files.private_key_pem.find("ENCRYPTED") != std::string::npos) {
      why = "it is encrypted: hopmapd reads an unencrypted key, readable only by its user";
    }
    return absl::InvalidArgumentError(
        absl::StrCat("--tls-key ", key_path, ": not a usable PEM private key (", why, ")"));
  }
  if (X509_check_private_key(leaf.get(), key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat("--tls-key ", key_path,
                                                   ": does not match the certificate in ",
                                                   cert_path, " (the first one in the file)"));
  }

  Bio out(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(out.get(), X509_get_subject_name(leaf.get()), 0, XN_FLAG_RFC2253);
  files.subject = Text(out.get());
  Bio after(BIO_new(BIO_s_mem()));
  ASN1_TIME_print(after.get(), X509_get0_notAfter(leaf.get()));
  files.not_after = Text(after.get());
  if (X509_cmp_current_time(X509_get0_notAfter(leaf.get())) < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--tls-cert ", cert_path, ": expired on ", files.not_after, "; clients would refuse it"));
  }
  if (X509_cmp_current_time(X509_get0_notBefore(leaf.get())) > 0) {
    Bio before(BIO_new(BIO_s_mem()));
    ASN1_TIME_print(before.get(), X509_get0_notBefore(leaf.get()));
    return absl::FailedPreconditionError(absl::StrCat("--tls-cert ", cert_path,
                                                      ": not valid before ", Text(before.get()),
                                                      "; clients would refuse it"));
  }
  return files;
}

}  // namespace hopmap::server
