// OpenSSL 3 marks the one-call SHA-256 functions deprecated in favour of EVP; they stay, and their
// context is a plain struct, so a Swift value copies a running hash.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
