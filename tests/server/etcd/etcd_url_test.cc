#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/etcd/etcd_catalog.h"

namespace hopmap::server {
namespace {

using ::testing::HasSubstr;

TEST(EtcdUrlTest, SplitsAddressAndPrefix) {
  absl::StatusOr<EtcdUrl> url = ParseEtcdUrl("etcd://10.0.0.5:2379/hopmap/site-a/");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->address, "10.0.0.5:2379");
  EXPECT_EQ(url->prefix, "/hopmap/site-a");
  url = ParseEtcdUrl("etcd://etcd.example.org:2379/h");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->address, "etcd.example.org:2379");
}

TEST(EtcdUrlTest, BadUrlsSayWhatIsMissing) {
  const struct {
    std::string url, message;
  } cases[] = {
      {"http://127.0.0.1:2379/h", "not an etcd:// URL"},
      {"etcd://127.0.0.1:2379", "no PREFIX"},
      {"etcd:///hopmap", "no HOST:PORT"},
      {"etcd://127.0.0.1/hopmap", "no port"},
      {"etcd://127.0.0.1:2379/", "no PREFIX"},
      {"etcd://127.0.0.1:2379/a b", "PREFIX has a character"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<EtcdUrl> url = ParseEtcdUrl(c.url);
    ASSERT_FALSE(url.ok()) << c.url;
    EXPECT_THAT(std::string(url.status().message()), HasSubstr(c.message)) << c.url;
    EXPECT_THAT(std::string(url.status().message()), HasSubstr("etcd://HOST:PORT/PREFIX"));
  }
}

}  // namespace
}  // namespace hopmap::server
