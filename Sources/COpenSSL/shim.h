// Debian's libcrypto (OpenSSL 3): the digests, HMAC and Ed25519 pkgctl needs (Sources/PkgCrypto).
#include <openssl/evp.h>
#include <openssl/rand.h>
