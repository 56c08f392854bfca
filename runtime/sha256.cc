#include "runtime/sha256.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "base/errors.h"

namespace tetune::rt {

namespace {

struct CtxFree {
  void operator()(EVP_MD_CTX *c) const { EVP_MD_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_MD_CTX, CtxFree>;

Ctx new_ctx() {
  Ctx c(EVP_MD_CTX_new());
  if (!c || EVP_DigestInit_ex(c.get(), EVP_sha256(), nullptr) != 1) throw Error("SHA-256: libcrypto could not start a digest");
  return c;
}

std::string finish_hex(EVP_MD_CTX *c) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(c, md, &len) != 1) throw Error("SHA-256: libcrypto could not finish a digest");
  static const char *hex = "0123456789abcdef";
  std::string r;
  for (unsigned int i = 0; i < len; i++) r += hex[md[i] >> 4], r += hex[md[i] & 15];
  return r;
}

}  // namespace

std::string sha256_hex(const void *data, size_t n) {
  Ctx c = new_ctx();
  if (EVP_DigestUpdate(c.get(), data, n) != 1) throw Error("SHA-256: libcrypto could not hash " + std::to_string(n) + " bytes");
  return finish_hex(c.get());
}

std::string sha256_file_hex(const std::string &path, long long *bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw ParseError(path + ": file is missing (re-run `tetune compile`)");
  if (!S_ISREG(st.st_mode)) throw ParseError(path + ": not a regular file");
  std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw ParseError(path + ": cannot open file: " + std::strerror(errno));
  Ctx c = new_ctx();
  std::vector<unsigned char> buf(1 << 20);
  long long total = 0;
  for (;;) {
    size_t got = std::fread(buf.data(), 1, buf.size(), f.get());
    if (got > 0 && EVP_DigestUpdate(c.get(), buf.data(), got) != 1) throw Error("SHA-256: libcrypto could not hash " + path);
    total += static_cast<long long>(got);
    if (got < buf.size()) break;
  }
  if (std::ferror(f.get())) throw ParseError(path + ": read error: " + std::strerror(errno));
  if (bytes) *bytes = total;
  return finish_hex(c.get());
}

}  // namespace tetune::rt
