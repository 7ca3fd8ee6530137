//go:build rocksdb && cgo

// What the linked librocksdb says of itself, through its C++ API: the C API has no version call.
// Each function returns a string malloc'ed for the caller to free.

#include <cstdlib>
#include <cstring>
#include <string>

#include <rocksdb/convenience.h>
#include <rocksdb/version.h>

static char *eb_strdup(const std::string &s) {
	char *p = static_cast<char *>(std::malloc(s.size() + 1));
	if (p != nullptr) std::memcpy(p, s.c_str(), s.size() + 1);
	return p;
}

extern "C" {

// eb_rocksdb_version returns the library's version, e.g. "7.8.3".
char *eb_rocksdb_version(void) { return eb_strdup(ROCKSDB_NAMESPACE::GetRocksVersionAsString(true)); }

// eb_rocksdb_compressions returns the compressions the library was built with, by RocksDB's
// names (kSnappyCompression ...), space-separated, no compression left out.
char *eb_rocksdb_compressions(void) {
	std::string out;
	for (auto c : ROCKSDB_NAMESPACE::GetSupportedCompressions()) {
		std::string name;
		if (c == ROCKSDB_NAMESPACE::kNoCompression ||
		    !ROCKSDB_NAMESPACE::GetStringFromCompressionType(&name, c).ok())
			continue;
		if (!out.empty()) out += ' ';
		out += name;
	}
	return eb_strdup(out);
}

}  // extern "C"
