// SHA-256 of files and byte strings, through OpenSSL's libcrypto (EVP API).
//
// Why SHA-256 and not the FNV-1a of plan.h: manifest.json records a digest of
// every exported file so that a truncated or altered libmodel.so is refused
// before dlopen (runtime/export_check.h); a cryptographic digest catches any
// change, whatever its position or size. Compiler-free (libcrypto only).
#pragma once

#include <cstddef>
#include <string>

namespace tetune::rt {

/** Lower-case hex SHA-256 (64 characters) of n bytes at data. Raises Error if libcrypto fails. */
std::string sha256_hex(const void *data, size_t n);

/**
 * Lower-case hex SHA-256 of the file at path, read in 1 MiB chunks (the file
 * is never held in memory whole). *bytes, when given, receives its size.
 * Raises ParseError naming the path when it is missing or cannot be read.
 */
std::string sha256_file_hex(const std::string &path, long long *bytes = nullptr);

}  // namespace tetune::rt
